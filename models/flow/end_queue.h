// The flows' end times, earliest first, for the fabric.
//
// A radix heap (binary digits of the time against `last_`, the time of the last take_due()),
// which uses what the fabric guarantees: no end is set before the present and the present never
// goes back. Each flow has at most one entry, moved or removed in place when its end changes, so
// nothing goes stale. A binary heap of (end, flow) cost a mispredicted branch per level at every
// end: 4% of the flow-level Llama iteration (docs/performance/models.md).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/units.h"

namespace hx::flow {

class EndQueue {
 public:
  /// Flow `slot` ends at `end`, which is not before the last take_due()'s time; its earlier
  /// end, if any, no longer counts.
  void set(uint32_t slot, SimTime end);
  /// Flow `slot` has no end (any more); nothing if it had none.
  void remove(uint32_t slot);
  /// The earliest end; infinity when there is none.
  SimTime earliest();
  /// Removes the flows that end at `now` and appends their slots to `out`, in ascending slot
  /// order. `now` is not after earliest() (no end is ever left behind); a later call's is not
  /// before it.
  void take_due(SimTime now, std::vector<uint32_t>& out);
  std::size_t size() const { return size_; }

 private:
  struct Entry {
    uint64_t time;
    uint32_t slot;
  };
  static constexpr uint32_t kNotQueued = UINT32_MAX;
  static constexpr int kBuckets =
      65;  // 0: at last_; b > 0: highest bit differing from last_ is b - 1
  struct Place {
    uint32_t bucket = kNotQueued, index = 0;
  };

  int bucket_of(uint64_t t) const { return t == last_ ? 0 : 64 - __builtin_clzll(t ^ last_); }
  void insert(uint32_t slot, uint64_t t);
  void erase(uint32_t slot);

  std::array<std::vector<Entry>, kBuckets> buckets_;
  // Per bucket, at most its earliest time; exactly it unless the bucket's bit in loose_ is set
  // (an entry at that time left), when the next earliest() looks.
  std::array<uint64_t, kBuckets> min_{};
  uint64_t occupied_ = 0;  // bit b - 1: bucket b > 0 holds entries
  uint64_t loose_ = 0;     // bit b - 1: min_[b] may be below the bucket's earliest
  uint64_t last_ = 0;
  std::size_t size_ = 0;
  std::vector<Place> place_;  // by slot
};

}  // namespace hx::flow
