// When a message's packets arrive at flow level. A flow's bytes leave its sender over the time
// from its entry into the fabric until its last byte has left (`spread`, s); read at a constant
// rate, the n packets' tails leave at even gaps, and each arrives one path latency later, so
// packet n arrives with the message. The gaps are whole picoseconds: with q = s / n and
// r = s % n, the first r gaps are q + 1 and the others q, so packet i's tail leaves after
// offset(i) = i q + min(i, r). The packet level's statistics (latency of each packet, deliveries
// per time bin, the histogram) are counted on these times, each in O(1).
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/units.h"

namespace hx::flow {

class PacketArrivals {
 public:
  __extension__ using U128 = unsigned __int128;  // __extension__: -Wpedantic accepts it

  /// n packets (none for an empty message), the last arriving at `last`, spread over `spread`
  /// (>= 0) before it.
  PacketArrivals(SimTime last, SimTime spread, uint64_t n)
      : start_(last - spread),
        n_(n),
        gap_(n == 0 ? 0 : static_cast<uint64_t>(spread.count_ps()) / n),
        longer_(n == 0 ? 0 : static_cast<uint64_t>(spread.count_ps()) % n) {}

  /// Arrival of packet i, 1 <= i <= n.
  SimTime at(uint64_t i) const { return start_ + SimTime::ps(static_cast<int64_t>(offset(i))); }

  /// How many packets arrive before t.
  uint64_t before(SimTime t) const {
    if (t <= start_) return 0;
    if (t.is_infinite()) return n_;
    // The largest i with offset(i) <= d: among the longer gaps, then among the others.
    const auto d = static_cast<uint64_t>((t - start_).count_ps()) - 1;
    if (d < longer_ * (gap_ + 1)) return d / (gap_ + 1);  // offset(r) = r (q + 1) <= 2 spread
    if (gap_ == 0) return n_;
    return std::min(n_, (d - longer_) / gap_);
  }

  /// The sum over packets first..first + count - 1 of (arrival - t), in ps; t is no later than
  /// the first packet's entry (last - spread). 128 bits: a message of 10^9 packets that took
  /// seconds outgrows 64.
  U128 sum_since(SimTime t, uint64_t first, uint64_t count) const {
    const auto entry = static_cast<uint64_t>((start_ - t).count_ps());
    return U128{count} * entry + offsets_through(first + count - 1) - offsets_through(first - 1);
  }

  /// At most this many runs per message in for_each_bin (plus one) and for_each_run.
  static constexpr uint64_t kMaxRuns = 8;

  /// Calls f(first packet, count) for each of at most kMaxRuns runs of ceil(n / kMaxRuns)
  /// packets (the last run may be shorter), in order. Each run's bounds are known without the
  /// previous run's, so the runs cost no division: the latency histogram places every
  /// message's packets so.
  template <typename F>
  void for_each_run(F f) const {
    const uint64_t per_run = (n_ + kMaxRuns - 1) / kMaxRuns;
    for (uint64_t first = 1; first <= n_; first += per_run)
      f(first, std::min(per_run, n_ - first + 1));
  }

  /// Calls f(first arrival, first packet, count) for each run of packets that `end_of(t)`, the
  /// end of the bin holding time t (later than t; SimTime::infinity() for an open last bin),
  /// puts in one bin: the bin of the run's first packet. A run lasts at least 1/kMaxRuns of the
  /// spread, so a message whose spread covers many bins costs at most kMaxRuns + 1 steps, not
  /// one per bin (a 100 MB message spread over 1 ms against 1 ns histogram bins), and its
  /// packets count in the bins of their runs' first packets.
  template <typename EndOf, typename F>
  void for_each_bin(EndOf end_of, F f) const {
    const uint64_t spread = gap_ * n_ + longer_;
    const SimTime shortest = SimTime::ps(static_cast<int64_t>((spread + kMaxRuns - 1) / kMaxRuns));
    for (uint64_t i = 1; i <= n_;) {
      const SimTime t = at(i);
      const uint64_t through = before(std::max(end_of(t), t + shortest));
      f(t, i, through - i + 1);
      i = through + 1;
    }
  }

 private:
  uint64_t offset(uint64_t i) const { return i * gap_ + std::min(i, longer_); }

  // The sum of offset(i) for i = 1..m.
  U128 offsets_through(uint64_t m) const {
    const U128 triangle = U128{m} * (m + 1) / 2;
    const uint64_t k = std::min(m, longer_);  // the longer gaps' extra picoseconds: min(i, r)
    return triangle * gap_ + U128{k} * (k + 1) / 2 + U128{m - k} * longer_;
  }

  SimTime start_;  // when the first byte left, plus the path's latency
  uint64_t n_;
  uint64_t gap_;     // q
  uint64_t longer_;  // r: how many gaps are q + 1
};

}  // namespace hx::flow
