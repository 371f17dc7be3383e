// The pending-event set of one rank. Simulated time never runs backwards, so it is a radix heap
// (Ahuja et al., 1990) over integer picosecond times: an event waits in the bucket named by the
// highest bit in which its time differs from the last time popped, and moves to lower buckets as
// time advances. Pushes append to a bucket and pops stream through short vectors, instead of
// walking a large heap that does not fit in cache (docs/PERFORMANCE.md has the measurements).
// Events at exactly the current time are ordered by destination, source and source sequence (the
// rest of the EventKey total order). Network models put thousands of events on one cycle
// boundary, so these are sorted once when time advances (`now_sorted_`, popped from the back),
// and only the few pushed at the current time afterwards go through a small heap (`now_late_`).
// Event bodies live in a pool of reused slots; buckets hold compact (time, ids, seq, slot) entries.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/event.h"

namespace hx {

class EventQueue {
 public:
  bool empty() const { return size_ == 0; }
  /// Events without Event::kBackground: while none remain, a run has nothing left to do.
  std::size_t foreground() const { return foreground_; }
  std::size_t size() const { return size_; }
  /// Time of the earliest event; SimTime::infinity() when empty.
  SimTime next_time() const {
    return SimTime::ps(static_cast<int64_t>(now_empty() ? pending_min_ : last_));
  }

  /// Precondition: e's time is not earlier than the last event popped.
  void push(const Event& e);
  /// Removes the earliest event and copies it into `out`. Precondition: !empty().
  void pop(Event& out);

  /// Rank-local index of the next event's destination when it is already known without work
  /// (UINT32_MAX otherwise), and a prefetch of its body: the engine uses both to start the
  /// next event's cache misses while it handles the current one.
  uint32_t next_local() const {
    if (now_empty()) return UINT32_MAX;
    const Entry& next = now_min();
    __builtin_prefetch(&pool_[next.slot]);
    return next.dst_local;
  }

  /// Every pending event, in no particular order (for checkpoints and the deadlock report).
  template <class F>
  void for_each(F&& f) const {
    for (const Entry& en : now_sorted_) f(pool_[en.slot]);
    for (const Entry& en : now_late_) f(pool_[en.slot]);
    for (const auto& bucket : buckets_) {
      for (const Entry& en : bucket) f(pool_[en.slot]);
    }
  }
  void clear();

 private:
  struct Entry {
    uint64_t time;
    uint64_t ids;  // dst << 32 | src: one integer compare orders by destination, then source
    uint64_t seq;  // the source's sequence number: ties never touch the pool
    uint32_t slot;
    uint32_t dst_local;  // for prefetching; fills what would be padding
  };
  // Order at one time: (ids, seq) ascending.
  static bool before(const Entry& a, const Entry& b) {
    return a.ids != b.ids ? a.ids < b.ids : a.seq < b.seq;
  }
  struct Later {  // a function object, so sort and the heap inline the comparison
    bool operator()(const Entry& a, const Entry& b) const { return before(b, a); }
  };
  bool now_empty() const { return now_sorted_.empty() && now_late_.empty(); }
  // The earliest entry at the current time. Precondition: !now_empty().
  const Entry& now_min() const {
    if (now_late_.empty()) return now_sorted_.back();
    if (now_sorted_.empty()) return now_late_.front();
    return before(now_late_.front(), now_sorted_.back()) ? now_late_.front() : now_sorted_.back();
  }
  static constexpr uint64_t kNone = static_cast<uint64_t>(INT64_MAX);

  void place(const Entry& en);  // into now_late_ or buckets_[bit index of time ^ last_]
  void refill();  // advances last_ to pending_min_ and moves that bucket's entries down
  uint64_t earliest_in_buckets() const;

  uint64_t last_ = 0;             // time of bucket 0; no pending event is earlier
  uint64_t pending_min_ = kNone;  // while nothing is at last_: the earliest pending time
  std::size_t size_ = 0;
  std::size_t foreground_ = 0;
  std::vector<Entry> now_sorted_;  // at time last_, sorted descending: the earliest is back()
  std::vector<Entry> now_late_;    // at time last_, pushed after the sort: a min-heap
  std::array<std::vector<Entry>, 64> buckets_;  // buckets_[b]: highest differing bit is b
  std::vector<Event> pool_;
  std::vector<uint32_t> free_slots_;
};

}  // namespace hx
