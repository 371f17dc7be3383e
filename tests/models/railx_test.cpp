// Tests of the RailX family: sizes against Eq. 1 and §3.3, ports and circuits (each OCS port
// once, Lemma 3.1's two links per node pair in a hyperx row for every valid row size up to 17),
// every path within its bound (§4.1.1's 2 H_o + (5m - 6) H_i for a 2D HyperX), the channel
// dependency graphs with the paper's VC counts and one fewer, the rail choices, the full-size
// systems as closed forms, and input errors. Table 2's Dragonfly configuration is in
// railx_dragonfly_test.cpp.
#include "models/topologies/railx/railx.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.h"
#include "models/railx_test_support.h"
#include "models/topologies/railx/analytic.h"
#include "models/topologies/railx/shape.h"
#include "models/verification/channel_graph.h"
#include "support/input_error.h"
#include "support/topology_checks.h"

namespace hx::net {
namespace {

using hx::testing::error_of;
using namespace hx::net::railx_testing;  // NOLINT: build() and the link classes

// Moves `packet` one hop from `router` (entered by port `in`) along its routing's first
// candidate.
void first_hop(const Network& net, uint32_t& router, PortId& in, Packet& packet) {
  Candidates out;
  net.routing->route(router, in, packet, out);
  ASSERT_FALSE(out.empty()) << "no candidate at router " << router;
  std::vector<PortSpec> ports;
  net.topology->ports(net.topology->router_component(router), ports);
  const PortSpec& next = ports[out[0].port];
  packet.vc = out[0].vc;
  router = net.topology->node(next.peer).index;
  in = next.peer_port;
}

// Small enough to check every port and path: hyperx and torus rows, splits, a single-chip node,
// rails reused round the cycles (m = 3, n = 2: 6 rails for hyperx:5) and an axis with none.
const std::vector<Settings> kShapes = {
    {{"m", "4"}, {"n", "1"}, {"x", "hyperx:5"}, {"y", "hyperx:5"}},
    {{"m", "2"}, {"n", "1"}, {"x", "torus:4"}, {"y", "torus:3"}},
    {{"m", "1"}, {"n", "3"}, {"x", "hyperx:3:2,torus:2:1"}, {"y", "hyperx:3"}},
    {{"m", "3"}, {"n", "2"}, {"x", "hyperx:5"}, {"y", "none"}},
    {{"m", "2"}, {"n", "2"}, {"x", "hyperx:3:2,hyperx:3:2"}, {"y", "torus:5"}},
    {{"m", "2"}, {"n", "2"}, {"x", "dragonfly:11"}, {"y", "hyperx:5"}},
};

TEST(RailX, Fig14aHyperX) {
  const Network net = build({{"m", "4"}, {"n", "2"}});  // defaults: hyperx:9 on both axes
  const Topology& t = *net.topology;
  EXPECT_EQ(t.describe(),
            "railx m=4 n=2 x=hyperx:9:8 y=hyperx:9:8: 1296 chips, 81 nodes (9 x 9), r=8 rails "
            "per axis");
  EXPECT_EQ(t.num_endpoints(), 1296u);
  EXPECT_EQ(t.num_endpoint_groups(), 81u);
  EXPECT_EQ(t.endpoint_dims(), (std::vector<uint32_t>{4, 4, 9, 9}));
  const auto levels = t.group_levels();
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[0].name, "row");
  EXPECT_EQ(levels[0].count, 9u);
  EXPECT_EQ(levels[1].count, 81u);
  EXPECT_EQ(t.group_range(0, 1).begin, 2u * 9 * 16);
  EXPECT_EQ(t.link_classes()[kXRail].latency, SimTime::ns(10));  // Table 5: 10 cycles
  EXPECT_EQ(t.link_classes()[kMesh].latency, SimTime::ns(1));
  EXPECT_EQ(t.link_classes()[kMesh].flits_per_cycle, 4.0);
  EXPECT_EQ(net.routing->vcs(), 3);  // Algorithm 1: d_o + 1
}

TEST(RailX, StructureAndRoutes) {
  for (const Settings& s : kShapes) {
    SCOPED_TRACE(s[2].second + " / " + s[3].second);
    const Network net = build(s);
    testing::check_structure(*net.topology);
    testing::check_all_routes(*net.topology, *net.routing, net.routing->vcs(),
                              net.topology->diameter());
  }
}

// x_alternatives, y_alternatives (§5.2): each configuration's rail ports are ports of their
// own, each a circuit of its row's X-OCSes (its column's Y-OCSes) in that configuration: torus
// circuits reach the two ring neighbours, hyperx circuits every node of the line. Every route of
// every configuration arrives, and the union of their channel graphs is acyclic.
TEST(RailX, AlternativeConfigurationsHavePortsOfTheirOwn) {
  const Network net = build({{"m", "2"},
                             {"n", "2"},
                             {"x", "torus:5"},
                             {"x_alternatives", "hyperx:5"},
                             {"y", "hyperx:3"},
                             {"y_alternatives", "torus:3"},
                             {"ocs_switching", "2us"}});
  const Topology& t = *net.topology;
  testing::check_structure(t);
  testing::check_all_routes(t, *net.routing, net.routing->vcs(), t.diameter());
  EXPECT_TRUE(check_channel_graph(t, *net.routing, net.routing->vcs()).acyclic);
  const std::vector<Reconfigurable> elements = t.reconfigurables();
  ASSERT_EQ(elements.size(), 2u);
  EXPECT_EQ(elements[0].name, "x-ocs");
  EXPECT_EQ(elements[0].instances, 3u);  // one per row
  EXPECT_EQ(elements[0].configurations, (std::vector<std::string>{"torus:5", "hyperx:5"}));
  EXPECT_EQ(elements[0].switching, SimTime::us(2));
  EXPECT_EQ(elements[1].name, "y-ocs");
  EXPECT_EQ(elements[1].instances, 5u);  // one per column
  EXPECT_EQ(elements[1].configurations, (std::vector<std::string>{"hyperx:3", "torus:3"}));
  // (element, instance, configuration) -> the (node, far node) pairs its circuits join.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::set<std::pair<uint32_t, uint32_t>>> joins;
  std::vector<PortSpec> ports;
  for (uint32_t r = 0; r < t.num_routers(); ++r) {
    ports.clear();
    t.ports(t.router_component(r), ports);
    const uint32_t node = r / 4, far_class[2] = {kXRail, kYRail};
    for (PortId p = 0; p < ports.size(); ++p) {
      Circuit c;
      ASSERT_EQ(t.circuit(t.router_component(r), p, c), ports[p].link_class >= kXRail);
      if (ports[p].link_class < kXRail) continue;
      EXPECT_EQ(ports[p].link_class, far_class[c.element]);
      EXPECT_EQ(c.instance, c.element == 0 ? node / 5 : node % 5);
      joins[{c.element, c.instance, c.configuration}].insert(
          {node, t.node(ports[p].peer).index / 4});
    }
  }
  ASSERT_EQ(joins.size(), 2 * 3 + 2 * 5u);
  for (const auto& [key, pairs] : joins) {
    const auto [element, instance, configuration] = key;
    SCOPED_TRACE(std::to_string(element) + " " + std::to_string(instance) + " " +
                 std::to_string(configuration));
    const uint32_t line = element == 0 ? 5 : 3;
    EXPECT_EQ(pairs.size(), line * (element == 0 && configuration == 0 ? 2 : line - 1));
    for (const auto& [a, b] : pairs) {
      const uint32_t ca = element == 0 ? a % 5 : a / 5, cb = element == 0 ? b % 5 : b / 5;
      EXPECT_EQ(element == 0 ? a / 5 : a % 5, element == 0 ? b / 5 : b % 5) << "off its line";
      if (element == 0 && configuration == 0) {
        EXPECT_TRUE((ca + 1) % 5 == cb || (cb + 1) % 5 == ca);
      }
      EXPECT_NE(ca, cb);
    }
  }
}

TEST(RailX, AlternativeConfigurationsErrors) {
  const auto error = [](const Settings& s) { return error_of([&] { build(s); }); };
  const Settings base = {{"m", "2"}, {"n", "2"}, {"x", "torus:5"}, {"y", "none"}};
  const auto with = [&](const Settings& more) {
    Settings s = base;
    s.insert(s.end(), more.begin(), more.end());
    return s;
  };
  EXPECT_CONTAINS(error(with({{"x_alternatives", "hyperx:3"}})),
                  "must keep the line sizes of railx.x");
  EXPECT_CONTAINS(error(with({{"x_alternatives", "torus:5"}})), "listed twice");
  EXPECT_CONTAINS(error(with({{"x_alternatives", "hyperx:5"}, {"routing", "adaptive"}})),
                  "built for minimal routing");
  EXPECT_CONTAINS(error(with({{"x_alternatives", "dragonfly:5"}})), "dragonfly");
  EXPECT_EQ(error(with({{"x_alternatives", "hyperx:5; torus:5:2"}})), "");
}

TEST(RailX, PortsPerChipAndCircuitsPerOcs) {
  // m = 3, n = 2: edge chips carry n rail ports per edge; a corner chip two edges' worth. Every
  // node has used rails x 2 sides per axis; each X-OCS (row, rail) has one circuit per node.
  const Network net = build({{"m", "3"}, {"n", "2"}, {"x", "hyperx:5:4"}, {"y", "torus:3"}});
  const Topology& t = *net.topology;
  const uint32_t nodes = 15, x_rails = 4, y_rails = 6;  // hyperx:5:4 uses 4 of the 6 X-rails
  std::map<uint16_t, uint64_t> per_class;
  std::set<std::tuple<uint32_t, uint16_t, PortId>> far_ends;  // (component, class, port)
  std::vector<PortSpec> ports;
  for (uint32_t r = 0; r < t.num_routers(); ++r) {
    ports.clear();
    t.ports(t.router_component(r), ports);
    for (const PortSpec& p : ports) {
      ++per_class[p.link_class];
      if (p.link_class >= kXRail) {
        EXPECT_TRUE(far_ends.insert({p.peer, p.link_class, p.peer_port}).second)
            << "an OCS port is wired twice";
      }
    }
  }
  EXPECT_EQ(per_class[kEndpoint], nodes * 9);
  EXPECT_EQ(per_class[kMesh], nodes * 2 * 12);  // a 3 x 3 mesh has 12 links
  EXPECT_EQ(per_class[kXRail], uint64_t{nodes} * 2 * x_rails);
  EXPECT_EQ(per_class[kYRail], uint64_t{nodes} * 2 * y_rails);
  // The east-middle chip (2, 1) has its own n = 2 X+ ports only; corner (2, 2) has X+ rails 4..5
  // unused, so only its Y+ rails 4..5: endpoint + 2 mesh + 2.
  ports.clear();
  t.ports(t.router_component(1 * 3 + 2), ports);
  EXPECT_EQ(ports.size(), 1u + 3 + 2);
  ports.clear();
  t.ports(t.router_component(2 * 3 + 2), ports);
  EXPECT_EQ(ports.size(), 1u + 2 + 2);
}

// Lemma 3.1: k nodes on k - 1 rails are all-to-all, each pair on exactly two different rails,
// A+ -> B- on one and A- -> B+ on the other; for every valid k up to 17 (single-chip nodes with
// n = k - 1 ports per edge, one row).
TEST(RailX, Lemma31TwoRailsPerPair) {
  for (uint32_t k = 2; k <= 17; ++k) {
    if (k == 4 || k == 6) continue;
    SCOPED_TRACE("k = " + std::to_string(k));
    const Network net = build({{"m", "1"},
                               {"n", std::to_string(k - 1)},
                               {"x", "hyperx:" + std::to_string(k)},
                               {"y", "none"}});
    const Topology& t = *net.topology;
    ASSERT_EQ(t.num_routers(), k);
    // pair (a, b), a < b -> the X ports of a (in port order) leading to b
    std::map<std::pair<uint32_t, uint32_t>, std::vector<PortId>> links;
    std::vector<PortSpec> ports;
    for (uint32_t a = 0; a < k; ++a) {
      ports.clear();
      t.ports(t.router_component(a), ports);
      ASSERT_EQ(ports.size(), 1u + 2 * (k - 1));  // endpoint, k-1 X+ then k-1 X- ports
      for (PortId p = 1; p < ports.size(); ++p) {
        const uint32_t b = t.node(ports[p].peer).index;
        ASSERT_NE(a, b);
        if (a < b) links[{a, b}].push_back(p);
      }
    }
    ASSERT_EQ(links.size(), uint64_t{k} * (k - 1) / 2) << "not all-to-all";
    for (const auto& [pair, list] : links) {
      ASSERT_EQ(list.size(), 2u) << pair.first << "-" << pair.second;
      if (k == 2) continue;  // one rail: both links of the pair are its ring
      const uint32_t rail0 = (list[0] - 1) % (k - 1), rail1 = (list[1] - 1) % (k - 1);
      const bool plus0 = list[0] <= k - 1, plus1 = list[1] <= k - 1;
      EXPECT_NE(rail0, rail1);
      EXPECT_NE(plus0, plus1) << "one link leaves by +, the other by -";
    }
  }
}

TEST(RailX, HyperXPathsWithinThePapersDiameter) {
  // §4.1.1: at most 2 H_o + (5m - 6) H_i, with the nearest rail port chosen on each mesh.
  const Network net = build({{"m", "4"}, {"n", "1"}, {"x", "hyperx:5"}, {"y", "hyperx:5"}});
  const uint32_t longest =
      testing::check_all_routes(*net.topology, *net.routing, net.routing->vcs(), 2 + 5 * 4 - 6);
  EXPECT_LE(longest, 16u);
  EXPECT_GT(longest, 2u);
}

TEST(RailX, TwoNodeRingsUseBothDirections) {
  // In a 2-node torus the other node is both one step + and one step -: flows split between
  // the two, so the west (-) and east (+) circuits both carry traffic.
  const Network net = build({{"m", "4"}, {"n", "1"}, {"x", "torus:2"}, {"y", "none"}});
  uint32_t landed_west = 0, landed_east = 0;
  for (uint32_t src = 0; src < 16; ++src) {
    for (uint32_t dst = 16; dst < 32; ++dst) {
      Packet packet;
      packet.src = src;
      packet.dst = dst;
      uint32_t router = src;
      PortId in = 0;
      for (int hop = 0; router < 16; ++hop) {
        ASSERT_LT(hop, 16) << src << " -> " << dst;
        first_hop(net, router, in, packet);
      }
      (router % 4 == 0 ? landed_west : landed_east) += 1;  // + lands on the west edge
    }
  }
  EXPECT_GT(landed_west, 64u);
  EXPECT_GT(landed_east, 64u);
}

// rail_choice: which port reaching the next node a packet walks to. On a single hyperx axis
// `shortest` minimises the whole mesh walk (to the port and from where its circuit lands), so
// its routes are never longer in total than the nearest port's and shorter somewhere; `spread`
// ignores the walk, so its routes are longer. Every choice reaches every chip and keeps the
// channel dependency graph acyclic, on a 2D HyperX and the Dragonfly too: within §4.1.1's bound
// (16 hops for m = 4) for the nearest port, within d_o optical hops and d_o + 1 walks of at
// most 2(m - 1) mesh hops (2 + 3 x 6 = 20) for any choice.
TEST(RailX, RailChoicesRouteEverywhereAndStayAcyclic) {
  const auto total_hops = [](const Network& net) {
    const Topology& t = *net.topology;
    uint64_t total = 0;
    for (uint32_t src = 0; src < t.num_endpoints(); ++src) {
      for (uint32_t dst = 0; dst < t.num_endpoints(); ++dst) {
        Packet packet;
        packet.src = src;
        packet.dst = dst;
        uint32_t router = src;
        PortId in = 0;
        for (uint32_t hop = 0; router != dst; ++hop, ++total) {
          EXPECT_LT(hop, 16u) << src << " -> " << dst;
          if (hop >= 16) return total;
          first_hop(net, router, in, packet);
        }
      }
    }
    return total;
  };
  const Settings line = {{"m", "4"}, {"n", "1"}, {"x", "hyperx:5"}, {"y", "none"}};
  std::map<std::string, uint64_t> hops;
  for (const char* choice : {"nearest", "shortest", "spread"}) {
    SCOPED_TRACE(choice);
    Settings s = line;
    s.push_back({"rail_choice", choice});
    hops[choice] = total_hops(build(s));
    for (const Settings& shape : {kShapes[0], kShapes[5]}) {
      Settings with = shape;
      with.push_back({"rail_choice", choice});
      const Network net = build(with);
      const uint32_t bound = std::string(choice) == "nearest" ? 2 + 5 * 4 - 6 : 2 + 3 * 6;
      testing::check_all_routes(*net.topology, *net.routing, net.routing->vcs(), bound);
      EXPECT_TRUE(check_channel_graph(*net.topology, *net.routing, net.routing->vcs()).acyclic);
    }
  }
  EXPECT_LT(hops["shortest"], hops["nearest"]);
  EXPECT_GT(hops["spread"], hops["nearest"]);
  EXPECT_EQ(error_of([&] {
              Settings s = line;
              s.push_back({"rail_choice", "random"});
              build(s);
            }).substr(0, 18),
            "railx.rail_choice ");
}

TEST(RailX, ChannelDependencyGraphs) {
  const auto acyclic = [](const Settings& s) {
    const Network net = build(s);
    return check_channel_graph(*net.topology, *net.routing, net.routing->vcs()).acyclic;
  };
  const Settings hyperx = {{"m", "4"}, {"n", "1"}, {"x", "hyperx:5"}, {"y", "hyperx:5"}};
  const Settings torus = {{"m", "2"}, {"n", "1"}, {"x", "torus:4"}, {"y", "torus:4"}};
  const auto with = [](Settings s, const std::string& key, const std::string& value) {
    s.push_back({key, value});
    return s;
  };
  EXPECT_TRUE(acyclic(hyperx));                     // d_o + 1 = 3 VCs
  EXPECT_FALSE(acyclic(with(hyperx, "vcs", "2")));  // one fewer
  EXPECT_TRUE(acyclic(with(hyperx, "mesh_routing", "north_last")));
  EXPECT_TRUE(acyclic(torus));  // 4 VCs: two per ring
  EXPECT_FALSE(acyclic(with(torus, "vcs", "3")));
  EXPECT_TRUE(acyclic(with(torus, "mesh_routing", "north_last")));
  EXPECT_EQ(build(torus).routing->vcs(), 4);
}

// delivery_vc: one more VC, the top one, for the last optical hop and the walk in the
// destination node, so a delivery never queues behind a packet waiting for a rail. Every route
// still arrives within its bound and every graph stays acyclic; along a torus:4 ring of 4 x 4
// chips the hop into the destination node (and only that one) is on the top VC, and the walk
// there stays on it.
TEST(RailX, DeliveryClassIsTheTopVcAndStaysAcyclic) {
  for (Settings s : kShapes) {
    SCOPED_TRACE(s[2].second + " / " + s[3].second);
    const uint8_t without = build(s).routing->vcs();
    s.push_back({"delivery_vc", "true"});
    const Network net = build(s);
    EXPECT_EQ(net.routing->vcs(), without + 1);
    testing::check_all_routes(*net.topology, *net.routing, net.routing->vcs(),
                              net.topology->diameter());
    EXPECT_TRUE(check_channel_graph(*net.topology, *net.routing, net.routing->vcs()).acyclic);
  }
  const Network net = build({{"m", "4"},
                             {"n", "2"},
                             {"x", "torus:4:4,torus:4:4"},
                             {"y", "none"},
                             {"delivery_vc", "true"}});
  const Topology& t = *net.topology;
  const uint8_t top = net.routing->vcs() - 1;
  EXPECT_EQ(top, 4);  // class 0, ring 0 (entered without a step) 1, ring 1: 2 and 3, delivery 4
  for (const uint32_t dst : {16u * 1 + 5, 16u * 2 + 6, 16u * 4 + 9, 16u * 10 + 15}) {
    SCOPED_TRACE(dst);
    Packet packet;
    packet.src = 0;
    packet.dst = dst;
    uint32_t router = 0;
    PortId in = 0;
    std::vector<PortSpec> ports;
    for (int hop = 0; router != dst; ++hop) {
      ASSERT_LT(hop, 40);
      Candidates out;
      net.routing->route(router, in, packet, out);
      ASSERT_FALSE(out.empty());
      ports.clear();
      t.ports(t.router_component(router), ports);
      const PortSpec& next = ports[out[0].port];
      const uint32_t to = t.node(next.peer).index;
      const bool arrives = to / 16 == dst / 16;
      if (router / 16 != to / 16) {
        EXPECT_EQ(out[0].vc == top, arrives) << "optical hop " << router << " -> " << to;
      } else if (router / 16 == dst / 16) {
        EXPECT_EQ(out[0].vc, top) << "walk in the destination node at " << router;
      }
      packet.vc = out[0].vc;
      router = to;
      in = next.peer_port;
    }
  }
  EXPECT_NE(error_of([] {
              build({{"routing", "adaptive"}, {"delivery_vc", "true"}});
            }).find("minimal routing"),
            std::string::npos);
}

TEST(RailX, AdaptiveRoutesDetourWithinTheirHopBudget) {
  // §4.1.2 with a VC per inter-node hop: a route takes at most a optical hops (default d_o + 1)
  // and walks at most 2(m - 1) mesh hops in each of the a + 1 nodes it visits.
  const Settings base = {{"m", "2"}, {"n", "2"}, {"x", "hyperx:5"}, {"y", "hyperx:5"}};
  const Network minimal = build(base);
  Settings adaptive_settings = base;
  adaptive_settings.push_back({"routing", "adaptive"});
  const Network adaptive = build(adaptive_settings);
  EXPECT_EQ(adaptive.routing->name(), "adaptive");
  EXPECT_EQ(adaptive.routing->vcs(), 4);  // a = 3
  const Topology& t = *adaptive.topology;
  const uint32_t shortest_bound = 2 + 3 * 2 * 1, detour_bound = 3 + 4 * 2 * 1;
  const uint32_t longest_minimal =
      testing::check_all_routes(t, *minimal.routing, minimal.routing->vcs(), shortest_bound);
  const uint32_t longest_adaptive =
      testing::check_all_routes(t, *adaptive.routing, adaptive.routing->vcs(), detour_bound);
  EXPECT_GT(longest_adaptive, longest_minimal);

  // Detours are offered only at rail chips, with the configured penalty, on the same VC class
  // as the direct circuit.
  adaptive_settings.push_back({"detour_penalty", "7"});
  const Network penalised = build(adaptive_settings);
  uint32_t states_with_detours = 0;
  for (uint32_t router = 0; router < t.num_routers(); ++router) {
    for (uint32_t dst = 0; dst < t.num_endpoints(); dst += 7) {
      if (dst / 4 == router / 4) continue;  // same node: mesh walks only
      Packet packet;
      packet.dst = dst;
      Candidates out;
      penalised.routing->route(router, 0, packet, out);
      bool direct = false, detour = false;
      for (const Candidate& c : out) {
        (c.penalty == 0 ? direct : detour) = true;
        EXPECT_TRUE(c.penalty == 0 || c.penalty == 7);
        EXPECT_EQ(c.vc, out[0].vc);
      }
      EXPECT_TRUE(direct);
      states_with_detours += detour;
    }
  }
  EXPECT_GT(states_with_detours, 0u);

  Settings two_detours = base;
  two_detours.push_back({"routing", "adaptive"});
  two_detours.push_back({"hops", "4"});
  const Network wider = build(two_detours);
  EXPECT_EQ(wider.routing->vcs(), 5);
  EXPECT_GT(testing::check_all_routes(t, *wider.routing, 5, 4 + 5 * 2 * 1), longest_adaptive);
}

TEST(RailX, AdaptiveChannelDependencyGraphs) {
  const auto acyclic = [](Settings s) {
    s.insert(
        s.end(),
        {{"m", "2"}, {"n", "2"}, {"x", "hyperx:5"}, {"y", "hyperx:5"}, {"routing", "adaptive"}});
    const Network net = build(s);
    return check_channel_graph(*net.topology, *net.routing, net.routing->vcs()).acyclic;
  };
  EXPECT_TRUE(acyclic({}));               // a + 1 = 4 VCs
  EXPECT_FALSE(acyclic({{"vcs", "3"}}));  // one fewer
  EXPECT_TRUE(acyclic({{"hops", "4"}}));  // 5 VCs
  EXPECT_FALSE(acyclic({{"hops", "4"}, {"vcs", "4"}}));
  EXPECT_TRUE(acyclic({{"mesh_routing", "north_last"}}));
}

TEST(RailX, FullSizeSystemsAreClosedForms) {
  // RailX7Mesh: n = 9, m = 7, R = 128: r = 63 rails, 64 x 64 nodes, N = 200,704 (Eq. 1).
  const Network hx7 = build({{"m", "7"}, {"n", "9"}, {"x", "hyperx:64"}, {"y", "hyperx:64"}});
  EXPECT_EQ(hx7.topology->num_endpoints(), 200704u);
  EXPECT_EQ(hx7.topology->group_levels()[0].count, 64u);
  const Network torus7 = build({{"m", "7"}, {"n", "9"}, {"x", "torus:64"}, {"y", "torus:64"}});
  EXPECT_EQ(torus7.topology->num_endpoints(), 200704u);
  // RailX4Mesh: n = 9, m = 4: r = 36 rails cannot make a 64-node hyperx row (63 needed), so
  // its HyperX configuration splits each axis into two 8-node hyperx dimensions (§3.1).
  const Network hx4 =
      build({{"m", "4"}, {"n", "9"}, {"x", "hyperx:8,hyperx:8"}, {"y", "hyperx:8,hyperx:8"}});
  EXPECT_EQ(hx4.topology->num_endpoints(), 65536u);
  EXPECT_EQ(hx4.routing->vcs(), 5);
  std::vector<PortSpec> ports;
  hx4.topology->ports(hx4.topology->router_component(65535), ports);
  EXPECT_EQ(ports.size(), 1u + 2 + 9 + 9);  // north-east corner: 2 mesh, 9 X+, 9 Y+
}

// Dimension splitting (§3.3.4, Fig. 16): an axis of n = 10 ports per chip edge split n_c : n_d
// between two dimensions gives every chip row n_c and n_d rails of its own (Table 4's
// V / (2 n_c B / m): the m chips of a row share their row's ports), for every split; equal
// counts deal round-robin; with three dimensions every chip row holds each one's share to
// within one rail.
TEST(RailX, SplitRailsSpreadEvenlyOverChipRows) {
  using railx::kX;
  const auto per_row = [](const railx::Shape& s, uint32_t d) {
    std::vector<uint32_t> rows(s.m, 0);
    for (uint32_t l = 0; l < s.used[kX]; ++l) rows[l / s.n] += s.rail_dim[kX][l] == int16_t(d);
    return rows;
  };
  for (uint32_t nc = 1; nc < 10; ++nc) {
    SCOPED_TRACE(nc);
    const railx::Shape s(
        4, 10, 128,
        "torus:4:" + std::to_string(4 * nc) + ",torus:4:" + std::to_string(4 * (10 - nc)), "none");
    EXPECT_EQ(per_row(s, 0), std::vector<uint32_t>(4, nc));
    EXPECT_EQ(per_row(s, 1), std::vector<uint32_t>(4, 10 - nc));
  }
  const railx::Shape equal(4, 9, 128, "hyperx:8,hyperx:8", "none");
  for (uint32_t l = 0; l < 36; ++l) EXPECT_EQ(equal.rail_dim[kX][l], int16_t(l % 2)) << l;
  const railx::Shape three(3, 5, 128, "torus:3:2,torus:3:4,torus:3:9", "none");
  for (uint32_t d = 0; d < 3; ++d) {
    const double share = three.dims[d].rails.size() / 3.0;
    for (uint32_t rails : per_row(three, d)) EXPECT_LT(std::abs(rails - share), 1.0) << d;
  }
}

TEST(RailX, InputErrors) {
  const auto error = [](const Settings& s) { return error_of([&] { build(s); }); };
  EXPECT_NE(error({{"m", "1"}, {"n", "3"}, {"x", "hyperx:4"}, {"y", "none"}}).find("Tillson"),
            std::string::npos);
  EXPECT_NE(error({{"m", "4"}, {"n", "2"}, {"x", "hyperx:10"}}).find("needs at least 9 rails"),
            std::string::npos);
  EXPECT_NE(error({{"m", "4"}, {"n", "2"}, {"x", "torus:5:9"}}).find("9 rails, but a node"),
            std::string::npos);
  EXPECT_NE(error({{"m", "4"}, {"n", "2"}, {"x", "torus:65"}}).find("at most R/2 = 64"),
            std::string::npos);
  EXPECT_NE(error({{"x", "ring:4"}}).find("unknown kind 'ring'"), std::string::npos);
  EXPECT_NE(error({{"x", "torus:1"}}).find("below 2"), std::string::npos);
  EXPECT_NE(error({{"x", "torus"}}).find("has no size"), std::string::npos);
  EXPECT_NE(error({{"ocs_radix", "127"}}).find("even"), std::string::npos);
  EXPECT_NE(error({{"vcs", "4"}}).find("needs only 3"), std::string::npos);
  EXPECT_NE(error({{"routing", "adaptive"}, {"x", "torus:4"}}).find("only within hyperx"),
            std::string::npos);
  EXPECT_NE(error({{"routing", "adaptive"}, {"hops", "1"}}).find("minimal routes take 2"),
            std::string::npos);
}

}  // namespace
}  // namespace hx::net
