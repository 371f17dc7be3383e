// The bins of /latency_histogram. Latencies under `linear` cycles fall in bins one cycle wide,
// as a packet-level run needs to see its latencies cycle by cycle. Beyond, each octave
// [B 2^o, B 2^(o+1)) of B = linear cycles (at least 64 ps) is split into kPerOctave bins of equal
// width, up to the largest latency a SimTime holds: an LLM iteration's milliseconds-long latencies
// at flow level, or a run far beyond saturation, keep a resolution of 1/kPerOctave of their value
// (1.6%) in 64 bins per octave, not one open-ended bin. The edges are whole picoseconds: the
// bin of a latency x in octave o is floor((x - B 2^o) kPerOctave / (B 2^o)), so a bin starts at
// the ceiling of B 2^o (kPerOctave + s) / kPerOctave.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>

#include "core/divisor.h"
#include "core/units.h"

namespace hx::net {

class LatencyBins {
 public:
  static constexpr uint64_t kPerOctave = 64;

  /// `linear` (>= 1) one-cycle bins of `cycle` (> 0), then the octaves. The one-cycle bins
  /// reach at least kPerOctave ps, so that no bin of an octave is narrower than 1 ps.
  LatencyBins(SimTime cycle, uint64_t linear)
      : cycle_(static_cast<uint64_t>(cycle.count_ps())),
        linear_(std::max(linear, (kPerOctave + cycle_.divisor() - 1) / cycle_.divisor())),
        base_(linear_end(cycle_.divisor(), linear_)),
        size_(of(SimTime::ps(static_cast<int64_t>(kMax))) + 1) {}

  /// Rows of the histogram: up to the bin of the largest SimTime.
  uint64_t size() const { return size_; }

  /// The bin of a latency (>= 0). Without a division: a flow-level run places each message's
  /// packets in several of these bins.
  uint64_t of(SimTime latency) const {
    const auto x = static_cast<uint64_t>(latency.count_ps());
    const uint64_t base = base_.divisor();
    if (x < base) return cycle_.divide(x);
    auto octave = static_cast<uint64_t>(std::bit_width(x) - std::bit_width(base));
    if ((base << octave) > x) --octave;
    const uint64_t from = base << octave;
    // (x - from) kPerOctave / from, as ((x - from) kPerOctave / 2^octave) / base_ (floors of
    // floors are exact), < kPerOctave. The product outgrows 64 bits only for latencies past
    // 2^57 ps (40 hours).
    const uint64_t above = x - from;
    const uint64_t sub =
        above >> 57 == 0
            ? base_.divide((above * kPerOctave) >> octave)
            : static_cast<uint64_t>(((U128{above} * kPerOctave) >> octave) / base_.divisor());
    return linear_ + octave * kPerOctave + sub;
  }

  /// Where bin b starts.
  SimTime lower(uint64_t b) const {
    if (b < linear_) return SimTime::ps(static_cast<int64_t>(b * cycle_.divisor()));
    const uint64_t octave = (b - linear_) / kPerOctave;
    const uint64_t s = (b - linear_) % kPerOctave;
    const U128 from = U128{base_.divisor()} << octave;
    const U128 edge = (from * (kPerOctave + s) + kPerOctave - 1) / kPerOctave;
    return SimTime::ps(static_cast<int64_t>(edge));
  }

  /// Where bin b ends: infinity for the last bin, which reaches the largest SimTime.
  SimTime upper(uint64_t b) const { return b + 1 == size() ? SimTime::infinity() : lower(b + 1); }

 private:
  __extension__ using U128 = unsigned __int128;  // __extension__: -Wpedantic accepts it
  static constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

  // Where the octaves begin: past the largest SimTime (no octaves) when the one-cycle bins
  // reach that far.
  static uint64_t linear_end(uint64_t cycle, uint64_t linear) {
    uint64_t end = 0;
    return __builtin_mul_overflow(cycle, linear, &end) || end > kMax ? kMax + 1 : end;
  }

  Divisor cycle_;  // ps
  uint64_t linear_;
  Divisor base_;  // ps where the octaves begin
  uint64_t size_;
};

}  // namespace hx::net
