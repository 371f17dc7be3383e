// The hyperx family: structure, every route of both routings within the diameter, exact counts,
// ports and candidates, deadlock freedom, and input errors naming the key.
#include "models/topologies/hyperx/hyperx.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "core/error.h"
#include "support/input_error.h"
#include "support/channel_graph_checks.h"
#include "support/topology_checks.h"

namespace hx::net {
namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;
using hx::net::testing::check_all_routes;
using hx::net::testing::check_structure;
using hx::net::testing::dependencies_acyclic;
using hx::testing::error_of;

Network build(const Settings& settings) {
  const TopologyFamily family = hyperx_family();
  Config config;
  for (const auto& [key, value] : settings) config.set("hyperx." + key, value, "test");
  return family.make(resolve_section(config, family.name, family.params, SimTime::ns(1)));
}

TEST(HyperX, StructureAndRoutes) {
  const std::vector<Settings> shapes = {
      {{"dims", "2"}},       {{"dims", "5"}, {"c", "2"}},
      {{"dims", "3x3"}},     {{"dims", "4x2"}, {"c", "3"}},
      {{"dims", "2x3x2"}},   {{"dims", "3x3x3"}},
      {{"dims", "2x2x2x2"}},
  };
  for (const Settings& base : shapes) {
    for (const char* routing : {"dor", "minimal_adaptive"}) {
      Settings s = base;
      s.push_back({"routing", routing});
      const Network net = build(s);
      SCOPED_TRACE(net.topology->describe() + " " + routing);
      check_structure(*net.topology);
      const uint32_t diameter = net.topology->diameter();
      EXPECT_EQ(check_all_routes(*net.topology, *net.routing, net.routing->vcs(), diameter),
                diameter);
      // Injection on any VC the router has.
      check_all_routes(*net.topology, *net.routing, net.routing->vcs() + 2, diameter);
      EXPECT_TRUE(dependencies_acyclic(*net.topology, *net.routing, net.routing->vcs()));
    }
  }
}

TEST(HyperX, CountsAndPorts) {
  const Network net = build({{"dims", "4x4"}});
  const Topology& t = *net.topology;
  EXPECT_EQ(t.num_routers(), 16u);
  EXPECT_EQ(t.num_endpoints(), 16u);
  EXPECT_EQ(t.num_links(), 16u * (1 + 3 + 3 + 1));
  EXPECT_EQ(t.diameter(), 2u);
  EXPECT_EQ(net.routing->vcs(), 1);
  EXPECT_EQ(t.endpoint_dims(), (std::vector<uint32_t>{4, 4}));
  std::vector<PortSpec> ports;
  t.ports(t.router_component(5), ports);  // (1,1)
  ASSERT_EQ(ports.size(), 7u);
  EXPECT_EQ(ports[0].peer, t.endpoint_component(5));
  const std::vector<uint32_t> peers = {4, 6, 7, 1, 9, 13};  // x = 0, 2, 3, then y = 0, 2, 3
  for (std::size_t i = 0; i < peers.size(); ++i) {
    EXPECT_EQ(ports[1 + i].peer, t.router_component(peers[i])) << "port " << 1 + i;
  }

  const Network wide = build({{"dims", "3x2x4"}, {"c", "2"}});
  EXPECT_EQ(wide.topology->endpoint_dims(), (std::vector<uint32_t>{2, 3, 2, 4}));
  const auto levels = wide.topology->group_levels();
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[0].name, "plane");
  EXPECT_EQ(levels[0].count, 4u);
  EXPECT_EQ(levels[1].name, "row");
  EXPECT_EQ(levels[1].count, 8u);
  EXPECT_EQ(wide.topology->group_range(1, 1).begin, 3u * 3);  // 3 routers with 2 endpoints each
}

TEST(HyperX, MinimalAdaptiveOffersEveryUnalignedDimension) {
  const Network net = build({{"dims", "4x4x4"}, {"routing", "minimal_adaptive"}});
  EXPECT_EQ(net.routing->vcs(), 3);
  const Topology& t = *net.topology;
  std::vector<PortSpec> ports;
  t.ports(t.router_component(0), ports);
  Packet packet;
  packet.dst = 3 + 2 * 16;  // router (3,0,2): dimensions 0 and 2 unaligned
  Candidates out;
  net.routing->route(0, 0, packet, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(ports[out[0].port].peer, t.router_component(3));
  EXPECT_EQ(ports[out[1].port].peer, t.router_component(32));
  EXPECT_EQ(out[0].vc, 0);
  packet.hops = 1;
  packet.vc = 0;
  out.clear();
  net.routing->route(3, 1, packet, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].vc, 1);  // one VC higher every hop
  out.clear();
  net.routing->route(35, 1, packet, out);  // at the destination: every VC to the endpoint
  ASSERT_EQ(out.size(), 3u);
  ports.clear();
  t.ports(t.router_component(35), ports);
  for (std::size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(ports[out[i].port].peer, t.endpoint_component(35));
    EXPECT_EQ(out[i].vc, i);
  }
}

TEST(HyperX, BadParametersNameTheKey) {
  const auto dims = [](const std::string& d) { return error_of([&] { build({{"dims", d}}); }); };
  for (const char* bad : {"", "4x", "x4", "1x4", "4x4x4x4x4x4x4", "abc", "4x-2", "4x4.5"}) {
    EXPECT_CONTAINS(dims(bad), "hyperx.dims") << "dims = " << bad;
  }
  EXPECT_CONTAINS(dims("70000"), "ports");
  EXPECT_CONTAINS(dims("65536x65536x2"), "components");
  EXPECT_EQ(dims(" 4 x 4 "), "");
  EXPECT_EQ(build({{"dims", "4X2"}}).topology->num_routers(), 8u);
  EXPECT_CONTAINS(error_of([] { build({{"c", "65"}}); }), "hyperx.c");
  EXPECT_CONTAINS(error_of([] { build({{"link_latency", "0ns"}}); }), "hyperx.link_latency");
  EXPECT_CONTAINS(error_of([] { build({{"routing", "ugal"}}); }), "hyperx.routing");
}

}  // namespace
}  // namespace hx::net
