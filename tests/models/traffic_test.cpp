// Synthetic traffic patterns: exact values of the deterministic ones, bijectivity of the random
// permutation, the distributions of the random ones (fixed seeds, stated tolerances), and the
// input errors for patterns that do not fit the topology. A small fake topology supplies the
// endpoint count, coordinates and groups.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "models/traffic/pattern.h"
#include "models/traffic/permutation.h"

namespace hx::net {
namespace {

/// Endpoints only: `dims` gives the coordinates, groups are `group_size` consecutive endpoints
/// (the last one possibly short). `slot_of_group`, when given, places group g at the
/// slot_of_group[g]-th block of endpoints, so group ids need not follow endpoint order.
class FakeTopology final : public Topology {
 public:
  FakeTopology(std::vector<uint32_t> dims, uint32_t group_size,
               std::vector<uint32_t> slot_of_group = {})
      : dims_(std::move(dims)), group_size_(group_size), slot_of_group_(std::move(slot_of_group)) {
    n_ = std::accumulate(dims_.begin(), dims_.end(), 1u, std::multiplies<>());
    groups_ = (n_ + group_size_ - 1) / group_size_;
    if (slot_of_group_.empty()) {
      slot_of_group_.resize(groups_);
      std::iota(slot_of_group_.begin(), slot_of_group_.end(), 0u);
    }
    group_of_slot_.resize(groups_);
    for (uint32_t g = 0; g < groups_; ++g) group_of_slot_[slot_of_group_[g]] = g;
  }

  std::string describe() const override { return "fake: " + std::to_string(n_) + " endpoints"; }
  uint32_t num_routers() const override { return 0; }
  uint32_t num_endpoints() const override { return n_; }
  Node node(ComponentId id) const override { return {NodeKind::kEndpoint, id}; }
  ComponentId router_component(uint32_t router) const override { return router; }
  ComponentId endpoint_component(uint32_t endpoint) const override { return endpoint; }
  void ports(ComponentId /*id*/, std::vector<PortSpec>& out) const override { out.clear(); }
  uint64_t first_link(ComponentId /*id*/) const override { return 0; }
  uint64_t num_links() const override { return 0; }
  std::vector<GroupLevel> group_levels() const override { return {}; }
  ComponentRange group_range(std::size_t /*level*/, uint64_t /*group*/) const override {
    return {};
  }
  const std::vector<LinkClass>& link_classes() const override { return link_classes_; }
  uint32_t num_endpoint_groups() const override { return groups_; }
  uint32_t endpoint_group(uint32_t endpoint) const override {
    return group_of_slot_[endpoint / group_size_];
  }
  EndpointRange endpoint_group_range(uint32_t group) const override {
    const uint32_t first = slot_of_group_[group] * group_size_;
    return {first, std::min(first + group_size_, n_)};
  }
  std::vector<uint32_t> endpoint_dims() const override { return dims_; }
  uint32_t endpoint_router(uint32_t /*endpoint*/) const override { return 0; }
  uint32_t diameter() const override { return 0; }

 private:
  std::vector<uint32_t> dims_;
  uint32_t group_size_;
  std::vector<uint32_t> slot_of_group_;
  std::vector<uint32_t> group_of_slot_;
  uint32_t n_ = 0;
  uint32_t groups_ = 0;
  std::vector<LinkClass> link_classes_;
};

std::unique_ptr<TrafficPattern> make(const std::string& name, const Topology& topology,
                                     uint32_t hotspot_groups = 4, uint64_t seed = 1) {
  PatternParams params;
  params.name = name;
  params.hotspot_groups = hotspot_groups;
  params.seed = seed;
  return make_pattern(params, topology);
}

Rng stream(uint32_t endpoint, uint64_t seed = 42) {
  return Rng(seed, endpoint, static_cast<uint64_t>(RngPurpose::kTraffic));
}

/// `draws` destinations of `src`, counted per destination.
std::map<uint32_t, uint64_t> histogram(const TrafficPattern& p, uint32_t src, uint64_t draws) {
  Rng rng = stream(src);
  std::map<uint32_t, uint64_t> counts;
  for (uint64_t i = 0; i < draws; ++i) ++counts[p.destination(src, rng)];
  return counts;
}

/// Pearson's chi-square statistic of `counts` against equal frequencies over `cells` cells.
double chi_square(const std::map<uint32_t, uint64_t>& counts, uint32_t cells, uint64_t draws) {
  const double expected = static_cast<double>(draws) / cells;
  double chi2 = static_cast<double>(cells - counts.size()) * expected;  // cells never drawn
  for (const auto& [dst, c] : counts) {
    chi2 += (static_cast<double>(c) - expected) * (static_cast<double>(c) - expected) / expected;
  }
  return chi2;
}

/// The InputError message of `f`, or "" when it does not throw one.
template <class F>
std::string input_error(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const FakeTopology& topo64() {  // 64 endpoints, 8 groups of 8, an 8 x 8 grid
  static const FakeTopology t({8, 8}, 8);
  return t;
}

TEST(TrafficPattern, NamesInListOrder) {
  EXPECT_EQ(pattern_names(),
            (std::vector<std::string>{"uniform", "bit_complement", "bit_reverse", "bit_shuffle",
                                      "transpose", "tornado", "neighbor", "permutation", "hotspot",
                                      "group_shift", "ring", "bidirectional_ring"}));
}

TEST(TrafficPattern, EveryPatternSendsOnlyToOthersInRange) {
  for (const std::string& name : pattern_names()) {
    const auto p = make(name, topo64());
    uint32_t senders = 0;
    for (uint32_t src = 0; src < 64; ++src) {
      if (!p->sends(src)) continue;
      ++senders;
      Rng rng = stream(src);
      for (int i = 0; i < 50; ++i) {
        const uint32_t dst = p->destination(src, rng);
        ASSERT_LT(dst, 64u) << name << " src " << src;
        ASSERT_NE(dst, src) << name;
      }
    }
    EXPECT_GT(senders, 0u) << name;
  }
}

TEST(TrafficPattern, BitPatternsExactValues) {
  const FakeTopology t({16}, 4);
  Rng rng = stream(0);
  const auto complement = make("bit_complement", t);
  const auto reverse = make("bit_reverse", t);
  const auto shuffle = make("bit_shuffle", t);
  const auto transpose = make("transpose", t);
  EXPECT_EQ(complement->destination(3, rng), 12u);
  EXPECT_EQ(complement->destination(0, rng), 15u);
  EXPECT_EQ(complement->destination(10, rng), 5u);
  EXPECT_EQ(reverse->destination(1, rng), 8u);
  EXPECT_EQ(reverse->destination(3, rng), 12u);    // 0011 -> 1100
  EXPECT_EQ(reverse->destination(13, rng), 11u);   // 1101 -> 1011
  EXPECT_EQ(shuffle->destination(9, rng), 3u);     // 1001 -> 0011
  EXPECT_EQ(shuffle->destination(8, rng), 1u);     // 1000 -> 0001
  EXPECT_EQ(shuffle->destination(6, rng), 12u);    // 0110 -> 1100
  EXPECT_EQ(transpose->destination(1, rng), 4u);   // 00|01 -> 01|00
  EXPECT_EQ(transpose->destination(13, rng), 7u);  // 11|01 -> 01|11
  // Fixed points send nothing; complement has none.
  for (uint32_t src = 0; src < 16; ++src) EXPECT_TRUE(complement->sends(src));
  EXPECT_FALSE(reverse->sends(9));  // 1001
  EXPECT_FALSE(reverse->sends(6));  // 0110
  EXPECT_TRUE(reverse->sends(1));
  EXPECT_FALSE(shuffle->sends(0));               // 0000
  EXPECT_FALSE(shuffle->sends(15));              // 1111
  EXPECT_EQ(shuffle->destination(5, rng), 10u);  // 0101 -> 1010
  EXPECT_FALSE(transpose->sends(5));             // 01|01
  EXPECT_FALSE(transpose->sends(0));
  EXPECT_TRUE(transpose->sends(1));
}

TEST(TrafficPattern, BitPatternsArePermutations) {
  const FakeTopology t({8, 8}, 8);
  for (const char* name : {"bit_complement", "bit_reverse", "bit_shuffle", "transpose"}) {
    const auto p = make(name, t);
    std::set<uint32_t> images;
    Rng rng = stream(0);
    for (uint32_t src = 0; src < 64; ++src) {
      images.insert(p->sends(src) ? p->destination(src, rng) : src);
    }
    EXPECT_EQ(images.size(), 64u) << name;
  }
}

TEST(TrafficPattern, BitPatternsNeedPowerOfTwoEndpoints) {
  const FakeTopology t48({6, 8}, 8);
  for (const char* name : {"bit_complement", "bit_reverse", "bit_shuffle", "transpose"}) {
    const std::string msg = input_error([&] { make(name, t48); });
    EXPECT_NE(msg.find("traffic.pattern"), std::string::npos) << msg;
    EXPECT_NE(msg.find(name), std::string::npos) << msg;
    EXPECT_NE(msg.find("power-of-two"), std::string::npos) << msg;
    EXPECT_NE(msg.find("48"), std::string::npos) << msg;
  }
  // Transpose also needs an even number of bits: 32 endpoints (5 bits) is refused, 64 is fine.
  const FakeTopology t32({32}, 8);
  const std::string msg = input_error([&] { make("transpose", t32); });
  EXPECT_NE(msg.find("traffic.pattern = 'transpose'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("5 bits"), std::string::npos) << msg;
  EXPECT_EQ(input_error([&] { make("bit_reverse", t32); }), "");
  EXPECT_EQ(input_error([&] { make("transpose", topo64()); }), "");
}

TEST(TrafficPattern, PermutationIsABijectionForAnySize) {
  for (uint32_t n : {1u, 2u, 3u, 5u, 7u, 16u, 17u, 63u, 64u, 100u, 1000u, 4097u, 200000u}) {
    for (uint64_t seed : {1ull, 2ull, 12345ull}) {
      const RandomPermutation perm(n, seed);
      std::vector<bool> hit(n, false);
      for (uint32_t x = 0; x < n; ++x) {
        const uint32_t y = perm(x);
        ASSERT_LT(y, n) << "n " << n << " seed " << seed;
        ASSERT_FALSE(hit[y]) << "n " << n << " seed " << seed << ": " << y << " hit twice";
        hit[y] = true;
      }
    }
  }
  // O(1) memory: a few words whatever the size.
  EXPECT_LE(sizeof(RandomPermutation), 64u);
}

TEST(TrafficPattern, PermutationDependsOnTheSeedOnly) {
  const uint32_t n = 1000;
  const RandomPermutation a(n, 1), a_again(n, 1), b(n, 2);
  uint32_t differ = 0, fixed = 0;
  for (uint32_t x = 0; x < n; ++x) {
    EXPECT_EQ(a(x), a_again(x));
    differ += a(x) != b(x);
    fixed += a(x) == x;
  }
  // Two independent random permutations agree in ~1 place and have ~1 fixed point (Poisson(1));
  // allow 10.
  EXPECT_GE(differ, n - 10);
  EXPECT_LE(fixed, 10u);
}

TEST(TrafficPattern, PermutationPatternSkipsFixedPoints) {
  const FakeTopology t({10, 10}, 10);  // 100 endpoints: not a power of two
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const auto p = make("permutation", t, 4, seed);
    const RandomPermutation perm(100, seed);
    Rng rng = stream(0);
    for (uint32_t src = 0; src < 100; ++src) {
      EXPECT_EQ(p->sends(src), perm(src) != src);
      if (p->sends(src)) {
        EXPECT_EQ(p->destination(src, rng), perm(src));
      }
    }
  }
}

TEST(TrafficPattern, UniformCoversAllOthersEvenly) {
  const auto p = make("uniform", topo64());
  const uint64_t draws = 63 * 2000;
  for (uint32_t src : {0u, 37u, 63u}) {
    const auto counts = histogram(*p, src, draws);
    EXPECT_EQ(counts.count(src), 0u);
    EXPECT_EQ(counts.size(), 63u) << "every other endpoint is reached";
    // 62 degrees of freedom: mean 62, sd ~11.1. Tolerance: below 130 (about mean + 6 sd, a
    // false alarm probability under 1e-6 for a fair generator; the seed is fixed anyway).
    EXPECT_LT(chi_square(counts, 63, draws), 130.0) << "src " << src;
  }
}

TEST(TrafficPattern, GroupShiftLandsInTheNextGroup) {
  // In endpoint order, and with group ids shuffled over the endpoint blocks.
  const FakeTopology shuffled({8, 8}, 8, {3, 0, 6, 1, 7, 2, 5, 4});
  for (const FakeTopology* t : {&topo64(), &shuffled}) {
    const auto p = make("group_shift", *t);
    for (uint32_t src = 0; src < 64; ++src) {
      ASSERT_TRUE(p->sends(src));
      const uint32_t next = (t->endpoint_group(src) + 1) % 8;
      const auto counts = histogram(*p, src, 800);
      EXPECT_EQ(counts.size(), 8u) << "all endpoints of the next group are reached";
      for (const auto& [dst, c] : counts) EXPECT_EQ(t->endpoint_group(dst), next);
    }
  }
  const FakeTopology one_group({8}, 8);
  const std::string msg = input_error([&] { make("group_shift", one_group); });
  EXPECT_NE(msg.find("traffic.pattern = 'group_shift'"), std::string::npos) << msg;
}

TEST(TrafficPattern, HotspotStaysInTheHotGroups) {
  // Hot groups 0..3 in endpoint order ([0, 32)), at the end ([32, 64)), and scattered over
  // non-adjacent blocks (slots 0, 3, 6, 1: endpoints [0, 16), [24, 32), [48, 56)).
  const FakeTopology reversed({8, 8}, 8, {7, 6, 5, 4, 3, 2, 1, 0});
  const FakeTopology scattered({8, 8}, 8, {0, 3, 6, 1, 2, 4, 5, 7});
  for (const FakeTopology* t : {&topo64(), &reversed, &scattered}) {
    const auto p = make("hotspot", *t, 4);
    for (uint32_t src = 0; src < 64; ++src) {
      const bool hot = t->endpoint_group(src) < 4;
      ASSERT_EQ(p->sends(src), hot) << "src " << src;
      if (!hot) continue;
      const uint64_t draws = 31 * 200;
      const auto counts = histogram(*p, src, draws);
      EXPECT_EQ(counts.count(src), 0u);
      EXPECT_EQ(counts.size(), 31u) << "every other hot endpoint is reached";
      for (const auto& [dst, c] : counts) EXPECT_LT(t->endpoint_group(dst), 4u);
      // 30 degrees of freedom: mean 30, sd ~7.7; tolerance 80 (mean + 6.5 sd).
      EXPECT_LT(chi_square(counts, 31, draws), 80.0) << "src " << src;
    }
  }
}

TEST(TrafficPattern, HotspotGroupsMustFitTheTopology) {
  for (uint32_t h : {0u, 9u}) {
    const std::string msg = input_error([&] { make("hotspot", topo64(), h); });
    EXPECT_NE(msg.find("traffic.hotspot_groups = '" + std::to_string(h) + "'"), std::string::npos)
        << msg;
  }
  EXPECT_EQ(input_error([&] { make("hotspot", topo64(), 8); }), "");
  // Other patterns ignore hotspot_groups.
  EXPECT_EQ(input_error([&] { make("uniform", topo64(), 9); }), "");
}

TEST(TrafficPattern, TornadoShiftsEachDimension) {
  Rng rng = stream(0);
  const auto p = make("tornado", topo64());  // radix 8: shift 3 in both dimensions
  EXPECT_EQ(p->destination(0, rng), 3u + 8 * 3);
  EXPECT_EQ(p->destination(1 + 8 * 2, rng), 4u + 8 * 5);
  EXPECT_EQ(p->destination(7 + 8 * 7, rng), 2u + 8 * 2);
  EXPECT_EQ(p->destination(5 + 8 * 1, rng), 0u + 8 * 4);
  // Radices 3, 5, 2: shifts 1, 2, 0.
  const FakeTopology mixed({3, 5, 2}, 5);
  const auto q = make("tornado", mixed);
  EXPECT_EQ(q->destination(0, rng), 1u + 3 * 2);
  EXPECT_EQ(q->destination(2 + 3 * 4 + 15 * 1, rng), 0u + 3 * 1 + 15 * 1);
  // Radices 1 and 2 do not move, so nobody sends.
  const FakeTopology small({2, 1, 2}, 2);
  const auto r = make("tornado", small);
  for (uint32_t src = 0; src < 4; ++src) EXPECT_FALSE(r->sends(src));
}

TEST(TrafficPattern, NeighborPicksEvenlyAmongAdjacentEndpoints) {
  const auto p = make("neighbor", topo64());
  // (0,0) on the 8 x 8 torus: (1,0), (7,0), (0,1), (0,7).
  const auto counts = histogram(*p, 0, 40000);
  EXPECT_EQ(counts.size(), 4u);
  for (uint32_t dst : {1u, 7u, 8u, 56u}) {
    ASSERT_EQ(counts.count(dst), 1u) << dst;
    EXPECT_NEAR(counts.at(dst) / 40000.0, 0.25, 0.01) << dst;  // sd 0.002
  }
  // Radices 2, 4, 1: from 0 = (0,0,0) the neighbours are (1,0), (0,1), (0,3): one per radix-2
  // dimension, none for radix 1.
  const FakeTopology mixed({2, 4, 1}, 4);
  const auto q = make("neighbor", mixed);
  const auto c3 = histogram(*q, 0, 30000);
  EXPECT_EQ(c3.size(), 3u);
  for (uint32_t dst : {1u, 2u, 6u}) {
    ASSERT_EQ(c3.count(dst), 1u) << dst;
    EXPECT_NEAR(c3.at(dst) / 30000.0, 1.0 / 3, 0.015) << dst;  // sd 0.0027
  }
}

TEST(TrafficPattern, Rings) {
  Rng rng = stream(0);
  const auto ring = make("ring", topo64());
  EXPECT_EQ(ring->destination(5, rng), 6u);
  EXPECT_EQ(ring->destination(63, rng), 0u);
  const auto bi = make("bidirectional_ring", topo64());
  for (uint32_t src : {0u, 30u, 63u}) {
    const auto counts = histogram(*bi, src, 20000);
    ASSERT_EQ(counts.size(), 2u);
    const uint64_t up = counts.at((src + 1) % 64);
    const uint64_t down = counts.at((src + 63) % 64);
    EXPECT_EQ(up + down, 20000u);
    EXPECT_NEAR(up / 20000.0, 0.5, 0.02) << "src " << src;  // sd 0.0035
  }
}

std::unique_ptr<TrafficPattern> make_ring(const std::string& name, const Topology& topology,
                                          uint32_t unit, const std::string& order,
                                          uint32_t block = 0) {
  PatternParams params;
  params.name = name;
  params.ring_unit = unit;
  params.ring_order = order;
  params.block = block;
  return make_pattern(params, topology);
}

TEST(TrafficPattern, RingsOfUnits) {
  Rng rng = stream(0);
  // Units of 4 (a chip's cores) in index order: core o of unit u to core o of unit u + 1.
  const auto chips = make_ring("ring", topo64(), 4, "linear");
  EXPECT_EQ(chips->destination(5, rng), 9u);
  EXPECT_EQ(chips->destination(61, rng), 1u);
  // Gray order in blocks of 16 (a 2 x 2 of chiplets numbered by rows): units 0 -> 1 -> 3 -> 2.
  const auto gray = make_ring("ring", topo64(), 4, "gray", 16);
  EXPECT_EQ(gray->destination(0, rng), 4u);
  EXPECT_EQ(gray->destination(5, rng), 13u);
  EXPECT_EQ(gray->destination(13, rng), 9u);
  EXPECT_EQ(gray->destination(10, rng), 2u);
  EXPECT_EQ(gray->destination(16 + 10, rng), 16 + 2u);
  const auto bi = make_ring("bidirectional_ring", topo64(), 4, "gray", 16);
  const auto counts = histogram(*bi, 5, 4000);
  ASSERT_EQ(counts.size(), 2u);
  EXPECT_NEAR(counts.at(13) / 4000.0, 0.5, 0.04);  // next: unit 3
  EXPECT_NEAR(counts.at(1) / 4000.0, 0.5, 0.04);   // previous: unit 0
  // Unit 1 in index order is the ring of endpoints.
  const auto plain = make_ring("ring", topo64(), 1, "linear");
  const auto old = make("ring", topo64());
  for (uint32_t src = 0; src < 64; ++src) {
    EXPECT_EQ(plain->destination(src, rng), old->destination(src, rng));
  }
}

TEST(TrafficPattern, GrayRingIsOneCycleOfOneBitSteps) {
  // 128 endpoints (a W-group) in 32 units of 4: every unit sends to one whose index differs in
  // one bit, and following the ring from unit 0 visits all 32 before returning.
  const FakeTopology t({128}, 16);
  const auto gray = make_ring("ring", t, 4, "gray");
  Rng rng = stream(0);
  std::set<uint32_t> seen;
  uint32_t unit = 0;
  for (uint32_t step = 0; step < 32; ++step) {
    seen.insert(unit);
    const uint32_t dst = gray->destination(unit * 4 + 3, rng);
    ASSERT_EQ(dst % 4, 3u);
    EXPECT_EQ(std::popcount(unit ^ dst / 4), 1) << unit;
    unit = dst / 4;
  }
  EXPECT_EQ(unit, 0u);
  EXPECT_EQ(seen.size(), 32u);
}

TEST(TrafficPattern, BadRingUnitsAreInputErrors) {
  for (const uint32_t unit : {0u, 3u, 64u}) {  // zero, not a divisor, one unit
    const std::string msg = input_error([&] { make_ring("ring", topo64(), unit, "linear"); });
    EXPECT_NE(msg.find("traffic.ring_unit = '" + std::to_string(unit) + "'"), std::string::npos)
        << msg;
  }
  const FakeTopology t48({6, 8}, 8);
  const std::string msg = input_error([&] { make_ring("ring", t48, 4, "gray"); });
  EXPECT_NE(msg.find("traffic.ring_order = 'gray'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("12 units"), std::string::npos) << msg;
  EXPECT_EQ(input_error([&] { make_ring("ring", t48, 4, "linear"); }), "");
  EXPECT_EQ(input_error([&] { make_ring("ring", t48, 4, "gray", 16); }), "");
}

TEST(TrafficPattern, RandomPatternsAreDeterministicPerStream) {
  for (const char* name : {"uniform", "neighbor", "hotspot", "group_shift", "bidirectional_ring"}) {
    const auto p = make(name, topo64());
    Rng a = stream(3), b = stream(3);
    for (int i = 0; i < 100; ++i) EXPECT_EQ(p->destination(3, a), p->destination(3, b)) << name;
  }
}

TEST(TrafficPattern, UnknownNameIsAnInputError) {
  const std::string msg = input_error([&] { make("tornadoo", topo64()); });
  EXPECT_NE(msg.find("traffic.pattern = 'tornadoo'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean 'tornado'"), std::string::npos) << msg;
}

std::unique_ptr<TrafficPattern> make_block(const std::string& name, const Topology& topology,
                                           uint32_t block) {
  PatternParams params;
  params.name = name;
  params.block = block;
  return make_pattern(params, topology);
}

TEST(TrafficPattern, BlockKeepsTrafficInsideTheBlock) {
  // 64 endpoints in blocks of 16: every destination lies in the source's block, and uniform
  // reaches every other endpoint of it.
  for (const std::string& name : blockable_pattern_names()) {
    const auto p = make_block(name, topo64(), 16);
    for (uint32_t src = 0; src < 64; ++src) {
      if (!p->sends(src)) continue;
      const uint32_t base = src / 16 * 16;
      const auto counts = histogram(*p, src, 200);
      for (const auto& [dst, c] : counts) {
        EXPECT_GE(dst, base) << name << " " << src;
        EXPECT_LT(dst, base + 16) << name << " " << src;
        EXPECT_NE(dst, src) << name;
      }
      if (name == "uniform") {
        EXPECT_EQ(counts.size(), 15u) << src;
      }
    }
  }
}

TEST(TrafficPattern, BitReverseInABlockIsBitReverseOnTheBlockOffset) {
  const FakeTopology t16({16}, 4);
  const auto whole = make("bit_reverse", t16);
  const auto blocked = make_block("bit_reverse", topo64(), 16);
  Rng rng = stream(0);
  for (uint32_t src = 0; src < 64; ++src) {
    const uint32_t base = src / 16 * 16;
    ASSERT_EQ(blocked->sends(src), whole->sends(src - base)) << src;
    if (!blocked->sends(src)) continue;
    EXPECT_EQ(blocked->destination(src, rng), base + whole->destination(src - base, rng)) << src;
  }
  // 96 endpoints are not a power of two, blocks of 32 are.
  const FakeTopology t96({96}, 8);
  EXPECT_EQ(blocked->destination(16 + 1, rng), 16 + 8u);  // 0001 -> 1000
  EXPECT_EQ(make_block("bit_reverse", t96, 32)->destination(64 + 1, rng), 64 + 16u);
}

TEST(TrafficPattern, BlockOfTheWholeSystemIsTheWholeSystem) {
  for (const char* name : {"bit_complement", "bit_reverse", "bit_shuffle", "transpose"}) {
    const auto whole = make(name, topo64());
    const auto blocked = make_block(name, topo64(), 64);
    Rng rng = stream(0);
    for (uint32_t src = 0; src < 64; ++src) {
      ASSERT_EQ(blocked->sends(src), whole->sends(src)) << name;
      if (whole->sends(src)) {
        EXPECT_EQ(blocked->destination(src, rng), whole->destination(src, rng)) << name;
      }
    }
  }
}

TEST(TrafficPattern, BadBlocksAreInputErrors) {
  for (const uint32_t block : {1u, 24u, 128u}) {  // too small, not a divisor of 64, too large
    const std::string msg = input_error([&] { make_block("uniform", topo64(), block); });
    EXPECT_NE(msg.find("traffic.block = '" + std::to_string(block) + "'"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find("64 endpoints"), std::string::npos) << msg;
  }
  for (const char* name : {"tornado", "neighbor", "hotspot", "group_shift"}) {
    const std::string msg = input_error([&] { make_block(name, topo64(), 16); });
    EXPECT_NE(msg.find("traffic.block = '16'"), std::string::npos) << msg;
    EXPECT_NE(msg.find(name), std::string::npos) << msg;
    EXPECT_NE(msg.find("bit_reverse"), std::string::npos) << msg;  // says which patterns accept
  }
  // A bit permutation needs a power-of-two block, whatever the endpoint count.
  const FakeTopology t48({6, 8}, 8);
  const std::string msg = input_error([&] { make_block("bit_reverse", t48, 12); });
  EXPECT_NE(msg.find("traffic.pattern = 'bit_reverse'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("traffic.block = 12"), std::string::npos) << msg;
  EXPECT_EQ(input_error([&] { make_block("bit_reverse", t48, 16); }), "");
  EXPECT_EQ(input_error([&] { make_block("transpose", t48, 16); }), "");
}

TEST(TrafficPattern, LargeTopologiesCostNothing) {
  // 262144 endpoints in 1024 groups: building every pattern is immediate and the permutation
  // needs no table.
  const FakeTopology big({512, 512}, 256);
  for (const std::string& name : pattern_names()) {
    const auto p = make(name, big);
    Rng rng = stream(12345);
    for (uint32_t src : {0u, 12345u, 262143u}) {
      if (p->sends(src)) {
        EXPECT_LT(p->destination(src, rng), 262144u) << name;
      }
    }
  }
}

}  // namespace
}  // namespace hx::net
