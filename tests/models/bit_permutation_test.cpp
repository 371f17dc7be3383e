// The bit-permutation patterns under traffic.bit_fit: against reference maps written bit by bit
// from Dally & Towles' definitions; "general" a permutation for every count it accepts and the
// exact pattern on powers of two; "truncate" the switch-less Dragonfly paper's simulator's
// reading; the old refusals unchanged under the default "exact".
#include "models/traffic/bit_permutation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/input_error.h"
#include "support/ring_topology.h"

namespace hx::net {
namespace {

constexpr BitOp kOps[] = {BitOp::kComplement, BitOp::kReverse, BitOp::kShuffle, BitOp::kTranspose};

const char* name_of(BitOp op) {
  switch (op) {
    case BitOp::kComplement:
      return "bit_complement";
    case BitOp::kReverse:
      return "bit_reverse";
    case BitOp::kShuffle:
      return "bit_shuffle";
    case BitOp::kTranspose:
      return "transpose";
  }
  return "";
}

/// Where each of [0, n) sends under `op` and `fit` (itself when it does not send).
std::vector<uint32_t> images(BitOp op, uint32_t n, const std::string& fit) {
  const auto p = make_bit_pattern(op, n, fit, name_of(op), "test count");
  Rng rng(1, 0, 0);
  std::vector<uint32_t> out(n);
  for (uint32_t x = 0; x < n; ++x) out[x] = p->sends(x) ? p->destination(x, rng) : x;
  return out;
}

bool is_permutation(const std::vector<uint32_t>& map) {
  std::vector<uint32_t> sorted = map;
  std::sort(sorted.begin(), sorted.end());
  for (uint32_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] != i) return false;
  }
  return true;
}

/// Dally & Towles, bit by bit on a b-bit address: d_i = ~s_i, s_(b-1-i), s_((i-1) mod b),
/// s_((i + floor(b/2)) mod b).
uint32_t reference(BitOp op, uint32_t s, uint32_t b) {
  uint32_t d = 0;
  for (uint32_t i = 0; i < b; ++i) {
    uint32_t from = i;
    if (op == BitOp::kReverse) from = b - 1 - i;
    if (op == BitOp::kShuffle) from = (i + b - 1) % b;
    if (op == BitOp::kTranspose) from = (i + b / 2) % b;
    uint32_t bit = (s >> from) & 1u;
    if (op == BitOp::kComplement) bit ^= 1u;
    d |= bit << i;
  }
  return d;
}

bool is_prime(uint32_t n) {
  if (n < 2) return false;
  for (uint32_t d = 2; d * d <= n; ++d) {
    if (n % d == 0) return false;
  }
  return true;
}

TEST(BitFit, EveryFitIsTheBitPatternOnPowersOfTwo) {
  for (uint32_t b = 1; b <= 12; ++b) {
    const uint32_t n = 1u << b;
    for (const BitOp op : kOps) {
      std::vector<uint32_t> want(n);
      for (uint32_t x = 0; x < n; ++x) want[x] = reference(op, x, b);
      const bool four_k = b % 2 == 0;
      if (op != BitOp::kTranspose || four_k) {
        EXPECT_EQ(images(op, n, "exact"), want) << name_of(op) << " n " << n;
      }
      // The odd-bit transpose, refused by "exact", is d_i = s_((i + floor(b/2)) mod b); on
      // 2 endpoints (prime) it is the identity, which "general" refuses as "exact" does.
      if (op != BitOp::kTranspose || b > 1) {
        EXPECT_EQ(images(op, n, "general"), want) << name_of(op) << " n " << n;
      }
      EXPECT_EQ(images(op, n, "truncate"), want) << name_of(op) << " n " << n;
      EXPECT_TRUE(is_permutation(want)) << name_of(op) << " n " << n;
    }
  }
}

TEST(BitFit, TransposeOfAWGroupOf128) {
  // 7 bits: a 16 x 8 matrix by rows, (r, c) -> (c, r); CNSim's d_i = s_((i + 3) mod 7).
  const auto map = images(BitOp::kTranspose, 128, "general");
  EXPECT_EQ(map[1], 16u);  // r 0, c 1 -> 1 * 16 + 0
  EXPECT_EQ(map[8], 1u);   // r 1, c 0
  EXPECT_EQ(map[8 * 5 + 3], 3u * 16 + 5);
  uint32_t fixed = 0;
  for (uint32_t x = 0; x < 128; ++x) fixed += map[x] == x ? 1 : 0;
  EXPECT_EQ(fixed, 2u);  // only 0 and 127 stay: gcd(7, 3) = 1
}

TEST(BitFit, GeneralIsAPermutationOfEveryCountItAccepts) {
  std::vector<uint32_t> counts;
  for (uint32_t n = 2; n <= 600; ++n) counts.push_back(n);
  for (const uint32_t n : {1312u, 5248u, 37120u, 279040u}) counts.push_back(n);
  for (const uint32_t n : counts) {
    for (const BitOp op : kOps) {
      const std::string error = hx::testing::error_of(
          [&] { make_bit_pattern(op, n, "general", name_of(op), "test count"); });
      // Refused exactly where the generalisation is no permutation or the identity.
      const bool refused = (op == BitOp::kReverse || op == BitOp::kShuffle)
                               ? n % 2 != 0
                               : op == BitOp::kTranspose && is_prime(n);
      ASSERT_EQ(!error.empty(), refused) << name_of(op) << " n " << n << ": " << error;
      if (refused) continue;
      const auto map = images(op, n, "general");
      ASSERT_TRUE(is_permutation(map)) << name_of(op) << " n " << n;
      if (n >= 4) {  // somebody sends (on 2 endpoints reverse and shuffle are the identity)
        uint32_t fixed = 0;
        for (uint32_t x = 0; x < n; ++x) fixed += map[x] == x ? 1 : 0;
        EXPECT_LT(fixed, n) << name_of(op) << " n " << n;
      }
    }
  }
}

TEST(BitFit, DigitReversalOfTheRadix16System) {
  // 5,248 cores = 41 W-groups x 2^7: x = q 128 + c goes to rev7(c) 41 + q.
  const auto map = images(BitOp::kReverse, 5248, "general");
  EXPECT_EQ(map[1], 64u * 41);                // c = 0000001 -> 1000000
  EXPECT_EQ(map[128], 1u);                    // q = 1, c = 0
  EXPECT_EQ(map[128 * 40 + 127], 5247u);      // the last stays
  EXPECT_EQ(map[128 * 3 + 6], 48u * 41 + 3);  // 0000110 -> 0110000
  // Each W-group sends 3 or 4 cores' traffic to every W-group, as bit-reverse on a power-of-two
  // system of such groups spreads it evenly.
  for (uint32_t q = 0; q < 41; ++q) {
    std::vector<uint32_t> per_group(41, 0);
    for (uint32_t c = 0; c < 128; ++c) ++per_group[map[q * 128 + c] / 128];
    EXPECT_EQ(*std::min_element(per_group.begin(), per_group.end()), 3u) << q;
    EXPECT_EQ(*std::max_element(per_group.begin(), per_group.end()), 4u) << q;
  }
}

TEST(BitFit, GeneralComplementAndShuffleValues) {
  const auto complement = images(BitOp::kComplement, 10, "general");
  EXPECT_EQ(complement, (std::vector<uint32_t>{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  // The perfect shuffle of 10 cards: x -> 2x mod 9, 9 stays.
  const auto shuffle = images(BitOp::kShuffle, 10, "general");
  EXPECT_EQ(shuffle, (std::vector<uint32_t>{0, 2, 4, 6, 8, 1, 3, 5, 7, 9}));
  // 12 = 4 x 3: (r, c) -> (c, r) with r < 4 rows of 3.
  const auto transpose = images(BitOp::kTranspose, 12, "general");
  EXPECT_EQ(transpose, (std::vector<uint32_t>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
}

TEST(BitFit, TruncateIsThePapersSimulator) {
  // CNSim: the low floor(log2 5248) = 12 bits take the pattern; 4096 + x sends where x does and
  // nobody sends to [4096, 5248).
  for (const BitOp op : kOps) {
    const auto map = images(op, 5248, "truncate");
    std::vector<uint32_t> received(5248, 0);
    for (uint32_t x = 0; x < 5248; ++x) {
      ASSERT_EQ(map[x], reference(op, x % 4096, 12)) << name_of(op) << " " << x;
      if (map[x] != x) ++received[map[x]];
    }
    EXPECT_FALSE(is_permutation(map)) << name_of(op);
    EXPECT_EQ(std::count(received.begin() + 4096, received.end(), 0u), 1152) << name_of(op);
  }
}

TEST(BitFit, TheDefaultRefusesWhatItRefusedAndNamesTheAlternatives) {
  for (const BitOp op : kOps) {
    const std::string msg = hx::testing::error_of(
        [&] { make_bit_pattern(op, 48, "exact", name_of(op), "the topology has 48 endpoints"); });
    EXPECT_CONTAINS(msg, std::string("traffic.pattern = '") + name_of(op) + "'");
    EXPECT_CONTAINS(msg, "power-of-two");
    EXPECT_CONTAINS(msg, "48 endpoints");
    EXPECT_CONTAINS(msg, "traffic.bit_fit = 'general'");
  }
  EXPECT_CONTAINS(hx::testing::error_of([] {
                    make_bit_pattern(BitOp::kTranspose, 128, "exact", "transpose", "block");
                  }),
                  "7 bits");
  EXPECT_CONTAINS(hx::testing::error_of([] {
                    make_bit_pattern(BitOp::kReverse, 41, "general", "bit_reverse", "41");
                  }),
                  "even number of endpoints");
  EXPECT_CONTAINS(hx::testing::error_of([] {
                    make_bit_pattern(BitOp::kTranspose, 41, "general", "transpose", "41");
                  }),
                  "divisor");
  EXPECT_CONTAINS(hx::testing::error_of([] {
                    make_bit_pattern(BitOp::kReverse, 64, "rounded", "bit_reverse", "64");
                  }),
                  "traffic.bit_fit = 'rounded'");
}

TEST(BitFit, ThroughTheFactoryWithBlocksAndTheRngIgnored) {
  // 256 endpoints in two W-groups of 128: transpose inside each.
  const hx::net::testing::RingTopology ring(256);
  PatternParams params;
  params.name = "transpose";
  params.block = 128;
  EXPECT_CONTAINS(hx::testing::error_of([&] { make_pattern(params, ring); }),
                  "traffic.block = 128");
  params.bit_fit = "general";
  const auto p = make_pattern(params, ring);
  Rng a(1, 5, 0);
  Rng b(99, 7, 3);
  for (uint32_t x = 0; x < 256; ++x) {
    ASSERT_EQ(p->sends(x), x % 128 != 0 && x % 128 != 127) << x;
    if (!p->sends(x)) continue;
    EXPECT_EQ(p->destination(x, a), p->destination(x, b)) << x;
  }
  EXPECT_EQ(p->destination(128 + 1, a), 128 + 16u);
  // Powers of two are unchanged through the factory too: every fit gives the exact pattern.
  params.name = "bit_reverse";
  params.block = 0;
  std::vector<std::vector<uint32_t>> maps;
  for (const std::string& fit : bit_fit_names()) {
    params.bit_fit = fit;
    const auto q = make_pattern(params, ring);
    std::vector<uint32_t> map(256);
    for (uint32_t x = 0; x < 256; ++x) map[x] = q->sends(x) ? q->destination(x, a) : x;
    maps.push_back(map);
  }
  EXPECT_EQ(maps[1], maps[0]);
  EXPECT_EQ(maps[2], maps[0]);
}

}  // namespace
}  // namespace hx::net
