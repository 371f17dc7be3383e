// Tests of the switch-less Dragonfly family: sizes against Eq. 1, links per class, port labels
// (Fig. 6a, Property 2), on-chip meshes, every path within its bound, hop counts and VCs of
// chosen pairs, the channel dependency graphs of the VC schemes, Valiant's intermediates, UGAL's
// choice, the full-size configuration as closed forms, and input errors.
#include "models/topologies/switchless_dragonfly/switchless_dragonfly.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "models/verification/channel_graph.h"
#include "models/topologies/switchless_dragonfly/routing.h"
#include "models/topologies/switchless_dragonfly/shape.h"
#include "support/input_error.h"
#include "support/topology_checks.h"

namespace hx::net {
namespace {

using hx::testing::error_of;
using Settings = std::vector<std::pair<std::string, std::string>>;

constexpr uint16_t kEndpoint = 0, kMesh = 1, kLocal = 2, kGlobal = 3, kOnChip = 4;

Network build(uint32_t n, uint32_t m, uint32_t a, uint32_t b, const Settings& extra = {}) {
  const TopologyFamily family = switchless_dragonfly_family();
  Config config;
  const Settings sizes = {{"n", std::to_string(n)},
                          {"m", std::to_string(m)},
                          {"a", std::to_string(a)},
                          {"b", std::to_string(b)}};
  for (const Settings& s : {sizes, extra}) {
    for (const auto& [key, value] : s) config.set("switchless_dragonfly." + key, value, "test");
  }
  return family.make(
      resolve_section(config, "switchless_dragonfly", family.params, SimTime::ns(1)));
}

struct Size {
  uint32_t n, m, a, b;
};

// Small enough to check every port; (6, 2, 2, 4) is the paper's radix-16 system.
const std::vector<Size> kSizes = {{6, 2, 2, 4}, {2, 2, 1, 2}, {3, 2, 2, 2},
                                  {4, 1, 1, 3}, {8, 3, 2, 2}, {5, 2, 1, 1}};

TEST(SwitchlessDragonfly, PaperRadix16) {
  const Network net = build(6, 2, 2, 4);
  const Topology& t = *net.topology;
  EXPECT_EQ(t.describe(),
            "switchless_dragonfly n=6 m=2 a=2 b=4 (k=12 h=5 g=41): 1312 chiplets, "
            "328 C-groups");
  EXPECT_EQ(t.num_endpoints(), 1312u);
  EXPECT_EQ(t.num_routers(), 1312u);
  EXPECT_EQ(t.num_endpoint_groups(), 41u);
  EXPECT_EQ(t.endpoint_dims(), (std::vector<uint32_t>{2, 2, 8, 41}));
  // Eq. 7: H_g + 2 H_l + (8m - 2) H_sr = 17 hops, less the 6 SR-LR conversions.
  EXPECT_EQ(t.diameter(), 11u);
  ASSERT_EQ(t.link_classes().size(), 5u);
  EXPECT_EQ(t.link_classes()[kGlobal].latency, SimTime::ns(10));  // 8 + 2 * 1 cycles
  EXPECT_EQ(t.link_classes()[kMesh].latency, SimTime::ns(1));
  const auto levels = t.group_levels();
  ASSERT_EQ(levels.size(), 4u);
  EXPECT_EQ(levels[0].name, "wgroup");
  EXPECT_EQ(levels[1].count, 41u * 4);
  EXPECT_EQ(levels[2].count, 41u * 8);
  EXPECT_EQ(levels[3].count, 1312u);
  EXPECT_EQ(t.group_range(0, 1).begin, 2u * 32);
  EXPECT_EQ(t.group_range(1, 1).begin, 2u * 8);
  EXPECT_EQ(net.routing->vcs(), 4);
}

TEST(SwitchlessDragonfly, LinksPerClassMatchTheFormulas) {
  for (const Size& z : kSizes) {
    const Network net = build(z.n, z.m, z.a, z.b);
    const Topology& t = *net.topology;
    SCOPED_TRACE(t.describe());
    ASSERT_NO_FATAL_FAILURE(testing::check_structure(t));
    const uint64_t k = z.n * z.m, ab = z.a * z.b, h = k - ab + 1, g = ab * h + 1;
    const uint64_t chiplets = ab * z.m * z.m * g;  // Eq. 1
    EXPECT_EQ(t.num_endpoints(), chiplets);
    EXPECT_EQ(t.num_endpoint_groups(), g);
    std::map<uint16_t, uint64_t> per_class;
    std::set<std::pair<uint32_t, uint32_t>> wgroup_pairs;
    std::vector<PortSpec> ports;
    const uint32_t wgroup = static_cast<uint32_t>(ab * z.m * z.m);
    for (ComponentId id = 0; id < t.num_components(); ++id) {
      ports.clear();
      t.ports(id, ports);
      for (const PortSpec& p : ports) {
        ++per_class[p.link_class];
        if (p.link_class == kGlobal) {
          EXPECT_TRUE(wgroup_pairs.emplace(id / 2 / wgroup, p.peer / 2 / wgroup).second)
              << "two global links between the same W-groups";
        }
      }
    }
    EXPECT_EQ(per_class[kEndpoint], 2 * chiplets);
    EXPECT_EQ(per_class[kMesh], 2 * 2 * z.m * (z.m - 1) * ab * g);
    EXPECT_EQ(per_class[kLocal], ab * (ab - 1) * g);
    EXPECT_EQ(per_class[kGlobal], g * (g - 1));
    EXPECT_EQ(t.num_links(), 2 * chiplets + 4 * z.m * (z.m - 1) * ab * g + k * ab * g);
  }
}

// Fig. 6a and Property 2: labels spread evenly over the perimeter slots; in C-group i, labels
// below i lead to lower C-groups, the next h are global, the rest lead to higher C-groups.
TEST(SwitchlessDragonfly, PortLabelsFollowProperty2) {
  for (const Size& z : kSizes) {
    const sldf::Shape s(z.n, z.m, z.a, z.b);
    SCOPED_TRACE(std::to_string(z.n) + " " + std::to_string(z.m));
    for (uint32_t slot = 0; slot < 4 * z.m; ++slot) {
      const uint32_t count = s.first_label(slot + 1) - s.first_label(slot);
      EXPECT_LE(count, (s.k + 4 * z.m - 1) / (4 * z.m));
      if (z.n % 4 == 0) {
        EXPECT_EQ(count, z.n / 4);
      }
    }
    EXPECT_EQ(s.first_label(4 * z.m), s.k);
    for (const uint32_t w : {0u, s.g - 1}) {
      for (uint32_t c = 0; c < s.ab; ++c) {
        for (uint32_t label = 0; label < s.k; ++label) {
          const sldf::Shape::End far = s.peer(w, c, label);
          const sldf::Shape::End back = s.peer(far.w, far.c, far.label);
          EXPECT_EQ(back.w, w);
          EXPECT_EQ(back.c, c);
          EXPECT_EQ(back.label, label);
          if (label < c) {
            EXPECT_EQ(far.w, w);
            EXPECT_EQ(far.c, label);
          } else if (label < c + s.h) {
            EXPECT_NE(far.w, w);
            EXPECT_TRUE(s.is_global(far.c, far.label));
          } else {
            EXPECT_EQ(far.w, w);
            EXPECT_GT(far.c, c);
          }
        }
      }
    }
  }
  // Radix 16 (n = 6, m = 2): 12 labels on 8 slots, 1 or 2 each; chiplet (0, 0) owns slots 0
  // (south) and 7 (west): labels 0, 1 and 11, after its endpoint and its +x, +y ports.
  const sldf::Shape r16(6, 2, 2, 4);
  EXPECT_EQ(r16.first_label(1), 2u);
  EXPECT_EQ(r16.first_label(7), 11u);
  EXPECT_EQ(r16.label_port(0), 3u);
  EXPECT_EQ(r16.label_port(1), 4u);
  EXPECT_EQ(r16.label_port(11), 5u);
  EXPECT_EQ(r16.external_ports(0, 0), 3u);
  EXPECT_EQ(r16.external_ports(1, 0), 3u);
}

TEST(SwitchlessDragonfly, EveryPathArrivesWithinTheDiameter) {
  // All pairs where that is quick (up to 208 chiplets); from a few sources on the larger ones.
  for (const Size& z : kSizes) {
    const Network net = build(z.n, z.m, z.a, z.b);
    const Topology& t = *net.topology;
    SCOPED_TRACE(t.describe());
    if (t.num_endpoints() <= 208) {
      const uint32_t longest = testing::check_all_routes(t, *net.routing, 4, t.diameter());
      EXPECT_EQ(longest, t.diameter());  // the bound is reached
      // Routers may have more VCs than the routing needs; the first hop accepts any of them.
      testing::check_all_routes(t, *net.routing, 6, t.diameter());
      continue;
    }
    for (const uint32_t src : {0u, 5u, t.num_endpoints() / 2, t.num_endpoints() - 1}) {
      for (uint32_t dst = 0; dst < t.num_endpoints(); ++dst) {
        if (dst != src) explore_routes(t, *net.routing, 4, src, dst, t.diameter(), {});
      }
    }
  }
}

// The (link class, VC) of each channel of the only path from src to dst after injection on VC 0,
// ejection on VC 0 included.
std::vector<std::pair<uint16_t, uint8_t>> path(const Network& net, uint32_t src, uint32_t dst) {
  const Topology& t = *net.topology;
  std::map<ChannelId, std::set<ChannelId>> next;
  ExploreVisitor visitor;
  visitor.on_dependency = [&](ChannelId from, ChannelId to, bool) { next[from].insert(to); };
  explore_routes(t, *net.routing, 4, src, dst, t.diameter(), visitor);
  std::vector<std::pair<uint16_t, uint8_t>> hops;
  std::vector<PortSpec> ports;
  ChannelId at = t.first_link(t.endpoint_component(src)) * 4;  // injection on VC 0
  while (next.count(at) != 0) {
    at = *next[at].begin();  // ejection on VC 0
    const uint64_t link = at / 4;
    ComponentId owner = 0;  // the component whose port the link leaves by
    while (owner + 1 < t.num_components() && t.first_link(owner + 1) <= link) ++owner;
    ports.clear();
    t.ports(owner, ports);
    hops.emplace_back(ports[link - t.first_link(owner)].link_class, static_cast<uint8_t>(at % 4));
  }
  return hops;
}

TEST(SwitchlessDragonfly, MinimalPathsByHand) {
  // n=2 m=2 a=1 b=2: k = 4, h = 3, g = 7. Label p sits at slot 2p: labels 0..3 on chiplets
  // (0,0), (1,0), (1,1), (0,1). C-group 0: labels 0-2 global, 3 up to C-group 1; C-group 1:
  // label 0 down to C-group 0, labels 1-3 global.
  const Network net = build(2, 2, 1, 2);
  EXPECT_EQ(net.topology->diameter(), 11u);
  const auto chiplet = [](uint32_t w, uint32_t c, uint32_t x, uint32_t y) {
    return ((w * 2 + c) * 2 + y) * 2 + x;
  };
  using Hops = std::vector<std::pair<uint16_t, uint8_t>>;
  // Same C-group: x then y.
  EXPECT_EQ(path(net, chiplet(0, 0, 0, 0), chiplet(0, 0, 1, 1)),
            (Hops{{kMesh, 0}, {kMesh, 0}, {kEndpoint, 0}}));
  // Same W-group: up to label 3 at (0,1), across to C-group 1's label 0 at (0,0).
  EXPECT_EQ(path(net, chiplet(0, 0, 0, 0), chiplet(0, 1, 0, 0)),
            (Hops{{kMesh, 0}, {kLocal, 1}, {kEndpoint, 0}}));
  // W-group 0 to 6: global port G = 5 sits in C-group 1 (t = 2, label 3 at (0,1)); it lands on
  // W-group 6's port 0 (C-group 0, label 0 at (0,0)); then up to C-group 1 and to (1,1).
  EXPECT_EQ(path(net, chiplet(0, 0, 0, 0), chiplet(6, 1, 1, 1)), (Hops{{kMesh, 0},
                                                                       {kLocal, 1},
                                                                       {kMesh, 1},
                                                                       {kGlobal, 2},
                                                                       {kMesh, 2},
                                                                       {kLocal, 3},
                                                                       {kMesh, 3},
                                                                       {kMesh, 3},
                                                                       {kEndpoint, 0}}));
  // From W-group 6's C-group 0 back to W-group 0: its global port G = 0 is its own label 0; it
  // lands on W-group 0's port 5 (C-group 1, label 3 at (0,1)).
  EXPECT_EQ(path(net, chiplet(6, 0, 1, 0), chiplet(0, 1, 0, 0)),
            (Hops{{kMesh, 0}, {kGlobal, 1}, {kMesh, 1}, {kEndpoint, 0}}));
}

// Fig. 10's C-groups: 2 x 2 chiplets of 2 x 2 on-chip routers, one core each.
TEST(SwitchlessDragonfly, OnChipMeshes) {
  const Network net = build(6, 2, 2, 4, {{"chip_mesh", "2"}});
  const Topology& t = *net.topology;
  EXPECT_EQ(t.describe(),
            "switchless_dragonfly n=6 m=2 a=2 b=4 chip_mesh=2 (k=12 h=5 g=41): 1312 chiplets, "
            "5248 on-chip routers, 328 C-groups");
  EXPECT_EQ(t.num_endpoints(), 5248u);
  EXPECT_EQ(t.endpoint_dims(), (std::vector<uint32_t>{2, 2, 2, 2, 8, 41}));
  EXPECT_EQ(t.diameter(), 3u + 4 * 6);  // 4 C-groups of 4 x 4 routers
  EXPECT_EQ(t.group_levels()[3].count, 1312u);
  EXPECT_EQ(t.group_range(3, 5).begin, 2u * 4 * 5);  // chiplets are contiguous
  EXPECT_EQ(t.group_range(3, 5).end, 2u * 4 * 6);
  // Chiplet-major numbering: router 4 is chiplet 1's (0, 0), i.e. mesh (2, 0).
  const sldf::Shape s(6, 2, 2, 4, 2);
  const sldf::Shape::Place p = s.place(4);
  EXPECT_EQ(p.x, 2u);
  EXPECT_EQ(p.y, 0u);
  EXPECT_EQ(s.router(p), 4u);
  EXPECT_TRUE(s.on_chip(2, 0, 3, 0));
  EXPECT_FALSE(s.on_chip(1, 0, 2, 0));

  for (const Size& z : {Size{6, 2, 2, 4}, Size{2, 2, 1, 2}, Size{3, 1, 1, 2}}) {
    for (const uint32_t chip : {2u, 3u}) {
      const Network net2 = build(z.n, z.m, z.a, z.b, {{"chip_mesh", std::to_string(chip)}});
      const Topology& u = *net2.topology;
      SCOPED_TRACE(u.describe());
      ASSERT_NO_FATAL_FAILURE(testing::check_structure(u));
      std::map<uint16_t, uint64_t> per_class;
      std::vector<PortSpec> ports;
      for (ComponentId id = 0; id < u.num_components(); ++id) {
        ports.clear();
        u.ports(id, ports);
        for (const PortSpec& port : ports) ++per_class[port.link_class];
      }
      const uint64_t M = z.m * chip, cgroups = uint64_t{z.a} * z.b * u.num_endpoint_groups();
      const uint64_t onchip = 4 * chip * (chip - 1) * z.m * z.m;  // directed, per C-group
      EXPECT_EQ(per_class[kOnChip], onchip * cgroups);
      EXPECT_EQ(per_class[kMesh], (4 * M * (M - 1) - onchip) * cgroups);
      EXPECT_EQ(per_class[kLocal] + per_class[kGlobal], uint64_t{z.n} * z.m * cgroups);
      if (u.num_endpoints() <= 300) {
        EXPECT_LE(testing::check_all_routes(u, *net2.routing, 4, u.diameter()), u.diameter());
      }
    }
  }
}

// A Valiant path visits six C-groups: at most 5 inter-C-group links and 2(M-1) mesh hops in each.
uint32_t valiant_bound(uint32_t M) { return 5 + 12 * (M - 1); }

TEST(SwitchlessDragonfly, NonMinimalPathsArrive) {
  for (const Size& z : {Size{2, 2, 1, 2}, Size{3, 2, 2, 2}, Size{3, 1, 1, 2}}) {
    for (const std::string routing : {"valiant", "ugal"}) {
      for (const std::string intra : {"dor", "negative_first"}) {
        const Network net = build(z.n, z.m, z.a, z.b, {{"routing", routing}, {"intra", intra}});
        SCOPED_TRACE(net.topology->describe() + " " + routing + " " + intra);
        EXPECT_EQ(net.routing->vcs(), 6);
        EXPECT_LE(testing::check_all_routes(*net.topology, *net.routing, 6, valiant_bound(z.m)),
                  valiant_bound(z.m));
      }
    }
  }
}

// The W-groups a packet's path visits, following the first candidate at each router.
std::vector<uint32_t> wgroups_visited(const Network& net, const sldf::Shape& s, Packet packet,
                                      uint32_t src) {
  const Topology& t = *net.topology;
  std::vector<uint32_t> visited = {s.place(src).w};
  uint32_t router = src;
  PortId in_port = 0;
  std::vector<PortSpec> ports;
  for (int hop = 0; hop < 64; ++hop) {
    Candidates out;
    net.routing->route(router, in_port, packet, out);
    packet.vc = out[0].vc;
    ports.clear();
    t.ports(2 * router, ports);
    const PortSpec next = ports[out[0].port];
    if (next.peer % 2 == 1) return visited;  // the destination's core
    router = next.peer / 2;
    in_port = next.peer_port;
    if (s.place(router).w != visited.back()) visited.push_back(s.place(router).w);
  }
  ADD_FAILURE() << "no arrival within 64 hops";
  return visited;
}

// Valiant goes through the intermediate W-group; negative-first offers both negative moves.
TEST(SwitchlessDragonfly, ValiantVisitsItsIntermediate) {
  const Network net = build(2, 2, 1, 2, {{"routing", "valiant"}});
  const sldf::Shape s(2, 2, 1, 2);
  std::vector<Packet> starts;
  Packet packet;
  packet.dst = s.router({6, 1, 1, 1});
  net.routing->start_states(0, nullptr, packet, starts);
  ASSERT_EQ(starts.size(), 5u);  // g - 2 intermediates, no minimal choice
  for (const Packet& start : starts) {
    const uint32_t via = s.place(start.intermediate).w;
    EXPECT_EQ(wgroups_visited(net, s, start, 0), (std::vector<uint32_t>{0, via, 6}));
    EXPECT_LE(sldf::path_hops(s, 0, via, packet.dst), valiant_bound(2));
  }
  const Network nf = build(2, 2, 1, 2, {{"intra", "negative_first"}});
  Candidates out;
  Packet p;
  p.dst = s.router({0, 0, 0, 0});
  nf.routing->route(s.router({0, 0, 1, 1}), 0, p, out);
  ASSERT_EQ(out.size(), 2u);  // -x and -y
  out.clear();
  p.dst = s.router({0, 0, 1, 0});
  nf.routing->route(s.router({0, 0, 0, 1}), 0, p, out);
  ASSERT_EQ(out.size(), 1u);  // -y first, then +x
  EXPECT_EQ(out[0].port, s.mesh_port(0, 1, sldf::kMinusY));
}

// misroute = lower (section IV-B): only W-groups below the destination's, entered below the port
// that leaves them for it.
TEST(SwitchlessDragonfly, LowerOnlyMisroutesThroughValidLowerWGroups) {
  const Network net = build(3, 2, 2, 2, {{"routing", "valiant"}, {"misroute", "lower"}});
  const sldf::Shape s(3, 2, 2, 2);
  uint32_t misroutes = 0;
  for (uint32_t ws = 0; ws < s.g; ++ws) {
    for (uint32_t wd = 0; wd < s.g; ++wd) {
      if (ws == wd) continue;
      std::vector<Packet> starts;
      Packet packet;
      packet.dst = s.router({wd, 0, 0, 0});
      net.routing->start_states(s.router({ws, 0, 0, 0}), nullptr, packet, starts);
      for (const Packet& start : starts) {
        if (start.intermediate == kNoRouter) continue;
        ++misroutes;
        const uint32_t via = s.place(start.intermediate).w;
        EXPECT_LT(via, wd);
        EXPECT_NE(via, ws);
        // via's port towards wd: the far end of the link that lands in wd.
        const sldf::Shape::End in = s.landing(ws, via), land = s.landing(via, wd);
        const sldf::Shape::End exit = s.peer(wd, land.c, land.label);
        EXPECT_TRUE(in.c < exit.c || (in.c == exit.c && in.label < exit.label));
      }
    }
  }
  EXPECT_GT(misroutes, 0u);
  EXPECT_EQ(net.routing->vcs(), 6);  // baseline scheme
  EXPECT_EQ(
      build(3, 2, 2, 2, {{"routing", "valiant"}, {"misroute", "lower"}, {"vc_scheme", "updown"}})
          .routing->vcs(),
      3);
}

class LoadOn final : public RouterView {
 public:
  explicit LoadOn(PortId port) : port_(port) {}
  uint32_t load(PortId port) const override { return port == port_ ? 100 : 0; }

 private:
  PortId port_;
};

// UGAL goes minimal on an idle network and Valiant when the minimal first port is loaded.
TEST(SwitchlessDragonfly, UgalWeighsLoadTimesHops) {
  const Network net = build(2, 2, 1, 2, {{"routing", "ugal"}});
  const sldf::Shape s(2, 2, 1, 2);
  Packet packet;
  packet.dst = s.router({6, 1, 1, 1});
  // From W-group 0's (1, 0): the minimal first hop is -x (towards C-group 1's global port).
  const uint32_t src = s.router({0, 0, 1, 0});
  Candidates first;
  Packet probe = packet;
  net.routing->route(src, 0, probe, first);
  const PortId minimal_port = first[0].port;
  uint32_t valiant = 0;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    Rng rng(seed, 0, 3);
    Packet p = packet;
    net.routing->start(src, LoadOn(PortId{0xFFFF}), rng, p);
    EXPECT_EQ(p.intermediate, kNoRouter);  // idle: minimal is shorter
    net.routing->start(src, LoadOn(minimal_port), rng, p);
    valiant += p.intermediate != kNoRouter ? 1 : 0;
  }
  EXPECT_GT(valiant, 0u);  // Valiant paths that leave by another port
}

// The channel dependency graphs (section IV): the baseline counts (4 minimal, 6 Valiant) are
// deadlock-free, one VC fewer is not. The up*/down* reduction (3 VCs) holds on small shapes but
// has a cycle once a C-group has more local ports than its mesh can keep apart: Property 1 needs
// a down-only path from every port to every core, which no router order gives when two routers
// that own ports also host cores (each would need a label above the other). The paper's Fig. 8
// labelled NoCs are that missing piece; docs/validation/switchless_dragonfly.md has the cycle.
TEST(SwitchlessDragonfly, ChannelDependencyGraphs) {
  const auto check = [](const Size& z, const Settings& settings) {
    const Network net = build(z.n, z.m, z.a, z.b, settings);
    return check_channel_graph(*net.topology, *net.routing, net.routing->vcs()).acyclic;
  };
  const Size small{3, 2, 2, 2}, cyclic{4, 2, 2, 2};
  EXPECT_TRUE(check(cyclic, {}));
  EXPECT_FALSE(check(cyclic, {{"vcs", "3"}}));
  EXPECT_TRUE(check(cyclic, {{"intra", "negative_first"}}));
  EXPECT_TRUE(check(small, {{"routing", "valiant"}}));
  EXPECT_TRUE(check(small, {{"routing", "ugal"}, {"intra", "negative_first"}}));
  EXPECT_FALSE(check(cyclic, {{"routing", "valiant"}, {"vcs", "5"}}));
  EXPECT_TRUE(check(small, {{"vc_scheme", "updown"}}));
  EXPECT_TRUE(
      check(small, {{"vc_scheme", "updown"}, {"routing", "valiant"}, {"misroute", "lower"}}));
  EXPECT_FALSE(check(cyclic, {{"vc_scheme", "updown"}}));
}

TEST(SwitchlessDragonfly, TableIIIIsAClosedForm) {
  // n=12 m=4 a=4 b=8: k = 48, h = 17, g = 545, N = 279,040; nothing is built per component.
  const Network net = build(12, 4, 4, 8);
  const Topology& t = *net.topology;
  EXPECT_EQ(t.num_endpoints(), 279040u);
  EXPECT_EQ(t.num_endpoint_groups(), 545u);
  EXPECT_EQ(t.group_levels()[2].count, 545u * 32);
  // Eq. 7: H_g + 2 H_l + 30 H_sr, of which 6 are SR-LR conversions.
  EXPECT_EQ(t.diameter(), 3u + 30 - 6);
  const uint64_t per_cgroup = 2 * 16 + 4 * 4 * 3 + 48;
  EXPECT_EQ(t.num_links(), per_cgroup * 32 * 545);
  std::vector<PortSpec> ports;
  const ComponentId last = t.num_components() - 1;
  t.ports(last, ports);
  EXPECT_EQ(t.first_link(last) + ports.size(), t.num_links());
  for (const uint32_t dst : {1u, 600u, 279039u}) {
    explore_routes(t, *net.routing, 4, 100000, dst, t.diameter(), {});
  }
}

TEST(SwitchlessDragonfly, InputErrorsNameTheKey) {
  std::string message = error_of([] { build(3, 2, 2, 4); });
  EXPECT_CONTAINS(message, "switchless_dragonfly.a = 2");
  EXPECT_CONTAINS(message, "switchless_dragonfly.n = 3");
  EXPECT_CONTAINS(message, "h = k - a*b + 1 >= 1");
  message = error_of([] { build(6, 2, 2, 4, {{"lr_latency", "0ns"}}); });
  EXPECT_CONTAINS(message, "switchless_dragonfly.lr_latency");
  message = error_of([] { build(1024, 64, 256, 256); });
  EXPECT_CONTAINS(message, "routers (g = 65537 W-groups), more than");
  message = error_of([] { build(6, 2, 2, 4, {{"routing", "adaptive"}}); });
  EXPECT_CONTAINS(message, "switchless_dragonfly.routing");
  message = error_of([] { build(6, 2, 2, 4, {{"vcs", "5"}}); });
  EXPECT_CONTAINS(message, "switchless_dragonfly.vcs = 5");
  EXPECT_CONTAINS(message, "needs only 4 VCs");
  message = error_of([] { build(6, 2, 2, 4, {{"chip_mesh", "0"}}); });
  EXPECT_CONTAINS(message, "switchless_dragonfly.chip_mesh");
  EXPECT_EQ(error_of([] { build(6, 2, 2, 4); }), "");
}

}  // namespace
}  // namespace hx::net
