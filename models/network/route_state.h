// A packet's routing state at a router as a hashable key: everything Routing::route() may read
// or change, so that explorations of a routing's paths visit each state once.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/ids.h"
#include "models/network/packet.h"

namespace hx::net {

struct RouteStateKey {
  uint32_t router, intermediate, route_data;
  PortId in_port;
  uint8_t vc;
  uint16_t hops;
  uint8_t phase, flags, route_aux;

  RouteStateKey(uint32_t at, PortId in, const Packet& p)
      : router(at), intermediate(p.intermediate), route_data(p.route_data), in_port(in),
        vc(p.vc), hops(p.hops), phase(p.phase), flags(p.flags), route_aux(p.route_aux) {}
  bool operator==(const RouteStateKey&) const = default;
};

struct RouteStateKeyHash {
  std::size_t operator()(const RouteStateKey& k) const {
    uint64_t h = (static_cast<uint64_t>(k.router) << 32) ^ k.intermediate;
    h = h * 0x9E3779B97F4A7C15ULL ^
        (static_cast<uint64_t>(k.in_port) << 48 | static_cast<uint64_t>(k.vc) << 40 |
         static_cast<uint64_t>(k.route_aux) << 32 | static_cast<uint64_t>(k.hops) << 16 |
         k.phase << 8 | k.flags);
    h = (h ^ k.route_data) * 0x9E3779B97F4A7C15ULL;
    return static_cast<std::size_t>(h * 0xBF58476D1CE4E5B9ULL);
  }
};

}  // namespace hx::net
