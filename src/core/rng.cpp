// Seeding of the per-component random streams: (seed, component id, purpose) -> xoshiro256** state.
#include "core/rng.h"

namespace hx {
namespace {

constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

}  // namespace

Rng::Rng(uint64_t seed, uint64_t component_id, uint64_t purpose) {
  // Each step is a bijection of the running key for a fixed other input, so for one seed two
  // different ids (or purposes) always give different keys. The distinct additive constants keep
  // (seed, id, purpose) from being interchangeable, e.g. (1, 2, p) vs (2, 1, p).
  uint64_t key = mix64(seed + kGolden);
  key = mix64(key ^ mix64(component_id + 2 * kGolden));
  key = mix64(key ^ mix64(purpose + 3 * kGolden));
  // The state is four consecutive splitmix64 outputs from the key. Their inputs differ, and
  // mix64 is a bijection, so at most one word can be zero: the all-zero state xoshiro forbids
  // cannot occur.
  for (uint64_t& word : s_) {
    key += kGolden;
    word = mix64(key);
  }
}

}  // namespace hx
