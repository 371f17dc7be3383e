// RailX around failed chips (models/topologies/railx/routing.cpp, "Around failed chips and
// rails"): a packet whose minimal route crosses a failed chip starts on another side or column
// and arrives without touching it; one with no live choice keeps its minimal route; and the
// channel dependency graphs of the routes the packets start on under a set of failed chips stay
// acyclic, for dimension-order and north-last walks, the delivery class and a hyperx axis.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "io/config_file.h"
#include "models/network/faults.h"
#include "models/topologies/railx/railx.h"
#include "models/verification/channel_graph.h"

namespace hx::net {
namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;

// 4 x 4 nodes of 4 x 4 chips, torus rings both ways: chip (x, y) of node (X, Y) is router
// (X + 4 Y) 16 + 4 y + x.
const Settings kTorus = {{"m", "4"}, {"n", "1"}, {"x", "torus:4"}, {"y", "torus:4"}};

Network railx(const Settings& settings) {
  const TopologyFamily family = railx_family();
  Config config;
  for (const auto& [key, value] : settings) config.set("railx." + key, value, "test");
  return family.make(resolve_section(config, "railx", family.params, SimTime::ns(1)));
}

Faults failed_chips(const Topology& t, const std::vector<uint32_t>& chips) {
  std::string actions;
  for (const uint32_t c : chips) {
    actions += "{at = \"0ns\", element = \"chip " + std::to_string(c) + "\"},";
  }
  const Config c = parse_config_text("[faults]\nactions = [" + actions + "]\n", "f.toml");
  return Faults::build(resolve_section(c, "faults", fault_params()), t, 1, SimTime::infinity());
}

struct Walk {
  std::vector<uint32_t> routers;  // visited, the first included
  bool arrived = false;
};

// The packet from its source router, as a router forwards it: the first candidate on a live
// link (all of them when `view` is nullptr).
Walk walk(const Network& net, Packet packet, const RouterView* view) {
  const Topology& t = *net.topology;
  std::vector<Packet> starts;
  net.routing->start_states(packet.src, view, packet, starts);
  packet = starts.at(0);
  Walk w;
  uint32_t router = packet.src;
  PortId in = 0;
  for (int hop = 0; hop < 200; ++hop) {
    w.routers.push_back(router);
    Candidates out;
    net.routing->route(router, in, packet, out);
    const uint64_t first = t.first_link(t.router_component(router));
    const Candidate* live = nullptr;
    for (const Candidate& c : out) {
      if (view == nullptr || view->link_up(first + c.port)) {
        live = &c;
        break;
      }
    }
    if (live == nullptr) return w;
    const PortSpec next = t.port(t.router_component(router), live->port);
    if (t.node(next.peer).kind == NodeKind::kEndpoint) {
      w.arrived = t.node(next.peer).index == packet.dst;
      return w;
    }
    packet.vc = live->vc;
    router = t.node(next.peer).index;
    in = next.peer_port;
  }
  return w;
}

bool visits(const Walk& w, uint32_t router) {
  for (const uint32_t r : w.routers) {
    if (r == router) return true;
  }
  return false;
}

TEST(RailXFaults, APacketStartsAroundAFailedChipOnItsMinimalRoute) {
  const Network net = railx(kTorus);
  Packet packet;
  packet.src = 5;   // node 0, chip (1, 1)
  packet.dst = 21;  // node 1, chip (1, 1): one step +X
  // The minimal route walks east along chip row 1 of node 0 to its + rail: through chip (2, 1).
  const Walk minimal = walk(net, packet, nullptr);
  ASSERT_TRUE(minimal.arrived);
  ASSERT_TRUE(visits(minimal, 6));
  const Faults faults = failed_chips(*net.topology, {6});
  const LinksAt view(&faults, SimTime::zero());
  const Walk around = walk(net, packet, &view);
  EXPECT_TRUE(around.arrived);
  EXPECT_FALSE(visits(around, 6));
  // The long way round the X ring: through nodes 3 and 2.
  EXPECT_TRUE(visits(around, 3 * 16 + 4 + 3));
  EXPECT_TRUE(visits(around, 2 * 16 + 4 + 3));
}

TEST(RailXFaults, APacketEntersItsYRingFromAnotherColumn) {
  const Network net = railx(kTorus);
  Packet packet;
  packet.src = 5;                 // node 0, chip (1, 1)
  packet.dst = (1 + 4) * 16 + 5;  // node (1, 1), chip (1, 1): +X, then +Y
  // In node 1 the packet arrives on chip (0, 1) and walks to the north edge of a column to
  // take its +Y rail: fail the chip of that walk on row 2.
  const Walk minimal = walk(net, packet, nullptr);
  ASSERT_TRUE(minimal.arrived);
  uint32_t blocked = 0;
  for (const uint32_t r : minimal.routers) {
    if (r / 16 == 1 && r % 16 / 4 == 2) blocked = r;
  }
  ASSERT_NE(blocked, 0u);
  const Faults faults = failed_chips(*net.topology, {blocked});
  const LinksAt view(&faults, SimTime::zero());
  const Walk around = walk(net, packet, &view);
  EXPECT_TRUE(around.arrived);
  EXPECT_FALSE(visits(around, blocked));
  // Still one step +X and one +Y: the other column, not the long way round.
  for (const uint32_t r : around.routers) EXPECT_TRUE(r / 16 == 0 || r / 16 == 1 || r / 16 == 5);
}

TEST(RailXFaults, APacketWithNoLiveChoiceKeepsItsMinimalRoute) {
  const Network net = railx(kTorus);
  const Faults faults = failed_chips(*net.topology, {21});
  const LinksAt view(&faults, SimTime::zero());
  Packet packet;
  packet.src = 5;
  packet.dst = 21;  // the failed chip
  std::vector<Packet> starts;
  net.routing->start_states(5, &view, packet, starts);
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].route_data, 0u);
  EXPECT_FALSE(walk(net, packet, &view).arrived);
}

// The graphs `hxsim verify` checks under faults: every packet on the route it starts on with
// these chips failed. Source walks to another column would close a cycle between the two
// directions of a Y ring (the routing's header comment); this is the check that finds it.
TEST(RailXFaults, ChannelGraphsAroundFailedChipsAreAcyclic) {
  const auto with = [](Settings s, const std::string& key, const std::string& value) {
    s.push_back({key, value});
    return s;
  };
  const std::vector<Settings> shapes = {
      kTorus,
      with(kTorus, "mesh_routing", "north_last"),
      with(kTorus, "delivery_vc", "true"),
      {{"m", "3"}, {"n", "2"}, {"x", "torus:3"}, {"y", "hyperx:5"}},
  };
  for (const Settings& s : shapes) {
    const Network net = railx(s);
    const Topology& t = *net.topology;
    std::vector<uint32_t> chips;
    for (uint32_t c = 7; c < t.num_endpoints(); c += 23) chips.push_back(c);
    const Faults faults = failed_chips(t, chips);
    const LinksAt view(&faults, SimTime::zero());
    DependencyCollector collector(t, *net.routing, net.routing->vcs());
    collector.set_view(&view);
    collector.explore(0, t.num_endpoints());
    const ChannelGraphReport report = analyse_channel_graph(collector.dependencies());
    EXPECT_TRUE(report.acyclic) << s.back().first << " = " << s.back().second;
    // Some packets did start around the failures.
    uint32_t around = 0;
    for (uint32_t src = 0; src < t.num_endpoints(); src += 5) {
      for (uint32_t dst = 0; dst < t.num_endpoints(); dst += 3) {
        Packet packet;
        packet.src = src;
        packet.dst = dst;
        std::vector<Packet> starts;
        net.routing->start_states(src, &view, packet, starts);
        around += starts.at(0).route_data != 0 && walk(net, packet, &view).arrived;
      }
    }
    EXPECT_GT(around, 0u);
  }
}

}  // namespace
}  // namespace hx::net
