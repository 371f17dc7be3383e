// The pending-event set of one rank. Simulated time never runs backwards, so it is a radix heap
// (Ahuja et al., 1990) over integer picosecond times, with 4-bit digits: an event waits in the
// bucket named by the highest digit in which its time differs from the last time popped and by
// its value there, and moves to a lower level as time advances (at most 3 moves for an event a
// few ns ahead; binary digits took up to 11). Pushes append to a bucket and pops stream through
// short vectors, instead of walking a large heap that does not fit in cache
// (docs/performance/engine.md has the measurements).
// Events at exactly the current time are ordered by destination, source and source sequence (the
// rest of the EventKey total order). Network models put thousands of events on one cycle
// boundary, so these are sorted once when time advances (`now_sorted_`, popped from the back),
// and only the few pushed at the current time afterwards go through a small heap (`now_late_`).
// Event bodies live in a pool of reused slots; buckets hold compact (time, ids, seq, slot) entries.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "core/event.h"
#include "core/prefetch.h"

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
  void push(const Event& e) {
    reserve() = e;
    commit();
  }
  /// push() in two steps, so a sender builds the event where it will wait instead of copying
  /// it there: reserve() returns an unused event to fill in, commit() queues it. Nothing else
  /// may touch the queue in between.
  Event& reserve() {
    if (!free_slots_.empty()) {
      reserved_ = free_slots_.back();
      free_slots_.pop_back();
    } else {
      reserved_ = static_cast<uint32_t>(pool_.size());
      pool_.emplace_back();
    }
    return pool_[reserved_];
  }
  void commit() {
    const Event& e = pool_[reserved_];
    const auto time = static_cast<uint64_t>(e.key.time.count_ps());
    if (time < last_) reject(time);
    const Entry en{time, static_cast<uint64_t>(e.key.dst) << 32 | e.key.src, e.key.seq, reserved_,
                   e.dst_local};
    if (time == last_) {
      push_late(en);
    } else {
      if (now_empty()) pending_min_ = std::min(pending_min_, time);
      place_in_bucket(en);
    }
    ++size_;
    if (!(e.kind & Event::kBackground)) ++foreground_;
  }
  /// Removes the earliest event and copies it into `out`. Precondition: !empty().
  /// Inline: it runs once per event, and only refill() and the late heap need more code.
  void pop(Event& out) {
    if (now_empty()) refill();
    uint32_t slot;
    if (!now_late_.empty() &&
        (now_sorted_.empty() || before(now_late_.front(), now_sorted_.back()))) {
      slot = pop_late();
    } else {
      slot = now_sorted_.back().slot;
      now_sorted_.pop_back();
    }
    out = pool_[slot];
    free_slots_.push_back(slot);
    --size_;
    if (!(out.kind & Event::kBackground)) --foreground_;
    // Nothing left at last_: cache the earliest pending time for next_time() without advancing
    // last_, because the caller may still schedule events at the time just popped.
    if (now_empty()) pending_min_ = level_mask_ ? bucket_min_[first_bucket()] : kNone;
  }

  /// Rank-local index of the destination of the event `ahead` places after the next one, when
  /// it is already known without work (UINT32_MAX otherwise), and a prefetch of its body: the
  /// engine uses both to start later events' cache misses while it handles the current one.
  uint32_t prefetch_ahead(std::size_t ahead) const {
    if (now_sorted_.size() <= ahead) return UINT32_MAX;
    const Entry& en = now_sorted_[now_sorted_.size() - 1 - ahead];
    prefetch_read(&pool_[en.slot]);
    prefetch_read(reinterpret_cast<const char*>(&pool_[en.slot]) + kCacheLine);
    return en.dst_local;
  }

  /// The event `ahead` places after the next one when it is already known without work (and
  /// nullptr otherwise).
  const Event* peek_ahead(std::size_t ahead) const {
    if (now_sorted_.size() <= ahead) return nullptr;
    return &pool_[now_sorted_[now_sorted_.size() - 1 - ahead].slot];
  }

  /// True when the next event is at `time` (the current instant) and for the component with
  /// rank-local index `dst_local`: the engine's test for the end of a component's instant.
  bool next_is(uint64_t time, uint32_t dst_local) const {
    if (time != last_ || now_empty()) return false;
    const bool late = !now_late_.empty() &&
                      (now_sorted_.empty() || before(now_late_.front(), now_sorted_.back()));
    return (late ? now_late_.front() : now_sorted_.back()).dst_local == dst_local;
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

  /// Declares that every event's dst_local lies in [0, n) and orders as its destination does
  /// (a rank numbers its components in id order): then an instant with many events is sorted
  /// by a counting pass over dst_local (without, by std::sort).
  void set_destinations(uint32_t n) { destinations_ = n; }

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
  static constexpr uint64_t kNone = static_cast<uint64_t>(INT64_MAX);
  static constexpr int kDigitBits = 4;
  static constexpr int kDigitValues = 1 << kDigitBits;
  static constexpr int kLevels = 64 / kDigitBits;
  static constexpr std::size_t kBuckets = std::size_t{kLevels} * kDigitValues;

  // Precondition: en.time != last_. Inlined: it is the inner loop of refill().
  __attribute__((always_inline)) void place_in_bucket(const Entry& en) {
    const int level = (63 - __builtin_clzll(en.time ^ last_)) / kDigitBits;
    const auto digit = static_cast<int>(en.time >> (level * kDigitBits)) & (kDigitValues - 1);
    const auto b = static_cast<std::size_t>(level * kDigitValues + digit);
    std::vector<Entry>& bucket = buckets_[b];
    bucket.push_back(en);
    // A bucket fills in order, its tail cold since it was last drained: fetch the next line.
    prefetch_write(bucket.data() + bucket.size() + 2);
    if (en.time < bucket_min_[b]) bucket_min_[b] = en.time;
    digit_mask_[static_cast<std::size_t>(level)] |= static_cast<uint16_t>(1u << digit);
    level_mask_ |= 1u << level;
  }
  // The first non-empty bucket, which holds the earliest pending time. Precondition: one is.
  std::size_t first_bucket() const {
    const int level = __builtin_ctz(level_mask_);
    return static_cast<std::size_t>(level * kDigitValues +
                                    __builtin_ctz(digit_mask_[static_cast<std::size_t>(level)]));
  }
  [[noreturn]] void reject(uint64_t time) const;  // an event scheduled in the past
  void push_late(const Entry& en);  // at the current time, after its events were sorted
  uint32_t pop_late();              // the late heap's earliest entry's slot
  void refill();    // advances last_ to pending_min_ and moves that bucket's entries down
  void sort_now();  // sorts now_sorted_ descending

  uint64_t last_ = 0;             // time of bucket 0; no pending event is earlier
  uint64_t pending_min_ = kNone;  // while nothing is at last_: the earliest pending time
  std::size_t size_ = 0;
  std::size_t foreground_ = 0;
  std::vector<Entry> now_sorted_;      // at time last_, sorted descending: the earliest is back()
  std::vector<Entry> now_late_;        // at time last_, pushed after the sort: a min-heap
  std::vector<Entry> sort_scratch_;    // sort_now()'s second buffer
  std::vector<uint32_t> sort_counts_;  // sort_now()'s counters
  std::vector<uint32_t> long_runs_;    // sort_now()'s: runs to std::sort
  uint32_t destinations_ = 0;          // set_destinations(); 0: not known
  // buckets_[level * kDigitValues + digit]: the entries whose time differs from last_ first in
  // digit `level` (counted from the least significant), where it has the value `digit`. Bucket
  // ranges are disjoint and grow with the index. The masks say which buckets are non-empty.
  std::array<std::vector<Entry>, kBuckets> buckets_;
  std::array<uint64_t, kBuckets> bucket_min_;  // earliest time in each bucket (kNone: empty)
  std::array<uint16_t, kLevels> digit_mask_{};
  uint32_t level_mask_ = 0;
  std::vector<Event> pool_;
  std::vector<uint32_t> free_slots_;
  uint32_t reserved_ = 0;  // the slot reserve() handed out

 public:
  EventQueue() { bucket_min_.fill(kNone); }
};

}  // namespace hx
