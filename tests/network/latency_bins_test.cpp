// The latency histogram's bins against a reference that places a latency by the bins' edges
// worked out in rational arithmetic: one cycle wide up to the linear bins' end, then 64 per
// octave, to the largest SimTime.
#include "models/network/latency_bins.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <random>

namespace hx::net {
namespace {

__extension__ using U128 = unsigned __int128;

// Bin b starts at the smallest whole picosecond that is at least its exact edge: b cycles in
// the linear part, B 2^o (64 + s) / 64 in sub-bin s of octave o beyond (B = the linear end,
// at least 64 ps).
U128 exact_edge_ceiling(uint64_t cycle, uint64_t linear, uint64_t b) {
  linear = std::max<uint64_t>(linear, (63 + cycle) / cycle);
  if (b < linear) return U128{b} * cycle;
  const uint64_t octave = (b - linear) / 64;
  const uint64_t s = (b - linear) % 64;
  const U128 from = U128{cycle} * linear << octave;
  return (from * (64 + s) + 63) / 64;
}

TEST(LatencyBins, EdgesAndBinsAgreeEverywhere) {
  // Cycles up to 2^59 ps: octaves whose sub-bins' products outgrow 64 bits.
  for (const uint64_t cycle : {1ull, 3ull, 1000ull, 640ull, (1ull << 50) + 3, (1ull << 59) + 5}) {
    for (const uint64_t linear : {1ull, 2ull, 7ull, 100ull, 10000ull}) {
      const LatencyBins bins(SimTime::ps(static_cast<int64_t>(cycle)), linear);
      if (U128{cycle} * linear <= U128{INT64_MAX}) {
        ASSERT_GT(bins.size(), linear);
      }
      ASSERT_EQ(bins.upper(0).count_ps(), static_cast<int64_t>(cycle));
      for (uint64_t b = 0; b < bins.size(); ++b) {
        const U128 edge = exact_edge_ceiling(cycle, linear, b);
        ASSERT_LE(edge, U128{INT64_MAX});  // every bin holds a latency a SimTime can have
        ASSERT_TRUE(bins.lower(b).count_ps() == static_cast<int64_t>(edge)) << cycle << " " << b;
        // The bin's first and last picoseconds fall in it, the one before in the bin before.
        ASSERT_EQ(bins.of(bins.lower(b)), b);
        if (b > 0) {
          ASSERT_EQ(bins.of(bins.lower(b) - SimTime::ps(1)), b - 1);
        }
        if (b + 1 < bins.size()) {
          ASSERT_LT(bins.lower(b), bins.upper(b)) << "empty bin " << b;
          ASSERT_EQ(bins.of(bins.upper(b) - SimTime::ps(1)), b);
        }
      }
      // The last bin reaches the largest SimTime, and no bin lies past it.
      EXPECT_EQ(bins.of(SimTime::ps(INT64_MAX)), bins.size() - 1);
      EXPECT_TRUE(bins.upper(bins.size() - 1).is_infinite());
      EXPECT_GT(exact_edge_ceiling(cycle, linear, bins.size()), U128{INT64_MAX});
    }
  }
}

TEST(LatencyBins, OneCycleBinsThenAFixedShareOfTheLatency) {
  const LatencyBins bins(SimTime::ps(1000), 10000);  // the defaults: 1 ns, 10,000 bins
  EXPECT_EQ(bins.of(SimTime::ps(0)), 0u);
  EXPECT_EQ(bins.of(SimTime::ps(9'999'999)), 9999u);    // the last one-cycle bin
  EXPECT_EQ(bins.of(SimTime::ps(10'000'000)), 10000u);  // 10 us: the first octave starts
  EXPECT_EQ(bins.lower(10001).count_ps(), 10'156'250);  // 10 us / 64 later
  EXPECT_EQ(bins.of(SimTime::ps(20'000'000)), 10064u);  // 20 us: the second octave
  // 2^63 ps is 1.68 x 2^39 x 10 us: 39 whole octaves, then 44 bins of the 40th.
  EXPECT_EQ(bins.size(), 10000u + 39 * 64 + 44);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100000; ++i) {
    const auto x = static_cast<int64_t>(rng() >> (1 + rng() % 63));
    const uint64_t b = bins.of(SimTime::ps(x));
    ASSERT_LE(bins.lower(b).count_ps(), x);
    ASSERT_LT(x, bins.upper(b).count_ps());
    // Beyond the linear bins, a bin is at most 1/64 of the latencies in it.
    if (b >= 10000 && b + 1 < bins.size()) {
      const int64_t width = (bins.upper(b) - bins.lower(b)).count_ps();
      ASSERT_LE(width, bins.lower(b).count_ps() / 64 + 1) << x;
    }
  }
}

TEST(LatencyBins, LinearBinsPastTheLargestTimeLeaveNoOctaves) {
  const LatencyBins bins(SimTime::ps(INT64_MAX / 4), 10);
  EXPECT_EQ(bins.size(), 5u);  // up to 4 cycles: the bin of INT64_MAX is the fifth
  EXPECT_EQ(bins.of(SimTime::ps(INT64_MAX)), 4u);
  EXPECT_TRUE(bins.upper(4).is_infinite());
}

}  // namespace
}  // namespace hx::net
