// Tests of the Dragonfly family: structure and numbering, every path of every routing within its
// hop bound, the global link arrangement, the VC rules, UGAL-L's source choice and input errors.
#include "models/topologies/dragonfly/dragonfly.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/rng.h"
#include "support/input_error.h"
#include "support/channel_graph_checks.h"
#include "support/topology_checks.h"

namespace hx::net {
namespace {

using hx::testing::error_of;
using Settings = std::vector<std::pair<std::string, std::string>>;

constexpr uint16_t kTerminal = 0, kLocal = 1, kGlobal = 2;

Network build(const Settings& settings) {
  const TopologyFamily family = dragonfly_family();
  Config config;
  for (const auto& [key, value] : settings) config.set("dragonfly." + key, value, "test");
  return family.make(resolve_section(config, "dragonfly", family.params, SimTime::ns(1)));
}

Settings with(Settings settings, const std::string& key, const std::string& value) {
  settings.emplace_back(key, value);
  return settings;
}

const Settings kBalanced = {{"p", "2"}, {"a", "4"}, {"h", "2"}};  // g = a*h+1 = 9

// Router-to-router hop counts of every path from src to dst.
std::set<uint32_t> hop_counts(const Network& net, uint32_t src, uint32_t dst) {
  std::set<uint32_t> hops;
  ExploreVisitor visitor;
  visitor.on_delivered = [&](uint32_t h) { hops.insert(h); };
  explore_routes(*net.topology, *net.routing, net.routing->vcs(), src, dst, 8, visitor);
  return hops;
}

// The (link class, VC) of each channel of the only path from src to dst, ejection (VC 0)
// included. Fails the test if the path branches before the destination router.
std::vector<std::pair<uint16_t, uint8_t>> only_path(const Network& net, uint32_t src,
                                                    uint32_t dst) {
  const Topology& t = *net.topology;
  const uint8_t vcs = net.routing->vcs();
  std::vector<uint16_t> link_class(t.num_links());
  std::vector<PortSpec> ports;
  for (ComponentId id = 0; id < t.num_components(); ++id) {
    ports.clear();
    t.ports(id, ports);
    for (PortId p = 0; p < ports.size(); ++p)
      link_class[t.first_link(id) + p] = ports[p].link_class;
  }
  std::map<ChannelId, std::set<ChannelId>> next;
  ExploreVisitor visitor;
  visitor.on_dependency = [&](ChannelId from, ChannelId to, bool) { next[from].insert(to); };
  explore_routes(t, *net.routing, vcs, src, dst, 8, visitor);
  std::vector<std::pair<uint16_t, uint8_t>> path;
  ChannelId at = t.first_link(t.endpoint_component(src)) * vcs;  // injection on VC 0
  while (next.count(at) != 0) {
    const std::set<ChannelId>& choices = next[at];
    EXPECT_EQ(*choices.begin() / vcs, *choices.rbegin() / vcs) << "the path branches";
    at = *choices.begin();
    path.emplace_back(link_class[at / vcs], static_cast<uint8_t>(at % vcs));
  }
  return path;
}

class FakeLoad final : public RouterView {
 public:
  std::map<PortId, uint32_t> loads;
  uint32_t others = 0;
  uint32_t load(PortId port) const override {
    const auto it = loads.find(port);
    return it == loads.end() ? others : it->second;
  }
};

TEST(Dragonfly, BalancedSizesAndNumbering) {
  const Network net = build(with(kBalanced, "routing", "minimal"));
  const Topology& t = *net.topology;
  EXPECT_EQ(t.num_endpoint_groups(), 9u);
  EXPECT_EQ(t.num_routers(), 36u);
  EXPECT_EQ(t.num_endpoints(), 72u);
  EXPECT_EQ(t.describe(), "dragonfly p=2 a=4 h=2 g=9: 72 endpoints, 36 routers");
  EXPECT_EQ(t.diameter(), 3u);
  EXPECT_EQ(t.endpoint_dims(), (std::vector<uint32_t>{2, 4, 9}));
  EXPECT_EQ(t.num_links(), 9u * (4 * (2 * 2 + 3) + 8));
  ASSERT_EQ(t.link_classes().size(), 3u);
  EXPECT_EQ(t.link_classes()[kGlobal].name, "global");
  EXPECT_EQ(t.link_classes()[kGlobal].latency, SimTime::ns(10));
  EXPECT_EQ(t.link_classes()[kLocal].latency, SimTime::ns(1));
  const auto levels = t.group_levels();
  ASSERT_EQ(levels.size(), 2u);
  EXPECT_EQ(levels[0].name, "group");
  EXPECT_EQ(levels[0].count, 9u);
  EXPECT_EQ(levels[1].count, 36u);
  EXPECT_EQ(t.group_range(0, 1).begin, 12u);  // 4 routers of 1 + 2 components each
  EXPECT_EQ(t.endpoint_component(5), 8u);     // terminal 1 of router 2 (component 6)
  EXPECT_EQ(t.endpoint_router(5), 2u);
  EXPECT_EQ(t.endpoint_group_range(2).first, 16u);
  ASSERT_NO_FATAL_FAILURE(testing::check_structure(t));

  // Global slot s of router r in group i is link j = r*h + s, to group j < i ? j : j+1.
  std::vector<PortSpec> ports;
  t.ports(t.router_component(0), ports);
  ASSERT_EQ(ports.size(), 2u + 3u + 2u);
  EXPECT_EQ(ports[5].peer, t.router_component(4));  // j = 0: group 1, its link 0 on router 4
  EXPECT_EQ(ports[5].peer_port, 5u);
  EXPECT_EQ(ports[5].link_class, kGlobal);
  EXPECT_EQ(ports[6].peer, t.router_component(8));  // j = 1: group 2, its link 0 on router 8
  EXPECT_EQ(ports[6].peer_port, 5u);
  EXPECT_EQ(ports[2].peer, t.router_component(1));  // local port 0
  EXPECT_EQ(ports[2].link_class, kLocal);
}

TEST(Dragonfly, FewerGroupsLeaveUnusedGlobalPortsOut) {
  // g - 1 = 2 links per group, both on router 0 (h = 2); routers 1 to 3 have none.
  const Network net = build({{"p", "1"}, {"a", "4"}, {"h", "2"}, {"g", "3"}});
  const Topology& t = *net.topology;
  std::vector<uint32_t> sizes;
  for (uint32_t r = 0; r < 4; ++r) {
    std::vector<PortSpec> ports;
    t.ports(t.router_component(r), ports);
    sizes.push_back(static_cast<uint32_t>(ports.size()));
  }
  EXPECT_EQ(sizes, (std::vector<uint32_t>{6, 4, 4, 4}));
  EXPECT_EQ(t.num_links(), 3u * (4 * (2 + 3) + 2));
  ASSERT_NO_FATAL_FAILURE(testing::check_structure(t));
}

TEST(Dragonfly, EveryPathArrivesWithinItsBound) {
  const std::vector<Settings> shapes = {
      kBalanced,
      {{"p", "1"}, {"a", "3"}, {"h", "2"}, {"g", "4"}},  // unused global ports
      {{"p", "1"}, {"a", "3"}, {"h", "3"}, {"g", "6"}},  // 2, 2 and 1 global ports
      {{"p", "2"}, {"a", "2"}, {"h", "1"}, {"g", "3"}},
      {{"p", "1"}, {"a", "1"}, {"h", "3"}, {"g", "3"}},  // one router per group
      {{"p", "3"}, {"a", "3"}, {"h", "1"}, {"g", "2"}},  // two groups: no third group to detour
      {{"p", "2"}, {"a", "3"}, {"h", "1"}, {"g", "1"}},  // one group
  };
  for (const Settings& shape : shapes) {
    for (const std::string routing : {"minimal", "valiant", "ugal_l"}) {
      const Network net = build(with(shape, "routing", routing));
      const Topology& t = *net.topology;
      const Routing& r = *net.routing;
      SCOPED_TRACE(t.describe() + " " + routing);
      EXPECT_EQ(r.name(), routing);
      EXPECT_EQ(r.vcs(), routing == "minimal" ? 2 : 3);
      ASSERT_NO_FATAL_FAILURE(testing::check_structure(t));
      const uint32_t bound = routing == "minimal" ? 3 : 5;
      const uint32_t longest = testing::check_all_routes(t, r, r.vcs(), bound);
      if (routing == "minimal") {
        EXPECT_EQ(longest, t.diameter());
      } else if (shape == kBalanced) {
        EXPECT_EQ(longest, 5u);
      }
      // Routers may have more VCs than the routing needs; the first hop accepts any of them.
      testing::check_all_routes(t, r, r.vcs() + 2, bound);
      EXPECT_TRUE(testing::dependencies_acyclic(t, r, r.vcs()));
    }
  }
}

TEST(Dragonfly, MinimalHopCounts) {
  const Network net = build(with(kBalanced, "routing", "minimal"));
  EXPECT_EQ(hop_counts(net, 0, 1), std::set<uint32_t>{0});   // same router
  EXPECT_EQ(hop_counts(net, 0, 2), std::set<uint32_t>{1});   // same group
  EXPECT_EQ(hop_counts(net, 0, 8), std::set<uint32_t>{1});   // router 0's global link to router 4
  EXPECT_EQ(hop_counts(net, 2, 8), std::set<uint32_t>{2});   // local, global
  EXPECT_EQ(hop_counts(net, 2, 10), std::set<uint32_t>{3});  // local, global, local
}

TEST(Dragonfly, VcsIncreaseAtEachGlobalHop) {
  // p=1 a=2 h=1 g=3: group 0 reaches group 1 from router 0 and group 2 from router 1; group 2
  // reaches group 0 from router 4 and group 1 from router 5, landing on router 3.
  const Settings shape = {{"p", "1"}, {"a", "2"}, {"h", "1"}, {"g", "3"}};
  using Path = std::vector<std::pair<uint16_t, uint8_t>>;
  EXPECT_EQ(only_path(build(with(shape, "routing", "minimal")), 1, 3),
            (Path{{kLocal, 0}, {kGlobal, 1}, {kLocal, 1}, {kTerminal, 0}}));
  // Valiant through group 2, the only third group.
  EXPECT_EQ(
      only_path(build(with(shape, "routing", "valiant")), 0, 2),
      (Path{{kLocal, 0}, {kGlobal, 1}, {kLocal, 1}, {kGlobal, 2}, {kLocal, 2}, {kTerminal, 0}}));
  EXPECT_EQ(hop_counts(build(with(shape, "routing", "valiant")), 0, 2), std::set<uint32_t>{5});
}

TEST(Dragonfly, StartStatesListEveryChoice) {
  const auto count = [](const std::string& routing, uint32_t dst) {
    const Network net = build(with(kBalanced, "routing", routing));
    Packet packet;
    packet.dst = dst;
    std::vector<Packet> states;
    net.routing->start_states(0, nullptr, packet, states);
    return states.size();
  };
  EXPECT_EQ(count("minimal", 8), 1u);
  EXPECT_EQ(count("valiant", 8), 7u);  // every group but the source's and the destination's
  EXPECT_EQ(count("ugal_l", 8), 8u);   // those and the minimal path
  EXPECT_EQ(count("valiant", 3), 1u);  // same group: minimal
  EXPECT_EQ(count("ugal_l", 3), 1u);
}

TEST(Dragonfly, ValiantPicksEveryThirdGroup) {
  const Network net = build(with(kBalanced, "routing", "valiant"));
  FakeLoad load;
  std::set<uint32_t> groups;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    Rng rng(seed, 0, static_cast<uint64_t>(RngPurpose::kRouting));
    Packet packet;
    packet.dst = 8;  // group 1
    net.routing->start(0, load, rng, packet);
    ASSERT_NE(packet.intermediate, kNoRouter);
    EXPECT_EQ(packet.intermediate % 4, 0u);  // the group's first router
    groups.insert(packet.intermediate / 4);
  }
  EXPECT_EQ(groups, (std::set<uint32_t>{2, 3, 4, 5, 6, 7, 8}));
}

TEST(Dragonfly, UgalChoosesByLoad) {
  // From router 0 to endpoint 8 (router 4): the minimal path is router 0's global port 5, one
  // hop; every Valiant path starts on another port and takes at least two hops.
  const auto decide = [](const Network& net, const FakeLoad& load, uint64_t seed) {
    Rng rng(seed, 0, static_cast<uint64_t>(RngPurpose::kRouting));
    Packet packet;
    packet.dst = 8;
    net.routing->start(0, load, rng, packet);
    return packet;
  };
  const Network net = build(with(kBalanced, "routing", "ugal_l"));
  Packet minimal;
  minimal.dst = 8;
  Candidates first;
  net.routing->route(0, 0, minimal, first);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].port, 5u);

  FakeLoad equal;
  equal.others = 10;
  FakeLoad congested;
  congested.loads[5] = 1000;
  for (uint64_t seed = 0; seed < 50; ++seed) {
    EXPECT_EQ(decide(net, equal, seed).intermediate, kNoRouter);
    const Packet valiant = decide(net, congested, seed);
    ASSERT_NE(valiant.intermediate, kNoRouter);
    EXPECT_GE(valiant.intermediate / 4, 2u);  // neither group 0 nor group 1
    EXPECT_EQ(valiant.phase, 0u);
    Candidates out;
    Packet copy = valiant;
    net.routing->route(0, 0, copy, out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_NE(out[0].port, 5u);
    EXPECT_EQ(out[0].vc, out[0].port >= 5 ? 1u : 0u);  // global ports start at p + a - 1 = 5
  }
  // 1000 * 1 hop > 0 * hops + threshold fails for a large threshold.
  const Network reluctant =
      build(with(with(kBalanced, "routing", "ugal_l"), "ugal_threshold", "5000"));
  EXPECT_EQ(decide(reluctant, congested, 1).intermediate, kNoRouter);
}

TEST(Dragonfly, LargeNetworksAreClosedForms) {
  // 513 groups, 16416 routers, 262656 endpoints: nothing is built per component.
  const Network net = build({{"p", "16"}, {"a", "32"}, {"h", "16"}, {"routing", "ugal_l"}});
  const Topology& t = *net.topology;
  EXPECT_EQ(t.num_endpoints(), 262656u);
  EXPECT_EQ(t.diameter(), 3u);
  std::vector<PortSpec> ports;
  const ComponentId last = t.num_components() - 1;
  t.ports(last, ports);
  EXPECT_EQ(t.first_link(last) + ports.size(), t.num_links());
  for (ComponentId id = 0; id < t.num_components(); id += 9973) {
    const Node n = t.node(id);
    EXPECT_EQ(
        n.kind == NodeKind::kRouter ? t.router_component(n.index) : t.endpoint_component(n.index),
        id);
  }
  for (uint32_t dst : {1u, 600u, 262655u}) {
    const std::set<uint32_t> hops = hop_counts(net, 100000, dst);
    EXPECT_LE(*hops.rbegin(), 5u);
  }
}

TEST(Dragonfly, InputErrorsNameTheKey) {
  const Settings large = {{"p", "4"}, {"a", "8"}, {"h", "4"}};
  std::string message = error_of([&] { build(with(large, "g", "40")); });
  EXPECT_CONTAINS(message, "dragonfly.g = 40");
  EXPECT_CONTAINS(message, "a*h+1 = 33");
  message = error_of([&] { build(with(large, "global_latency", "0ns")); });
  EXPECT_CONTAINS(message, "dragonfly.global_latency");
  message = error_of([&] { build({{"p", "1024"}, {"a", "1024"}, {"h", "1024"}}); });
  EXPECT_CONTAINS(message, "dragonfly.g = 1048577");
  EXPECT_CONTAINS(message, "components");
  message = error_of([&] { build(with(large, "routing", "ugal_g")); });
  EXPECT_CONTAINS(message, "dragonfly.routing");
  EXPECT_EQ(error_of([&] { build(with(large, "g", "33")); }), "");
}

}  // namespace
}  // namespace hx::net
