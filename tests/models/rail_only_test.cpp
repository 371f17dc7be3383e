// Tests of the rail-only family: every link symmetric and every route delivered within the
// diameter with an acyclic channel graph, for each network, HB fabric and forwarding rule; the
// paths the paper describes (same rail through the rail only, cross-rail forwarded through one
// GPU of an HB domain); the Clos sizes the radix gives; and input errors.
#include "models/topologies/rail_only/rail_only.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "models/network/clos.h"
#include "models/network/packet.h"
#include "models/verification/channel_graph.h"
#include "support/input_error.h"
#include "support/topology_checks.h"

namespace hx::net {
namespace {

using hx::testing::error_of;
using Settings = std::vector<std::pair<std::string, std::string>>;

Network build(const Settings& settings) {
  const TopologyFamily family = rail_only_family();
  Config config;
  for (const auto& [key, value] : settings) config.set("rail_only." + key, value, "test");
  return family.make(resolve_section(config, "rail_only", family.params, SimTime::ns(1)));
}

TEST(RailOnly, StructureRoutesAndChannelGraphs) {
  for (const char* network : {"rail_only", "rail_optimized"}) {
    for (const char* hb : {"switch", "nvswitch"}) {
      for (const char* forwarding : {"hb_first", "rail_first", "alternate"}) {
        // 8 domains of 8 GPUs; rails of 8 on radix 4: leaves of 2 under 2 spines (x = 1).
        const Settings s = {
            {"gpus", "64"}, {"hb_size", "8"},      {"radix", "4"},     {"network", network},
            {"hb", hb},     {"hb_leaf_gpus", "4"}, {"hb_spines", "2"}, {"forwarding", forwarding}};
        SCOPED_TRACE(std::string(network) + " " + hb + " " + forwarding);
        const Network net = build(s);
        testing::check_structure(*net.topology);
        testing::check_all_routes(*net.topology, *net.routing, net.routing->vcs(),
                                  net.topology->diameter());
        EXPECT_TRUE(check_channel_graph(*net.topology, *net.routing, net.routing->vcs()).acyclic);
      }
    }
  }
  const Network ideal = build({{"gpus", "32"}, {"hb_size", "32"}, {"network", "none"}});
  testing::check_structure(*ideal.topology);
  testing::check_all_routes(*ideal.topology, *ideal.routing, 2, ideal.topology->diameter());
}

// The link classes of the one path from src to dst: walks route() from the source's router,
// taking the first candidate (the routing offers one), up to the destination endpoint.
std::vector<std::string> path(const Network& net, uint32_t src, uint32_t dst) {
  const Topology& t = *net.topology;
  std::vector<std::string> classes = {"endpoint"};
  Packet packet;
  packet.src = src;
  packet.dst = dst;
  ComponentId at = t.router_component(t.endpoint_router(src));
  PortId in = 0;
  while (classes.size() < 16) {
    Candidates out;
    net.routing->route(t.node(at).index, in, packet, out);
    const PortSpec next = t.port(at, out[0].port);
    classes.push_back(t.link_classes()[next.link_class].name);
    if (t.node(next.peer).kind == NodeKind::kEndpoint) break;
    packet.vc = out[0].vc;
    at = next.peer;
    in = next.peer_port;
  }
  return classes;
}

// 4 domains of 4 GPUs, one switch per rail (radix 4 >= 4 domains), one HB switch per domain.
// GPU 1 (domain 0, rail 1) to GPU 9 (domain 2, rail 1): the rail alone; to GPU 2 (same domain):
// the HB switch alone; to GPU 10 (domain 2, rail 2): forwarded, through the HB switch to GPU 2
// and rail 2 (hb_first), or rail 1 to GPU 9 and domain 2's HB switch (rail_first).
TEST(RailOnly, PathsOfThePaper) {
  const Settings base = {{"gpus", "16"}, {"hb_size", "4"}, {"radix", "4"}};
  const Network hb_first = build(base);
  using V = std::vector<std::string>;
  EXPECT_EQ(path(hb_first, 1, 9), (V{"endpoint", "nic", "nic", "endpoint"}));
  EXPECT_EQ(path(hb_first, 1, 2), (V{"endpoint", "hb", "hb", "endpoint"}));
  EXPECT_EQ(path(hb_first, 1, 10), (V{"endpoint", "hb", "hb", "nic", "nic", "endpoint"}));
  Settings rf = base;
  rf.push_back({"forwarding", "rail_first"});
  EXPECT_EQ(path(build(rf), 1, 10), (V{"endpoint", "nic", "nic", "hb", "hb", "endpoint"}));
  Settings ro = base;
  ro.push_back({"network", "rail_optimized"});
  ro.push_back({"radix", "32"});  // all 16 GPUs on one switch: any-to-any in one hop
  EXPECT_EQ(path(build(ro), 1, 10), (V{"endpoint", "nic", "nic", "endpoint"}));
}

// Radix k: a rail of T <= k GPUs is one switch; else leaves of k/2 GPUs, as few spines as take
// their k/2 up links at radix k. GH200 rails (K = 256) of 128 GPUs at radix 64: 4 leaves and 2
// spines (Table 2's 6 switches per rail, 1,536 for 256 rails).
TEST(RailOnly, ClosSizes) {
  const Network net = build({{"gpus", "32768"}, {"hb_size", "256"}, {"radix", "64"}});
  // 128 domains x (256 GPUs + 1 HB switch), then 256 rails x 6 switches.
  EXPECT_EQ(net.topology->num_routers(), 128u * 257 + 256u * 6);
  const Network one = build({{"gpus", "32768"}, {"hb_size", "256"}, {"radix", "128"}});
  EXPECT_EQ(one.topology->num_routers(), 128u * 257 + 256u);
  Clos c{128, 32, 2, 16};
  EXPECT_EQ(c.leaves(), 4u);
  EXPECT_EQ(c.ports(0), 64u);
  EXPECT_EQ(c.ports(4), 64u);  // a spine: 4 leaves x 16 links
}

TEST(RailOnly, InputErrors) {
  EXPECT_NE(error_of([] {
              build({{"gpus", "64"}, {"hb_size", "6"}});
            }).find("rail_only.hb_size"),
            std::string::npos);
  // 64 domains on rails of radix 8: two tiers join at most 32.
  EXPECT_NE(error_of([] {
              build({{"gpus", "512"}, {"hb_size", "8"}, {"radix", "8"}});
            }).find("needs a third tier"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              build({{"gpus", "80"}, {"hb_size", "8"}, {"radix", "8"}});
            }).find("does not fill leaves"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              build({{"gpus", "64"}, {"hb_size", "8"}, {"hb", "nvswitch"}, {"hb_leaf_gpus", "3"}});
            }).find("rail_only.hb_leaf_gpus"),
            std::string::npos);
}

}  // namespace
}  // namespace hx::net
