// The channel dependency graph check behind `hxsim verify`: cycles are found (and are real
// cycles), dateline and escape sub-networks are recognised as acyclic, counts match what is
// counted by hand on a small ring, and the fast exploration sees exactly what explore_routes()
// sees.
#include "models/verification/channel_graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/verification/route_explorer.h"
#include "support/ring_topology.h"
#include "support/topology_checks.h"

namespace hx::net {
namespace {

using testing::RingDateline;
using testing::RingNoDateline;
using testing::RingTopology;

// Forward around the ring like the others, but adaptive: VC 2 (always allowed, cyclic on its
// own) is offered first, and a dateline escape on VCs 0/1 next. The escape VC follows from the
// packet alone: it has crossed the wrap once it is at a router below its source. At router
// `gap` (if any) the escape candidate is left out.
class RingAdaptive final : public Routing {
 public:
  RingAdaptive(uint32_t routers, bool adaptive_is_escape, uint32_t gap = kNoRouter)
      : routers_(routers), adaptive_is_escape_(adaptive_is_escape), gap_(gap) {}
  std::string name() const override { return "ring_adaptive"; }
  uint8_t vcs() const override { return 3; }
  void route(uint32_t router, PortId /*in_port*/, Packet& packet, Candidates& out) const override {
    if (router == packet.dst) {
      out.add(RingTopology::kEndpointPort, 0);
      return;
    }
    out.add(RingTopology::kNextPort, 2, adaptive_is_escape_);
    if (router == gap_) return;
    const bool crossing = router < packet.src || router == routers_ - 1;
    out.add(RingTopology::kNextPort, crossing ? 1 : 0);
  }

 private:
  uint32_t routers_;
  bool adaptive_is_escape_;
  uint32_t gap_;
};

// Gives up at router 2: a path that dead-ends.
class RingDeadEnd final : public Routing {
 public:
  std::string name() const override { return "ring_dead_end"; }
  uint8_t vcs() const override { return 1; }
  void route(uint32_t router, PortId /*in_port*/, Packet& packet, Candidates& out) const override {
    if (router == packet.dst) {
      out.add(RingTopology::kEndpointPort, 0);
    } else if (router != 2) {
      out.add(RingTopology::kNextPort, 0);
    }
  }
};

// Never ejects: circles until the hop bound.
class RingForever final : public Routing {
 public:
  std::string name() const override { return "ring_forever"; }
  uint8_t vcs() const override { return 1; }
  void route(uint32_t, PortId, Packet&, Candidates& out) const override {
    out.add(RingTopology::kNextPort, 0);
  }
};

// The escape dependencies as explore_routes() reports them, for comparison.
ChannelDependencies reference_dependencies(const Topology& t, const Routing& routing, uint8_t vcs) {
  std::set<ChannelDependency> edges;
  ChannelDependencies out;
  ExploreVisitor visitor;
  visitor.on_dependency = [&](ChannelId from, ChannelId to, bool escape) {
    if (escape) {
      edges.insert({from, to});
    } else {
      out.saw_non_escape = true;
    }
  };
  for (uint32_t s = 0; s < t.num_endpoints(); ++s) {
    for (uint32_t d = 0; d < t.num_endpoints(); ++d) {
      if (s == d) continue;
      explore_routes(t, routing, vcs, s, d, channel_graph_max_hops(t), visitor);
      ++out.pairs;
    }
  }
  out.edges.assign(edges.begin(), edges.end());
  return out;
}

// Checks that `report.cycle` is a cycle of `deps`: every step, last to first included, is an
// edge, and no channel repeats.
void expect_real_cycle(const ChannelDependencies& deps, const ChannelGraphReport& report) {
  ASSERT_FALSE(report.cycle.empty());
  for (std::size_t i = 0; i < report.cycle.size(); ++i) {
    const ChannelDependency step{report.cycle[i], report.cycle[(i + 1) % report.cycle.size()]};
    EXPECT_TRUE(std::binary_search(deps.edges.begin(), deps.edges.end(), step))
        << "step " << i << ": " << step.from << " -> " << step.to << " is not a dependency";
  }
  std::vector<ChannelId> sorted = report.cycle;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "repeats a channel";
}

TEST(RingTopology, IsConsistentAndRoutesArrive) {
  const RingTopology ring(5);
  testing::check_structure(ring);
  EXPECT_EQ(testing::check_all_routes(ring, RingNoDateline(), 1, 4), 4u);
  EXPECT_EQ(testing::check_all_routes(ring, RingDateline(5), 2, 4), 4u);
  EXPECT_EQ(testing::check_all_routes(ring, RingAdaptive(5, false), 3, 4), 4u);
}

TEST(ChannelGraph, NoDatelineRingIsCyclicWithTheRingAsCycle) {
  const RingTopology ring(4);
  const ChannelGraphReport report = check_channel_graph(ring, RingNoDateline(), 1);
  EXPECT_FALSE(report.acyclic);
  EXPECT_FALSE(report.escape_only);
  // By hand, R = 4, one VC: channels are the R injection links, the R forward ring links and the
  // R ejection links; dependencies are injection -> ring at each router, ring -> ring (a packet
  // passing through) at each router and ring -> ejection at each router: 3R of each.
  EXPECT_EQ(report.channels, 12u);
  EXPECT_EQ(report.dependencies, 12u);
  EXPECT_EQ(report.pairs, 12u);
  ASSERT_EQ(report.cycle.size(), 4u);
  expect_real_cycle(collect_channel_dependencies(ring, RingNoDateline(), 1, 0, 4), report);
  std::vector<ChannelId> ring_links;
  for (uint32_t r = 0; r < 4; ++r) {
    ring_links.push_back(RingTopology::channel(r, RingTopology::kNextPort, 0, 1));
  }
  std::vector<ChannelId> sorted = report.cycle;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, ring_links);
}

TEST(ChannelGraph, CycleIsRealOnLargerRings) {
  for (uint32_t routers : {3u, 7u, 16u}) {
    const RingTopology ring(routers);
    const ChannelGraphReport report = check_channel_graph(ring, RingNoDateline(), 1);
    ASSERT_FALSE(report.acyclic) << routers;
    EXPECT_EQ(report.cycle.size(), routers);
    expect_real_cycle(collect_channel_dependencies(ring, RingNoDateline(), 1, 0, routers), report);
  }
}

TEST(ChannelGraph, DatelineRingIsAcyclic) {
  const RingTopology ring(4);
  const ChannelGraphReport report = check_channel_graph(ring, RingDateline(4), 2);
  EXPECT_TRUE(report.acyclic);
  EXPECT_TRUE(report.cycle.empty());
  EXPECT_FALSE(report.escape_only);
  EXPECT_EQ(report.pairs, 12u);
  // By hand, R = 4, two VCs (packets switch to VC 1 on the wrap link 3 -> 0).
  // Channels: injection links on both VCs (2R = 8); ring VC 0 on links 0->1, 1->2, 2->3 (3);
  // ring VC 1 on links 3->0, 0->1, 1->2 (3; a packet on VC 1 never reaches router 3 again);
  // ejection links on VC 0 (R = 4). 18 in all.
  EXPECT_EQ(report.channels, 18u);
  // Dependencies: each injection channel on one ring channel (8); passing through on VC 0 at
  // routers 1, 2 and at 3 onto the wrap's VC 1 (3); passing through on VC 1 at routers 0 and 1
  // (2); ejection from VC 0 at routers 1, 2, 3 and from VC 1 at routers 0, 1, 2 (6). 19 in all.
  EXPECT_EQ(report.dependencies, 19u);

  for (uint32_t routers : {3u, 9u, 32u}) {
    EXPECT_TRUE(check_channel_graph(RingTopology(routers), RingDateline(routers), 2).acyclic)
        << routers;
  }
}

TEST(ChannelGraph, DatelineCountsFollowTheFormula) {
  // The hand count above, for any R: 5R - 2 channels and 6R - 5 dependencies.
  for (uint32_t routers : {3u, 5u, 10u}) {
    const ChannelGraphReport report =
        check_channel_graph(RingTopology(routers), RingDateline(routers), 2);
    EXPECT_EQ(report.channels, 5 * routers - 2) << routers;
    EXPECT_EQ(report.dependencies, 6 * routers - 5) << routers;
    EXPECT_EQ(report.pairs, routers * (routers - 1)) << routers;
  }
}

TEST(ChannelGraph, AdaptiveRoutingNeedsOnlyAnAcyclicEscapeNetwork) {
  const RingTopology ring(6);
  const ChannelGraphReport escape = check_channel_graph(ring, RingAdaptive(6, false), 3);
  EXPECT_TRUE(escape.acyclic);
  EXPECT_TRUE(escape.escape_only);
  EXPECT_TRUE(escape.cycle.empty());
  EXPECT_EQ(escape.states_without_escape, 0u);
  EXPECT_TRUE(escape.deadlock_free());

  // The same paths with the adaptive VC counted as escape: its ring of dependencies shows.
  const ChannelGraphReport all = check_channel_graph(ring, RingAdaptive(6, true), 3);
  EXPECT_FALSE(all.acyclic);
  EXPECT_FALSE(all.escape_only);
  EXPECT_EQ(all.cycle.size(), 6u);
  EXPECT_GT(all.dependencies, escape.dependencies);
  EXPECT_FALSE(all.deadlock_free());
  expect_real_cycle(collect_channel_dependencies(ring, RingAdaptive(6, true), 3, 0, 6), all);
}

TEST(ChannelGraph, EveryPacketStateNeedsAnEscape) {
  // At router 2 only the adaptive VC is offered: the escape graph is still acyclic (it only
  // lost edges), but a packet there could wait on the cyclic VC 2 alone.
  const RingTopology ring(6);
  const ChannelGraphReport report = check_channel_graph(ring, RingAdaptive(6, false, 2), 3);
  EXPECT_TRUE(report.acyclic);
  EXPECT_TRUE(report.escape_only);
  EXPECT_GT(report.states_without_escape, 0u);
  EXPECT_FALSE(report.deadlock_free());
  // Per pair, the packet states at router 2 short of their destination: a packet from router 2
  // is there once per injection VC (3 states); one passing through arrives on VC 2 or on its
  // escape VC (2 states).
  uint64_t expected = 0;
  for (uint32_t s = 0; s < 6; ++s) {
    for (uint32_t d = 0; d < 6; ++d) {
      if (s == d || d == 2) continue;
      const bool passes = (2 + 6 - s) % 6 < (d + 6 - s) % 6;  // 2 lies strictly between s and d
      if (s == 2) {
        expected += 3;
      } else if (passes) {
        expected += 2;
      }
    }
  }
  EXPECT_EQ(report.states_without_escape, expected);
}

TEST(ChannelGraph, SameDependenciesAsExploreRoutes) {
  const RingTopology ring(7);
  const RingNoDateline no_dateline;
  const RingDateline dateline(7);
  const RingAdaptive adaptive(7, false);
  for (const Routing* routing : std::vector<const Routing*>{&no_dateline, &dateline, &adaptive}) {
    for (uint8_t vcs : {routing->vcs(), static_cast<uint8_t>(routing->vcs() + 1)}) {
      const ChannelDependencies fast = collect_channel_dependencies(ring, *routing, vcs, 0, 7);
      const ChannelDependencies reference = reference_dependencies(ring, *routing, vcs);
      EXPECT_EQ(fast.edges, reference.edges) << routing->name() << " vcs " << int{vcs};
      EXPECT_EQ(fast.saw_non_escape, reference.saw_non_escape) << routing->name();
      EXPECT_EQ(fast.pairs, reference.pairs) << routing->name();
    }
  }
}

TEST(ChannelGraph, CollectorsSplitBySourceCombineToTheWhole) {
  const RingTopology ring(8);
  const RingAdaptive routing(8, false);
  const ChannelDependencies whole = collect_channel_dependencies(ring, routing, 3, 0, 8);

  // Three collectors on interleaved slices, combined as hxsim verify does over ranks.
  DependencyCollector combined(ring, routing, 3);
  combined.explore(0, 8, 3);
  uint64_t pairs = combined.pairs();
  for (uint32_t part = 1; part < 3; ++part) {
    DependencyCollector other(ring, routing, 3);
    other.explore(part, 8, 3);
    ASSERT_EQ(other.bits().size(), combined.bits().size());
    for (std::size_t w = 0; w < other.bits().size(); ++w) combined.bits()[w] |= other.bits()[w];
    pairs += other.pairs();
    EXPECT_TRUE(other.saw_non_escape());
  }
  EXPECT_EQ(combined.dependencies().edges, whole.edges);
  EXPECT_EQ(pairs, whole.pairs);
  EXPECT_EQ(whole.pairs, 8u * 7u);

  // A slice may be explored in steps; past the last endpoint is an empty slice, not an error.
  DependencyCollector stepwise(ring, routing, 3);
  stepwise.explore(0, 5);
  stepwise.explore(5, 100);
  EXPECT_EQ(stepwise.dependencies().edges, whole.edges);
  EXPECT_EQ(stepwise.pairs(), whole.pairs);
  EXPECT_EQ(collect_channel_dependencies(ring, routing, 3, 8, 100).pairs, 0u);
  EXPECT_TRUE(collect_channel_dependencies(ring, routing, 3, 8, 100).edges.empty());
}

TEST(ChannelGraph, DescribesChannels) {
  const RingTopology ring(4);
  EXPECT_EQ(describe_channel(ring, 2, RingTopology::channel(1, RingTopology::kNextPort, 1, 2)),
            "router 1 port 1 (ring) VC 1 -> router 2 port 2");
  EXPECT_EQ(describe_channel(ring, 2, RingTopology::channel(3, RingTopology::kNextPort, 0, 2)),
            "router 3 port 1 (ring) VC 0 -> router 0 port 2");
  EXPECT_EQ(describe_channel(ring, 1, RingTopology::channel(0, RingTopology::kPrevPort, 0, 1)),
            "router 0 port 2 (ring) VC 0 -> router 3 port 1");
  EXPECT_EQ(describe_channel(ring, 3, RingTopology::channel(2, RingTopology::kEndpointPort, 2, 3)),
            "router 2 port 0 (terminal) VC 2 -> endpoint 2 port 0");
  // Endpoint 3's injection link is link 4 * 3 + 3 = 15.
  EXPECT_EQ(describe_channel(ring, 2, 15 * 2 + 1),
            "endpoint 3 port 0 (terminal) VC 1 -> router 3 port 0");
  EXPECT_THROW(describe_channel(ring, 2, 16 * 2), std::out_of_range);
}

TEST(ChannelGraph, AnalysesGraphsGivenDirectly) {
  ChannelDependencies deps;
  EXPECT_TRUE(analyse_channel_graph(deps).acyclic);  // empty
  EXPECT_EQ(analyse_channel_graph(deps).channels, 0u);

  // A diamond is not a cycle; 4 channels, 4 edges.
  deps.edges = {{1, 2}, {1, 3}, {2, 4}, {3, 4}};
  ChannelGraphReport report = analyse_channel_graph(deps);
  EXPECT_TRUE(report.acyclic);
  EXPECT_EQ(report.channels, 4u);
  EXPECT_EQ(report.dependencies, 4u);

  // A channel waiting for itself.
  deps.edges = {{5, 5}};
  report = analyse_channel_graph(deps);
  EXPECT_FALSE(report.acyclic);
  EXPECT_EQ(report.cycle, std::vector<ChannelId>{5});

  // A long cycle 10 -> 11 -> ... -> 19 -> 10 with a 2-cycle 10 -> 20 -> 10 besides: the cycle
  // reported is the shortest through the node the search met first.
  deps.edges.clear();
  for (ChannelId c = 10; c < 19; ++c) deps.edges.push_back({c, c + 1});
  deps.edges.push_back({10, 20});
  deps.edges.push_back({19, 10});
  deps.edges.push_back({20, 10});
  std::sort(deps.edges.begin(), deps.edges.end());
  report = analyse_channel_graph(deps);
  EXPECT_FALSE(report.acyclic);
  EXPECT_EQ(report.cycle, (std::vector<ChannelId>{10, 20}));
  expect_real_cycle(deps, report);

  // Sparse channel ids (too sparse for a lookup table) give the same answers.
  constexpr ChannelId kFar = 1'000'000'000'000;
  for (ChannelDependency& e : deps.edges) e = {e.from * kFar, e.to * kFar};
  report = analyse_channel_graph(deps);
  EXPECT_FALSE(report.acyclic);
  EXPECT_EQ(report.channels, 11u);
  EXPECT_EQ(report.cycle, (std::vector<ChannelId>{10 * kFar, 20 * kFar}));
  deps.edges.pop_back();  // 20 -> 10: still the long cycle
  report = analyse_channel_graph(deps);
  EXPECT_EQ(report.cycle.size(), 10u);
  expect_real_cycle(deps, report);
  deps.edges = {{1 * kFar, 2 * kFar}, {1 * kFar, 3 * kFar}, {2 * kFar, 4 * kFar}};
  EXPECT_TRUE(analyse_channel_graph(deps).acyclic);

  deps.edges = {{2, 1}, {1, 2}};  // not sorted
  EXPECT_THROW(analyse_channel_graph(deps), std::invalid_argument);
}

TEST(ChannelGraph, DeepGraphsNeedNoRecursion) {
  // One cycle through a million channels: a recursive search would overflow the stack.
  constexpr ChannelId kN = 1'000'000;
  ChannelDependencies deps;
  for (ChannelId c = 0; c < kN; ++c) deps.edges.push_back({c, (c + 1) % kN});
  std::sort(deps.edges.begin(), deps.edges.end());
  const ChannelGraphReport report = analyse_channel_graph(deps);
  EXPECT_FALSE(report.acyclic);
  EXPECT_EQ(report.cycle.size(), kN);
  EXPECT_EQ(report.cycle.front(), 0u);
  EXPECT_EQ(report.cycle.back(), kN - 1);

  deps.edges.pop_back();  // drop (kN - 1) -> 0: a chain
  EXPECT_TRUE(analyse_channel_graph(deps).acyclic);
}

TEST(ChannelGraph, BrokenRoutingsAreReported) {
  const RingTopology ring(5);
  auto message = [&](const Routing& routing) -> std::string {
    try {
      check_channel_graph(ring, routing, 1);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message(RingDeadEnd()).find("at router 2: no route"), std::string::npos)
      << message(RingDeadEnd());
  EXPECT_NE(message(RingForever()).find("more than 16 router-to-router hops"), std::string::npos)
      << message(RingForever());
  EXPECT_EQ(channel_graph_max_hops(ring), 16u);  // 4 * diameter 2 + 8
  EXPECT_EQ(channel_graph_max_hops(RingTopology(200)), 408u);  // 4 * 100 + 8
  EXPECT_EQ(channel_graph_max_hops(RingTopology(40000)), 65535u);  // Packet::hops is 16 bits
  // A candidate on a VC the routers do not have.
  EXPECT_NE(message(RingDateline(5)).find("VC 1 does not exist"), std::string::npos);
}

}  // namespace
}  // namespace hx::net
