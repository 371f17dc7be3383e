// Tests of the switch-less Dragonfly family: sizes against Eq. 1, links per class, port labels
// (Fig. 6a, Property 2), every minimal path within the diameter, hop counts and VCs of chosen
// pairs, the full-size configuration as closed forms, and input errors.
#include "models/topologies/switchless_dragonfly/switchless_dragonfly.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "models/topologies/switchless_dragonfly/shape.h"
#include "support/input_error.h"
#include "support/topology_checks.h"

namespace hx::net {
namespace {

using hx::testing::error_of;
using Settings = std::vector<std::pair<std::string, std::string>>;

constexpr uint16_t kEndpoint = 0, kMesh = 1, kLocal = 2, kGlobal = 3;

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
  ASSERT_EQ(t.link_classes().size(), 4u);
  EXPECT_EQ(t.link_classes()[kGlobal].latency, SimTime::ns(10));  // 8 + 2 * 1 cycles
  EXPECT_EQ(t.link_classes()[kMesh].latency, SimTime::ns(1));
  const auto levels = t.group_levels();
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[0].name, "wgroup");
  EXPECT_EQ(levels[1].count, 41u * 4);
  EXPECT_EQ(levels[2].count, 41u * 8);
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
  EXPECT_CONTAINS(message, "chiplets");
  message = error_of([] { build(6, 2, 2, 4, {{"routing", "valiant"}}); });
  EXPECT_CONTAINS(message, "switchless_dragonfly.routing");
  EXPECT_EQ(error_of([] { build(6, 2, 2, 4); }), "");
}

}  // namespace
}  // namespace hx::net
