// Radix-heap event queue: push, pop and the bucket redistribution that advances time.
#include "core/event_queue.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hx {

void EventQueue::reject(uint64_t time) const {
  throw std::logic_error("event scheduled at " + std::to_string(time) +
                         " ps, before the current time " + std::to_string(last_) + " ps");
}

void EventQueue::push_late(const Entry& en) {
  now_late_.push_back(en);
  std::push_heap(now_late_.begin(), now_late_.end(), Later{});
}

uint32_t EventQueue::pop_late() {
  std::pop_heap(now_late_.begin(), now_late_.end(), Later{});
  const uint32_t slot = now_late_.back().slot;
  now_late_.pop_back();
  return slot;
}

void EventQueue::refill() {
  const std::size_t b = first_bucket();  // size_ > 0 guarantees a non-empty bucket
  const auto level = static_cast<std::size_t>(b / kDigitValues);
  digit_mask_[level] &= static_cast<uint16_t>(~(1u << (b % kDigitValues)));
  if (digit_mask_[level] == 0) level_mask_ &= ~(1u << level);
  bucket_min_[b] = kNone;
  last_ = pending_min_;
  if (level == 0) {
    // A level-0 bucket holds a single time: its entries are the current ones as they are
    // (the swap leaves the bucket now_sorted_'s emptied capacity).
    now_sorted_.swap(buckets_[b]);
  } else {
    // Every entry of this bucket agrees with the new last_ in all digits above `level` and
    // now differs from it in a lower one: each moves down, and those at last_ become current.
    std::vector<Entry> moving;
    moving.swap(buckets_[b]);
    for (const Entry& en : moving) {
      if (en.time == last_) {
        now_sorted_.push_back(en);
      } else {
        place_in_bucket(en);
      }
    }
    moving.clear();
    buckets_[b].swap(moving);  // keep the capacity for the next fill
  }
  sort_now();
  pending_min_ = kNone;
}

// Network models put thousands of events on one cycle boundary, spread over many destinations
// with a few events each. For those one counting pass over the rank-local destination index,
// which orders as the destination id does, groups the entries (a run per group of 2^shift
// neighbouring destinations, with about one counter per entry), and the scatter orders each
// run by insertion as its entries arrive: far cheaper than a comparison sort of the whole
// (docs/performance/engine.md). It pays from a few dozen entries: below, an insertion sort.
constexpr std::size_t kCountFrom = 32;      // entries; below, insertion is faster
constexpr std::size_t kInsertionUpTo = 16;  // entries in one run; above, std::sort the run

void EventQueue::sort_now() {
  std::vector<Entry>& v = now_sorted_;
  if (v.size() < kCountFrom) {
    // Entries arrive mostly in ascending order (handlers post in the order they run), so
    // reversed they are nearly in the order wanted and insertion moves few: std::sort's
    // insertion pass would move each arrival to the front.
    std::reverse(v.begin(), v.end());
    for (std::size_t i = 1; i < v.size(); ++i) {
      const Entry en = v[i];
      std::size_t j = i;
      for (; j > 0 && before(v[j - 1], en); --j) v[j] = v[j - 1];
      v[j] = en;
    }
    return;
  }
  if (destinations_ == 0) {
    std::sort(v.begin(), v.end(), Later{});
    return;
  }
  uint32_t shift = 0;
  while ((destinations_ >> shift) > v.size()) ++shift;
  const uint32_t counters = ((destinations_ - 1) >> shift) + 1;
  sort_counts_.resize(2 * std::size_t{counters});
  uint32_t* next = sort_counts_.data();  // per run: its size, then its next slot
  uint32_t* start = next + counters;     // where the run starts
  std::fill(next, next + counters, 0);
  for (const Entry& en : v) ++next[en.dst_local >> shift];
  long_runs_.clear();
  uint32_t position = 0;
  for (uint32_t r = counters; r-- > 0;) {  // descending: the largest destinations first
    const uint32_t n = next[r];
    if (n > kInsertionUpTo) long_runs_.push_back(r);
    start[r] = position;
    next[r] = position;
    position += n;
  }
  sort_scratch_.resize(v.size());
  Entry* out = sort_scratch_.data();
  for (auto it = v.rbegin(); it != v.rend(); ++it) {  // in reverse: see the small case
    const Entry& en = *it;
    const uint32_t r = en.dst_local >> shift;
    const uint32_t begin = start[r];
    std::size_t j = next[r]++;
    if (j - begin <= kInsertionUpTo) {  // a longer run is appended to, then sorted whole
      for (; j > begin && before(out[j - 1], en); --j) out[j] = out[j - 1];
    }
    out[j] = en;
  }
  for (const uint32_t r : long_runs_) std::sort(out + start[r], out + next[r], Later{});
  v.swap(sort_scratch_);
}

void EventQueue::clear() {
  last_ = 0;
  pending_min_ = kNone;
  size_ = 0;
  foreground_ = 0;
  now_sorted_.clear();
  now_late_.clear();
  for (auto& bucket : buckets_) bucket.clear();
  bucket_min_.fill(kNone);
  digit_mask_.fill(0);
  level_mask_ = 0;
  pool_.clear();
  free_slots_.clear();
}

}  // namespace hx
