// The numbering most direct topologies share: router r is component r * (c + 1) and its c
// endpoints (concentration c) follow it, so a router and its endpoints form one contiguous group.
// Endpoint e is terminal e % c of router e / c; a router's ports 0 .. c-1 are its terminals and
// an endpoint's only port is port 0.
#pragma once

#include <cstdint>
#include <vector>

#include "models/network/topology.h"

namespace hx::net {

class ConcentratedTopology : public Topology {
 public:
  explicit ConcentratedTopology(uint32_t concentration) : c_(concentration) {}

  Node node(ComponentId id) const override {
    const uint32_t router = id / (c_ + 1), slot = id % (c_ + 1);
    if (slot == 0) return {NodeKind::kRouter, router};
    return {NodeKind::kEndpoint, router * c_ + slot - 1};
  }
  ComponentId router_component(uint32_t router) const override { return router * (c_ + 1); }
  ComponentId endpoint_component(uint32_t e) const override {
    return router_component(e / c_) + 1 + e % c_;
  }
  uint32_t endpoint_router(uint32_t endpoint) const override { return endpoint / c_; }

 protected:
  uint32_t concentration() const { return c_; }

  /// Terminal links: an endpoint's port 0, or a router's ports 0 .. c-1. Returns false for an
  /// endpoint (its ports are complete), true for a router (its network ports follow).
  bool terminal_ports(ComponentId id, const Node& n, SimTime latency, uint16_t link_class,
                      std::vector<PortSpec>& out) const {
    if (n.kind == NodeKind::kEndpoint) {
      out.push_back(
          {router_component(n.index / c_), static_cast<PortId>(n.index % c_), latency, link_class});
      return false;
    }
    for (uint32_t t = 0; t < c_; ++t) out.push_back({id + 1 + t, 0, latency, link_class});
    return true;
  }

 private:
  uint32_t c_;
};

}  // namespace hx::net
