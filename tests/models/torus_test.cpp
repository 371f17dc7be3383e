// The mesh and torus families: structure, every route within the diameter, exact counts and
// paths, the dateline VC switch, deadlock freedom (and its absence without the dateline), and
// input errors naming the key.
#include "models/topologies/torus/torus.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "core/error.h"
#include "support/input_error.h"
#include "support/channel_graph_checks.h"
#include "support/topology_checks.h"

namespace hx::net {
namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;
using hx::net::testing::check_all_routes;
using hx::net::testing::check_structure;
using hx::net::testing::dependencies_acyclic;
using hx::testing::error_of;

Network build(const TopologyFamily& family, const Settings& settings) {
  Config config;
  for (const auto& [key, value] : settings) config.set(family.name + "." + key, value, "test");
  return family.make(resolve_section(config, family.name, family.params, SimTime::ns(1)));
}

// Longest path from endpoint src to dst.
uint32_t hops(const Network& net, uint32_t src, uint32_t dst) {
  uint32_t longest = 0;
  ExploreVisitor visitor;
  visitor.on_delivered = [&](uint32_t h) { longest = std::max(longest, h); };
  explore_routes(*net.topology, *net.routing, net.routing->vcs(), src, dst, 64, visitor);
  return longest;
}

// The channel of the link from router `from` to router `to`, on `vc`.
ChannelId channel(const Topology& t, uint32_t from, uint32_t to, uint8_t vc, uint8_t vcs) {
  std::vector<PortSpec> ports;
  t.ports(t.router_component(from), ports);
  for (PortId p = 0; p < ports.size(); ++p) {
    if (ports[p].peer == t.router_component(to)) {
      return (t.first_link(t.router_component(from)) + p) * vcs + vc;
    }
  }
  ADD_FAILURE() << "no link from router " << from << " to " << to;
  return 0;
}

const std::vector<Settings> kMeshes = {
    {{"k", "2"}, {"n", "1"}},
    {{"k", "2"}, {"n", "3"}},
    {{"k", "3"}, {"n", "2"}, {"c", "2"}},
    {{"k", "4"}, {"n", "2"}},
    {{"k", "5"}, {"n", "1"}, {"c", "3"}},
    {{"k", "3"}, {"n", "3"}},
};
const std::vector<Settings> kTori = {
    {{"k", "3"}, {"n", "1"}}, {{"k", "4"}, {"n", "1"}, {"c", "2"}},
    {{"k", "4"}, {"n", "2"}}, {{"k", "5"}, {"n", "2"}, {"c", "2"}},
    {{"k", "6"}, {"n", "1"}}, {{"k", "3"}, {"n", "3"}},
    {{"k", "4"}, {"n", "3"}},
};

TEST(Mesh, StructureAndRoutes) {
  for (const Settings& s : kMeshes) {
    const Network net = build(mesh_family(), s);
    SCOPED_TRACE(net.topology->describe());
    check_structure(*net.topology);
    const uint32_t diameter = net.topology->diameter();
    EXPECT_EQ(check_all_routes(*net.topology, *net.routing, net.routing->vcs(), diameter),
              diameter);
    // Injection on any VC the router has.
    check_all_routes(*net.topology, *net.routing, net.routing->vcs() + 2, diameter);
    EXPECT_TRUE(dependencies_acyclic(*net.topology, *net.routing, net.routing->vcs()));
  }
}

TEST(Torus, StructureAndRoutes) {
  for (const Settings& base : kTori) {
    for (const char* routing : {"dor", "dor_no_dateline"}) {
      Settings s = base;
      s.push_back({"routing", routing});
      const Network net = build(torus_family(), s);
      SCOPED_TRACE(net.topology->describe() + " " + routing);
      check_structure(*net.topology);
      const uint32_t diameter = net.topology->diameter();
      EXPECT_EQ(check_all_routes(*net.topology, *net.routing, net.routing->vcs(), diameter),
                diameter);
      check_all_routes(*net.topology, *net.routing, net.routing->vcs() + 2, diameter);
      // With k = 3 no path takes two hops in one direction, so even 1 VC has no cycle.
      const bool k3 = s[0].second == "3";
      const bool cyclic = std::string(routing) == "dor_no_dateline" && !k3;
      EXPECT_EQ(static_cast<bool>(
                    dependencies_acyclic(*net.topology, *net.routing, net.routing->vcs())),
                !cyclic);
    }
  }
}

TEST(Mesh, CountsPortsAndPaths) {
  const Network net = build(mesh_family(), {{"k", "3"}, {"n", "2"}, {"c", "2"}});
  const Topology& t = *net.topology;
  EXPECT_EQ(t.num_routers(), 9u);
  EXPECT_EQ(t.num_endpoints(), 18u);
  EXPECT_EQ(t.num_components(), 27u);
  EXPECT_EQ(t.num_links(), 2u * 18 + 2u * 2 * 2 * 3);  // terminal + directed network links
  EXPECT_EQ(t.diameter(), 4u);
  EXPECT_EQ(net.routing->vcs(), 1);
  std::vector<PortSpec> ports;
  for (const auto& [router, expected] : {std::pair{0u, 4u}, {1u, 5u}, {4u, 6u}, {8u, 4u}}) {
    ports.clear();
    t.ports(t.router_component(router), ports);
    EXPECT_EQ(ports.size(), expected) << "router " << router;
  }
  EXPECT_EQ(t.endpoint_dims(), (std::vector<uint32_t>{2, 3, 3}));
  EXPECT_EQ(hops(net, 0, 17), 4u);  // router (0,0) to (2,2)
  EXPECT_EQ(hops(net, 2, 5), 1u);   // router 1 to 2
}

TEST(Torus, CountsGroupsAndPaths) {
  const Network net = build(torus_family(), {{"k", "4"}, {"n", "3"}});
  const Topology& t = *net.topology;
  EXPECT_EQ(t.num_routers(), 64u);
  EXPECT_EQ(t.num_endpoints(), 64u);
  EXPECT_EQ(t.num_links(), 64u * (6 + 2));
  EXPECT_EQ(t.diameter(), 6u);
  EXPECT_EQ(net.routing->vcs(), 2);
  EXPECT_EQ(t.endpoint_dims(), (std::vector<uint32_t>{4, 4, 4}));
  const auto levels = t.group_levels();
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[0].name, "plane");
  EXPECT_EQ(levels[0].count, 4u);
  EXPECT_EQ(levels[1].name, "row");
  EXPECT_EQ(levels[1].count, 16u);
  EXPECT_EQ(levels[2].name, "router");
  EXPECT_EQ(t.group_range(0, 1).begin, 32u);
  EXPECT_EQ(t.group_range(0, 1).end, 64u);
  EXPECT_EQ(hops(net, 0, 3), 1u);            // (0,0,0) to (3,0,0): one hop back over the wrap link
  EXPECT_EQ(hops(net, 0, 2 + 8), 4u);        // (0,0,0) to (2,2,0): ties go the + way
  EXPECT_EQ(hops(net, 1, 3 + 12 + 48), 4u);  // (1,0,0) to (3,3,3): 2 (a tie) + 1 + 1
}

// Router (3,0) to (1,1) on a 4x4 torus: over the wrap link 3 -> 0 and on to 1 on VC 1, then
// into dimension 1 on VC 0.
TEST(Torus, DatelineSwitchesToVcOneAndResetsPerDimension) {
  const Network net = build(torus_family(), {{"k", "4"}, {"n", "2"}});
  const Topology& t = *net.topology;
  std::vector<ChannelId> used;
  uint32_t delivered = 0;
  ExploreVisitor visitor;
  visitor.on_dependency = [&](ChannelId, ChannelId to, bool) { used.push_back(to); };
  visitor.on_delivered = [&](uint32_t h) { delivered = h; };
  explore_routes(t, *net.routing, 2, 3, 5, t.diameter(), visitor);
  EXPECT_EQ(delivered, 3u);
  const auto uses = [&](ChannelId c) { return std::count(used.begin(), used.end(), c) > 0; };
  EXPECT_TRUE(uses(channel(t, 3, 0, 1, 2)));
  EXPECT_TRUE(uses(channel(t, 0, 1, 1, 2)));
  EXPECT_TRUE(uses(channel(t, 1, 5, 0, 2)));
  EXPECT_FALSE(uses(channel(t, 3, 0, 0, 2)));
  EXPECT_FALSE(uses(channel(t, 0, 1, 0, 2)));
  EXPECT_FALSE(uses(channel(t, 1, 5, 1, 2)));
}

TEST(Torus, NoDatelineStaysOnVcZero) {
  const Network net =
      build(torus_family(), {{"k", "4"}, {"n", "2"}, {"routing", "dor_no_dateline"}});
  EXPECT_EQ(net.routing->vcs(), 1);
  EXPECT_EQ(net.routing->name(), "dor_no_dateline");
  EXPECT_EQ(hops(net, 3, 5), 3u);
}

TEST(Torus, BadParametersNameTheKey) {
  const auto torus = [](const Settings& s) { return error_of([&] { build(torus_family(), s); }); };
  const auto mesh = [](const Settings& s) { return error_of([&] { build(mesh_family(), s); }); };
  EXPECT_CONTAINS(torus({{"k", "2"}}), "torus.k = 2");
  EXPECT_CONTAINS(torus({{"k", "1000"}, {"n", "6"}}), "torus.k");
  EXPECT_CONTAINS(torus({{"n", "7"}}), "torus.n");
  EXPECT_CONTAINS(torus({{"c", "0"}}), "torus.c");
  EXPECT_CONTAINS(torus({{"link_latency", "0ns"}}), "torus.link_latency");
  EXPECT_CONTAINS(torus({{"routing", "valiant"}}), "torus.routing");
  EXPECT_CONTAINS(mesh({{"k", "1"}}), "mesh.k");
  EXPECT_CONTAINS(mesh({{"routing", "dor_no_dateline"}}), "mesh.routing");
  EXPECT_CONTAINS(mesh({{"terminal_speed", "0"}}), "mesh.terminal_speed");
  EXPECT_EQ(mesh({{"k", "2"}}), "");
}

}  // namespace
}  // namespace hx::net
