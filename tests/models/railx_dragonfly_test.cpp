// Table 2's Dragonfly configuration of RailX: groups linked in some row, once each way; routes
// within 3 optical hops; 4 VCs acyclic and 3 cyclic; the full-size system and input errors.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

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

// Table 2's Dragonfly: 21 groups (columns) of 5 nodes, r = 4 X-rails per node; the 5 rows x 4
// rails carry each of the 20 Hamiltonian cycles of K*_21 exactly once, so every pair of groups
// is joined by exactly two X circuits (one per direction of its arc), in whichever rows hold
// them, and the X circuits never leave their row; the Y circuits stay in the group.
const Settings kDragonfly = {{"m", "2"}, {"n", "2"}, {"x", "dragonfly:21"}, {"y", "hyperx:5"}};

TEST(RailX, DragonflyGroupsAreLinkedOnceEachWay) {
  const Network net = build(kDragonfly);
  const Topology& t = *net.topology;
  EXPECT_EQ(t.describe(),
            "railx m=2 n=2 x=dragonfly:21:4 y=hyperx:5:4: 420 chips, 105 nodes (21 x 5), r=4 "
            "rails per axis; Dragonfly of 21 groups (columns) of 5 nodes");
  EXPECT_EQ(net.routing->vcs(), 4);         // d_o + 1, d_o = 3
  EXPECT_EQ(t.diameter(), 3u + 4 * 2 * 1);  // 3 optical hops, 2(m-1) mesh hops in 4 nodes
  constexpr uint32_t kGroups = 21, kChips = 4;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> circuit_ends;  // group pair -> port ends
  std::vector<PortSpec> ports;
  for (uint32_t r = 0; r < t.num_routers(); ++r) {
    ports.clear();
    t.ports(t.router_component(r), ports);
    const uint32_t node = r / kChips;
    for (const PortSpec& p : ports) {
      const uint32_t far = t.node(p.peer).index / kChips;
      if (p.link_class == kYRail) {
        EXPECT_EQ(far % kGroups, node % kGroups) << "left the group";
      }
      if (p.link_class != kXRail) continue;
      ASSERT_EQ(far / kGroups, node / kGroups) << "an X circuit left its row";
      const uint32_t a = node % kGroups, b = far % kGroups;
      ASSERT_NE(a, b);
      ++circuit_ends[{std::min(a, b), std::max(a, b)}];
    }
  }
  ASSERT_EQ(circuit_ends.size(), kGroups * (kGroups - 1) / 2) << "a pair of groups is not linked";
  for (const auto& [pair, ends] : circuit_ends) {
    EXPECT_EQ(ends, 4u) << pair.first << "-" << pair.second;  // 2 circuits, seen from both ends
  }
}

TEST(RailX, DragonflyRoutesTakeAtMostThreeOpticalHops) {
  const Network net = build(kDragonfly);
  testing::check_structure(*net.topology);
  testing::check_all_routes(*net.topology, *net.routing, 4, net.topology->diameter());
  // Single-chip nodes count optical hops alone: local, global, local where the pair's groups
  // meet in neither end's row.
  const Network bare = build({{"m", "1"}, {"n", "4"}, {"x", "dragonfly:21"}, {"y", "hyperx:5"}});
  EXPECT_EQ(testing::check_all_routes(*bare.topology, *bare.routing, 4, 3), 3u);
}

TEST(RailX, DragonflyChannelDependencyGraphs) {
  const auto acyclic = [](Settings s) {
    s.insert(s.end(), kDragonfly.begin(), kDragonfly.end());
    const Network net = build(s);
    return check_channel_graph(*net.topology, *net.routing, net.routing->vcs()).acyclic;
  };
  EXPECT_TRUE(acyclic({}));  // d_o + 1 = 4 VCs
  EXPECT_FALSE(acyclic({{"vcs", "3"}}));
  EXPECT_TRUE(acyclic({{"mesh_routing", "north_last"}}));
  EXPECT_FALSE(acyclic({{"mesh_routing", "north_last"}, {"vcs", "3"}}));
}

TEST(RailX, DragonflyFullSizeAndInputErrors) {
  // Table 2: (r + 1) R/2 m^2 chips; RailX7Mesh (r = 63, R = 128, m = 7): 64 groups of 64 nodes,
  // each row carrying all 63 cycles.
  const Network df7 = build({{"m", "7"}, {"n", "9"}, {"x", "dragonfly:64"}, {"y", "hyperx:64"}});
  EXPECT_EQ(df7.topology->num_endpoints(), 64u * 64 * 49);
  EXPECT_EQ(df7.topology->num_endpoints(), railx::analyse(7, 9, 128).dragonfly_chips);
  EXPECT_EQ(df7.routing->vcs(), 4);
  // hxsim topo's Table 2 row for Fig. 14(a)'s nodes is configs/railx/dragonfly_small.toml.
  const Network df4 = build({{"m", "4"}, {"n", "2"}, {"x", "dragonfly:64"}, {"y", "hyperx:9"}});
  EXPECT_EQ(df4.topology->num_endpoints(), railx::analyse(4, 2, 128).dragonfly_chips);

  const auto error = [](const Settings& s) { return error_of([&] { build(s); }); };
  const auto has = [](const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  };
  // 2 rows x 1 rail carry 2 of the 6 cycles of K*_7: some pair of groups never meets.
  const std::string uncovered =
      error({{"m", "1"}, {"n", "1"}, {"x", "dragonfly:7"}, {"y", "hyperx:2"}});
  EXPECT_TRUE(has(uncovered, "railx.x = \"dragonfly:7\": groups")) << uncovered;
  EXPECT_TRUE(has(uncovered, "2 rows x 1 X-rails carry 2 of the 6")) << uncovered;
  EXPECT_TRUE(has(error({{"x", "hyperx:3"}, {"y", "dragonfly:3"}}), "railx.y"));
  EXPECT_TRUE(has(error({{"x", "dragonfly:3,hyperx:3"}}), "the only X dimension"));
  EXPECT_TRUE(has(error({{"x", "dragonfly:9"}, {"y", "torus:9"}}), "single hyperx Y dimension"));
  EXPECT_TRUE(has(error({{"x", "dragonfly:9"}, {"y", "hyperx:3,hyperx:3"}}), "single hyperx Y"));
  EXPECT_TRUE(has(error({{"x", "dragonfly:6"}}), "railx.x: dragonfly:6"));
  EXPECT_TRUE(has(error({{"x", "dragonfly:9"}, {"routing", "adaptive"}}), "has a dragonfly"));
  EXPECT_TRUE(has(error({{"x", "dragonfly:9"}, {"vcs", "5"}}), "needs only 4"));
}

}  // namespace
}  // namespace hx::net
