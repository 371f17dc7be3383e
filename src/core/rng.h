// Per-component random streams (DESIGN §3.3). A stream is keyed by (run seed, global component id,
// purpose) and never by rank, so a component draws the same numbers on any partition.
// The generator is xoshiro256** seeded through splitmix64; the distributions are written here
// rather than taken from <random>, whose distributions differ between standard libraries.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

namespace hx {

/// splitmix64's output function: a bijection on 64-bit words with good avalanche, for hashes
/// of ids that must not depend on the partition.
inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class Rng {
 public:
  Rng() = default;
  Rng(uint64_t seed, uint64_t component_id, uint64_t purpose);

  uint64_t next_u64() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  /// Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; bias below 2^-64 * n).
  uint64_t below(uint64_t n) {
    __extension__ using U128 = unsigned __int128;  // GCC/Clang builtin; -Wpedantic knows
    return static_cast<uint64_t>((static_cast<U128>(next_u64()) * n) >> 64);
  }
  bool bernoulli(double p) { return uniform() < p; }
  /// Exponential with the given mean (inverse transform of 1 - U, so never log(0)).
  double exponential(double mean) { return -mean * std::log1p(-uniform()); }

  bool operator==(const Rng&) const = default;

  template <class Archive>
  void serialize(Archive& ar, unsigned /*version*/) { ar & s_; }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<uint64_t, 4> s_{};
};

/// Well-known purposes, so two streams of one component never coincide by accident.
enum class RngPurpose : uint64_t { kModel = 1, kTraffic = 2, kRouting = 3, kFaults = 4 };

}  // namespace hx
