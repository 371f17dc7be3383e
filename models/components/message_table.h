// Messages keyed by (source, message), with a value each (those an endpoint is receiving packet
// by packet; a program's early arrivals and waiting recvs): an open-addressing table (linear
// probing, at most half full, deletion by backward shift) whose slots hold key and value together.
// A packet's lookup reads one or two cache lines that the endpoint can prefetch (home()), where a
// node-based map chases a pointer to a node allocated per message (docs/performance/engine.md,
// "Endpoints").
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/prefetch.h"

namespace hx::net {

template <class V>
class MessageTable {
 public:
  struct Slot {
    uint64_t message = 0;
    uint32_t src = kFree;  // kFree: the slot is empty
    V value{};
  };

  /// The slot of (src, message), added with `init` when absent (`added` says so). The reference
  /// holds until the next find_or_add() or erase(). `src` is any value but UINT32_MAX.
  Slot& find_or_add(uint32_t src, uint64_t message, const V& init, bool& added) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    std::size_t i = home(src, message);
    for (; slots_[i].src != kFree; i = next(i)) {
      if (slots_[i].src == src && slots_[i].message == message) {
        added = false;
        return slots_[i];
      }
    }
    slots_[i] = Slot{message, src, init};
    ++size_;
    added = true;
    return slots_[i];
  }

  /// The slot of (src, message), or nullptr when absent; it holds as find_or_add()'s does.
  Slot* find(uint32_t src, uint64_t message) {
    if (size_ == 0) return nullptr;
    for (std::size_t i = home(src, message); slots_[i].src != kFree; i = next(i)) {
      if (slots_[i].src == src && slots_[i].message == message) return &slots_[i];
    }
    return nullptr;
  }

  /// Removes a slot find_or_add() or find() returned. Later slots of its probe run move back into
  /// the gap, so every key stays reachable from its home without tombstones.
  void erase(Slot& slot) {
    std::size_t gap = static_cast<std::size_t>(&slot - slots_.data());
    for (std::size_t j = next(gap); slots_[j].src != kFree; j = next(j)) {
      const std::size_t h = home(slots_[j].src, slots_[j].message);
      // Slot j may move to the gap if its home is not in (gap, j], cyclically.
      if (((j - h) & mask()) >= ((j - gap) & mask())) {
        slots_[gap] = slots_[j];
        gap = j;
      }
    }
    slots_[gap].src = kFree;
    --size_;
  }

  /// Starts loading the slot where (src, message) is looked up first.
  void prefetch(uint32_t src, uint64_t message) const {
    if (!slots_.empty()) prefetch_read(&slots_[home(src, message)]);
  }

  std::size_t size() const { return size_; }
  void clear() {
    slots_.clear();
    size_ = 0;
    shift_ = 64;
  }
  /// Calls f(src, message, value) for every entry, in no particular order.
  template <class F>
  void for_each(F f) const {
    for (const Slot& s : slots_) {
      if (s.src != kFree) f(s.src, s.message, s.value);
    }
  }

 private:
  static constexpr uint32_t kFree = UINT32_MAX;

  std::size_t mask() const { return slots_.size() - 1; }
  std::size_t next(std::size_t i) const { return (i + 1) & mask(); }
  // Fibonacci hashing of both parts: sources number their messages alike, so the source must
  // move the home as much as the message does.
  std::size_t home(uint32_t src, uint64_t message) const {
    const uint64_t key = message * 0x9E3779B97F4A7C15ULL ^ (src + 1) * 0xC2B2AE3D27D4EB4FULL;
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_);
  }
  void grow() {
    std::vector<Slot> old(slots_.empty() ? 8 : 2 * slots_.size());
    old.swap(slots_);
    shift_ = 64 - std::countr_zero(slots_.size());
    size_ = 0;
    bool added = false;
    for (const Slot& s : old) {
      if (s.src != kFree) find_or_add(s.src, s.message, s.value, added);
    }
  }

  std::vector<Slot> slots_;  // a power of two of them
  std::size_t size_ = 0;
  int shift_ = 64;  // 64 - log2(slots_.size())
};

}  // namespace hx::net
