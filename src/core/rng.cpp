// Seeding of the per-component random streams: (seed, component id, purpose) -> xoshiro256** state.
#include "core/rng.h"

namespace hx {
namespace {

constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

// splitmix64's output function: a bijection on 64-bit words with good avalanche.
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

Rng::Rng(uint64_t seed, uint64_t component_id, uint64_t purpose) {
  // Each step is a bijection of the running key for a fixed other input, so for one seed two
  // different ids (or purposes) always give different keys. The distinct additive constants keep
  // (seed, id, purpose) from being interchangeable, e.g. (1, 2, p) vs (2, 1, p).
  uint64_t key = mix(seed + kGolden);
  key = mix(key ^ mix(component_id + 2 * kGolden));
  key = mix(key ^ mix(purpose + 3 * kGolden));
  // The state is four consecutive splitmix64 outputs from the key. Their inputs differ, and mix is
  // a bijection, so at most one word can be zero: the all-zero state xoshiro forbids cannot occur.
  for (uint64_t& word : s_) {
    key += kGolden;
    word = mix(key);
  }
}

}  // namespace hx
