// InfiniteHBD orchestration (§4.2-4.3, §6.4, Appendix D Algorithms 2-5): Algorithm 2 against a
// brute force over disjoint groups on every fault set of small lines and rings; Algorithm 3's order
// written out from Fig. 7's description; Algorithms 4-5 on a case worked by hand, against the
// brute force (placed iff possible) and against a linear scan over constraint counts; the
// cross-ToR metric by hand, zero on an aligned fault-free job, and below §6.4's baseline in total
// though not in every case.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/rng.h"
#include "models/topologies/infinitehbd/orchestration.h"

namespace hx::net::infinitehbd {
namespace {

using Groups = std::vector<Group>;

// Whether positions a and b of an n-node K-hop line (or ring) are linked.
bool linked(uint32_t a, uint32_t b, uint32_t n, uint32_t k, bool ring) {
  const uint32_t gap = a > b ? a - b : b - a;
  return gap <= k || (ring && n - gap <= k);
}

// best[mask]: the most disjoint m-subsets of `mask` (positions), each of which has some order
// with consecutive positions linked: every subset, every order, then a DP over masks.
std::vector<uint32_t> brute_force(uint32_t n, uint32_t k, bool ring, uint32_t m) {
  std::vector<std::vector<uint32_t>> by_lowest(n);  // valid groups by their lowest position
  for (uint32_t g = 1; g < (1u << n); ++g) {
    if (std::popcount(g) != static_cast<int>(m)) continue;
    std::vector<uint32_t> v;
    for (uint32_t q = 0; q < n; ++q) {
      if (g >> q & 1) v.push_back(q);
    }
    bool ok = false;
    do {
      bool chain = true;
      for (size_t i = 0; i + 1 < v.size(); ++i) chain = chain && linked(v[i], v[i + 1], n, k, ring);
      ok = ok || chain;
    } while (!ok && std::next_permutation(v.begin(), v.end()));
    if (ok) by_lowest[std::countr_zero(g)].push_back(g);
  }
  std::vector<uint32_t> best(1u << n, 0);
  for (uint32_t mask = 1; mask < (1u << n); ++mask) {
    const auto low = static_cast<uint32_t>(std::countr_zero(mask));
    best[mask] = best[mask & (mask - 1)];  // the lowest position idle
    for (uint32_t g : by_lowest[low]) {
      if ((g & mask) == g) best[mask] = std::max(best[mask], 1 + best[mask & ~g]);
    }
  }
  return best;
}

// Groups of m healthy, distinct nodes, consecutive ones linked on the line `order` (positions).
void expect_valid(const Groups& groups, const std::vector<uint32_t>& order,
                  const std::vector<uint32_t>& faulty, uint32_t k, bool ring, uint32_t m) {
  const auto n = static_cast<uint32_t>(order.size());
  std::vector<uint32_t> position(n);
  for (uint32_t q = 0; q < n; ++q) position[order[q]] = q;
  std::vector<bool> used(n, false);
  for (uint32_t v : faulty) used[v] = true;
  for (const Group& g : groups) {
    ASSERT_EQ(g.size(), m);
    for (size_t i = 0; i < g.size(); ++i) {
      ASSERT_FALSE(used[g[i]]) << "node " << g[i] << " faulty or in two groups";
      used[g[i]] = true;
      if (i > 0) {
        EXPECT_TRUE(linked(position[g[i - 1]], position[g[i]], n, k, ring));
      }
    }
  }
}

std::vector<uint32_t> identity(uint32_t n) {
  std::vector<uint32_t> v(n);
  for (uint32_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

std::vector<uint32_t> unset_bits(uint32_t mask, uint32_t n) {
  std::vector<uint32_t> v;
  for (uint32_t q = 0; q < n; ++q) {
    if (!(mask >> q & 1)) v.push_back(q);
  }
  return v;
}

TEST(InfinitehbdOrchestration, Algorithm2PlacesTheMostGroupsOnEveryFaultSet) {
  for (const bool ring : {false, true}) {
    for (const uint32_t n : {5u, 7u, 12u}) {
      for (uint32_t k = 1; k <= 3; ++k) {
        for (uint32_t m = 1; m <= 4; ++m) {
          const std::vector<uint32_t> best = brute_force(n, k, ring, m);
          for (uint32_t healthy = 0; healthy < (1u << n); ++healthy) {
            const std::vector<uint32_t> faulty = unset_bits(healthy, n);
            const Placement got = orchestrate_dcn_free({n, k, ring}, faulty, {2 * m, 2});
            ASSERT_EQ(got.groups.size(), best[healthy])
                << "n " << n << " K " << k << " m " << m << " ring " << ring << " healthy "
                << healthy;
            ASSERT_EQ(got.gpus, 2 * m * got.groups.size());
            expect_valid(got.groups, identity(n), faulty, k, ring, m);
          }
        }
      }
    }
  }
}

TEST(InfinitehbdOrchestration, Algorithm2ByHand) {
  // 2 and 3 (K faulty in a row) cut the line; 7 alone does not; 9 is left over.
  EXPECT_EQ(orchestrate_dcn_free({10, 2, false}, {7, 3, 2, 3}, {8, 4}).groups,
            (Groups{{0, 1}, {4, 5}, {6, 8}}));
  // On a ring the run 4..2 wraps through 7 -> 0.
  EXPECT_EQ(orchestrate_dcn_free({8, 1, true}, {3}, {3, 1}).groups, (Groups{{4, 5, 6}, {7, 0, 1}}));
  EXPECT_EQ(orchestrate_dcn_free({8, 1, false}, {3}, {3, 1}).groups,
            (Groups{{0, 1, 2}, {4, 5, 6}}));
}

TEST(InfinitehbdOrchestration, DeploymentFollowsFigure7) {
  // Fig. 7: 3 nodes per ToR, 15 nodes; sub-lines N1 N4 .. N13, N2 .. N14, N3 .. N15 (from 0 here).
  EXPECT_EQ(deployment_order(15, 3),
            (std::vector<uint32_t>{0, 3, 6, 9, 12, 1, 4, 7, 10, 13, 2, 5, 8, 11, 14}));
  // "For 1 < n <= r, N_n connects to N_{D+n-r-1}", e.g. N3 to N14: the node just before.
  const std::vector<uint32_t> order = deployment_order(15, 3);
  for (uint32_t i = 1; i < 3; ++i) {
    const auto at = std::find(order.begin(), order.end(), i) - order.begin();
    EXPECT_EQ(order[at - 1], 15 + (i + 1) - 3 - 1 - 1);
  }
  EXPECT_EQ(deployment_order(7, 3), (std::vector<uint32_t>{0, 3, 6, 1, 4, 2, 5}));
  EXPECT_EQ(deployment_order(4, 1), (std::vector<uint32_t>{0, 1, 2, 3}));
}

TEST(InfinitehbdOrchestration, FatTreeByHand) {
  // 8 nodes, 2 per ToR, domains of 4, K = 1, m = 2. Line 0 2 4 6 | 1 3 5 7; segments of 2.
  const FatTree tree{8, 2, 4, 1};
  const TpShape shape{2, 1};
  EXPECT_EQ(max_constraints(tree), 6u);
  const auto clean = orchestrate_fat_tree(tree, {}, shape, 8);
  ASSERT_TRUE(clean);
  EXPECT_EQ(clean->constraints, 6u);
  EXPECT_EQ(clean->placement.groups, (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));  // rank order
  // Node 0 faulty. No constraint: the whole line. Aligned domain 0 (c >= 5): ToR {0, 1} fails.
  EXPECT_EQ(place_fat_tree(tree, {0}, shape, 0).groups, (Groups{{2, 4}, {6, 1}, {3, 5}}));
  const std::vector<uint64_t> gpus = {6, 6, 6, 6, 6, 4, 4};
  for (uint32_t c = 0; c <= 6; ++c) EXPECT_EQ(place_fat_tree(tree, {0}, shape, c).gpus, gpus[c]);
  EXPECT_EQ(place_fat_tree(tree, {0}, shape, 5).groups, (Groups{{4, 6}, {5, 7}}));
  EXPECT_EQ(orchestrate_fat_tree(tree, {0}, shape, 6)->constraints, 4u);
  EXPECT_EQ(orchestrate_fat_tree(tree, {0}, shape, 4)->constraints, 6u);
  EXPECT_FALSE(orchestrate_fat_tree(tree, {0}, shape, 7));
}

// Random fat trees with n <= 12: Algorithm 5 places the job iff the brute force can, and stops
// at the largest constraint count that fits (a linear scan; the counts never place more).
TEST(InfinitehbdOrchestration, Algorithm5AgainstBruteForceAndLinearScan) {
  Rng rng(11, 0, 0);
  int placed = 0, refused = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const uint32_t p = 1 + static_cast<uint32_t>(rng.below(3));
    const uint32_t n = p * (2 + static_cast<uint32_t>(rng.below(12 / p - 1)));  // <= 12
    std::vector<uint32_t> ds;
    for (uint32_t d = p; d <= n; d += p) {
      if (n % d == 0) ds.push_back(d);
    }
    const FatTree tree{n, p, ds[rng.below(ds.size())], 1 + static_cast<uint32_t>(rng.below(3))};
    const uint32_t r = 1 + static_cast<uint32_t>(rng.below(2)),
                   m = 1 + static_cast<uint32_t>(rng.below(3));
    const TpShape shape{m * r, r};
    std::vector<uint32_t> faulty;
    const double rate = rng.uniform() * 0.4;
    uint32_t healthy = 0;  // over positions of the deployed line
    const std::vector<uint32_t> order = deployment_order(n, p);
    for (uint32_t q = 0; q < n; ++q) {
      if (rng.bernoulli(rate)) {
        faulty.push_back(order[q]);
      } else {
        healthy |= 1u << q;
      }
    }
    const uint64_t job = 1 + rng.below(uint64_t{n} * r);
    const std::string where = "trial " + std::to_string(trial);
    const bool possible = brute_force(n, tree.hops, false, m)[healthy] * uint64_t{m} * r >= job;
    const auto plan = orchestrate_fat_tree(tree, faulty, shape, job);
    ASSERT_EQ(plan.has_value(), possible) << where;
    uint64_t before = ~uint64_t{0};
    int64_t largest = -1;
    for (uint32_t c = 0; c <= max_constraints(tree); ++c) {
      const Placement at = place_fat_tree(tree, faulty, shape, c);
      ASSERT_LE(at.gpus, before) << where << ", constraints " << c;
      before = at.gpus;
      if (at.gpus >= job) largest = c;
      expect_valid(at.groups, order, faulty, tree.hops, false, m);
    }
    if (!plan) {
      ++refused;
      continue;
    }
    ++placed;
    EXPECT_EQ(int64_t{plan->constraints}, largest) << where;
    EXPECT_GE(plan->placement.gpus, job) << where;
    expect_valid(plan->placement.groups, order, faulty, tree.hops, false, m);
  }
  EXPECT_GT(placed, 1000);
  EXPECT_GT(refused, 100);
}

TEST(InfinitehbdOrchestration, CrossTorByHand) {
  const Groups rows = {{0, 1}, {2, 3}}, aligned = {{0, 2}, {1, 3}};
  EXPECT_EQ(cross_tor_traffic(rows, 2, 2).cross, 2u);  // Fig. 6a: DP peers 0-2, 1-3 cross
  EXPECT_EQ(cross_tor_traffic(rows, 2, 2).pairs, 2u);
  EXPECT_EQ(cross_tor_traffic(aligned, 2, 2).cross, 0u);  // Fig. 6b
  const Groups three = {{0}, {1}, {4}};                   // ring 0-1 (same ToR), 1-4, 4-0
  EXPECT_EQ(cross_tor_traffic(three, 2, 3).cross, 2u);
  EXPECT_EQ(cross_tor_traffic(three, 2, 3).pairs, 3u);
  EXPECT_EQ(cross_tor_traffic(three, 2, 2).pairs, 1u);  // {0, 1} and a lone {4}
  EXPECT_DOUBLE_EQ(cross_tor_traffic(three, 2, 3).share(), 2.0 / 3);
  // Rank order: {5 7} {4 6} share ToRs (2 3), a whole parallel group of 2, ahead of {0 2};
  // the sort is stable.
  Groups mixed = {{5, 7}, {0, 2}, {4, 6}};
  order_ranks(mixed, 2, 2);
  EXPECT_EQ(mixed, (Groups{{5, 7}, {4, 6}, {0, 2}}));
  EXPECT_EQ(cross_tor_traffic(mixed, 2, 2).cross, 0u);
}

TEST(InfinitehbdOrchestration, AlignedFaultFreeJobStaysUnderItsTors) {
  // 64 nodes, 4 per ToR, domains of 16, m = 2: each (sub-line, domain) segment holds 2 groups.
  const FatTree tree{64, 4, 16, 2};
  for (const uint64_t job : {16u, 64u, 128u}) {
    const auto plan = orchestrate_fat_tree(tree, {}, {4, 2}, job);
    ASSERT_TRUE(plan);
    EXPECT_EQ(plan->constraints, max_constraints(tree));
    const std::span<const Group> used(plan->placement.groups.data(), job / 4);
    EXPECT_EQ(cross_tor_traffic(used, 4, 4).cross, 0u) << job;
    EXPECT_GT(cross_tor_traffic(used, 4, 4).pairs, 0u);
  }
}

// Per case the claim does not hold: Algorithm 2 takes the first m nodes of a component, with
// no eye to the ToRs, and a lucky baseline can do better. Here 0, 6, 7 fail, 8 GPUs (2 groups)
// fit only with no constraint, on the line 0 2 4 6 | 1 3 5 7: {2 4} and, of {1 3 5}, {1 3}, on
// ToRs (1 2) and (0 1). The baseline can draw {2 4} {3 5}, both on ToRs (1 2).
TEST(InfinitehbdOrchestration, TheBaselineCanBeatAlgorithm5) {
  const FatTree tree{8, 2, 4, 1};
  const auto plan = orchestrate_fat_tree(tree, {0, 6, 7}, {4, 2}, 8);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->constraints, 0u);
  EXPECT_EQ(plan->placement.groups, (Groups{{1, 3}, {2, 4}}));
  EXPECT_EQ(cross_tor_traffic(plan->placement.groups, 2, 2).cross, 2u);
  const Groups lucky = {{2, 4}, {3, 5}};
  expect_valid(lucky, deployment_order(8, 2), {0, 6, 7}, 1, false, 2);
  EXPECT_EQ(cross_tor_traffic(lucky, 2, 2).cross, 0u);
}

// Over many random small clusters the optimized placement crosses ToRs less in total than the
// baseline (§6.4's claim), though not in every case (above); the cases where it does not are
// counted and printed, not bounded: no source gives how many there should be.
TEST(InfinitehbdOrchestration, OptimizedCrossesLessThanTheGreedyBaselineInTotal) {
  Rng rng(5, 0, 0);
  int compared = 0, worse = 0, worse_fitting = 0;
  CrossTor ours, theirs;
  for (int trial = 0; trial < 2000; ++trial) {
    const uint32_t p = rng.bernoulli(0.5) ? 2 : 4, d = p * (rng.bernoulli(0.5) ? 2 : 4);
    const uint32_t n = d * (1 + static_cast<uint32_t>(rng.below(4)));
    const FatTree tree{n, p, d, 1 + static_cast<uint32_t>(rng.below(3))};
    const uint32_t m = 1 + static_cast<uint32_t>(rng.below(3));
    const TpShape shape{2 * m, 2};
    std::vector<uint32_t> faulty;
    const double rate = rng.uniform() * 0.1;
    for (uint32_t v = 0; v < n; ++v) {
      if (rng.bernoulli(rate)) faulty.push_back(v);
    }
    const uint64_t job = shape.tp * (1 + rng.below(n / m));
    const auto plan = orchestrate_fat_tree(tree, faulty, shape, job);
    Rng greedy_rng(5, trial, 1);
    const Placement greedy = greedy_placement(tree, faulty, shape, job, greedy_rng);
    expect_valid(greedy.groups, deployment_order(n, p), faulty, tree.hops, false, m);
    if (!plan || greedy.gpus < job) continue;
    ASSERT_EQ(greedy.gpus, job);
    ++compared;
    const std::span<const Group> used(plan->placement.groups.data(), job / shape.tp);
    const CrossTor a = cross_tor_traffic(used, p, p), b = cross_tor_traffic(greedy.groups, p, p);
    ASSERT_EQ(a.pairs, b.pairs);
    ours.cross += a.cross;
    ours.pairs += a.pairs;
    theirs.cross += b.cross;
    theirs.pairs += b.pairs;
    worse += a.cross > b.cross;
    worse_fitting += a.cross > b.cross && d / p >= m;  // a TP group fits in a segment
  }
  std::cout << "cross-ToR share over " << compared << " cases: optimized " << ours.share()
            << ", baseline " << theirs.share() << "; optimized above the baseline in " << worse
            << " cases, " << worse_fitting << " of them with d/p >= m\n";
  EXPECT_GT(compared, 1000);
  EXPECT_LT(ours.share(), theirs.share());
}

TEST(InfinitehbdOrchestration, GreedyBaselineIsDeterministicInItsRng) {
  const FatTree tree{64, 4, 16, 2};
  Rng a(9, 1, 2), b(9, 1, 2), c(10, 1, 2);
  const Placement pa = greedy_placement(tree, {3, 17}, {8, 4}, 80, a);
  EXPECT_EQ(pa.groups, greedy_placement(tree, {3, 17}, {8, 4}, 80, b).groups);
  EXPECT_NE(pa.groups, greedy_placement(tree, {3, 17}, {8, 4}, 80, c).groups);
  EXPECT_EQ(pa.gpus, 80u);
}

void expect_input_error(auto call, const std::string& names) {
  try {
    call();
    ADD_FAILURE() << "no InputError, expected one naming " << names;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
  }
}

TEST(InfinitehbdOrchestration, BadInputNamesTheValue) {
  const HopLine line{10, 2, false};
  expect_input_error([&] { orchestrate_dcn_free(line, {}, {6, 4}); }, "t = 6");
  expect_input_error([&] { orchestrate_dcn_free(line, {}, {0, 4}); }, "m = t / r = 0");
  expect_input_error([&] { orchestrate_dcn_free(line, {}, {4, 0}); }, "(r) = 0");
  expect_input_error([&] { orchestrate_dcn_free({10, 0, false}, {}, {4, 4}); }, "K (hops) = 0");
  expect_input_error([&] { orchestrate_dcn_free(line, {3, 10}, {4, 4}); }, "faulty node 10");
  expect_input_error([&] { deployment_order(10, 0); }, "(p) = 0");
  expect_input_error([&] { max_constraints({8, 0, 4, 1}); }, "(p) = 0");
  expect_input_error([&] { max_constraints({8, 2, 3, 1}); }, "(d) = 3");
  expect_input_error([&] { max_constraints({12, 2, 8, 1}); }, "(d) = 8");
  expect_input_error([&] { place_fat_tree({8, 2, 4, 1}, {8}, {2, 1}, 0); }, "faulty node 8");
  expect_input_error([&] { orchestrate_fat_tree({8, 2, 4, 0}, {}, {2, 1}, 2); }, "K (hops) = 0");
  expect_input_error([&] { cross_tor_traffic({}, 2, 0); }, "parallel_size = 0");
}

}  // namespace
}  // namespace hx::net::infinitehbd
