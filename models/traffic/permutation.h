// The random permutation traffic pattern's bijection: a keyed pseudo-random permutation of
// [0, n) in O(1) memory (a Feistel network over the next power of two, with cycle-walking), so
// a 200K-endpoint permutation costs a few words instead of a table.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "models/traffic/pattern.h"

namespace hx::net {

/// A fixed pseudo-random bijection of [0, n), chosen by `seed`. Evaluating it costs a few
/// hashes (expected fewer than two passes of the network, since 2^bits < 2n).
class RandomPermutation {
 public:
  RandomPermutation(uint32_t n, uint64_t seed);

  uint32_t size() const { return n_; }
  /// The image of x; precondition x < size().
  uint32_t operator()(uint32_t x) const;

 private:
  static constexpr int kRounds = 6;
  /// One pass of the (unbalanced) Feistel network: a bijection of [0, 2^bits_).
  uint64_t feistel(uint64_t x) const;

  uint32_t n_;
  uint32_t bits_;  // ceil(log2(n)); 0 when n <= 1
  std::array<uint64_t, kRounds> keys_{};
};

/// The "permutation" pattern: src sends to perm(src) and not at all when that is src.
std::unique_ptr<TrafficPattern> make_permutation_pattern(uint32_t num_endpoints, uint64_t seed);

}  // namespace hx::net
