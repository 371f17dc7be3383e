// The arrival times of a message's packets at flow level against packet-by-packet references:
// each packet's time, how many arrive before a time, sums of latencies, and runs per bin, on
// small cases exhaustively and on spreads and counts far beyond 64-bit products.
#include "models/flow/packet_arrivals.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <random>
#include <utility>
#include <vector>

namespace hx::flow {
namespace {

// The tails leave at the gaps' ends, the first spread % n gaps one picosecond longer than the
// others, walked gap by gap.
int64_t reference_at(int64_t last, int64_t spread, int64_t n, int64_t i) {
  int64_t t = last - spread;
  for (int64_t g = 1; g <= i; ++g) t += spread / n + (g <= spread % n ? 1 : 0);
  return t;
}

TEST(PacketArrivals, AgreeWithPacketByPacketSmallCases) {
  const int64_t last = 1000;
  for (int64_t n = 1; n <= 12; ++n) {
    for (int64_t spread = 0; spread <= 40; ++spread) {
      const PacketArrivals a(SimTime::ps(last), SimTime::ps(spread), static_cast<uint64_t>(n));
      std::vector<int64_t> times;
      for (int64_t i = 1; i <= n; ++i) {
        times.push_back(reference_at(last, spread, n, i));
        ASSERT_EQ(a.at(static_cast<uint64_t>(i)).count_ps(), times.back()) << n << " " << spread;
      }
      EXPECT_EQ(a.at(static_cast<uint64_t>(n)).count_ps(), last);  // the last with the message
      for (int64_t t = last - spread - 2; t <= last + 2; ++t) {
        uint64_t before = 0;
        for (const int64_t x : times) before += x < t ? 1 : 0;
        ASSERT_EQ(a.before(SimTime::ps(t)), before) << n << " " << spread << " " << t;
      }
      for (int64_t first = 1; first <= n; ++first) {
        for (int64_t count = 0; first + count <= n + 1; ++count) {
          int64_t sum = 0;
          for (int64_t i = first; i < first + count; ++i) sum += times[i - 1] - 7;
          const auto got = a.sum_since(SimTime::ps(7), static_cast<uint64_t>(first),
                                       static_cast<uint64_t>(count));
          ASSERT_EQ(static_cast<int64_t>(got), sum)
              << n << " " << spread << " " << first << " " << count;
        }
      }
      // Bins of 3 ps from 0, the last open from 990 ps. A run holds the packets from its first
      // one's time t until the later of its bin's end and t + ceil(spread / kMaxRuns), so runs
      // are bins wherever that is at most one picosecond.
      const auto end_of = [](int64_t t) { return t / 3 >= 330 ? INT64_MAX : 3 * (t / 3 + 1); };
      const int64_t shortest = (spread + PacketArrivals::kMaxRuns - 1) / PacketArrivals::kMaxRuns;
      std::vector<std::pair<int64_t, uint64_t>> want, got;  // (first arrival, count)
      for (std::size_t k = 0; k < times.size();) {
        const int64_t until = std::max(end_of(times[k]), times[k] + shortest);
        std::size_t m = k;
        while (m < times.size() && times[m] < until) ++m;
        want.emplace_back(times[k], m - k);
        k = m;
      }
      a.for_each_bin(
          [&](SimTime t) {
            const int64_t e = end_of(t.count_ps());
            return e == INT64_MAX ? SimTime::infinity() : SimTime::ps(e);
          },
          [&](SimTime t, uint64_t first, uint64_t count) {
            EXPECT_EQ(t, a.at(first));
            got.emplace_back(t.count_ps(), count);
          });
      ASSERT_EQ(got, want) << n << " " << spread;
      if (shortest <= 1) {
        std::vector<uint64_t> per_bin(331, 0), in_runs(331, 0);
        for (const int64_t x : times) ++per_bin[std::min<int64_t>(x / 3, 330)];
        for (const auto& [t, count] : got) in_runs[std::min<int64_t>(t / 3, 330)] += count;
        EXPECT_EQ(in_runs, per_bin) << n << " " << spread;
      }
    }
  }
}

// Spreads of seconds and counts of billions: products beyond 64 bits. Each packet's time
// against the counts before it, the sums split anywhere against the whole, and on counts small
// enough to walk, the whole against the walk.
TEST(PacketArrivals, HoldLargeSpreadsAndCounts) {
  using U128 = PacketArrivals::U128;  // gtest cannot print it: compared with ==
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 2000; ++trial) {
    const bool small = trial % 2 == 0;
    const auto spread = static_cast<int64_t>(rng() % (small ? 3'000'000 : 20'000'000'000'000));
    const uint64_t n = 1 + rng() % (small ? 3'000 : 4'000'000'000);
    const SimTime last = SimTime::ps(spread + static_cast<int64_t>(rng() % 1'000'000));
    const PacketArrivals a(last, SimTime::ps(spread), n);
    EXPECT_EQ(a.at(n), last);
    const uint64_t i = 1 + rng() % n;
    const SimTime t = a.at(i);
    ASSERT_LE(a.before(t), i - 1);  // packets at the same time as i may precede it
    ASSERT_GE(a.before(t + SimTime::ps(1)), i);
    if (i > 1) {
      ASSERT_LE(a.at(i - 1), t);
    }
    const U128 whole = a.sum_since(SimTime::zero(), 1, n);
    EXPECT_TRUE(a.sum_since(SimTime::zero(), 1, i - 1) +
                    a.sum_since(SimTime::zero(), i, n - i + 1) ==
                whole)
        << spread << " " << n << " " << i;
    if (small) {  // walked gap by gap, as reference_at does
      U128 walked = 0;
      int64_t at = last.count_ps() - spread;
      for (uint64_t k = 1; k <= n; ++k) {
        at += spread / static_cast<int64_t>(n) + (k <= spread % n ? 1 : 0);
        walked += static_cast<uint64_t>(at);
      }
      EXPECT_TRUE(whole == walked) << spread << " " << n;
    }
  }
}

// A spread over far more bins than kMaxRuns: at most kMaxRuns + 1 runs, each starting at its
// first packet's time, together holding every packet once, in order.
TEST(PacketArrivals, BoundsTheRunsOfALongSpread) {
  const uint64_t n = 400'000;
  const PacketArrivals a(SimTime::us(2000), SimTime::us(1000), n);  // over 10^6 bins of 1 ns
  uint64_t next = 1, runs = 0;
  a.for_each_bin([](SimTime t) { return SimTime::ns(t.count_ps() / 1000 + 1); },
                 [&](SimTime t, uint64_t first, uint64_t count) {
                   EXPECT_EQ(first, next);
                   EXPECT_EQ(t, a.at(first));
                   EXPECT_GT(count, 0u);
                   next = first + count;
                   ++runs;
                 });
  EXPECT_EQ(next, n + 1);
  EXPECT_LE(runs, PacketArrivals::kMaxRuns + 1);
  EXPECT_GE(runs, PacketArrivals::kMaxRuns);
}

// The histogram's runs: every packet once, in order, in at most 8 runs of ceil(n / 8) packets.
TEST(PacketArrivals, RunsOfAnEighthOfThePackets) {
  for (const uint64_t n : {1ull, 2ull, 7ull, 8ull, 9ull, 22ull, 64ull, 1'000'000'007ull}) {
    const PacketArrivals a(SimTime::us(3000), SimTime::us(700), n);
    const uint64_t per_run = (n + 7) / 8;
    uint64_t next = 1;
    uint64_t runs = 0;
    a.for_each_run([&](uint64_t first, uint64_t count) {
      EXPECT_EQ(first, next) << n;
      EXPECT_EQ(count, std::min(per_run, n + 1 - first)) << n;
      next = first + count;
      ++runs;
    });
    EXPECT_EQ(next, n + 1);
    EXPECT_EQ(runs, (n + per_run - 1) / per_run);
    EXPECT_LE(runs, PacketArrivals::kMaxRuns);
  }
}

TEST(PacketArrivals, AllAtOnceWithoutSpread) {
  const PacketArrivals a(SimTime::ns(5), SimTime::zero(), 22);
  EXPECT_EQ(a.at(1), SimTime::ns(5));
  EXPECT_EQ(a.before(SimTime::ns(5)), 0u);
  EXPECT_EQ(a.before(SimTime::ns(5) + SimTime::ps(1)), 22u);
  EXPECT_EQ(static_cast<int64_t>(a.sum_since(SimTime::ns(1), 1, 22)), 22 * 4000);
  int runs = 0;
  a.for_each_bin([](SimTime t) { return t + SimTime::ps(1); },
                 [&](SimTime, uint64_t first, uint64_t count) {
                   EXPECT_EQ(first, 1u);
                   EXPECT_EQ(count, 22u);
                   ++runs;
                 });
  EXPECT_EQ(runs, 1);
}

}  // namespace
}  // namespace hx::flow
