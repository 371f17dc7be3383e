// Checks every topology and routing test runs: links are symmetric and densely numbered, node
// numbering is consistent, and every path of the routing delivers within a hop bound.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "models/verification/route_explorer.h"
#include "models/network/topology.h"

namespace hx::net::testing {

/// Node numbering round-trips; every link's far end points back with the same latency and
/// class; directed link ids cover [0, num_links()) exactly once; groups tile the ids.
inline void check_structure(const Topology& t) {
  std::vector<uint8_t> link_seen(t.num_links(), 0);
  std::vector<PortSpec> ports, back;
  for (ComponentId id = 0; id < t.num_components(); ++id) {
    const Node n = t.node(id);
    if (n.kind == NodeKind::kRouter) {
      ASSERT_LT(n.index, t.num_routers());
      ASSERT_EQ(t.router_component(n.index), id);
    } else {
      ASSERT_LT(n.index, t.num_endpoints());
      ASSERT_EQ(t.endpoint_component(n.index), id);
    }
    ports.clear();
    t.ports(id, ports);
    if (n.kind == NodeKind::kEndpoint) {
      ASSERT_FALSE(ports.empty()) << "endpoint " << n.index << " has no port";
      ASSERT_EQ(t.node(ports[0].peer).index, t.endpoint_router(n.index));
    }
    for (PortId p = 0; p < ports.size(); ++p) {
      const PortSpec& s = ports[p];
      ASSERT_LT(s.peer, t.num_components()) << "component " << id << " port " << p;
      ASSERT_NE(s.peer, id) << "component " << id << " port " << p << " loops back";
      ASSERT_LT(s.link_class, t.link_classes().size());
      ASSERT_GT(s.latency, SimTime::zero());
      if (n.kind == NodeKind::kEndpoint) {
        ASSERT_EQ(t.node(s.peer).kind, NodeKind::kRouter) << "endpoint-to-endpoint link";
      }
      back.clear();
      t.ports(s.peer, back);
      ASSERT_LT(s.peer_port, back.size()) << "component " << id << " port " << p;
      const PortSpec& r = back[s.peer_port];
      ASSERT_EQ(r.peer, id) << "component " << id << " port " << p << " is not symmetric";
      ASSERT_EQ(r.peer_port, p) << "component " << id << " port " << p;
      ASSERT_EQ(r.latency, s.latency);
      ASSERT_EQ(r.link_class, s.link_class);
      const uint64_t link = t.first_link(id) + p;
      ASSERT_LT(link, t.num_links());
      ASSERT_EQ(link_seen[link], 0) << "link id " << link << " used twice";
      link_seen[link] = 1;
    }
  }
  ASSERT_TRUE(std::all_of(link_seen.begin(), link_seen.end(), [](uint8_t s) { return s == 1; }))
      << "link ids are not dense";

  const auto levels = t.group_levels();
  for (std::size_t level = 0; level < levels.size(); ++level) {
    ComponentId next = 0;
    for (uint64_t g = 0; g < levels[level].count; ++g) {
      const ComponentRange r = t.group_range(level, g);
      ASSERT_EQ(r.begin, next) << "level " << levels[level].name << " group " << g;
      ASSERT_GT(r.end, r.begin);
      next = r.end;
    }
    ASSERT_EQ(next, t.num_components()) << "level " << levels[level].name;
  }

  uint64_t product = 1;
  for (uint32_t d : t.endpoint_dims()) product *= d;
  ASSERT_EQ(product, t.num_endpoints());
  uint32_t next_endpoint = 0;
  for (uint32_t g = 0; g < t.num_endpoint_groups(); ++g) {
    const Topology::EndpointRange r = t.endpoint_group_range(g);
    ASSERT_EQ(r.first, next_endpoint) << "endpoint group " << g;
    ASSERT_GT(r.last, r.first) << "endpoint group " << g;
    for (uint32_t e = r.first; e < r.last; ++e) ASSERT_EQ(t.endpoint_group(e), g);
    next_endpoint = r.last;
  }
  ASSERT_EQ(next_endpoint, t.num_endpoints());
}

/// Every path from every source to every other destination arrives, with at most `max_hops`
/// router-to-router hops. Returns the longest path seen.
inline uint32_t check_all_routes(const Topology& t, const Routing& routing, uint8_t vcs,
                                 uint32_t max_hops) {
  uint32_t longest = 0;
  ExploreVisitor visitor;
  visitor.on_delivered = [&](uint32_t hops) { longest = std::max(longest, hops); };
  for (uint32_t s = 0; s < t.num_endpoints(); ++s) {
    for (uint32_t d = 0; d < t.num_endpoints(); ++d) {
      if (s == d) continue;
      try {
        explore_routes(t, routing, vcs, s, d, max_hops, visitor);
      } catch (const std::exception& e) {
        ADD_FAILURE() << routing.name() << ": " << e.what();
        return longest;
      }
    }
  }
  return longest;
}

}  // namespace hx::net::testing
