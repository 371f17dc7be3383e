// Every family's picture layout (Topology::picture_place, the /layout table the report draws):
// on the small instance of each family, the picture groups are dense, each group has one
// overview point and no two groups share it, no two components of a group share a point, and
// every endpoint is drawn in its router's group.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "engine/run.h"
#include "models/network/network_model.h"
#include "network/small_networks.h"

namespace hx {
namespace {

TEST(TopologyLayout, EveryFamilyDrawsEachComponentOnceInItsGroup) {
  for (const test::SmallNetwork& small : test::small_networks()) {
    SCOPED_TRACE(small.family);
    const ResolvedConfig resolved =
        resolve_config(test::registry(), test::small_network_config(small));
    const net::Topology& t = net::as_network(*resolved.model)->topology();
    EXPECT_FALSE(t.picture_group().empty());
    std::map<uint32_t, std::pair<double, double>> group_points;
    std::set<std::tuple<uint32_t, double, double>> points;
    for (ComponentId c = 0; c < t.num_components(); ++c) {
      const net::PicturePlace p = t.picture_place(c);
      ASSERT_TRUE(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.group_x) &&
                  std::isfinite(p.group_y))
          << "component " << c;
      const auto [it, first] = group_points.try_emplace(p.group, p.group_x, p.group_y);
      EXPECT_EQ(it->second, std::make_pair(p.group_x, p.group_y))
          << "component " << c << ": group " << p.group << " drawn at two overview points";
      EXPECT_TRUE(points.emplace(p.group, p.x, p.y).second)
          << "component " << c << " at (" << p.x << ", " << p.y << ") in group " << p.group
          << ": another component of the group is drawn there";
      const net::Node n = t.node(c);
      if (n.kind == net::NodeKind::kEndpoint) {
        const ComponentId router = t.router_component(t.endpoint_router(n.index));
        EXPECT_EQ(p.group, t.picture_place(router).group)
            << "endpoint " << n.index << " drawn away from its router";
      }
    }
    // Dense group ids, and one overview point per group.
    EXPECT_EQ(group_points.rbegin()->first + 1, group_points.size());
    std::set<std::pair<double, double>> distinct;
    for (const auto& [group, at] : group_points) {
      EXPECT_TRUE(distinct.insert(at).second) << "group " << group << " shares its point";
    }
  }
}

}  // namespace
}  // namespace hx
