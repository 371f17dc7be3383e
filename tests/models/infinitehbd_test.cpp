// Tests of the InfiniteHBD network model: every link symmetric and every route delivered within
// the diameter, acyclic channel graphs, TP rings folded through consecutive healthy nodes (each
// hop inside a node or between nodes at most K apart, closed by the end nodes' loopbacks), the
// DCN between rings, the ring order workloads map to, and input errors.
#include "models/topologies/infinitehbd/infinitehbd.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "models/topologies/infinitehbd/orchestration.h"
#include "models/topologies/infinitehbd/rings.h"
#include "models/verification/channel_graph.h"
#include "support/input_error.h"
#include "support/topology_checks.h"

namespace hx::net {
namespace {

using hx::testing::error_of;
using Settings = std::vector<std::pair<std::string, std::string>>;

Network build(const Settings& settings) {
  const TopologyFamily family = infinitehbd_family();
  Config config;
  for (const auto& [key, value] : settings) config.set("infinitehbd." + key, value, "test");
  return family.make(resolve_section(config, "infinitehbd", family.params, SimTime::ns(1)));
}

const std::vector<Settings> kShapes = {
    {{"nodes", "8"}, {"gpus_per_node", "4"}, {"k", "2"}, {"tp", "16"}},
    {{"nodes", "12"}, {"gpus_per_node", "4"}, {"k", "2"}, {"tp", "8"}, {"failed_nodes", "3, 7"}},
    {{"nodes", "6"}, {"gpus_per_node", "8"}, {"k", "3"}, {"tp", "24"}, {"failed_nodes", "1"}},
    {{"nodes", "5"}, {"gpus_per_node", "2"}, {"k", "1"}, {"tp", "2"}},
    // A two-tier fat-tree DCN: ToRs of 4 GPUs (one node) under 4 spines.
    {{"nodes", "8"}, {"gpus_per_node", "4"}, {"k", "2"}, {"tp", "8"}, {"dcn_radix", "8"}},
    {{"nodes", "8"}, {"gpus_per_node", "4"}, {"k", "2"}, {"tp", "8"}, {"dcn", "switch"}},
    // A second OCSTrx configuration around node 7 as well: both configurations' routes, and
    // the union of their channel graphs (routes start in either).
    {{"nodes", "12"},
     {"gpus_per_node", "4"},
     {"k", "2"},
     {"tp", "8"},
     {"failed_nodes", "3"},
     {"bypass_nodes", "7"}},
    // Appendix G's wiring: nodes 1, 2 and 4 apart, around the ends of a line of 8 and of 7.
    {{"nodes", "8"}, {"gpus_per_node", "4"}, {"k", "3"}, {"wiring", "binary"}, {"dcn", "none"}},
    {{"nodes", "7"}, {"gpus_per_node", "4"}, {"k", "3"}, {"wiring", "binary"}, {"dcn", "none"}},
};

TEST(InfiniteHbd, StructureRoutesAndChannelGraphs) {
  for (const Settings& s : kShapes) {
    SCOPED_TRACE(s[0].second + " nodes, R " + s[1].second + ", K " + s[2].second);
    const Network net = build(s);
    testing::check_structure(*net.topology);
    testing::check_all_routes(*net.topology, *net.routing, net.routing->vcs(),
                              net.topology->diameter());
    EXPECT_TRUE(check_channel_graph(*net.topology, *net.routing, net.routing->vcs()).acyclic);
  }
}

// 12 nodes of 4 GPUs, K = 2, TP 8 (2 nodes per ring), nodes 3 and 7 failed: Algorithm 2 keeps
// one run (each failed node is bridged by a 2-hop path), so the groups are {0,1} {2,4} {5,6}
// {8,9} {10,11}; the failed nodes loop back on themselves.
TEST(InfiniteHbd, RingsFoldThroughConsecutiveHealthyNodes) {
  const std::vector<std::vector<uint32_t>> groups =
      infinitehbd::orchestrate_dcn_free({12, 2, false}, {3, 7}, {8, 4}).groups;
  EXPECT_EQ(groups, (std::vector<std::vector<uint32_t>>{{0, 1}, {2, 4}, {5, 6}, {8, 9}, {10, 11}}));
  // K = 1 cannot bridge a failed node: {0,1} {2} | {4,5} {6} | {8,9} {10,11}.
  EXPECT_EQ(infinitehbd::orchestrate_dcn_free({12, 1, false}, {3, 7}, {8, 4}).groups,
            (std::vector<std::vector<uint32_t>>{{0, 1}, {4, 5}, {8, 9}, {10, 11}}));

  const infinitehbd::Rings rings(12, 4, groups);
  EXPECT_EQ(rings.count(), 7u);  // five TP rings, and nodes 3 and 7 on their own
  // Ring {2, 4}: node 2's upper GPUs, node 4's upper, node 4's lower, node 2's lower.
  const uint32_t ring = rings.ring(8);
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < rings.size(ring); ++i) order.push_back(rings.at(ring, i));
  EXPECT_EQ(order, (std::vector<uint32_t>{8, 9, 16, 17, 18, 19, 10, 11}));
  for (uint32_t g = 0; g < rings.gpus(); ++g) {
    EXPECT_EQ(rings.prev(rings.next(g)), g);
    const uint32_t a = g / 4, b = rings.next(g) / 4;
    EXPECT_LE(a > b ? a - b : b - a, 2u) << "GPU " << g << ": a hop over more than K nodes";
  }
  EXPECT_EQ(rings.size(rings.ring(12)), 4u);  // failed node 3 loops back on itself
}

// A configuration given as groups: exactly those rings, the rest loop back.
TEST(InfiniteHbd, GivenGroupsAreTheRings) {
  const Network net = build(
      {{"nodes", "8"}, {"gpus_per_node", "4"}, {"k", "2"}, {"tp", "8"}, {"groups", "6, 4; 1-2"}});
  const std::vector<uint32_t> order = net.topology->ring_order();
  // Ring {6, 4}: node 6's upper GPUs, node 4's upper and lower, node 6's lower.
  EXPECT_EQ(std::vector<uint32_t>(order.begin(), order.begin() + 8),
            (std::vector<uint32_t>{24, 25, 16, 17, 18, 19, 26, 27}));
  testing::check_structure(*net.topology);
  EXPECT_TRUE(check_channel_graph(*net.topology, *net.routing, net.routing->vcs()).acyclic);
}

// Within a ring a packet goes the shorter way; between rings through the DCN switch.
TEST(InfiniteHbd, RoutesStayOnTheRingOrCrossTheDcn) {
  const Network net = build(kShapes[1]);
  const Topology& t = *net.topology;
  EXPECT_EQ(t.num_routers(), 49u);  // 48 GPUs and the DCN switch
  const auto first_hop = [&](uint32_t src, uint32_t dst) {
    Packet p;
    p.src = src;
    p.dst = dst;
    Candidates out;
    net.routing->route(src, 0, p, out);
    return t.port(t.router_component(src), out[0].port);
  };
  EXPECT_EQ(t.node(first_hop(8, 9).peer).index, 9u);
  EXPECT_EQ(t.link_classes()[first_hop(9, 16).link_class].name, "optical");
  EXPECT_EQ(t.node(first_hop(8, 11).peer).index, 11u);  // backwards: 8's previous GPU
  EXPECT_EQ(t.node(first_hop(8, 0).peer).index, 48u);   // another ring: the DCN switch
  EXPECT_EQ(t.link_classes()[first_hop(8, 0).link_class].name, "dcn");
  const std::vector<uint32_t> order = t.ring_order();
  ASSERT_EQ(order.size(), 48u);
  EXPECT_EQ(std::vector<uint32_t>(order.begin(), order.begin() + 8),
            (std::vector<uint32_t>{0, 1, 4, 5, 6, 7, 2, 3}));
  EXPECT_EQ(std::set<uint32_t>(order.begin(), order.end()).size(), 48u);
}

// dcn = "none": the rings alone (any size); a route between rings is an input error.
TEST(InfiniteHbd, WithoutADcnOnlyRingsAreRouted) {
  const Network net =
      build({{"nodes", "6"}, {"gpus_per_node", "4"}, {"k", "2"}, {"tp", "8"}, {"dcn", "none"}});
  const Topology& t = *net.topology;
  testing::check_structure(t);
  EXPECT_EQ(t.num_routers(), 24u);
  EXPECT_EQ(t.num_links(), 96u);  // 3 router ports and an endpoint port per GPU
  Packet p;
  p.src = 0;
  p.dst = 5;  // node 1, the same ring as node 0
  Candidates out;
  net.routing->route(0, 0, p, out);
  EXPECT_EQ(out.size(), 1u);
  p.dst = 8;  // node 2: another ring
  out.clear();
  EXPECT_CONTAINS(error_of([&] { net.routing->route(0, 0, p, out); }),
                  "infinitehbd.dcn = \"none\": endpoints 0 and 8 are on different rings");
}

// Node 3 failed, node 7 bypassed: the placed rings are {0,1} {2,4} {5,6} {7,8} {9,10}, the bypass
// ones {0,1} {2,4} {5,6} {8,9} {10,11}. GPU 33 (node 8, upper half) ends node 8's run in the
// placed ring {7,8}, so its next GPU is 34 over the loopback; in the bypass ring {8,9} it is 36
// on node 9, over an OCSTrx path. Each configuration has its own ports (1-2 and 3-4; the NIC is
// 5), which are the circuits of element "ocstrx".
TEST(InfiniteHbd, TheBypassConfigurationReformsTheRingsOnPortsOfItsOwn) {
  const Network net = build(kShapes[kShapes.size() - 3]);
  const Topology& t = *net.topology;
  const std::vector<Reconfigurable> elements = t.reconfigurables();
  ASSERT_EQ(elements.size(), 1u);
  EXPECT_EQ(elements[0].name, "ocstrx");
  EXPECT_EQ(elements[0].configurations, (std::vector<std::string>{"placed", "bypass"}));
  EXPECT_EQ(elements[0].switching, SimTime::us(70));
  const ComponentId gpu33 = t.router_component(33);
  EXPECT_EQ(t.node(t.port(gpu33, 1).peer).index, 34u);
  EXPECT_EQ(t.node(t.port(gpu33, 3).peer).index, 36u);
  EXPECT_EQ(t.link_classes()[t.port(gpu33, 3).link_class].name, "optical");
  EXPECT_EQ(t.port(gpu33, 3).peer_port, 4);  // 36's previous GPU in the bypass ring
  Circuit c;
  ASSERT_TRUE(t.circuit(gpu33, 3, c));
  EXPECT_EQ(c.configuration, 1u);
  ASSERT_TRUE(t.circuit(gpu33, 2, c));
  EXPECT_EQ(c.configuration, 0u);
  EXPECT_FALSE(t.circuit(gpu33, 0, c));  // the endpoint
  EXPECT_FALSE(t.circuit(gpu33, 5, c));  // the NIC
  // 33 to 36: through the DCN while the placed rings are live, round the bypass ring after.
  Packet p;
  p.src = 33;
  p.dst = 36;
  for (const auto& [config, port] : {std::pair<uint8_t, PortId>{0, 5}, {1, 3}}) {
    p.route_aux = config;
    Candidates out;
    net.routing->route(33, 0, p, out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].port, port) << "configuration " << int{config};
  }
}

// Appendix G's wiring on 8 nodes of 4 GPUs, K = 3: GPU g < 3 of node i reaches GPU g of nodes
// i +- 2^g (node 0's GPU 0: nodes 1 and 7; GPU 2: node 4 both ways), GPU 3 only its node.
// Node 0's GPU 0 to node 3's GPU 1: 3 = 2 + 1 forward, so first a mesh hop to GPU 1 for its
// 2-apart bundle, on VC 0; to node 6's GPU 0: 2 back across the wrap, a mesh hop to GPU 1 on
// VC 2 (backward), then the bundle on VC 3 (past the wrap).
TEST(InfiniteHbd, TheBinaryWiringLinksNodesPowersOfTwoApart) {
  const Network net = build(kShapes[kShapes.size() - 2]);
  const Topology& t = *net.topology;
  const auto peer = [&](uint32_t gpu, PortId p) { return t.node(t.port(2 * gpu, p).peer).index; };
  std::vector<PortSpec> ports;
  t.ports(t.router_component(0), ports);
  EXPECT_EQ(ports.size(), 6u);  // endpoint, 3 mesh, 2 optical
  EXPECT_EQ(peer(0, 1), 1u);    // the node's GPU 1
  EXPECT_EQ(peer(0, 4), 4u);    // node 1's GPU 0
  EXPECT_EQ(peer(0, 5), 28u);   // node 7's GPU 0
  EXPECT_EQ(peer(2, 4), 18u);   // node 4's GPU 2
  EXPECT_EQ(peer(2, 5), 18u);
  EXPECT_EQ(t.link_classes()[t.port(2 * 2, 4).link_class].name, "optical");
  ports.clear();
  t.ports(t.router_component(3), ports);
  EXPECT_EQ(ports.size(), 4u);  // no bundle
  const auto first = [&](uint32_t router, uint32_t dst, PortId in_port, uint8_t vc) {
    Packet p;
    p.src = 0;
    p.dst = dst;
    p.vc = vc;
    Candidates out;
    net.routing->route(router, in_port, p, out);
    EXPECT_EQ(out.size(), 1u);
    return std::pair<PortId, uint8_t>{out[0].port, out[0].vc};
  };
  EXPECT_EQ(first(0, 13, 0, 0), (std::pair<PortId, uint8_t>{1, 0}));
  EXPECT_EQ(first(1, 13, 3, 0), (std::pair<PortId, uint8_t>{4, 0}));  // GPU 1's bundle, +2
  EXPECT_EQ(first(0, 24, 0, 0), (std::pair<PortId, uint8_t>{1, 2}));
  EXPECT_EQ(first(1, 24, 3, 2), (std::pair<PortId, uint8_t>{5, 3}));  // -2 across the wrap
}

TEST(InfiniteHbd, InputErrors) {
  const auto error = [](const Settings& s) { return error_of([&] { build(s); }); };
  EXPECT_CONTAINS(error({{"gpus_per_node", "4"}, {"k", "5"}}), "infinitehbd.k = 5");
  EXPECT_CONTAINS(error({{"gpus_per_node", "3"}}), "expected an even count");
  EXPECT_CONTAINS(error({{"gpus_per_node", "4"}, {"tp", "6"}}), "a multiple of gpus_per_node");
  EXPECT_CONTAINS(error({{"nodes", "2"}, {"tp", "16"}}), "at most nodes x gpus_per_node = 8");
  EXPECT_CONTAINS(error({{"nodes", "4"}, {"failed_nodes", "1, 4"}}), "'4' is not a node");
  EXPECT_CONTAINS(error({{"failed_nodes", "x"}}), "'x' is not a node");
  // A given configuration must use existing, healthy paths.
  const Settings base = {
      {"nodes", "8"}, {"gpus_per_node", "4"}, {"k", "2"}, {"tp", "8"}, {"failed_nodes", "2"}};
  const auto with = [&](const std::string& groups) {
    Settings s = base;
    s.push_back({"groups", groups});
    return error(s);
  };
  EXPECT_EQ(with("0-1; 3, 4; 6-7"), "");
  EXPECT_CONTAINS(with("0, 3"), "joins nodes 0 and 3, which no OCSTrx path links (k = 2)");
  EXPECT_CONTAINS(with("1-2"), "uses failed node 2");
  EXPECT_CONTAINS(with("0-1; 1, 3"), "uses node 1 a second time");
  EXPECT_CONTAINS(with("0-2"), "has 3 nodes; tp = 8 takes 2");
  EXPECT_CONTAINS(with("0, 9"), "'9' is not a node");
  // The binary wiring.
  const Settings binary = {
      {"nodes", "8"}, {"gpus_per_node", "4"}, {"k", "3"}, {"wiring", "binary"}, {"dcn", "none"}};
  const auto binary_with = [&](const std::string& key, const std::string& value) {
    Settings s = binary;
    s.push_back({key, value});
    return error(s);
  };
  EXPECT_CONTAINS(binary_with("failed_nodes", "2"),
                  "infinitehbd.failed_nodes: applies to wiring = \"k_hop\"");
  EXPECT_CONTAINS(binary_with("dcn", "fat_tree"), "the binary wiring builds no DCN");
  EXPECT_CONTAINS(binary_with("nodes", "4"), "must be shorter than the line of 4 nodes");
  // The bypass configuration.
  Settings bypass = base;
  bypass.push_back({"bypass_groups", "0-1"});
  EXPECT_CONTAINS(error(bypass), "infinitehbd.bypass_groups: applies with bypass_nodes");
  bypass.back() = {"bypass_nodes", "2"};
  EXPECT_CONTAINS(error(bypass), "every one is in failed_nodes already");
  bypass.back() = {"bypass_nodes", "5"};
  bypass.push_back({"bypass_groups", "4-5"});
  EXPECT_CONTAINS(error(bypass),
                  "infinitehbd.bypass_groups = \"4-5\": group '4-5' uses failed node 5 "
                  "(failed_nodes and bypass_nodes)");
}

}  // namespace
}  // namespace hx::net
