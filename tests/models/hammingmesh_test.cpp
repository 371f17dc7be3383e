// Tests of the hammingmesh family: counts of chips, switches, ports and links on the Fig. 14(a)
// Hx4Mesh and the full-size Hx7Mesh of RailX Table 6; every link symmetric and every switch port
// wired to exactly one chip or switch; every minimal route within the stated diameter (and the
// longest exactly it), with single switches and 2-level fat trees per line; the channel
// dependency graph acyclic with the routing's 3 VCs and cyclic with 2; one path step by step;
// input errors naming the key.
#include "models/topologies/hammingmesh/hammingmesh.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "models/verification/channel_graph.h"
#include "support/input_error.h"
#include "support/topology_checks.h"

namespace hx::net {
namespace {

using hx::testing::error_of;
using Settings = std::vector<std::pair<std::string, std::string>>;

constexpr uint16_t kEndpoint = 0, kBoard = 1, kXNet = 2, kYNet = 3;

Network build(const Settings& settings) {
  const TopologyFamily family = hammingmesh_family();
  Config config;
  for (const auto& [key, value] : settings) config.set("hammingmesh." + key, value, "test");
  return family.make(resolve_section(config, "hammingmesh", family.params, SimTime::ns(1)));
}

Settings with(Settings s, const std::string& key, const std::string& value) {
  s.push_back({key, value});
  return s;
}

// Small enough for every pair: square and odd boards (ties at the middle chip), one-chip-wide
// boards, and 2-level fat-tree lines (switch_radix below 2 x boards).
const std::vector<Settings> kShapes = {
    {{"a", "2"}, {"b", "2"}, {"x", "2"}, {"y", "2"}},
    {{"a", "4"}, {"b", "4"}, {"x", "3"}, {"y", "2"}},
    {{"a", "3"}, {"b", "2"}, {"x", "3"}, {"y", "3"}},
    {{"a", "1"}, {"b", "1"}, {"x", "3"}, {"y", "4"}},
    {{"a", "1"}, {"b", "3"}, {"x", "2"}, {"y", "3"}},
    {{"a", "2"}, {"b", "2"}, {"x", "3"}, {"y", "3"}, {"switch_radix", "4"}},  // 3 leaves, 2 spines
    {{"a", "3"}, {"b", "2"}, {"x", "5"}, {"y", "2"}, {"switch_radix", "8"}},  // X: leaves 4, 4, 2
};

TEST(HammingMesh, Fig14aHx4Mesh) {
  const Network net = build({{"a", "4"}, {"b", "4"}, {"x", "9"}, {"y", "9"}});
  const Topology& t = *net.topology;
  EXPECT_EQ(t.describe(),
            "hammingmesh a=4 b=4 x=9 y=9: 1296 chips on 81 boards, 36 X lines of 1 switch of 18 "
            "ports, 36 Y lines of 1 switch of 18 ports, 72 switches");
  EXPECT_EQ(t.num_endpoints(), 1296u);
  EXPECT_EQ(t.num_routers(), 1296u + 72);
  EXPECT_EQ(t.num_links(), 1296u * (5 + 1) + 72 * 18);
  EXPECT_EQ(t.num_endpoint_groups(), 81u);
  EXPECT_EQ(t.endpoint_dims(), (std::vector<uint32_t>{4, 4, 9, 9}));
  // Per axis: walk 1 to the nearer edge, 2 hops through the switch, walk 1 from the edge.
  EXPECT_EQ(t.diameter(), 8u);
  EXPECT_EQ(net.routing->vcs(), 3);
  const auto levels = t.group_levels();
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[0].name, "board row");
  EXPECT_EQ(levels[0].count, 9u + 9);  // board rows with their X switches, then Y switches
  EXPECT_EQ(levels[1].count, 9u * (9 + 4) + 36);
  EXPECT_EQ(t.group_range(0, 1).begin, 2u * 144 + 4);
  EXPECT_EQ(t.link_classes()[kBoard].latency, SimTime::ns(1));
  EXPECT_EQ(t.link_classes()[kXNet].latency, SimTime::ns(10));
}

TEST(HammingMesh, StructureAndRoutes) {
  for (const Settings& s : kShapes) {
    const Network net = build(s);
    SCOPED_TRACE(net.topology->describe());
    testing::check_structure(*net.topology);
    const uint32_t diameter = net.topology->diameter();
    EXPECT_EQ(testing::check_all_routes(*net.topology, *net.routing, net.routing->vcs(), diameter),
              diameter);
    // Injection on any VC the router has.
    testing::check_all_routes(*net.topology, *net.routing, net.routing->vcs() + 2, diameter);
  }
}

// Every chip has exactly 5 ports (endpoint + one per direction); every switch port leads to a
// distinct chip port or switch port; the line ports are the 2 edge chips per board and line.
TEST(HammingMesh, EverySwitchPortWiredOnce) {
  for (const Settings& s : kShapes) {
    const Network net = build(s);
    SCOPED_TRACE(net.topology->describe());
    const Topology& t = *net.topology;
    const uint32_t a = std::stoul(s[0].second), b = std::stoul(s[1].second),
                   x = std::stoul(s[2].second), y = std::stoul(s[3].second);
    const uint32_t chips = a * b * x * y;
    std::map<uint16_t, uint64_t> per_class;
    std::set<std::pair<ComponentId, PortId>> far_ends;
    std::vector<PortSpec> ports;
    uint64_t switch_ports = 0;
    for (uint32_t r = 0; r < t.num_routers(); ++r) {
      ports.clear();
      t.ports(t.router_component(r), ports);
      if (r < chips) {
        EXPECT_EQ(ports.size(), 5u) << "chip " << r;
      } else {
        EXPECT_GE(ports.size(), 2u) << "switch " << r;
        switch_ports += ports.size();
        for (const PortSpec& p : ports) {
          EXPECT_TRUE(far_ends.insert({p.peer, p.peer_port}).second) << "wired twice";
        }
      }
      for (const PortSpec& p : ports) ++per_class[p.link_class];
    }
    EXPECT_EQ(per_class[kEndpoint], chips);
    // Board meshes: (a-1) b + a (b-1) links per board, counted from both ends.
    EXPECT_EQ(per_class[kBoard], 2ull * x * y * ((a - 1) * b + a * (b - 1)));
    // X: y b lines of 2x chip ports, counted at the chip and at the switch, plus switch-to-switch.
    EXPECT_GE(per_class[kXNet], 2ull * (y * b) * (2 * x));
    EXPECT_GE(per_class[kYNet], 2ull * (x * a) * (2 * y));
    // Each switch port is one end of a line link; the chip ends come on top.
    const uint64_t chip_ends = uint64_t{y} * b * 2 * x + uint64_t{x} * a * 2 * y;
    EXPECT_EQ(per_class[kXNet] + per_class[kYNet], switch_ports + chip_ends);
  }
}

// A 2-level line: 10 line ports on radix-8 switches: 3 leaves of 4, 4, 2 line ports and 4 spines
// (one port per leaf); every leaf has 4 up links.
TEST(HammingMesh, TwoLevelLineNetwork) {
  const Network net =
      build({{"a", "3"}, {"b", "2"}, {"x", "5"}, {"y", "2"}, {"switch_radix", "8"}});
  const Topology& t = *net.topology;
  const uint32_t chips = 3 * 2 * 5 * 2;
  EXPECT_EQ(t.num_routers(), chips + 2 * 2 * 7 + 3 * 5 * 1);  // X: 4 lines x 7; Y: 15 x 1
  std::vector<PortSpec> ports;
  const std::vector<size_t> sizes = {8, 8, 6, 3, 3, 3, 3};
  for (uint32_t s = 0; s < 7; ++s) {
    ports.clear();
    t.ports(t.router_component(chips + s), ports);
    EXPECT_EQ(ports.size(), sizes[s]) << "switch " << s << " of X line 0";
  }
  EXPECT_EQ(t.diameter(), 2u * 1 + 4 + 0 + 2);
}

// Hx4Mesh, 9 x 9 boards: chip (1, 0) of board (0, 0) to chip (2, 0) of board (1, 0) walks west
// to the edge, crosses the row's switch on VC 1 into board 1's east edge chip and walks west.
TEST(HammingMesh, OnePathStepByStep) {
  const Network net = build({{"a", "4"}, {"b", "4"}, {"x", "9"}, {"y", "9"}});
  const Topology& t = *net.topology;
  Packet packet;
  packet.src = 1;
  packet.dst = 16 + 2;
  Candidates out;
  std::vector<PortSpec> ports;
  const auto step = [&](uint32_t router, PortId in) {
    out.clear();
    net.routing->route(router, in, packet, out);
    EXPECT_EQ(out.size(), 1u) << "at router " << router;
    ports.clear();
    t.ports(t.router_component(router), ports);
    packet.vc = out[0].vc;
    return ports[out[0].port];
  };
  PortSpec hop = step(1, 0);
  EXPECT_EQ(hop.peer, t.router_component(0));  // west
  EXPECT_EQ(packet.vc, 0);
  hop = step(0, hop.peer_port);
  EXPECT_EQ(hop.link_class, kXNet);
  EXPECT_EQ(packet.vc, 1);                        // one class up into the line network
  EXPECT_EQ(hop.peer, t.router_component(1296));  // X line 0's switch
  EXPECT_EQ(hop.peer_port, 0);                    // line port 0: board 0's west edge
  hop = step(1296, hop.peer_port);
  EXPECT_EQ(hop.peer, t.router_component(16 + 3));  // board 1's east edge chip
  hop = step(16 + 3, hop.peer_port);
  EXPECT_EQ(hop.peer, t.router_component(16 + 2));
  EXPECT_EQ(packet.vc, 1);
  out.clear();
  net.routing->route(16 + 2, hop.peer_port, packet, out);
  ASSERT_EQ(out.size(), 3u);  // at the destination: its endpoint on every VC
  EXPECT_EQ(out[0].port, 0);
}

TEST(HammingMesh, ChannelDependencyGraphs) {
  const auto acyclic = [](const Settings& s) {
    const Network net = build(s);
    return check_channel_graph(*net.topology, *net.routing, net.routing->vcs()).acyclic;
  };
  for (const Settings& s : kShapes) {
    SCOPED_TRACE(s[0].second + "x" + s[1].second + " boards, " + s[2].second + " x " + s[3].second);
    EXPECT_TRUE(acyclic(s));  // 3 VCs: one per line network crossed, plus one
  }
  // One fewer: the column walks after the X network and around the Y network share VC 1.
  EXPECT_FALSE(acyclic(with(kShapes[1], "vcs", "2")));
  EXPECT_FALSE(acyclic(with(kShapes[1], "vcs", "1")));
}

TEST(HammingMesh, FullSizeHx7Mesh) {
  // RailX Table 6's last row: Hx7Mesh on 2-tier fat trees, 64 x 64 boards of 7 x 7 (200,704
  // chips): each line has 128 ports, so 4 leaves of 32 and 32 spines of radix 64.
  const Network net = build({{"a", "7"}, {"b", "7"}, {"x", "64"}, {"y", "64"}});
  const Topology& t = *net.topology;
  EXPECT_EQ(t.num_endpoints(), 200704u);
  EXPECT_EQ(t.num_routers(), 200704u + 2 * 448 * 36);
  EXPECT_EQ(t.diameter(), 2u * (3 + 4 + 3));
  // 66 line ports on radix 64: 3 leaves of 22.
  testing::check_structure(*build({{"a", "2"}, {"b", "1"}, {"x", "33"}, {"y", "2"}}).topology);
}

TEST(HammingMesh, InputErrorsNameTheKey) {
  const auto error = [](const Settings& s) { return error_of([&] { build(s); }); };
  EXPECT_CONTAINS(error({{"switch_radix", "63"}}), "hammingmesh.switch_radix = 63");
  EXPECT_CONTAINS(error({{"switch_radix", "63"}}), "even");
  const std::string wide = error({{"x", "1025"}});  // radix 64: at most 64 x 32 line ports
  EXPECT_CONTAINS(wide, "hammingmesh.x = 1025");
  EXPECT_CONTAINS(wide, "at most 1024 boards");
  EXPECT_CONTAINS(error({{"y", "9"}, {"switch_radix", "4"}}), "hammingmesh.y = 9");
  EXPECT_EQ(error({{"y", "4"}, {"switch_radix", "4"}}), "");  // 8 ports: 4 leaves of 2
  EXPECT_CONTAINS(error({{"vcs", "4"}}), "needs only 3");
  EXPECT_CONTAINS(error({{"board_latency", "0ns"}}), "hammingmesh.board_latency");
  EXPECT_CONTAINS(error({{"x", "1"}}), "hammingmesh.x");
  EXPECT_CONTAINS(error({{"a", "0"}}), "hammingmesh.a");
  EXPECT_CONTAINS(error({{"routing", "ugal"}}), "hammingmesh.routing");
  EXPECT_CONTAINS(error({{"a", "256"}, {"b", "256"}, {"x", "300"}, {"y", "300"}}), "components");
}

}  // namespace
}  // namespace hx::net
