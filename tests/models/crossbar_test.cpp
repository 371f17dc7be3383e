// The crossbar family: structure, direct routes with no network hop, endpoint groups, and input
// errors naming the key.
#include "models/topologies/crossbar/crossbar.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "core/error.h"
#include "support/input_error.h"
#include "support/topology_checks.h"

namespace hx::net {
namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;
using hx::testing::error_of;

Network build(const Settings& settings) {
  const TopologyFamily family = crossbar_family();
  Config config;
  for (const auto& [key, value] : settings) config.set("crossbar." + key, value, "test");
  return family.make(resolve_section(config, family.name, family.params, SimTime::ns(1)));
}

TEST(Crossbar, StructureAndRoutes) {
  for (const Settings& s : std::vector<Settings>{{{"endpoints", "2"}},
                                                 {{"endpoints", "5"}},
                                                 {{"endpoints", "16"}, {"group_size", "4"}},
                                                 {{"endpoints", "6"}, {"channels", "3"}}}) {
    const Network net = build(s);
    SCOPED_TRACE(net.topology->describe());
    testing::check_structure(*net.topology);
    EXPECT_EQ(net.topology->diameter(), 0u);
    EXPECT_EQ(testing::check_all_routes(*net.topology, *net.routing, 1, 0), 0u);
    testing::check_all_routes(*net.topology, *net.routing, 4, 0);  // injection on any VC
  }
}

TEST(Crossbar, CountsAndGroups) {
  const Network net = build({{"endpoints", "12"}, {"group_size", "3"}});
  const Topology& t = *net.topology;
  EXPECT_EQ(t.num_routers(), 1u);
  EXPECT_EQ(t.num_endpoints(), 12u);
  EXPECT_EQ(t.num_links(), 24u);
  EXPECT_EQ(net.routing->vcs(), 1);
  EXPECT_EQ(net.routing->name(), "direct");
  EXPECT_EQ(t.link_classes().size(), 1u);
  EXPECT_EQ(t.link_classes()[0].latency, SimTime::ns(1));  // 1 cycle of 1ns
  EXPECT_EQ(t.num_endpoint_groups(), 4u);
  EXPECT_EQ(t.endpoint_group(7), 2u);
  EXPECT_EQ(t.endpoint_group_range(2).first, 6u);
  EXPECT_EQ(t.endpoint_group_range(2).last, 9u);
  EXPECT_EQ(t.endpoint_dims(), (std::vector<uint32_t>{12}));
  ASSERT_EQ(t.group_levels().size(), 1u);
  EXPECT_EQ(t.group_range(0, 0).end, 13u);
  std::vector<PortSpec> ports;
  t.ports(0, ports);
  ASSERT_EQ(ports.size(), 12u);
  EXPECT_EQ(ports[7].peer, t.endpoint_component(7));
}

TEST(Crossbar, SeveralChannelsPerEndpoint) {
  const Network net = build({{"endpoints", "4"}, {"channels", "2"}});
  const Topology& t = *net.topology;
  EXPECT_EQ(t.num_links(), 16u);
  std::vector<PortSpec> ports;
  t.ports(t.endpoint_component(3), ports);
  ASSERT_EQ(ports.size(), 2u);
  EXPECT_EQ(ports[1].peer, 0u);
  EXPECT_EQ(ports[1].peer_port, 7u);  // endpoint 3's channel 1 is switch port 3*2+1
  Packet p;
  p.dst = 2;
  Candidates c;
  net.routing->route(0, 0, p, c);
  ASSERT_EQ(c.size(), 2u);  // either of the destination's channels
  EXPECT_EQ(c[0].port, 4u);
  EXPECT_EQ(c[1].port, 5u);
}

TEST(Crossbar, BadParametersNameTheKey) {
  const auto error = [](const Settings& s) { return error_of([&] { build(s); }); };
  EXPECT_CONTAINS(error({{"endpoints", "1"}}), "crossbar.endpoints");
  EXPECT_CONTAINS(error({{"endpoints", "8"}, {"group_size", "3"}}), "crossbar.group_size");
  EXPECT_CONTAINS(error({{"terminal_latency", "0ns"}}), "crossbar.terminal_latency");
  EXPECT_CONTAINS(error({{"routing", "dor"}}), "crossbar.routing");
  EXPECT_CONTAINS(error({{"endpoints", "40000"}, {"channels", "2"}}), "crossbar.channels");
  EXPECT_EQ(error({{"endpoints", "8"}, {"group_size", "8"}}), "");
}

}  // namespace
}  // namespace hx::net
