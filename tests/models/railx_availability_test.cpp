// Single-job allocation with faulted nodes (RailX paper §6.6, Appendix A.5 Algorithm 2,
// Fig. 17): Algorithm 2 against a brute force over every set of disabled rows and columns, the
// closed cases §6.6 names, and §6.6's claim that a 0.1% failure rate keeps availability above
// 90% up to R = 128 (64 x 64 nodes).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/rng.h"
#include "models/topologies/railx/availability.h"

namespace hx::net::railx {
namespace {

using Faults = std::vector<std::pair<uint32_t, uint32_t>>;

// The true maximum: every (rows, columns) pair of disabled sets that covers every fault.
uint64_t brute_force(uint32_t n, const Faults& faults) {
  uint64_t best = 0;
  for (uint32_t rows = 0; rows < (1u << n); ++rows) {
    for (uint32_t cols = 0; cols < (1u << n); ++cols) {
      const bool covered = std::all_of(faults.begin(), faults.end(), [&](const auto& f) {
        return (rows >> f.first & 1) || (cols >> f.second & 1);
      });
      if (covered) {
        best =
            std::max<uint64_t>(best, uint64_t{n - std::popcount(rows)} * (n - std::popcount(cols)));
      }
    }
  }
  return best;
}

// Whether two distinct faults share a row or a column (Algorithm 2's C is not empty).
bool shares_a_line(const Faults& faults) {
  for (const auto& f : faults) {
    for (const auto& g : faults) {
      if (f != g && (f.first == g.first || f.second == g.second)) return true;
    }
  }
  return false;
}

TEST(RailxAvailability, Algorithm2IsExactOnSmallGrids) {
  Rng rng(7, 0, 0);
  uint32_t with_shared = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const auto n = static_cast<uint32_t>(1 + rng.below(6));
    const uint64_t count = rng.below(std::min<uint64_t>(uint64_t{n} * n, 14) + 1);
    Faults faults;
    for (uint64_t i = 0; i < count; ++i) {
      faults.emplace_back(static_cast<uint32_t>(rng.below(n)), static_cast<uint32_t>(rng.below(n)));
    }
    ASSERT_EQ(max_single_allocation(n, faults), brute_force(n, faults))
        << "n " << n << ", trial " << trial;
    with_shared += shares_a_line(faults);
  }
  EXPECT_GT(with_shared, 1500u);  // the enumeration, not only the all-isolated shortcut
}

TEST(RailxAvailability, ClosedCases) {
  EXPECT_EQ(max_single_allocation(64, {}), 64u * 64);
  EXPECT_EQ(max_single_allocation(64, {{5, 9}}), 64u * 63);
  // §6.6's worst case: 2a faults in distinct rows and columns leave (n - a)^2.
  for (uint32_t a = 1; a <= 8; ++a) {
    Faults diagonal;
    for (uint32_t i = 0; i < 2 * a; ++i) diagonal.emplace_back(i, (i * 5 + 3) % 64);
    EXPECT_EQ(max_single_allocation(64, diagonal), uint64_t{64 - a} * (64 - a)) << a;
    EXPECT_EQ(worst_single_allocation(64, 2 * a), uint64_t{64 - a} * (64 - a));
  }
  // §6.6's best case: every fault in one row costs that row only; repeats count once.
  EXPECT_EQ(max_single_allocation(64, {{3, 1}, {3, 40}, {3, 63}, {3, 40}}), 63u * 64);
  // One row and one column with a corner in common: dropping both beats any mix.
  EXPECT_EQ(max_single_allocation(8, {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {2, 0}}), 7u * 7);
  EXPECT_EQ(worst_single_allocation(4, 9), 0u);
}

TEST(RailxAvailability, RefusesWhatItCannotEnumerate) {
  Faults row;
  for (uint32_t c = 0; c <= kMaxNonIsolatedFaults; ++c) row.emplace_back(0, c);
  EXPECT_THROW(max_single_allocation(64, row), InputError);
  row.resize(12);
  EXPECT_EQ(max_single_allocation(64, row), 63u * 64);
  EXPECT_THROW(max_single_allocation(4, {{0, 4}}), InputError);
}

TEST(RailxAvailability, SamplingIsDeterministic) {
  const auto a = availability_curve(32, {0.001, 0.005}, 50, 3);
  const auto b = availability_curve(32, {0.001, 0.005}, 50, 3);
  ASSERT_EQ(a.size(), 2u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].mean_size, b[i].mean_size);
    EXPECT_EQ(a[i].mean_faults, b[i].mean_faults);
  }
  EXPECT_NE(availability_curve(32, {0.005}, 50, 4)[0].mean_faults, a[1].mean_faults);
  const AvailabilityPoint p = allocation_with_faults(32, 6, 50, 3);
  EXPECT_EQ(p.mean_size, allocation_with_faults(32, 6, 50, 3).mean_size);
  EXPECT_DOUBLE_EQ(p.worst_size, 29.0 * 29);  // every sample has exactly 6 faults
  EXPECT_DOUBLE_EQ(p.mean_faults, 6);
}

TEST(RailxAvailability, Fig17Shape) {
  // Fig. 17(a): the mean maximum allocation is never below the worst case and falls with the
  // number of faults; (b): larger systems lose more at the same rate.
  double last = 64.0 * 64;
  for (uint64_t faults : {0, 4, 8, 16}) {
    const AvailabilityPoint p = allocation_with_faults(64, faults);
    EXPECT_GE(p.mean_size, p.worst_size);
    EXPECT_LE(p.mean_size, last);
    last = p.mean_size;
  }
  const std::vector<double> rates = {0.001, 0.002, 0.003};
  const auto small = availability_curve(16, rates), large = availability_curve(64, rates);
  for (size_t i = 0; i < rates.size(); ++i) {
    EXPECT_GT(small[i].availability, large[i].availability) << rates[i];
    if (i > 0) {
      EXPECT_LE(large[i].availability, large[i - 1].availability);
    }
  }
}

TEST(RailxAvailability, AboveNinetyPercentAtOneInAThousand) {
  // §6.6: "Considering a typical failure rate of 0.1%, the availability is always more than 90%"
  // for R/2 x R/2 nodes up to R = 128.
  for (uint32_t n : {16, 32, 64}) {
    const AvailabilityPoint p = availability_curve(n, {0.001})[0];
    EXPECT_GT(p.availability, 0.9) << n;
    EXPECT_NEAR(p.mean_faults, 0.001 * n * n, 0.5 * n / 16.0) << n;
  }
}

}  // namespace
}  // namespace hx::net::railx
