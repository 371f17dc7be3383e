// Where a component's sends go: the rank's own queue, or the outbox of the neighbouring rank that
// holds the destination. Plain data structures only; the engine moves outboxes across ranks.
#pragma once

#include <cstdint>
#include <vector>

#include "core/event.h"
#include "core/event_queue.h"

namespace hx {

class EventSink {
 public:
  explicit EventSink(std::size_t neighbour_count = 0) : outboxes_(neighbour_count) {}

  SimTime now() const { return now_; }
  void set_now(SimTime t) { now_ = t; }

  /// `outbox` < 0: the destination is on this rank; otherwise the neighbour index.
  void post(const Event& e, int32_t outbox) {
    if (outbox < 0) {
      queue_.push(e);
    } else {
      outboxes_[static_cast<std::size_t>(outbox)].push_back(e);
    }
  }

  EventQueue& queue() { return queue_; }
  const EventQueue& queue() const { return queue_; }
  std::vector<std::vector<Event>>& outboxes() { return outboxes_; }

 private:
  SimTime now_;
  EventQueue queue_;
  std::vector<std::vector<Event>> outboxes_;
};

}  // namespace hx
