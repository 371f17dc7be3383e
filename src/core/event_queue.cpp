// Radix-heap event queue: push, pop and the bucket redistribution that advances time.
#include "core/event_queue.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hx {

void EventQueue::place(const Entry& en) {
  if (en.time == last_) {
    now_late_.push_back(en);
    std::push_heap(now_late_.begin(), now_late_.end(), Later{});
  } else {
    buckets_[63 - __builtin_clzll(en.time ^ last_)].push_back(en);
  }
}

void EventQueue::push(const Event& e) {
  const auto time = static_cast<uint64_t>(e.key.time.count_ps());
  if (time < last_) {
    throw std::logic_error("event scheduled at " + std::to_string(time) +
                           " ps, before the current time " + std::to_string(last_) + " ps");
  }
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
    pool_[slot] = e;
  } else {
    slot = static_cast<uint32_t>(pool_.size());
    pool_.push_back(e);
  }
  if (now_empty()) pending_min_ = std::min(pending_min_, time);
  place(Entry{time, static_cast<uint64_t>(e.key.dst) << 32 | e.key.src, e.key.seq, slot,
              e.dst_local});
  ++size_;
  if (!(e.kind & Event::kBackground)) ++foreground_;
}

void EventQueue::pop(Event& out) {
  if (now_empty()) refill();
  uint32_t slot;
  if (!now_late_.empty() &&
      (now_sorted_.empty() || before(now_late_.front(), now_sorted_.back()))) {
    std::pop_heap(now_late_.begin(), now_late_.end(), Later{});
    slot = now_late_.back().slot;
    now_late_.pop_back();
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
  if (now_empty()) pending_min_ = earliest_in_buckets();
}

uint64_t EventQueue::earliest_in_buckets() const {
  // Bucket ranges are disjoint and increase with the index: the first non-empty one holds the
  // earliest time.
  for (const auto& bucket : buckets_) {
    if (bucket.empty()) continue;
    uint64_t earliest = kNone;
    for (const Entry& en : bucket) earliest = std::min(earliest, en.time);
    return earliest;
  }
  return kNone;
}

void EventQueue::refill() {
  std::size_t b = 0;
  while (buckets_[b].empty()) ++b;  // size_ > 0 guarantees a non-empty bucket
  std::vector<Entry>& bucket = buckets_[b];
  last_ = pending_min_;
  // Every entry of bucket b now differs from last_ in a lower bit: each moves down, and those
  // at last_ itself form the new sorted run.
  std::vector<Entry> moving;
  moving.swap(bucket);
  for (const Entry& en : moving) {
    if (en.time == last_) {
      now_sorted_.push_back(en);
    } else {
      buckets_[63 - __builtin_clzll(en.time ^ last_)].push_back(en);
    }
  }
  std::sort(now_sorted_.begin(), now_sorted_.end(), Later{});
  moving.clear();
  bucket.swap(moving);  // keep the capacity for the next fill
  pending_min_ = kNone;
}

void EventQueue::clear() {
  last_ = 0;
  pending_min_ = kNone;
  size_ = 0;
  foreground_ = 0;
  now_sorted_.clear();
  now_late_.clear();
  for (auto& bucket : buckets_) bucket.clear();
  pool_.clear();
  free_slots_.clear();
}

}  // namespace hx
