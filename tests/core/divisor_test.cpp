// Division by a reciprocal against the hardware's division, at the edges of the 64-bit range
// and at random.
#include "core/divisor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace hx {
namespace {

TEST(Divisor, AgreesWithDivisionEverywhere) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  std::vector<uint64_t> divisors = {
      1,          2,        3,   7, 64, 1000, 10'000'000, (1ull << 32) + 1, (1ull << 63) - 1,
      1ull << 63, kMax - 1, kMax};
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200; ++i) divisors.push_back(rng() >> (rng() % 64));
  for (const uint64_t d : divisors) {
    if (d == 0) continue;
    const Divisor by(d);
    std::vector<uint64_t> xs = {0, 1, d - 1, d, d + 1, kMax - 1, kMax};
    for (uint64_t k : {2ull, 3ull, 1000ull}) {
      if (d <= kMax / k) xs.insert(xs.end(), {k * d - 1, k * d, k * d + 1});
    }
    for (int j = 0; j < 2000; ++j) xs.push_back(rng() >> (rng() % 64));
    for (const uint64_t x : xs) ASSERT_EQ(by.divide(x), x / d) << x << " / " << d;
  }
}

}  // namespace
}  // namespace hx
