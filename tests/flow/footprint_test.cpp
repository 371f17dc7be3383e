// Flow footprints on a small network of every shipped family and routing: the paths' counts are
// conserved at every router (what enters leaves), all of them start on the source's injection
// links and end on the destination's ejection links, and a dimension-order mesh path is the one
// hop-by-hop routing gives: one path of Manhattan length.
#include "models/flow/footprint.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "engine/run.h"
#include "models/network/network_model.h"
#include "network/small_networks.h"

namespace hx::flow {
namespace {

using test::registry;

// Link id -> (from component, to component).
std::map<uint64_t, std::pair<ComponentId, ComponentId>> link_ends(const net::Topology& t) {
  std::map<uint64_t, std::pair<ComponentId, ComponentId>> ends;
  std::vector<PortSpec> ports;
  for (ComponentId c = 0; c < t.num_components(); ++c) {
    ports.clear();
    t.ports(c, ports);
    for (PortId p = 0; p < ports.size(); ++p) ends[t.first_link(c) + p] = {c, ports[p].peer};
  }
  return ends;
}

std::vector<std::string> routings(const std::string& family) {
  for (const ModelInfo& info : registry().models()) {
    if (info.name != family) continue;
    for (const ParamSpec& p : info.params) {
      if (p.name == "routing") return p.choices;
    }
  }
  return {};
}

TEST(FlowFootprint, PathCountsAreConservedOnEveryFamilyAndRouting) {
  int checked = 0;
  for (const test::SmallNetwork& small : test::small_networks()) {
    for (const std::string& routing : routings(small.family)) {
      if (small.family == "torus" && routing == "dor_no_dateline") continue;
      SCOPED_TRACE(small.family + " routing " + routing);
      const ResolvedConfig resolved =
          resolve_config(registry(), test::small_network_config(small, routing));
      const net::NetworkModel& network = *net::as_network(*resolved.model);
      const net::Topology& t = network.topology();
      const auto ends = link_ends(t);
      const uint32_t n = t.num_endpoints();
      // A spread of pairs: every source, three destinations each.
      for (uint32_t src = 0; src < n; ++src) {
        for (uint32_t step : {1u, n / 2, n - 1}) {
          const uint32_t dst = (src + step) % n;
          if (dst == src) continue;
          const Footprint f =
              flow_footprint(t, network.routing(), src, dst, SimTime::ns(1), 64);
          ASSERT_GT(f.paths, 0u);
          std::map<ComponentId, int64_t> balance;  // paths in less paths out, per component
          for (const LinkUse& u : f.uses) {
            const auto [from, to] = ends.at(u.link);
            balance[from] -= u.count;
            balance[to] += u.count;
          }
          for (const auto& [c, b] : balance) {
            if (c == t.endpoint_component(src)) {
              EXPECT_EQ(b, -int64_t{f.paths}) << "source " << src;
            } else if (c == t.endpoint_component(dst)) {
              EXPECT_EQ(b, int64_t{f.paths}) << "destination " << dst;
            } else {
              EXPECT_EQ(b, 0) << "component " << c << " from " << src << " to " << dst;
            }
          }
          EXPECT_GT(f.latency, SimTime::zero());
        }
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 16);
}

TEST(FlowFootprint, DimensionOrderOnAMeshIsOneShortestPath) {
  Config c;
  c.set("sim.model", "mesh", "test");
  c.set("mesh.k", "4", "test");
  c.set("mesh.n", "2", "test");
  const ResolvedConfig resolved = resolve_config(registry(), c);
  const net::NetworkModel& network = *net::as_network(*resolved.model);
  const net::Topology& t = network.topology();
  // Endpoint i sits at router i: (i % 4, i / 4).
  for (uint32_t dst : {1u, 5u, 15u, 12u}) {
    const Footprint f = flow_footprint(t, network.routing(), 0, dst, SimTime::ns(2), 16);
    const uint32_t hops = dst % 4 + dst / 4;
    EXPECT_EQ(f.paths, 1u);
    EXPECT_EQ(f.hops, hops);
    EXPECT_EQ(f.uses.size(), hops + 2u) << "to " << dst;  // injection, hops, ejection
    for (const LinkUse& u : f.uses) EXPECT_EQ(u.count, 1u);
    // Every link of the path plus 2 ns in each of its hops + 1 routers.
    SimTime links;
    std::vector<PortSpec> ports;
    for (ComponentId comp = 0; comp < t.num_components(); ++comp) {
      ports.clear();
      t.ports(comp, ports);
      for (PortId p = 0; p < ports.size(); ++p) {
        for (const LinkUse& u : f.uses) {
          if (u.link == t.first_link(comp) + p) links += ports[p].latency;
        }
      }
    }
    EXPECT_EQ(f.latency, links + SimTime::ns(2) * (hops + 1));
  }
}

}  // namespace
}  // namespace hx::flow
