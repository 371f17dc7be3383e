// Every routing hxsim ships is free of routing deadlock by its channel dependency graph (Dally &
// Seitz; Duato for the adaptive ones), on a small instance of its family: check_channel_graph()
// over all pairs, exactly what `hxsim verify` does. The one routing shipped to provoke deadlocks,
// torus dor_no_dateline, must show its cycle instead.
//
// The families and their routings come from the registry (every model that is a network, every
// choice of its `routing` parameter), so a new routing is checked as soon as it is registered;
// a new family without an entry in small_networks.h fails the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "core/registry.h"
#include "engine/run.h"
#include "models/verification/channel_graph.h"
#include "models/network/network_model.h"
#include "models/register_all.h"
#include "network/small_networks.h"

namespace hx {
namespace {

using test::registry;

// Is `info` a network model? Built with its defaults (building is cheap; nothing runs).
bool is_network(const ModelInfo& info) {
  Config config;
  config.set("sim.model", info.name, "test");
  config.set("sim.end_time", "1us", "test");  // PHOLD needs a finite end
  const ResolvedConfig resolved = resolve_config(registry(), config);
  return net::as_network(*resolved.model) != nullptr;
}

std::vector<std::string> routing_choices(const ModelInfo& info) {
  for (const ParamSpec& p : info.params) {
    if (p.name == "routing") return p.choices;
  }
  return {};
}

// The routings that are shipped NOT deadlock-free, on purpose: (family, routing).
bool expected_cyclic(const std::string& family, const std::string& routing) {
  return family == "torus" && routing == "dor_no_dateline";
}

TEST(ShippedRoutings, EveryNetworkFamilyHasASmallConfig) {
  std::vector<std::string> networks;
  for (const ModelInfo& info : registry().models()) {
    if (!is_network(info)) continue;
    networks.push_back(info.name);
    EXPECT_NE(test::find_small_network(info.name), nullptr)
        << "network family '" << info.name
        << "' has no small config in tests/network/small_networks.h: add one so its routings' "
           "channel graphs are checked";
    EXPECT_FALSE(routing_choices(info).empty())
        << "network family '" << info.name << "' declares no `routing` choice parameter";
  }
  EXPECT_GE(networks.size(), 7u) << "fewer network families registered than shipped";
  // And no stale entries: every small config names a registered network family.
  for (const test::SmallNetwork& n : test::small_networks()) {
    EXPECT_NE(std::find(networks.begin(), networks.end(), n.family), networks.end())
        << "small_networks.h lists '" << n.family << "', which is not a registered network model";
  }
}

TEST(ShippedRoutings, ChannelGraphsAreAcyclicExceptDorNoDateline) {
  int checked = 0;
  int cyclic = 0;
  for (const ModelInfo& info : registry().models()) {
    const test::SmallNetwork* small = test::find_small_network(info.name);
    if (small == nullptr) continue;  // not a network, or reported by the test above
    for (const std::string& routing : routing_choices(info)) {
      SCOPED_TRACE(info.name + " routing " + routing);
      const Config config = test::small_network_config(*small, routing);
      const ResolvedConfig resolved = resolve_config(registry(), config);
      const net::NetworkModel* network = net::as_network(*resolved.model);
      ASSERT_NE(network, nullptr);
      ASSERT_EQ(network->routing().name(), routing);
      net::ChannelGraphReport report;
      ASSERT_NO_THROW(report = net::check_channel_graph(network->topology(), network->routing(),
                                                        network->vcs()));
      EXPECT_EQ(report.pairs, uint64_t{network->topology().num_endpoints()} *
                                  (network->topology().num_endpoints() - 1));
      EXPECT_GT(report.dependencies, 0u);
      std::printf("  %-14s %-16s %u VC(s): %llu channels, %llu dependencies, %s%s\n",
                  info.name.c_str(), routing.c_str(), unsigned{network->vcs()},
                  static_cast<unsigned long long>(report.channels),
                  static_cast<unsigned long long>(report.dependencies),
                  report.acyclic ? "acyclic" : "CYCLIC",
                  report.escape_only ? " (escape only)" : "");
      if (expected_cyclic(info.name, routing)) {
        ++cyclic;
        EXPECT_FALSE(report.acyclic);
        EXPECT_FALSE(report.deadlock_free());
        EXPECT_FALSE(report.cycle.empty());
      } else {
        EXPECT_TRUE(report.deadlock_free())
            << (report.acyclic ? "acyclic, but " + std::to_string(report.states_without_escape) +
                                     " packet states have no escape candidate"
                               : "cycle of " + std::to_string(report.cycle.size()) + " channels");
        EXPECT_TRUE(report.cycle.empty());
      }
      ++checked;
    }
  }
  // mesh 1 + torus 2 + hyperx 2 + crossbar 1 + dragonfly 3 + fat_tree 2 + rail_optimized 2
  // + switchless_dragonfly 1 + railx 2 + hammingmesh 1.
  EXPECT_GE(checked, 17);
  EXPECT_EQ(cyclic, 1) << "torus dor_no_dateline was not checked";
}

// Topology::port(c, p) (one port, in closed form where a family gives it) is ports(c)[p] for
// every component and port of every family.
TEST(ShippedRoutings, EveryPortIsTheOneItsComponentLists) {
  for (const test::SmallNetwork& small : test::small_networks()) {
    SCOPED_TRACE(small.family);
    const ResolvedConfig resolved = resolve_config(registry(), test::small_network_config(small));
    const net::Topology& t = net::as_network(*resolved.model)->topology();
    std::vector<PortSpec> ports;
    for (ComponentId c = 0; c < t.num_components(); ++c) {
      ports.clear();
      t.ports(c, ports);
      for (PortId p = 0; p < ports.size(); ++p) {
        const PortSpec one = t.port(c, p);
        EXPECT_EQ(one.peer, ports[p].peer) << "component " << c << " port " << p;
        EXPECT_EQ(one.peer_port, ports[p].peer_port) << "component " << c << " port " << p;
        EXPECT_EQ(one.latency, ports[p].latency) << "component " << c << " port " << p;
        EXPECT_EQ(one.link_class, ports[p].link_class) << "component " << c << " port " << p;
      }
    }
  }
}

// Every link is a pair of directions: the port a link reaches leads back to the port it left,
// with the same latency and class. This checks port(c, p) against itself from the other end, so
// it holds where ports(c) is built from port(c, p) (the Dragonfly, the switch-less Dragonfly), for
// which the test above compares a function with itself.
TEST(ShippedRoutings, EveryLinkLeadsBackToThePortItLeft) {
  for (const test::SmallNetwork& small : test::small_networks()) {
    SCOPED_TRACE(small.family);
    const ResolvedConfig resolved = resolve_config(registry(), test::small_network_config(small));
    const net::Topology& t = net::as_network(*resolved.model)->topology();
    std::vector<PortSpec> ports;
    uint64_t links = 0;
    for (ComponentId c = 0; c < t.num_components(); ++c) {
      ports.clear();
      t.ports(c, ports);
      for (PortId p = 0; p < ports.size(); ++p) {
        const PortSpec out = t.port(c, p);
        ASSERT_LT(out.peer, t.num_components()) << "component " << c << " port " << p;
        const PortSpec back = t.port(out.peer, out.peer_port);
        EXPECT_EQ(back.peer, c) << "component " << c << " port " << p;
        EXPECT_EQ(back.peer_port, p) << "component " << c << " port " << p;
        EXPECT_EQ(back.latency, out.latency) << "component " << c << " port " << p;
        EXPECT_EQ(back.link_class, out.link_class) << "component " << c << " port " << p;
        ++links;
      }
    }
    EXPECT_GT(links, 0u);
  }
}

}  // namespace
}  // namespace hx
