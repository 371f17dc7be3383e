// The fabric's radix heap of flow ends: placing, moving and taking entries.
#include "models/flow/end_queue.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hx::flow {

void EndQueue::insert(uint32_t slot, uint64_t t) {
  const int b = bucket_of(t);
  std::vector<Entry>& bucket = buckets_[b];
  if (b > 0) {
    const uint64_t bit = uint64_t{1} << (b - 1);
    if (!(occupied_ & bit) || t < min_[b]) {  // the bucket's earliest, exactly
      occupied_ |= bit;
      loose_ &= ~bit;
      min_[b] = t;
    }
  }
  place_[slot] = {static_cast<uint32_t>(b), static_cast<uint32_t>(bucket.size())};
  bucket.push_back({t, slot});
  ++size_;
}

void EndQueue::erase(uint32_t slot) {
  const Place p = place_[slot];
  std::vector<Entry>& bucket = buckets_[p.bucket];
  if (p.bucket > 0 && bucket[p.index].time == min_[p.bucket]) {
    loose_ |= uint64_t{1} << (p.bucket - 1);
  }
  bucket[p.index] = bucket.back();
  place_[bucket[p.index].slot].index = p.index;
  bucket.pop_back();
  place_[slot].bucket = kNotQueued;
  --size_;
  if (p.bucket > 0 && bucket.empty()) {
    const uint64_t bit = uint64_t{1} << (p.bucket - 1);
    occupied_ &= ~bit;
    loose_ &= ~bit;
  }
}

void EndQueue::set(uint32_t slot, SimTime end) {
  const auto t = static_cast<uint64_t>(end.count_ps());
  if (end.is_infinite() || t < last_) {
    throw std::logic_error("flow end queue: an end at " + std::to_string(end.count_ps()) +
                           " ps, before " + std::to_string(last_) + " ps or never");
  }
  if (slot >= place_.size()) place_.resize(std::size_t{slot} + 1);
  if (place_[slot].bucket != kNotQueued) {
    const Place p = place_[slot];
    Entry& e = buckets_[p.bucket][p.index];
    if (static_cast<int>(p.bucket) == bucket_of(t)) {  // moves within its bucket: in place
      if (p.bucket > 0) {
        if (t < min_[p.bucket]) {
          min_[p.bucket] = t;
          loose_ &= ~(uint64_t{1} << (p.bucket - 1));
        } else if (e.time == min_[p.bucket] && t != e.time) {
          loose_ |= uint64_t{1} << (p.bucket - 1);
        }
      }
      e.time = t;
      return;
    }
    erase(slot);
  }
  insert(slot, t);
}

void EndQueue::remove(uint32_t slot) {
  if (slot < place_.size() && place_[slot].bucket != kNotQueued) erase(slot);
}

SimTime EndQueue::earliest() {
  if (!buckets_[0].empty()) return SimTime::ps(static_cast<int64_t>(last_));
  if (occupied_ == 0) return SimTime::infinity();
  const int b = __builtin_ctzll(occupied_) + 1;
  const uint64_t bit = uint64_t{1} << (b - 1);
  if (loose_ & bit) {
    uint64_t m = UINT64_MAX;
    for (const Entry& e : buckets_[b]) m = std::min(m, e.time);
    min_[b] = m;
    loose_ &= ~bit;
  }
  return SimTime::ps(static_cast<int64_t>(min_[b]));
}

void EndQueue::take_due(SimTime now, std::vector<uint32_t>& out) {
  const auto t = static_cast<uint64_t>(now.count_ps());
  if (t < last_) throw std::logic_error("flow end queue: time ran backwards");
  if (t != last_) {
    // Every entry is at t or later, so those in the bucket of the highest bit where t and
    // last_ differ agree with t above it and move down against t; buckets below are empty.
    const int b = 64 - __builtin_clzll(t ^ last_);
    const uint64_t below = (uint64_t{1} << (b - 1)) - 1;  // buckets 1 .. b - 1
    if (!buckets_[0].empty() || (occupied_ & below) != 0) {
      throw std::logic_error("flow end queue: an end at " + std::to_string(earliest().count_ps()) +
                             " ps was left behind at " + std::to_string(now.count_ps()) + " ps");
    }
    last_ = t;
    const uint64_t bit = uint64_t{1} << (b - 1);
    if (occupied_ & bit) {
      std::vector<Entry> moving;
      moving.swap(buckets_[b]);
      occupied_ &= ~bit;
      loose_ &= ~bit;
      size_ -= moving.size();
      for (const Entry& e : moving) {
        if (e.time < t) {
          throw std::logic_error("flow end queue: an end at " + std::to_string(e.time) +
                                 " ps was left behind at " + std::to_string(t) + " ps");
        }
        insert(e.slot, e.time);
      }
      moving.clear();
      buckets_[b].swap(moving);  // keeps its capacity
    }
  }
  std::vector<Entry>& due = buckets_[0];
  const std::size_t first = out.size();
  for (const Entry& e : due) {
    out.push_back(e.slot);
    place_[e.slot].bucket = kNotQueued;
  }
  size_ -= due.size();
  due.clear();
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
}

}  // namespace hx::flow
