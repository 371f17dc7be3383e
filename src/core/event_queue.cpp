// 4-ary heap: half the depth of a binary heap, and the four children of a node share a cache line
// pair, which measured faster than a binary heap for the PHOLD benchmark (docs/PERFORMANCE.md).
#include "core/event_queue.h"

namespace hx {

void EventQueue::push(const Event& e) {
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
    pool_[slot] = e;
  } else {
    slot = static_cast<uint32_t>(pool_.size());
    pool_.push_back(e);
  }
  heap_.push_back(Entry{e.key, slot});
  sift_up(heap_.size() - 1);
}

void EventQueue::pop(Event& out) {
  const uint32_t slot = heap_[0].slot;
  out = pool_[slot];
  free_slots_.push_back(slot);
  heap_[0] = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0);
}

void EventQueue::clear() {
  heap_.clear();
  pool_.clear();
  free_slots_.clear();
}

void EventQueue::sift_up(std::size_t i) {
  const Entry moving = heap_[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (!(moving.key < heap_[parent].key)) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = moving;
}

void EventQueue::sift_down(std::size_t i) {
  const Entry moving = heap_[i];
  const std::size_t n = heap_.size();
  for (;;) {
    const std::size_t first = i * kArity + 1;
    if (first >= n) break;
    const std::size_t last = first + kArity < n ? first + kArity : n;
    std::size_t best = first;
    for (std::size_t c = first + 1; c < last; ++c) {
      if (heap_[c].key < heap_[best].key) best = c;
    }
    if (!(heap_[best].key < moving.key)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = moving;
}

}  // namespace hx
