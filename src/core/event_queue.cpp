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
// with a few events each. For those, a sort by destination and then a sort of each
// destination's few events by (source, sequence) is much cheaper than a comparison sort of the
// whole (docs/PERFORMANCE.md). When the instant holds events for a good share of the rank's
// components, the sort by destination is one counting pass over the rank-local index;
// otherwise it is a radix sort of the destination id. Either pays from a few dozen entries:
// on random destinations the radix sort is 2.3x faster than std::sort at 48 entries and 4x at
// 160, where std::sort's cost is branch mispredictions that instruction counts do not show.
constexpr std::size_t kRadixSortFrom = 32;  // entries; below, std::sort is faster
constexpr std::size_t kInsertionUpTo = 16;  // one destination's entries; above, std::sort
// The counting pass sums one counter per local component: worth it while they are at most
// this many per entry (a radix pass costs about as much per entry as four counters).
constexpr std::size_t kCountersPerEntry = 4;

void EventQueue::sort_now() {
  std::vector<Entry>& v = now_sorted_;
  if (v.size() < kRadixSortFrom) {
    std::sort(v.begin(), v.end(), Later{});
    return;
  }
  sort_scratch_.resize(v.size());
  if (destinations_ != 0 && destinations_ <= kCountersPerEntry * v.size()) {
    sort_by_local_index();
    return;
  }
  sort_by_destination_id();
  // Each destination's entries, now adjacent, by (source, sequence), descending.
  constexpr int kDst = 32;  // the destination's bits in `ids`
  for (std::size_t begin = 0; begin < v.size();) {
    const uint64_t dst = v[begin].ids >> kDst;
    std::size_t end = begin + 1;
    while (end < v.size() && v[end].ids >> kDst == dst) ++end;
    if (end - begin > kInsertionUpTo) {
      std::sort(v.begin() + static_cast<std::ptrdiff_t>(begin),
                v.begin() + static_cast<std::ptrdiff_t>(end), Later{});
    } else {
      for (std::size_t i = begin + 1; i < end; ++i) {
        const Entry en = v[i];
        std::size_t j = i;
        for (; j > begin && before(v[j - 1], en); --j) v[j] = v[j - 1];
        v[j] = en;
      }
    }
    begin = end;
  }
}

// The counts give each destination's run before anything moves, so the scatter also orders
// each run by (source, sequence), by insertion as its entries arrive; runs too long for that
// are sorted afterwards.
void EventQueue::sort_by_local_index() {
  std::vector<Entry>& v = now_sorted_;
  sort_counts_.resize(2 * std::size_t{destinations_});  // next[]: zeros, each sort leaves it so
  uint32_t* next = sort_counts_.data();                 // per destination: count, then next slot
  uint32_t* start = next + destinations_;               // where its run starts
  for (const Entry& en : v) ++next[en.dst_local];
  long_runs_.clear();
  uint32_t position = 0;
  for (uint32_t d = destinations_; d-- > 0;) {  // the largest first
    const uint32_t n = next[d];
    if (n > kInsertionUpTo) long_runs_.push_back(d);
    start[d] = position;
    next[d] = position;
    position += n;
  }
  Entry* out = sort_scratch_.data();
  for (const Entry& en : v) {
    const uint32_t begin = start[en.dst_local];
    std::size_t j = next[en.dst_local]++;
    for (; j > begin && before(out[j - 1], en); --j) out[j] = out[j - 1];
    out[j] = en;
  }
  for (const uint32_t d : long_runs_) {
    std::sort(out + start[d], out + next[d], Later{});
  }
  std::fill(next, next + destinations_, 0);  // start[] is rewritten whole by the next sort
  v.swap(sort_scratch_);
}

// 8-bit digits from the least significant, skipping digits no two destinations differ in, each
// pass stable and descending (11-bit digits, fewer passes, were slower: the runs at one time
// are a few hundred entries, too few for 2,048 counters).
void EventQueue::sort_by_destination_id() {
  std::vector<Entry>& v = now_sorted_;
  // A digit's counts do not depend on the order, so one pass finds the digits that vary and
  // counts the destination's low two, which usually do; a higher varying digit gets a counting
  // pass of its own.
  constexpr uint64_t kMask = 0xFF;
  constexpr int kDst = 32;  // the destination's bits in `ids`
  std::array<std::array<uint32_t, kMask + 1>, 4> count;
  count[0].fill(0);
  count[1].fill(0);
  const uint64_t first = v.front().ids;
  uint64_t varying = 0;
  for (const Entry& en : v) {
    varying |= en.ids ^ first;
    ++count[0][(en.ids >> kDst) & kMask];
    ++count[1][(en.ids >> (kDst + 8)) & kMask];
  }
  for (std::size_t digit = 0; digit < 4; ++digit) {
    const auto shift = kDst + static_cast<int>(8 * digit);
    if (((varying >> shift) & kMask) == 0) continue;
    std::array<uint32_t, kMask + 1>& c = count[digit];
    if (digit >= 2) {
      c.fill(0);
      for (const Entry& en : v) ++c[(en.ids >> shift) & kMask];
    }
    uint32_t position = 0;
    for (auto d = static_cast<int64_t>(kMask); d >= 0; --d) {  // the largest first
      const uint32_t n = c[static_cast<std::size_t>(d)];
      c[static_cast<std::size_t>(d)] = position;  // now where the digit's run starts
      position += n;
    }
    for (const Entry& en : v) sort_scratch_[c[(en.ids >> shift) & kMask]++] = en;
    v.swap(sort_scratch_);
  }
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
