// The max-min solver: hand-worked allocations, a class of equal flows against its members one by
// one, incremental solving against solving from scratch, and the max-min conditions (no link
// over capacity; every flow has a full link on which no flow gets more) on random networks.
#include "models/flow/max_min.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

namespace hx::flow {
namespace {

using Uses = std::vector<LinkUse>;

TEST(MaxMin, OneLinkIsSharedEquallyRoundedDown) {
  MaxMinSolver s;
  s.set_capacity(7, 100);
  const auto a = s.add(Uses{{7, 1}});
  const auto b = s.add(Uses{{7, 1}});
  const auto c = s.add(Uses{{7, 1}});
  EXPECT_EQ(s.solve(), (std::vector<MaxMinSolver::FlowId>{a, b, c}));
  EXPECT_EQ(s.rate(a), 33u);
  EXPECT_EQ(s.rate(b), 33u);
  EXPECT_EQ(s.rate(c), 33u);
  EXPECT_EQ(s.load(7), 99u);
}

TEST(MaxMin, TheTightestLinkFixesItsFlowsFirst) {
  // Link 1 (10 B/s) carries f1 and f2, link 2 (4 B/s) carries f2 and f3: link 2 runs full at
  // 2 each, then f1 takes the rest of link 1.
  MaxMinSolver s;
  s.set_capacity(1, 10);
  s.set_capacity(2, 4);
  const auto f1 = s.add(Uses{{1, 1}});
  const auto f2 = s.add(Uses{{1, 1}, {2, 1}});
  const auto f3 = s.add(Uses{{2, 1}});
  s.solve();
  EXPECT_EQ(s.rate(f1), 8u);
  EXPECT_EQ(s.rate(f2), 2u);
  EXPECT_EQ(s.rate(f3), 2u);
}

TEST(MaxMin, ParkingLot) {
  // A flow over three links of 12 B/s, each also carrying one local flow: 6 each.
  MaxMinSolver s;
  for (uint64_t l = 0; l < 3; ++l) s.set_capacity(l, 12);
  const auto through = s.add(Uses{{0, 1}, {1, 1}, {2, 1}});
  std::vector<MaxMinSolver::FlowId> local;
  for (uint64_t l = 0; l < 3; ++l) local.push_back(s.add(Uses{{l, 1}}));
  s.solve();
  EXPECT_EQ(s.rate(through), 6u);
  for (auto f : local) EXPECT_EQ(s.rate(f), 6u);
  // Without the long flow the local ones fill their links.
  s.remove(through);
  EXPECT_EQ(s.solve(), local);
  for (auto f : local) EXPECT_EQ(s.rate(f), 12u);
}

TEST(MaxMin, AClassLoadsLinksAsItsMembersDo) {
  // Five equal flows over links 0 and 1 beside a flow over 1 and 2, once as five flows and once
  // as one class with count 5: the same rates and loads, to the byte.
  for (const bool as_class : {false, true}) {
    MaxMinSolver s;
    s.set_capacity(0, 1000003);
    s.set_capacity(1, 999999);
    s.set_capacity(2, 250001);
    std::vector<MaxMinSolver::FlowId> members;
    if (as_class) {
      members.push_back(s.add(Uses{{0, 5}, {1, 5}}));
    } else {
      for (int i = 0; i < 5; ++i) members.push_back(s.add(Uses{{0, 1}, {1, 1}}));
    }
    const auto other = s.add(Uses{{1, 1}, {2, 1}});
    s.solve();
    SCOPED_TRACE(as_class ? "class" : "members");
    for (auto m : members) EXPECT_EQ(s.rate(m), 166666u);  // 999,999 / 6
    EXPECT_EQ(s.rate(other), 166666u);
    EXPECT_EQ(s.load(1), 6u * 166666u);
    EXPECT_EQ(s.load(0), 5u * 166666u);
  }
}

TEST(MaxMin, LinksAtOneShareRunFullTogether) {
  // Links 0 and 1 (10 B/s each) both reach 10/4 per flow: x1 and x2 cross both, y1 and y2 only
  // link 0, z1 and z2 only link 1. Taken one after the other, the first would fix its four
  // flows at 2 and leave 6 B/s for the last two on the other (3 each); together, every flow
  // gets 2. Folded, the two links are one class and {y, z} one class of four: the same 2.
  MaxMinSolver s;
  s.set_capacity(0, 10);
  s.set_capacity(1, 10);
  std::vector<MaxMinSolver::FlowId> flows;
  for (int i = 0; i < 2; ++i) flows.push_back(s.add(Uses{{0, 1}, {1, 1}}));
  for (int i = 0; i < 2; ++i) flows.push_back(s.add(Uses{{0, 1}}));
  for (int i = 0; i < 2; ++i) flows.push_back(s.add(Uses{{1, 1}}));
  s.solve();
  for (auto f : flows) EXPECT_EQ(s.rate(f), 2u);

  MaxMinSolver folded;
  folded.set_capacity(0, 10);
  const auto x = folded.add(Uses{{0, 2}});
  const auto yz = folded.add(Uses{{0, 2}});
  folded.solve();
  EXPECT_EQ(folded.rate(x), 2u);
  EXPECT_EQ(folded.rate(yz), 2u);
}

TEST(MaxMin, OnlyTheComponentOfAChangeIsRecomputed) {
  MaxMinSolver s;
  s.set_capacity(0, 100);
  s.set_capacity(1, 100);
  const auto a = s.add(Uses{{0, 1}});
  const auto b = s.add(Uses{{0, 1}});
  const auto c = s.add(Uses{{1, 1}});
  s.solve();
  const uint64_t before = s.recomputed();
  const auto d = s.add(Uses{{1, 1}});
  EXPECT_EQ(s.solve(), (std::vector<MaxMinSolver::FlowId>{c, d}));
  EXPECT_EQ(s.recomputed() - before, 2u);  // c and d, not a and b
  EXPECT_EQ(s.rate(a), 50u);
  EXPECT_EQ(s.rate(c), 50u);
  EXPECT_EQ(s.rate(b), 50u);
}

// x and y share a thin link (0) and stay at 5 each; p and q fill the rest of links 1 and 2. A
// flow added on link 1 cannot move anything below its share there (100 / 3), so x keeps its
// rate and the change does not cross it: q and y, joined to link 1 only through x, are not
// recomputed.
TEST(MaxMin, AChangeDoesNotCrossFlowsBelowTheLevelItCannotMove) {
  MaxMinSolver s;
  s.set_capacity(0, 10);
  s.set_capacity(1, 100);
  s.set_capacity(2, 100);
  const auto x = s.add(Uses{{0, 1}, {1, 1}});
  const auto y = s.add(Uses{{0, 1}, {2, 1}});
  const auto p = s.add(Uses{{1, 1}});
  const auto q = s.add(Uses{{2, 1}});
  s.solve();
  EXPECT_EQ(s.rate(p), 95u);
  const uint64_t before = s.recomputed();
  const auto r = s.add(Uses{{1, 1}});
  EXPECT_EQ(s.solve(), (std::vector<MaxMinSolver::FlowId>{p, r}));
  EXPECT_EQ(s.recomputed() - before, 2u);  // p and r
  EXPECT_EQ(s.rate(p), 47u);
  EXPECT_EQ(s.rate(r), 47u);
  EXPECT_EQ(s.rate(x), 5u);
  EXPECT_EQ(s.rate(y), 5u);
  EXPECT_EQ(s.rate(q), 95u);
}

TEST(MaxMin, BadInputIsRefused) {
  MaxMinSolver s;
  EXPECT_THROW(s.set_capacity(0, 0), std::invalid_argument);
  s.set_capacity(0, 10);
  EXPECT_THROW(s.add(Uses{}), std::invalid_argument);
  EXPECT_THROW(s.add(Uses{{1, 1}}), std::invalid_argument);          // no such link
  EXPECT_THROW(s.add(Uses{{0, 0}}), std::invalid_argument);          // count 0
  EXPECT_THROW(s.add(Uses{{0, 1}, {0, 1}}), std::invalid_argument);  // twice
  EXPECT_THROW(s.set_capacity(uint64_t{1} << 40, 10), std::invalid_argument);  // not dense
  EXPECT_THROW(s.add(Uses{{uint64_t{1} << 40, 1}}), std::invalid_argument);    // beyond them
}

// Random networks: links 0..L-1, flows over 1-4 distinct links with counts 1-3.
struct RandomCase {
  std::vector<Rate> capacity;
  std::vector<Uses> flows;
};

// Large cases (up to 80 links, 300 flows of up to 8 hops) reach many levels in one solve; half
// of them draw capacities from four values, so that many links run full at one level.
RandomCase random_case(std::mt19937_64& rng, bool large = false) {
  RandomCase c;
  const int links = 2 + static_cast<int>(rng() % (large ? 79 : 12));
  const bool few_values = large && rng() % 2 == 0;
  for (int l = 0; l < links; ++l) {
    c.capacity.push_back(few_values ? 1000 * (1 + rng() % 4) : 1 + rng() % 1000000);
  }
  const int flows = 1 + static_cast<int>(rng() % (large ? 300 : 30));
  for (int f = 0; f < flows; ++f) {
    Uses u;
    const int hops = 1 + static_cast<int>(rng() % (large ? 8 : 4));
    for (int h = 0; h < hops; ++h) {
      const uint64_t link = rng() % static_cast<uint64_t>(links);
      bool seen = false;
      for (const LinkUse& x : u) seen = seen || x.link == link;
      if (!seen) u.push_back({link, static_cast<uint32_t>(1 + rng() % 3)});
    }
    c.flows.push_back(u);
  }
  return c;
}

// The max-min conditions with rates rounded down: no link over capacity, and every flow has a
// link that is full (less spare capacity than the counts on it) where no flow gets more.
void expect_max_min(const MaxMinSolver& s, const RandomCase& c,
                    const std::map<MaxMinSolver::FlowId, Uses>& live) {
  std::vector<Rate> load(c.capacity.size(), 0), counts(c.capacity.size(), 0),
      highest(c.capacity.size(), 0);
  for (const auto& [f, uses] : live) {
    for (const LinkUse& u : uses) {
      load[u.link] += s.rate(f) * u.count;
      counts[u.link] += u.count;
      highest[u.link] = std::max(highest[u.link], s.rate(f));
    }
  }
  for (std::size_t l = 0; l < c.capacity.size(); ++l) {
    EXPECT_LE(load[l], c.capacity[l]) << "link " << l;
    EXPECT_EQ(load[l], s.load(l)) << "link " << l;
  }
  for (const auto& [f, uses] : live) {
    bool bottlenecked = false;
    for (const LinkUse& u : uses) {
      const bool full = c.capacity[u.link] - load[u.link] < counts[u.link];
      bottlenecked = bottlenecked || (full && highest[u.link] == s.rate(f));
    }
    EXPECT_TRUE(bottlenecked) << "flow " << f << " at " << s.rate(f) << " has no bottleneck";
  }
}

// The same flows solved at once, on links declared in the opposite order, by a solver that finds
// its levels the other way (heap or scan): the same rates as `s` has (the fresh solver numbers
// them 0, 1, ... in the order added).
void expect_as_from_scratch(const MaxMinSolver& s, const RandomCase& c,
                            const std::map<MaxMinSolver::FlowId, Uses>& live,
                            uint32_t scan_levels = MaxMinSolver::kScanLevels) {
  MaxMinSolver again(scan_levels == 0 ? MaxMinSolver::kScanLevels : 0);
  for (std::size_t l = c.capacity.size(); l-- > 0;) again.set_capacity(l, c.capacity[l]);
  for (const auto& [f, uses] : live) again.add(uses);
  again.solve();
  std::vector<Rate> a, b;
  MaxMinSolver::FlowId id = 0;
  for (const auto& [f, uses] : live) {
    a.push_back(s.rate(f));
    b.push_back(again.rate(id++));
  }
  EXPECT_EQ(a, b);
}

// Every way of finding the levels: always the heap, the heap after one or eight scanned levels,
// the default, always scanning.
class MaxMinRandom : public ::testing::TestWithParam<uint32_t> {};

TEST_P(MaxMinRandom, NetworksMeetTheConditionsIncrementallyAndFromScratch) {
  std::mt19937_64 rng(12345);
  for (int trial = 0; trial < 240; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const RandomCase c = random_case(rng, trial >= 200);
    MaxMinSolver s(GetParam());
    for (std::size_t l = 0; l < c.capacity.size(); ++l) s.set_capacity(l, c.capacity[l]);
    std::map<MaxMinSolver::FlowId, Uses> live;
    // Flows arrive in batches and some leave, solving after each batch.
    for (std::size_t f = 0; f < c.flows.size(); ++f) {
      live[s.add(c.flows[f])] = c.flows[f];
      if (rng() % 3 == 0 && live.size() > 1) {
        auto victim = live.begin();
        std::advance(victim, static_cast<long>(rng() % live.size()));
        s.remove(victim->first);
        live.erase(victim);
      }
      // Incremental solving (only the flows a change reaches, and of those only the ones
      // above the level it cannot move) must give what solving from scratch gives, every time.
      if (rng() % 2 == 0) {
        s.solve();
        expect_as_from_scratch(s, c, live, GetParam());
      }
    }
    s.solve();
    expect_max_min(s, c, live);
    expect_as_from_scratch(s, c, live, GetParam());
  }
}

// Many changes between solves, at many levels: several flows leave and arrive at once, and now
// and then a link's capacity changes, so one solve starts from changed links at different levels.
TEST_P(MaxMinRandom, BurstsOfChangesMatchSolvingFromScratch) {
  std::mt19937_64 rng(54321);
  for (int trial = 0; trial < 120; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    RandomCase c = random_case(rng, trial >= 80);
    MaxMinSolver s(GetParam());
    for (std::size_t l = 0; l < c.capacity.size(); ++l) s.set_capacity(l, c.capacity[l]);
    std::map<MaxMinSolver::FlowId, Uses> live;
    for (const Uses& u : c.flows) live[s.add(u)] = u;
    s.solve();
    for (int round = 0; round < 20; ++round) {
      for (uint64_t k = rng() % 6; k > 0 && !live.empty(); --k) {
        auto victim = live.begin();
        std::advance(victim, static_cast<long>(rng() % live.size()));
        s.remove(victim->first);
        live.erase(victim);
      }
      for (uint64_t k = rng() % 6; k > 0; --k) {
        const Uses& u = c.flows[rng() % c.flows.size()];
        live[s.add(u)] = u;
      }
      if (rng() % 4 == 0) {
        const std::size_t l = rng() % c.capacity.size();
        c.capacity[l] = 1 + rng() % 1000000;
        s.set_capacity(l, c.capacity[l]);
      }
      s.solve();
      expect_as_from_scratch(s, c, live, GetParam());
    }
    expect_max_min(s, c, live);
  }
}

INSTANTIATE_TEST_SUITE_P(Selection, MaxMinRandom,
                         ::testing::Values(0u, 1u, 8u, MaxMinSolver::kScanLevels, 1000000u));

}  // namespace
}  // namespace hx::flow
