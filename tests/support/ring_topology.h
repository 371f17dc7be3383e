// A tiny test network: R routers on a bidirectional ring, one endpoint each, and two routings
// that only ever go forward (to router r + 1): one on a single VC, whose channel dependencies
// close a cycle around the ring, and one with a dateline, which is acyclic. Small enough to count
// channels and dependencies by hand (channel_graph_test.cpp).
//
// Numbering follows topology.h: router r is component 2r and its endpoint 2r + 1; router ports
// are 0 (its endpoint), 1 (next router, r + 1) and 2 (previous router, r - 1); link ids are
// dense: router r's ports leave on links 4r .. 4r + 2 and its endpoint's port on link 4r + 3.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "models/verification/route_explorer.h"
#include "models/network/routing.h"
#include "models/network/topology.h"

namespace hx::net::testing {

class RingTopology final : public Topology {
 public:
  static constexpr PortId kEndpointPort = 0;
  static constexpr PortId kNextPort = 1;
  static constexpr PortId kPrevPort = 2;
  static constexpr uint16_t kTerminalClass = 0;
  static constexpr uint16_t kRingClass = 1;

  explicit RingTopology(uint32_t routers) : routers_(routers) {
    // Two routers would do, but then "next" and "previous" are the same neighbour.
    if (routers < 3) throw std::logic_error("RingTopology: needs at least 3 routers");
  }

  std::string describe() const override {
    return "ring R=" + std::to_string(routers_) + ": " + std::to_string(routers_) + " endpoints, " +
           std::to_string(routers_) + " routers";
  }
  uint32_t num_routers() const override { return routers_; }
  uint32_t num_endpoints() const override { return routers_; }
  Node node(ComponentId id) const override {
    return {id % 2 == 0 ? NodeKind::kRouter : NodeKind::kEndpoint, id / 2};
  }
  ComponentId router_component(uint32_t router) const override { return 2 * router; }
  ComponentId endpoint_component(uint32_t endpoint) const override { return 2 * endpoint + 1; }

  void ports(ComponentId id, std::vector<PortSpec>& out) const override {
    const uint32_t r = id / 2;
    if (id % 2 == 1) {
      out.push_back({router_component(r), kEndpointPort, kTerminalLatency, kTerminalClass});
      return;
    }
    out.push_back({endpoint_component(r), 0, kTerminalLatency, kTerminalClass});
    out.push_back({router_component(next(r)), kPrevPort, kRingLatency, kRingClass});
    out.push_back({router_component(prev(r)), kNextPort, kRingLatency, kRingClass});
  }
  uint64_t first_link(ComponentId id) const override {
    return 4 * static_cast<uint64_t>(id / 2) + (id % 2 == 0 ? 0 : 3);
  }
  uint64_t num_links() const override { return 4 * static_cast<uint64_t>(routers_); }

  std::vector<GroupLevel> group_levels() const override { return {{"router", routers_}}; }
  ComponentRange group_range(std::size_t /*level*/, uint64_t group) const override {
    const auto first = static_cast<ComponentId>(2 * group);
    return {first, first + 2};
  }
  const std::vector<LinkClass>& link_classes() const override { return classes_; }

  uint32_t num_endpoint_groups() const override { return 1; }
  uint32_t endpoint_group(uint32_t /*endpoint*/) const override { return 0; }
  EndpointRange endpoint_group_range(uint32_t /*group*/) const override { return {0, routers_}; }
  uint32_t endpoint_router(uint32_t endpoint) const override { return endpoint; }
  uint32_t diameter() const override { return routers_ / 2; }  // minimal: either direction

  uint32_t next(uint32_t router) const { return (router + 1) % routers_; }
  uint32_t prev(uint32_t router) const { return (router + routers_ - 1) % routers_; }

  /// The channel leaving `port` of router `router` on `vc`, for tests that name channels.
  static ChannelId channel(uint32_t router, PortId port, uint8_t vc, uint8_t vcs) {
    return (4 * static_cast<uint64_t>(router) + port) * vcs + vc;
  }

 private:
  static constexpr SimTime kTerminalLatency = SimTime::ns(1);
  static constexpr SimTime kRingLatency = SimTime::ns(10);

  uint32_t routers_;
  std::vector<LinkClass> classes_{{"terminal", kTerminalLatency, 1.0}, {"ring", kRingLatency, 1.0}};
};

/// Always forward on VC 0: every ring link waits for the next, around the ring (a cycle).
class RingNoDateline final : public Routing {
 public:
  std::string name() const override { return "ring_no_dateline"; }
  uint8_t vcs() const override { return 1; }
  void route(uint32_t router, PortId /*in_port*/, Packet& packet, Candidates& out) const override {
    if (router == packet.dst) {
      out.add(RingTopology::kEndpointPort, 0);
    } else {
      out.add(RingTopology::kNextPort, 0);
    }
  }
};

/// Always forward, on VC 0 until the packet crosses the wrap link (router R-1 to router 0) and
/// on VC 1 from there on. No packet crosses the wrap twice, so VC 1 never waits for the wrap
/// link's VC 1 and the dependencies are acyclic.
class RingDateline final : public Routing {
 public:
  explicit RingDateline(uint32_t routers) : routers_(routers) {}
  std::string name() const override { return "ring_dateline"; }
  uint8_t vcs() const override { return 2; }
  void route(uint32_t router, PortId in_port, Packet& packet, Candidates& out) const override {
    if (router == packet.dst) {
      out.add(RingTopology::kEndpointPort, 0);
      return;
    }
    // Freshly injected packets may arrive on any VC; they have crossed nothing yet.
    uint8_t vc = in_port == RingTopology::kEndpointPort ? 0 : packet.vc;
    if (router == routers_ - 1) vc = 1;
    out.add(RingTopology::kNextPort, vc);
  }

 private:
  uint32_t routers_;
};

}  // namespace hx::net::testing
