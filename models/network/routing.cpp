// Defaults of the routing interface.
#include "models/network/routing.h"

namespace hx::net {

void Routing::start_states(uint32_t /*router*/, const Packet& packet,
                           std::vector<Packet>& out) const {
  out.push_back(packet);
}

}  // namespace hx::net
