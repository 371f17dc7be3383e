// Defaults of the routing interface.
#include "models/network/routing.h"

#include <stdexcept>
#include <string>

namespace hx::net {

void Candidates::overflow() {
  throw std::length_error("routing offered more than " + std::to_string(kCapacity) +
                          " candidates for one packet (Candidates::kCapacity)");
}

void Routing::start_states(uint32_t /*router*/, const RouterView* /*view*/, const Packet& packet,
                           std::vector<Packet>& out) const {
  out.push_back(packet);
}

}  // namespace hx::net
