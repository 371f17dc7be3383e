// The random permutation pattern: a keyed Feistel network over [0, 2^bits) with bits =
// ceil(log2(n)), restricted to [0, n) by cycle-walking (apply the network again while the value
// is out of range; the walk ends because x itself lies on its cycle). The network alternates
// the split of the bits between its halves, so it works for odd bit counts without doubling the
// domain.
#include "models/traffic/permutation.h"

#include <bit>

#include "core/rng.h"

namespace hx::net {
namespace {

uint64_t low_mask(uint32_t bits) { return (uint64_t{1} << bits) - 1; }  // bits <= 32

class PermutationPattern final : public TrafficPattern {
 public:
  PermutationPattern(uint32_t n, uint64_t seed) : perm_(n, seed) {}

  bool sends(uint32_t src) const override { return perm_(src) != src; }
  uint32_t destination(uint32_t src, Rng& /*rng*/) const override { return perm_(src); }

 private:
  RandomPermutation perm_;
};

}  // namespace

RandomPermutation::RandomPermutation(uint32_t n, uint64_t seed)
    : n_(n), bits_(n <= 1 ? 0 : static_cast<uint32_t>(std::bit_width(n - 1))) {
  // Round keys: a splitmix64 sequence from the seed, tagged so that this stream differs from
  // any other use of the same seed.
  uint64_t state = seed ^ 0x7065726d75746174ULL;  // "permutat"
  for (auto& key : keys_) {
    state += 0x9e3779b97f4a7c15ULL;
    key = mix64(state);
  }
}

uint64_t RandomPermutation::feistel(uint64_t x) const {
  // x = (hi, lo) with `lo_bits` low bits. A round maps it to (lo, hi ^ F(lo)): the old low half
  // moves up and the new low half has the old high half's width, so the split alternates
  // between floor(bits/2) and ceil(bits/2). Every round is invertible, hence so is the network.
  uint32_t lo_bits = bits_ / 2;
  for (const uint64_t key : keys_) {
    const uint32_t hi_bits = bits_ - lo_bits;
    const uint64_t lo = x & low_mask(lo_bits);
    const uint64_t hi = x >> lo_bits;
    x = (lo << hi_bits) | (hi ^ (mix64(key ^ lo) & low_mask(hi_bits)));
    lo_bits = hi_bits;
  }
  return x;
}

uint32_t RandomPermutation::operator()(uint32_t x) const {
  if (bits_ == 0) return x;
  uint64_t y = feistel(x);
  while (y >= n_) y = feistel(y);
  return static_cast<uint32_t>(y);
}

std::unique_ptr<TrafficPattern> make_permutation_pattern(uint32_t num_endpoints, uint64_t seed) {
  return std::make_unique<PermutationPattern>(num_endpoints, seed);
}

}  // namespace hx::net
