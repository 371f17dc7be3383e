// Flow footprints on a small network of every shipped family and routing: the paths' counts are
// conserved at every router (what enters leaves), all of them start on the source's injection
// links and end on the destination's ejection links, and a dimension-order mesh path is the one
// hop-by-hop routing gives: one path of Manhattan length. Under faults, only live links carry
// paths: a failed fat-tree up-link takes exactly its paths away (all of them under
// deterministic up/down routing, a dead end, not an error), a failed injection link or
// destination leaves none, and a Dragonfly's failed global link is routed around.
#include "models/flow/footprint.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "engine/run.h"
#include "io/config_file.h"
#include "models/network/faults.h"
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

// Calls f(network) for every small network of every family with each of its routings.
template <class F>
void for_each_network(F f) {
  for (const test::SmallNetwork& small : test::small_networks()) {
    for (const std::string& routing : routings(small.family)) {
      if (small.family == "torus" && routing == "dor_no_dateline") continue;
      SCOPED_TRACE(small.family + " routing " + routing);
      const ResolvedConfig resolved =
          resolve_config(registry(), test::small_network_config(small, routing));
      f(*net::as_network(*resolved.model));
    }
  }
}

TEST(FlowFootprint, PathCountsAreConservedOnEveryFamilyAndRouting) {
  int checked = 0;
  for_each_network([&](const net::NetworkModel& network) {
    const net::Topology& t = network.topology();
    const auto ends = link_ends(t);
    const uint32_t n = t.num_endpoints();
    // A spread of pairs: every source, three destinations each.
    for (uint32_t src = 0; src < n; ++src) {
      for (uint32_t step : {1u, n / 2, n - 1}) {
        const uint32_t dst = (src + step) % n;
        if (dst == src) continue;
        const Footprint f = flow_footprint(t, network.routing(), src, dst, SimTime::ns(1), 64);
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
  });
  EXPECT_GE(checked, 16);
}

// One builder reused over many pairs (its index emptied by stamps, grown on large state graphs)
// gives what a fresh one gives for each pair.
TEST(FlowFootprint, AReusedBuilderBuildsWhatAFreshOneBuilds) {
  int pairs = 0;
  for_each_network([&](const net::NetworkModel& network) {
    const net::Topology& t = network.topology();
    FootprintBuilder builder(t, network.routing(), SimTime::ns(1), 64);
    const uint32_t n = t.num_endpoints();
    for (uint32_t src = 0; src < n; ++src) {
      for (uint32_t step : {1u, n / 2, n - 1}) {
        const uint32_t dst = (src + step) % n;
        const Footprint reused = builder.build(src, dst);
        const Footprint fresh = flow_footprint(t, network.routing(), src, dst, SimTime::ns(1), 64);
        ASSERT_EQ(reused.uses.size(), fresh.uses.size()) << src << " to " << dst;
        for (std::size_t i = 0; i < fresh.uses.size(); ++i) {
          EXPECT_EQ(reused.uses[i].link, fresh.uses[i].link);
          EXPECT_EQ(reused.uses[i].count, fresh.uses[i].count);
          EXPECT_EQ(reused.link_classes[i], fresh.link_classes[i]);
        }
        EXPECT_EQ(reused.paths, fresh.paths);
        EXPECT_EQ(reused.hops, fresh.hops);
        EXPECT_EQ(reused.latency, fresh.latency);
        ++pairs;
      }
    }
  });
  EXPECT_GE(pairs, 100);
}

// The model a config of these keys builds.
ResolvedConfig resolved_of(std::initializer_list<std::pair<const char*, const char*>> keys) {
  Config c;
  for (const auto& [key, value] : keys) c.set(key, value, "test");
  return resolve_config(registry(), c);
}

// A RailX torus of 16 x 16 nodes of 4 x 4 chips with 9 rails a line offers several equally
// short ports at every hop: from chip 712 to chip 3158 there are more than 2^32 paths, kept as
// shares of kScaledPaths, each link's rounded, so what enters a router leaves it to within the
// rounding of its links. A neighbour pair is counted exactly.
// A footprint of shares (f.paths == kScaledPaths): every count within it, and what enters each
// component leaves it, the source sending and the destination taking kScaledPaths, within the
// rounding of one per link.
void expect_shares_conserved(const net::Topology& t, const Footprint& f, uint32_t src,
                             uint32_t dst) {
  EXPECT_EQ(f.paths, kScaledPaths);
  std::set<uint64_t> used;
  for (const LinkUse& u : f.uses) used.insert(u.link);
  std::map<uint64_t, std::pair<ComponentId, ComponentId>> ends;  // of the used links only
  std::vector<PortSpec> ports;
  for (ComponentId c = 0; c < t.num_components(); ++c) {
    ports.clear();
    t.ports(c, ports);
    for (PortId p = 0; p < ports.size(); ++p) {
      if (used.count(t.first_link(c) + p) > 0) ends[t.first_link(c) + p] = {c, ports[p].peer};
    }
  }
  std::map<ComponentId, int64_t> balance;  // paths in less paths out, per component
  std::map<ComponentId, int64_t> links;    // links used, per component
  for (const LinkUse& u : f.uses) {
    EXPECT_GT(u.count, 0u);
    EXPECT_LE(u.count, kScaledPaths);
    const auto [from, to] = ends.at(u.link);
    balance[from] -= u.count;
    balance[to] += u.count;
    ++links[from];
    ++links[to];
  }
  EXPECT_EQ(balance.count(t.endpoint_component(src)), 1u);
  EXPECT_EQ(balance.count(t.endpoint_component(dst)), 1u);
  for (const auto& [comp, b] : balance) {
    int64_t expected = 0;
    if (comp == t.endpoint_component(src)) expected = -int64_t{kScaledPaths};
    if (comp == t.endpoint_component(dst)) expected = kScaledPaths;
    EXPECT_LE(std::abs(b - expected), links[comp]) << "component " << comp;
  }
}

// RailX of 4 x 4-chip nodes as a `shape` x `shape` torus ("torus:16").
const net::NetworkModel& railx_torus(const char* shape, ResolvedConfig& keep) {
  keep = resolved_of({{"sim.model", "railx"},
                      {"railx.m", "4"},
                      {"railx.n", "9"},
                      {"railx.x", shape},
                      {"railx.y", shape}});
  return *net::as_network(*keep.model);
}

TEST(FlowFootprint, MorePathsThanCountsHoldAreKeptAsShares) {
  ResolvedConfig resolved;
  const net::NetworkModel& network = railx_torus("torus:16", resolved);
  const net::Topology& t = network.topology();
  const Footprint f = flow_footprint(t, network.routing(), 712, 3158, SimTime::ns(1), hop_limit(t));
  expect_shares_conserved(t, f, 712, 3158);
  // Far apart: optical hops and the walks inside the nodes, 51 router-to-router hops a path.
  EXPECT_GT(f.hops, 12u * kScaledPaths) << static_cast<double>(f.hops) / kScaledPaths;
  const Footprint near =
      flow_footprint(t, network.routing(), 712, 713, SimTime::ns(1), hop_limit(t));
  EXPECT_GT(near.paths, 0u) << near.paths;
  EXPECT_LT(near.paths, kScaledPaths);
}

// A RailX torus of 64 x 64 nodes gives far pairs some 2^120 paths: their shares times
// kScaledPaths outgrow 128 bits, so they are counted in long double. (Counted in 128-bit
// integers, these pairs got 19, 1,324 or 0 paths, and a flow with 0 was taken for lost.)
TEST(FlowFootprint, CountsBeyond128BitsAreKeptAsShares) {
  ResolvedConfig resolved;
  const net::NetworkModel& network = railx_torus("torus:64", resolved);
  const net::Topology& t = network.topology();
  // Node (x, y) of a chip, and the distance round a ring of 64.
  const auto x = [](uint32_t chip) { return chip / 16 % 64; };
  const auto y = [](uint32_t chip) { return chip / 16 / 64; };
  const auto ring = [](uint32_t a, uint32_t b) { return std::min((a - b) % 64, (b - a) % 64); };
  for (const auto& [src, dst] : {std::pair<uint32_t, uint32_t>{1358, 35948}, {0, 34952}}) {
    SCOPED_TRACE(std::to_string(src) + " to " + std::to_string(dst));
    const Footprint f =
        flow_footprint(t, network.routing(), src, dst, SimTime::ns(1), hop_limit(t));
    expect_shares_conserved(t, f, src, dst);
    // Every path crosses the optical links of a minimal route, then walks inside the nodes.
    const uint64_t optical = ring(x(src), x(dst)) + ring(y(src), y(dst));
    EXPECT_GT(f.hops, optical * kScaledPaths) << static_cast<double>(f.hops) / kScaledPaths;
    EXPECT_LT(f.hops, uint64_t{hop_limit(t)} * kScaledPaths);
  }
}

TEST(FlowFootprint, DimensionOrderOnAMeshIsOneShortestPath) {
  const ResolvedConfig resolved =
      resolved_of({{"sim.model", "mesh"}, {"mesh.k", "4"}, {"mesh.n", "2"}});
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

// The [faults] schedule of `actions` (a TOML array of tables) on `t`.
net::Faults faults_of(const std::string& actions, const net::Topology& t) {
  const Config c = parse_config_text("[faults]\nactions = " + actions + "\n", "test.toml");
  return net::Faults::build(resolve_section(c, "faults", net::fault_params()), t, 1,
                            SimTime::us(1000));
}

uint32_t count_on(const Footprint& f, uint64_t link) {
  for (const LinkUse& u : f.uses) {
    if (u.link == link) return u.count;
  }
  return 0;
}

// What enters every component but the source and the destination leaves it.
void expect_conserved(const net::Topology& t, const Footprint& f, uint32_t src, uint32_t dst) {
  const auto ends = link_ends(t);
  std::map<ComponentId, int64_t> balance;
  for (const LinkUse& u : f.uses) {
    balance[ends.at(u.link).first] -= u.count;
    balance[ends.at(u.link).second] += u.count;
  }
  for (const auto& [c, b] : balance) {
    const int64_t expected = c == t.endpoint_component(src)   ? -int64_t{f.paths}
                             : c == t.endpoint_component(dst) ? int64_t{f.paths}
                                                              : 0;
    EXPECT_EQ(b, expected) << "component " << c;
  }
}

// "router R port P" for the link leaving router component `c` at port p.
std::string element(const net::Topology& t, ComponentId c, PortId p) {
  return "router " + std::to_string(t.node(c).index) + " port " + std::to_string(p);
}

// Fat tree k = 2, n = 3: endpoint 0 to endpoint 7 (in the other pod) goes up two levels.
struct FatTree {
  explicit FatTree(const std::string& routing) {
    Config c;
    c.set("sim.model", "fat_tree", "test");
    c.set("fat_tree.k", "2", "test");
    c.set("fat_tree.n", "3", "test");
    c.set("fat_tree.routing", routing, "test");
    resolved = resolve_config(registry(), c);
  }
  const net::NetworkModel& network() const { return *net::as_network(*resolved.model); }
  // Endpoint 0's leaf and the first of its up ports that `f` uses.
  std::pair<ComponentId, PortId> used_up_port(const Footprint& f) const {
    const net::Topology& t = network().topology();
    const ComponentId leaf = t.router_component(t.endpoint_router(0));
    std::vector<PortSpec> ports;
    t.ports(leaf, ports);
    for (PortId p = 0; p < ports.size(); ++p) {
      const bool up = t.node(ports[p].peer).kind == net::NodeKind::kRouter;
      if (up && count_on(f, t.first_link(leaf) + p) > 0) return {leaf, p};
    }
    ADD_FAILURE() << "no up-link of the leaf in the footprint";
    return {leaf, 0};
  }
  ResolvedConfig resolved;
};

TEST(FlowFootprint, AFailedUpLinkTakesItsPathsAway) {
  const FatTree tree("updown_adaptive");
  const net::Topology& t = tree.network().topology();
  const net::Routing& r = tree.network().routing();
  const Footprint all = flow_footprint(t, r, 0, 7, SimTime::ns(1), 64);
  ASSERT_EQ(all.paths, 4u);  // two up-links at each of two levels
  const auto [leaf, port] = tree.used_up_port(all);
  const uint64_t dead = t.first_link(leaf) + port;
  const net::Faults faults = faults_of(
      "[{at = \"1us\", element = \"" + element(t, leaf, port) + "\"}]", t);
  // Before the failure, the view changes nothing.
  const net::LinksAt before(&faults, SimTime::ns(999));
  const Footprint same = flow_footprint(t, r, 0, 7, SimTime::ns(1), 64, &before);
  EXPECT_EQ(same.paths, all.paths);
  EXPECT_EQ(same.uses.size(), all.uses.size());
  EXPECT_EQ(same.latency, all.latency);

  const net::LinksAt after(&faults, SimTime::us(1));
  const Footprint f = flow_footprint(t, r, 0, 7, SimTime::ns(1), 64, &after);
  EXPECT_EQ(f.paths, all.paths - count_on(all, dead));
  EXPECT_EQ(f.paths, 2u);
  EXPECT_EQ(count_on(f, dead), 0u);
  for (const LinkUse& u : f.uses) EXPECT_TRUE(faults.link_up(u.link, SimTime::us(1))) << u.link;
  EXPECT_EQ(f.hops, all.hops / 2);  // every path has the same length
  EXPECT_EQ(f.latency, all.latency);
  expect_conserved(t, f, 0, 7);

  // Up/down by destination digit offers one up port: with it failed, the routing's fallback
  // (route_around) takes the leaf's other up port; with both failed the state is a dead end and
  // the flow has no path (no error).
  const FatTree fixed("updown");
  const net::Topology& ft = fixed.network().topology();
  const net::Routing& fr = fixed.network().routing();
  const Footprint one = flow_footprint(ft, fr, 0, 7, SimTime::ns(1), 64);
  ASSERT_EQ(one.paths, 1u);
  const auto [fleaf, fport] = fixed.used_up_port(one);
  const net::Faults detour =
      faults_of("[{at = \"0ps\", element = \"" + element(ft, fleaf, fport) + "\"}]", ft);
  const net::LinksAt then(&detour, SimTime::zero());
  const Footprint around = flow_footprint(ft, fr, 0, 7, SimTime::ns(1), 64, &then);
  EXPECT_EQ(around.paths, 1u);
  EXPECT_EQ(count_on(around, ft.first_link(fleaf) + fport), 0u);
  expect_conserved(ft, around, 0, 7);
  const PortId other = fport == 2 ? 3 : 2;  // k = 2: up ports 2 and 3
  const net::Faults cut = faults_of("[{at = \"0ps\", element = \"" +
                                        element(ft, fleaf, fport) + "\"}, {at = \"0ps\", element = \"" +
                                        element(ft, fleaf, other) + "\"}]",
                                    ft);
  const net::LinksAt now(&cut, SimTime::zero());
  const Footprint none = flow_footprint(ft, fr, 0, 7, SimTime::ns(1), 64, &now);
  EXPECT_EQ(none.paths, 0u);
  EXPECT_TRUE(none.uses.empty());
  EXPECT_EQ(none.hops, 0u);
  EXPECT_EQ(none.latency, SimTime::zero());
}

TEST(FlowFootprint, AFailedInjectionLinkOrDestinationLeavesNoPath) {
  const FatTree tree("updown_adaptive");
  const net::Topology& t = tree.network().topology();
  const net::Routing& r = tree.network().routing();
  for (const char* element : {"endpoint 0 port 0", "endpoint 7"}) {
    SCOPED_TRACE(element);
    const net::Faults faults =
        faults_of(std::string("[{at = \"0ps\", element = \"") + element + "\"}]", t);
    const net::LinksAt view(&faults, SimTime::zero());
    const Footprint f = flow_footprint(t, r, 0, 7, SimTime::ns(1), 64, &view);
    EXPECT_EQ(f.paths, 0u);
    EXPECT_TRUE(f.uses.empty());
    EXPECT_EQ(f.latency, SimTime::zero());
    // Others still have theirs.
    EXPECT_EQ(flow_footprint(t, r, 1, 6, SimTime::ns(1), 64, &view).paths, 4u);
  }
}

// Dragonfly, 9 groups of 4 routers with 2 endpoints each: endpoint 0 (group 0) to endpoint 8
// (group 1), whose minimal path crosses the one global link between the groups.
TEST(FlowFootprint, ADragonflyRoutesAroundAFailedGlobalLink) {
  const test::SmallNetwork& small = *test::find_small_network("dragonfly");
  const ResolvedConfig resolved =
      resolve_config(registry(), test::small_network_config(small, "ugal_l"));
  const net::NetworkModel& network = *net::as_network(*resolved.model);
  const net::Topology& t = network.topology();
  const net::Routing& r = network.routing();
  const uint32_t a = 4, dst = 8;
  ASSERT_EQ(t.endpoint_router(dst) / a, 1u);
  // The global link from group 0 to group 1.
  ComponentId gateway = 0;
  PortId port = 0;
  int found = 0;
  std::vector<PortSpec> ports;
  for (uint32_t router = 0; router < a; ++router) {
    const ComponentId c = t.router_component(router);
    ports.clear();
    t.ports(c, ports);
    for (PortId p = 0; p < ports.size(); ++p) {
      const net::Node peer = t.node(ports[p].peer);
      if (peer.kind != net::NodeKind::kRouter || peer.index / a != 1) continue;
      gateway = c, port = p, ++found;
    }
  }
  ASSERT_EQ(found, 1);
  const uint64_t dead = t.first_link(gateway) + port;
  const Footprint all = flow_footprint(t, r, 0, dst, SimTime::ns(1), 64);
  ASSERT_GT(count_on(all, dead), 0u);

  const net::Faults faults =
      faults_of("[{at = \"0ps\", element = \"" + element(t, gateway, port) + "\"}]", t);
  const net::LinksAt view(&faults, SimTime::zero());
  const Footprint f = flow_footprint(t, r, 0, dst, SimTime::ns(1), 64, &view);
  EXPECT_EQ(count_on(f, dead), 0u);
  for (const LinkUse& u : f.uses) EXPECT_TRUE(faults.link_up(u.link, SimTime::zero())) << u.link;
  // The paths over the failed link are not simply cut: the minimal one, and Valiant ones
  // through it, turn off at the gateway to another group (route_around).
  EXPECT_GT(f.paths, all.paths - count_on(all, dead));
  expect_conserved(t, f, 0, dst);
  EXPECT_GT(f.latency, SimTime::zero());

  // Minimal routing has no way around: nothing reaches the destination.
  const ResolvedConfig minimal =
      resolve_config(registry(), test::small_network_config(small, "minimal"));
  const net::NetworkModel& mn = *net::as_network(*minimal.model);
  EXPECT_EQ(flow_footprint(mn.topology(), mn.routing(), 0, dst, SimTime::ns(1), 64, &view).paths,
            0u);
}

}  // namespace
}  // namespace hx::flow
