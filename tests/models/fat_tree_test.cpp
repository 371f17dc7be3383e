// Tests of the fat-tree families (k-ary n-tree and rail-optimized): structure and numbering,
// every up/down path within the diameter, destination-based and adaptive up ports, acyclic
// channel dependencies and input errors.
#include "models/topologies/fat_tree/fat_tree.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "support/input_error.h"
#include "support/channel_graph_checks.h"
#include "support/topology_checks.h"

namespace hx::net {
namespace {

using hx::testing::error_of;
using Settings = std::vector<std::pair<std::string, std::string>>;

Network build(const TopologyFamily& family, const Settings& settings) {
  Config config;
  for (const auto& [key, value] : settings) config.set(family.name + "." + key, value, "test");
  return family.make(resolve_section(config, family.name, family.params, SimTime::ns(1)));
}
Network tree(const std::string& k, const std::string& n, const std::string& routing = "updown") {
  return build(fat_tree_family(), {{"k", k}, {"n", n}, {"routing", routing}});
}
Network rails(uint32_t nodes, uint32_t gpus, uint32_t per_leaf, uint32_t spines, uint32_t links,
              const std::string& routing = "updown") {
  return build(rail_optimized_family(), {{"nodes", std::to_string(nodes)},
                                         {"gpus_per_node", std::to_string(gpus)},
                                         {"nodes_per_leaf", std::to_string(per_leaf)},
                                         {"spines", std::to_string(spines)},
                                         {"spine_links", std::to_string(links)},
                                         {"routing", routing}});
}

std::set<uint32_t> hop_counts(const Network& net, uint32_t src, uint32_t dst) {
  std::set<uint32_t> hops;
  ExploreVisitor visitor;
  visitor.on_delivered = [&](uint32_t h) { hops.insert(h); };
  explore_routes(*net.topology, *net.routing, 1, src, dst, 16, visitor);
  return hops;
}

// The routers whose output channels some path from any of `sources` to `dst` takes.
std::set<uint32_t> routers_used(const Network& net, const std::vector<uint32_t>& sources,
                                uint32_t dst) {
  const Topology& t = *net.topology;
  std::vector<uint32_t> owner(t.num_links());
  std::vector<PortSpec> ports;
  for (ComponentId id = 0; id < t.num_components(); ++id) {
    ports.clear();
    t.ports(id, ports);
    for (PortId p = 0; p < ports.size(); ++p) owner[t.first_link(id) + p] = id;
  }
  std::set<uint32_t> used;
  ExploreVisitor visitor;
  visitor.on_dependency = [&](ChannelId, ChannelId to, bool) {
    used.insert(t.node(owner[to]).index);
  };
  for (uint32_t s : sources) explore_routes(t, *net.routing, 1, s, dst, 16, visitor);
  return used;
}

void check_network(const Network& net, uint32_t max_hops) {
  const Topology& t = *net.topology;
  const Routing& r = *net.routing;
  SCOPED_TRACE(t.describe() + " " + r.name());
  EXPECT_EQ(r.vcs(), 1u);
  ASSERT_NO_FATAL_FAILURE(testing::check_structure(t));
  EXPECT_EQ(testing::check_all_routes(t, r, r.vcs(), max_hops), t.diameter());
  testing::check_all_routes(t, r, 3, max_hops);  // routers with more VCs: any VC from endpoints
  EXPECT_TRUE(testing::dependencies_acyclic(t, r, r.vcs()));
}

TEST(FatTree, SizesAndNumbering) {
  const Network net = tree("4", "3");
  const Topology& t = *net.topology;
  EXPECT_EQ(t.num_endpoints(), 64u);
  EXPECT_EQ(t.num_routers(), 48u);
  EXPECT_EQ(t.describe(), "fat_tree k=4 n=3: 64 endpoints, 48 switches");
  EXPECT_EQ(t.diameter(), 4u);
  EXPECT_EQ(t.num_links(), 64u * 2 + 2 * 64 * 2);  // terminal links, then two switch levels
  EXPECT_EQ(t.endpoint_dims(), (std::vector<uint32_t>{4, 4, 4}));
  EXPECT_EQ(t.num_endpoint_groups(), 16u);
  EXPECT_EQ(t.endpoint_group_range(3).first, 12u);
  ASSERT_EQ(t.link_classes().size(), 3u);
  EXPECT_EQ(t.link_classes()[2].name, "level2");
  EXPECT_EQ(t.link_classes()[1].latency, SimTime::ns(10));
  const auto levels = t.group_levels();
  ASSERT_EQ(levels.size(), 2u);
  EXPECT_EQ(levels[0].count, 8u);  // 4 pods, 4 groups of top switches
  EXPECT_EQ(levels[1].count, 48u);
  // Pod 0: leaves 0..3 with their endpoints (20 components), then 4 level-1 switches.
  EXPECT_EQ(t.group_range(0, 0).end, 24u);
  EXPECT_EQ(t.group_range(0, 4).begin, 96u);
  EXPECT_EQ(t.group_range(1, 0).size(), 5u);
  EXPECT_EQ(t.endpoint_component(5), 7u);
  EXPECT_EQ(t.endpoint_router(5), 1u);
  EXPECT_EQ(t.router_component(4), 20u);   // the pod's first level-1 switch
  EXPECT_EQ(t.router_component(32), 96u);  // the first top switch
  std::vector<PortSpec> ports;
  t.ports(t.router_component(32), ports);
  EXPECT_EQ(ports.size(), 4u);  // the top level has no up ports
}

TEST(FatTree, EveryPathArrivesWithinTheDiameter) {
  for (const auto& [k, n] : std::vector<std::pair<std::string, std::string>>{{"2", "1"},
                                                                             {"4", "1"},
                                                                             {"2", "2"},
                                                                             {"3", "2"},
                                                                             {"2", "3"},
                                                                             {"4", "3"},
                                                                             {"3", "3"},
                                                                             {"2", "4"}}) {
    for (const std::string routing : {"updown", "updown_adaptive"}) {
      const Network net = tree(k, n, routing);
      EXPECT_EQ(net.routing->name(), routing);
      ASSERT_NO_FATAL_FAILURE(check_network(net, net.topology->diameter()));
    }
  }
}

TEST(FatTree, HopCounts) {
  const Network net = tree("4", "3");
  EXPECT_EQ(hop_counts(net, 0, 1), std::set<uint32_t>{0});   // same leaf
  EXPECT_EQ(hop_counts(net, 0, 4), std::set<uint32_t>{2});   // same pod
  EXPECT_EQ(hop_counts(net, 0, 16), std::set<uint32_t>{4});  // another pod
  EXPECT_EQ(hop_counts(net, 63, 0), std::set<uint32_t>{4});
}

TEST(FatTree, UpPortsDependOnTheDestination) {
  // Top switches are routers 32..47. Every source reaches endpoint 37 through one of them,
  // switch 32 + 37 mod 16; the adaptive routing can use all 16.
  const Network fixed = tree("4", "3");
  std::vector<uint32_t> sources;
  for (uint32_t s = 0; s < 64; ++s) {
    if (s / 16 != 37 / 16) sources.push_back(s);
  }
  std::set<uint32_t> tops;
  for (uint32_t r : routers_used(fixed, sources, 37)) {
    if (r >= 32) tops.insert(r);
  }
  EXPECT_EQ(tops, std::set<uint32_t>{32 + 37 % 16});

  const Network adaptive = tree("4", "3", "updown_adaptive");
  tops.clear();
  for (uint32_t r : routers_used(adaptive, {0}, 37)) {
    if (r >= 32) tops.insert(r);
  }
  EXPECT_EQ(tops.size(), 16u);
  // The destination-based port comes first.
  Packet packet;
  packet.dst = 37;
  Candidates out;
  adaptive.routing->route(0, 0, packet, out);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].port, 4u + 37 % 4);
}

TEST(FatTree, DefaultAndLargeConfigs) {
  const Network net = build(fat_tree_family(), {});
  EXPECT_EQ(net.topology->describe(), "fat_tree k=8 n=3: 512 endpoints, 192 switches");
  ASSERT_NO_FATAL_FAILURE(testing::check_structure(*net.topology));
  // 64-ary 3-tree: 262144 endpoints, nothing built per component.
  const Network large = tree("64", "3", "updown_adaptive");
  const Topology& t = *large.topology;
  std::vector<PortSpec> ports;
  const ComponentId last = t.num_components() - 1;
  t.ports(last, ports);
  EXPECT_EQ(t.first_link(last) + ports.size(), t.num_links());
  EXPECT_EQ(hop_counts(large, 0, 262143), std::set<uint32_t>{4});
  EXPECT_EQ(hop_counts(large, 5, 70), std::set<uint32_t>{2});
}

TEST(FatTree, InputErrorsNameTheKey) {
  std::string message = error_of([] { build(fat_tree_family(), {{"link_latency", "0ns"}}); });
  EXPECT_CONTAINS(message, "fat_tree.link_latency");
  message = error_of([] { build(fat_tree_family(), {{"k", "1"}}); });
  EXPECT_CONTAINS(message, "fat_tree.k");
  message = error_of([] { build(fat_tree_family(), {{"n", "6"}}); });
  EXPECT_CONTAINS(message, "fat_tree.n");
  EXPECT_EQ(error_of([] { build(fat_tree_family(), {}); }), "");
}

TEST(RailOptimized, SizesAndNumbering) {
  const Network net = rails(4, 2, 2, 3, 1);
  const Topology& t = *net.topology;
  EXPECT_EQ(t.num_endpoints(), 8u);
  EXPECT_EQ(t.num_routers(), 7u);  // 2 blocks x 2 rails, 3 spines
  EXPECT_EQ(t.describe(),
            "rail_optimized nodes=4 gpus_per_node=2 nodes_per_leaf=2 spines=3: 8 endpoints, "
            "4 leaves, 3 spines");
  EXPECT_EQ(t.diameter(), 2u);
  EXPECT_EQ(t.num_links(), 4u * (2 * 2 + 3) + 3 * 4);
  EXPECT_EQ(t.endpoint_dims(), (std::vector<uint32_t>{2, 2, 2}));
  EXPECT_EQ(t.num_endpoint_groups(), 4u);  // nodes
  EXPECT_EQ(t.endpoint_group(5), 2u);
  EXPECT_EQ(t.group_levels()[0].count, 2u + 3u);
  // GPU r of node d is endpoint 2d + r; rail leaf (block, r) is router 2 * block + r.
  EXPECT_EQ(t.endpoint_router(0), 0u);
  EXPECT_EQ(t.endpoint_router(1), 1u);
  EXPECT_EQ(t.endpoint_router(2), 0u);
  EXPECT_EQ(t.endpoint_router(5), 3u);
  EXPECT_EQ(t.endpoint_component(2), 2u);  // leaf 0 is component 0, node 1 its second GPU
  std::vector<PortSpec> ports;
  t.ports(t.router_component(0), ports);
  EXPECT_EQ(ports.size(), 2u + 3u);
  t.ports(t.router_component(4), ports);  // appended: spine 0 follows
  EXPECT_EQ(ports.size(), 5u + 4u);
}

TEST(RailOptimized, EveryPathArrivesWithinTheDiameter) {
  struct Shape {
    uint32_t nodes, gpus, per_leaf, spines, links;
  };
  for (const Shape& s : std::vector<Shape>{
           {4, 2, 2, 3, 1}, {6, 3, 3, 2, 2}, {2, 1, 2, 1, 1}, {3, 4, 1, 2, 1}, {8, 2, 4, 5, 3}}) {
    for (const std::string routing : {"updown", "updown_adaptive"}) {
      ASSERT_NO_FATAL_FAILURE(
          check_network(rails(s.nodes, s.gpus, s.per_leaf, s.spines, s.links, routing), 2));
    }
  }
}

TEST(RailOptimized, DefaultConfig) {
  const Network net = build(rail_optimized_family(), {});
  const Topology& t = *net.topology;
  EXPECT_EQ(t.describe(),
            "rail_optimized nodes=128 gpus_per_node=8 nodes_per_leaf=32 spines=16: 1024 "
            "endpoints, 32 leaves, 16 spines");
  ASSERT_NO_FATAL_FAILURE(testing::check_structure(t));
  std::vector<PortSpec> ports;
  t.ports(t.router_component(0), ports);
  EXPECT_EQ(ports.size(), 64u);  // 32 GPUs, 16 spines x 2 links
  ports.clear();
  t.ports(t.router_component(32), ports);
  EXPECT_EQ(ports.size(), 64u);  // 32 leaves x 2 links
  for (uint32_t dst = 1; dst < t.num_endpoints(); dst += 37) {
    EXPECT_EQ(*hop_counts(net, 0, dst).rbegin(), t.endpoint_router(dst) == 0 ? 0u : 2u);
  }
}

TEST(RailOptimized, RailsMeetOnlyAtSpines) {
  const Network net = rails(4, 2, 2, 3, 1);
  EXPECT_EQ(hop_counts(net, 0, 2), std::set<uint32_t>{0});  // rail 0, nodes 0 and 1: one leaf
  EXPECT_EQ(hop_counts(net, 0, 1), std::set<uint32_t>{2});  // two GPUs of node 0: via a spine
  EXPECT_EQ(hop_counts(net, 0, 4), std::set<uint32_t>{2});  // rail 0, another block
}

TEST(RailOptimized, SpineChoiceDependsOnTheDestination) {
  // 2 blocks x 2 rails = 4 leaves (routers 0..3); spines are routers 4..6, 2 links each.
  const Network fixed = rails(4, 2, 2, 3, 2);
  std::vector<uint32_t> sources;
  for (uint32_t s = 0; s < 8; ++s) {
    if (s != 3) sources.push_back(s);
  }
  std::set<uint32_t> spines;
  for (uint32_t r : routers_used(fixed, sources, 3)) {
    if (r >= 4) spines.insert(r);
  }
  EXPECT_EQ(spines.size(), 1u);
  const Network adaptive = rails(4, 2, 2, 3, 2, "updown_adaptive");
  Packet packet;
  packet.dst = 3;  // node 1, rail 1: leaf 1, position 1
  Candidates out;
  adaptive.routing->route(0, 0, packet, out);
  EXPECT_EQ(out.size(), 6u);        // every up port
  EXPECT_EQ(out[0].port, 2u + 1u);  // position 1: spine 1, first link
  out.clear();
  adaptive.routing->route(5, 0, packet, out);  // spine 1: both links down to leaf 1
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].port, 2u);
  EXPECT_EQ(out[1].port, 3u);
  // More up ports than a candidate list holds: the first kCapacity.
  const Network wide = rails(2, 1, 1, 100, 1, "updown_adaptive");
  out.clear();
  packet.dst = 1;
  wide.routing->route(0, 0, packet, out);
  EXPECT_EQ(out.size(), Candidates::kCapacity);
  ASSERT_NO_FATAL_FAILURE(check_network(wide, 2));
}

TEST(RailOptimized, InputErrorsNameTheKey) {
  std::string message = error_of([] { rails(5, 8, 2, 4, 1); });
  EXPECT_CONTAINS(message, "rail_optimized.nodes = 5");
  EXPECT_CONTAINS(message, "nodes_per_leaf = 2");
  message = error_of([] { rails(4, 1, 4, 60000, 2); });
  EXPECT_CONTAINS(message, "rail_optimized.spines = 60000");
  message = error_of([] { rails(70000, 1, 1, 1, 1); });
  EXPECT_CONTAINS(message, "rail_optimized.nodes = 70000");
  message = error_of([] { build(rail_optimized_family(), {{"spine_latency", "0ns"}}); });
  EXPECT_CONTAINS(message, "rail_optimized.spine_latency");
  EXPECT_EQ(error_of([] { build(rail_optimized_family(), {}); }), "");
}

}  // namespace
}  // namespace hx::net
