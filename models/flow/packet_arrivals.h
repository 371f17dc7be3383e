// When a message's packets arrive at flow level. A flow's bytes leave its sender over the time
// from its entry into the fabric until its last byte has left (`spread`); read at a constant
// rate, the tail of packet i of n leaves after floor(i * spread / n) and arrives one path latency
// later, so packet n arrives with the message. The packet level's statistics (latency of each
// packet, deliveries per time bin, the histogram) are counted on these times.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "core/units.h"

namespace hx::flow {

class PacketArrivals {
 public:
  __extension__ using U128 = unsigned __int128;  // __extension__: -Wpedantic accepts it

  /// n packets, the last arriving at `last`, spread over `spread` (>= 0) before it.
  PacketArrivals(SimTime last, SimTime spread, uint64_t n)
      : last_(last), spread_(static_cast<uint64_t>(spread.count_ps())), n_(n) {}

  uint64_t size() const { return n_; }

  /// Arrival of packet i, 1 <= i <= n.
  SimTime at(uint64_t i) const { return last_ - SimTime::ps(static_cast<int64_t>(lag(i))); }

  /// How many packets arrive before t.
  uint64_t before(SimTime t) const {
    if (t > last_) return n_;
    // at(i) < t  <=>  lag(i) > last - t =: d  <=>  floor(i s / n) < s - d  <=>  i s < (s - d) n.
    const auto d = static_cast<uint64_t>((last_ - t).count_ps());
    if (d >= spread_) return 0;
    return ceil_mul_div(spread_ - d, n_, spread_) - 1;  // the i with i s < (s - d) n
  }

  /// The sum over packets first..first + count - 1 of (arrival - t), in ps; t is no later than
  /// the first packet's entry (last - spread). 128 bits: a message of 10^9 packets that took
  /// seconds outgrows 64.
  U128 sum_since(SimTime t, uint64_t first, uint64_t count) const {
    // (arrival - t) = (last - spread - t) + floor(i s / n).
    const auto entry = static_cast<uint64_t>((last_ - t).count_ps()) - spread_;
    const U128 floors =
        first == 1 && count == n_ ? all_floors() : floor_sum(first + count) - floor_sum(first);
    return U128{count} * entry + floors;
  }

  /// At most this many runs per message in for_each_bin (plus one).
  static constexpr uint64_t kMaxRuns = 8;

  /// Calls f(first arrival, first packet, count) for each run of packets that `end_of(t)`, the
  /// end of the bin holding time t (later than t; SimTime::infinity() for an open last bin),
  /// puts in one bin: the bin of the run's first packet. A run lasts at least 1/kMaxRuns of the
  /// spread, so a message whose spread covers more than kMaxRuns bins costs kMaxRuns steps, not
  /// one per bin (a 100 MB message spread over 1 ms against 1 ns histogram bins), and its
  /// packets count in the bins of their runs' first packets.
  template <typename EndOf, typename F>
  void for_each_bin(EndOf end_of, F f) const {
    const SimTime shortest = SimTime::ps(static_cast<int64_t>((spread_ + kMaxRuns - 1) / kMaxRuns));
    for (uint64_t i = 1; i <= n_;) {
      const SimTime t = at(i);
      const uint64_t through = before(std::max(end_of(t), t + shortest));
      f(t, i, through - i + 1);
      i = through + 1;
    }
  }

 private:
  // How long before the last packet packet i arrives: s - floor(i s / n).
  uint64_t lag(uint64_t i) const { return spread_ - mul_div(i, spread_, n_); }

  // floor(a b / c) and ceil(a b / c), in 64 bits where a b fits (a 128-bit division is a call).
  static uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c) {
    uint64_t p = 0;
    if (!__builtin_mul_overflow(a, b, &p)) return p / c;
    return static_cast<uint64_t>(static_cast<U128>(a) * b / c);
  }
  static uint64_t ceil_mul_div(uint64_t a, uint64_t b, uint64_t c) {
    uint64_t p = 0;
    if (!__builtin_mul_overflow(a, b, &p)) return p / c + (p % c != 0 ? 1 : 0);
    return static_cast<uint64_t>((static_cast<U128>(a) * b + c - 1) / c);
  }

  // The sum of floor(i s / n) for i = 1..n: ((s - 1)(n - 1) + gcd(s, n) - 1) / 2 + s.
  U128 all_floors() const {
    if (spread_ == 0) return 0;
    return (static_cast<U128>(spread_ - 1) * (n_ - 1) + std::gcd(spread_, n_) - 1) / 2 + spread_;
  }

  // The sum of floor(i s / n) for i = 0..m-1, by the Euclid-like reduction of floor sums: take
  // out whole multiples of n, then count the lattice points under the line the other way round.
  U128 floor_sum(uint64_t m) const {
    U128 count = m, step = spread_, offset = 0, div = n_, sum = 0;
    while (count > 0 && div > 0) {
      if (step >= div) {
        sum += count * (count - 1) / 2 * (step / div);
        step %= div;
      }
      if (offset >= div) {
        sum += count * (offset / div);
        offset %= div;
      }
      const U128 top = step * count + offset;
      if (top < div) break;
      count = top / div;
      offset = top % div;
      const U128 old_div = div;
      div = step;
      step = old_div;
    }
    return sum;
  }

  SimTime last_;
  uint64_t spread_;
  uint64_t n_;
};

}  // namespace hx::flow
