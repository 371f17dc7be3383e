// Tests of the Hamiltonian decompositions of K*_k behind RailX's all-to-all rows (§3.1, Lemma
// 3.1, App. A.1): every size a decomposition exists for, the two rails per pair, the sizes that
// have none, the checker on broken inputs, and determinism.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "models/topologies/railx/hamiltonian.h"
#include "support/input_error.h"

namespace hx::net::railx {
namespace {

using hx::testing::error_of;
using Cycles = std::vector<std::vector<uint32_t>>;

std::vector<uint32_t> sizes() {
  std::vector<uint32_t> out;
  for (uint32_t k = 2; k <= 64; ++k) {
    if (k != 4 && k != 6) out.push_back(k);
  }
  for (uint32_t k : {100u, 128u, 129u, 256u}) out.push_back(k);
  return out;
}

// Lemma 3.1: the rail of arc A -> B differs from the rail of arc B -> A, for every pair.
void expect_two_rails_per_pair(uint32_t k, const Cycles& cycles) {
  std::vector<uint32_t> rail(size_t{k} * k, k);
  for (uint32_t r = 0; r < cycles.size(); ++r) {
    for (size_t i = 0; i < k; ++i) rail[size_t{cycles[r][i]} * k + cycles[r][(i + 1) % k]] = r;
  }
  for (uint32_t a = 0; a < k; ++a) {
    for (uint32_t b = a + 1; b < k; ++b) {
      const uint32_t ab = rail[size_t{a} * k + b], ba = rail[size_t{b} * k + a];
      ASSERT_LT(ab, k - 1) << "k=" << k << " " << a << "->" << b;
      ASSERT_LT(ba, k - 1) << "k=" << k << " " << b << "->" << a;
      ASSERT_NE(ab, ba) << "k=" << k << " pair " << a << "," << b;
    }
  }
}

TEST(RailxHamiltonian, DecomposesEveryPossibleSize) {
  for (uint32_t k : sizes()) {
    const Cycles cycles = hamiltonian_decomposition(k);
    std::string why;
    ASSERT_TRUE(is_hamiltonian_decomposition(k, cycles, &why)) << "k=" << k << ": " << why;
    ASSERT_EQ(cycles.size(), k - 1);
    // k = 2 has one rail: its ring carries both links of the only pair.
    if (k >= 3) expect_two_rails_per_pair(k, cycles);
  }
}

TEST(RailxHamiltonian, WaleckiCyclesOfFiveNodes) {
  // App. A.1 with m = 2: paths (0 3 1 2) and (1 0 2 3) closed through vertex 4, both directions.
  const Cycles expected = {{4, 0, 3, 1, 2}, {4, 2, 1, 3, 0}, {4, 1, 0, 2, 3}, {4, 3, 2, 0, 1}};
  EXPECT_EQ(hamiltonian_decomposition(5), expected);
  EXPECT_EQ(hamiltonian_decomposition(2), (Cycles{{0, 1}}));
}

TEST(RailxHamiltonian, SizesWithoutDecompositionThrow) {
  for (uint32_t k : {4u, 6u}) {
    const std::string message = error_of([&] { hamiltonian_decomposition(k); });
    EXPECT_CONTAINS(message, "K*_4 and K*_6 have no Hamiltonian decomposition");
    EXPECT_CONTAINS(message, std::to_string(k) + " nodes");
    EXPECT_CONTAINS(message, "choose another row size");
  }
  for (uint32_t k : {0u, 1u}) {
    EXPECT_CONTAINS(error_of([&] { hamiltonian_decomposition(k); }), "at least 2 nodes");
  }
}

TEST(RailxHamiltonian, CheckerRejectsBrokenInputs) {
  const Cycles good = hamiltonian_decomposition(8);
  std::string why;
  ASSERT_TRUE(is_hamiltonian_decomposition(8, good, &why)) << why;

  Cycles repeated = good;  // cycle 1 becomes a copy of cycle 0: every arc twice
  repeated[1] = repeated[0];
  EXPECT_FALSE(is_hamiltonian_decomposition(8, repeated, &why));
  EXPECT_CONTAINS(why, "repeats arc");

  Cycles swapped = good;  // a permutation still, but two arcs leave cycle 0 and two others enter
  std::swap(swapped[0][1], swapped[0][2]);
  EXPECT_FALSE(is_hamiltonian_decomposition(8, swapped, &why));

  Cycles not_permutation = good;
  not_permutation[2][3] = not_permutation[2][4];
  EXPECT_FALSE(is_hamiltonian_decomposition(8, not_permutation, &why));
  EXPECT_CONTAINS(why, "not a permutation");

  Cycles out_of_range = good;
  out_of_range[2][3] = 8;
  EXPECT_FALSE(is_hamiltonian_decomposition(8, out_of_range, &why));
  EXPECT_CONTAINS(why, "not a permutation");

  Cycles short_cycle = good;
  short_cycle[0].pop_back();
  EXPECT_FALSE(is_hamiltonian_decomposition(8, short_cycle, &why));
  EXPECT_CONTAINS(why, "7 vertices");

  Cycles too_few = good;
  too_few.pop_back();
  EXPECT_FALSE(is_hamiltonian_decomposition(8, too_few, &why));
  EXPECT_CONTAINS(why, "6 cycles, expected 7");
  EXPECT_FALSE(is_hamiltonian_decomposition(9, good, &why));
}

TEST(RailxHamiltonian, Deterministic) {
  for (uint32_t k : {10u, 64u, 65u})
    EXPECT_EQ(hamiltonian_decomposition(k), hamiltonian_decomposition(k));
}

}  // namespace
}  // namespace hx::net::railx
