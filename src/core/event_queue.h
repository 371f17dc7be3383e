// The pending-event set of one rank: a 4-ary min-heap of (key, slot) entries over a pool of
// event slots that is reused, so steady-state push/pop never allocates.
#pragma once

#include <cstdint>
#include <vector>

#include "core/event.h"

namespace hx {

class EventQueue {
 public:
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  /// Time of the earliest event; SimTime::infinity() when empty.
  SimTime next_time() const { return heap_.empty() ? SimTime::infinity() : heap_[0].key.time; }

  void push(const Event& e);
  /// Removes the earliest event and copies it into `out`. Precondition: !empty().
  void pop(Event& out);

  /// Every pending event, in no particular order (for checkpoints and the deadlock report).
  template <class F>
  void for_each(F&& f) const {
    for (const Entry& en : heap_) f(pool_[en.slot]);
  }
  void clear();

 private:
  struct Entry {
    EventKey key;
    uint32_t slot;
  };
  static constexpr std::size_t kArity = 4;
  void sift_up(std::size_t i);
  void sift_down(std::size_t i);

  std::vector<Entry> heap_;
  std::vector<Event> pool_;
  std::vector<uint32_t> free_slots_;
};

}  // namespace hx
