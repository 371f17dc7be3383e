// Where a component's sends go: the rank's own queue, or the outbox of the neighbouring rank that
// holds the destination. Plain data structures only; the engine moves outboxes across ranks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/event.h"
#include "core/event_queue.h"

namespace hx {

class EventSink {
 public:
  explicit EventSink(std::size_t neighbour_count = 0) : outboxes_(neighbour_count) {}

  SimTime now() const { return now_; }
  void set_now(SimTime t) { now_ = t; }

  /// An event to fill in and then hand to end_post(outbox): `outbox` < 0 when the destination
  /// is on this rank (the event is built in the queue's pool), otherwise the neighbour index.
  Event& begin_post(int32_t outbox) {
    if (outbox < 0) return queue_.reserve();
    return outboxes_[static_cast<std::size_t>(outbox)].emplace_back();
  }
  void end_post(int32_t outbox) {
    if (outbox < 0) {
      queue_.commit();
      return;
    }
    earliest_sent_ =
        std::min(earliest_sent_, outboxes_[static_cast<std::size_t>(outbox)].back().key.time);
  }
  /// The earliest time of the events put in outboxes since clear_earliest_sent() (infinity
  /// when none): a window of the executor stops there (engine/executor.cpp).
  SimTime earliest_sent() const { return earliest_sent_; }
  void clear_earliest_sent() { earliest_sent_ = SimTime::infinity(); }

  /// The component with rank-local index `local` wants Component::end_of_instant() after its
  /// last event at the current time. Only the component whose event is being handled asks.
  void request_end_of_instant(uint32_t local) { end_of_instant_ = local; }
  /// The component waiting for end_of_instant(), or UINT32_MAX; taking it clears it.
  uint32_t end_of_instant_pending() const { return end_of_instant_; }
  uint32_t take_end_of_instant() {
    const uint32_t local = end_of_instant_;
    end_of_instant_ = UINT32_MAX;
    return local;
  }

  /// A component asks the engine to stop the run: a deadlock (the watchdog), or input that
  /// cannot be simulated (`input`, found only while running). The first reason wins. The
  /// engine checks after each event and between windows.
  void request_stop(std::string reason, bool input = false) {
    if (!stop_reason_.empty()) return;
    stop_reason_ = std::move(reason);
    stop_for_input_ = input;
  }
  bool stop_for_input() const { return stop_for_input_; }
  bool stop_requested() const { return !stop_reason_.empty(); }
  /// A component changes state at `t` without an event for it (Component::extend_run_to).
  void extend_work_to(SimTime t) {
    if (t > work_horizon_) work_horizon_ = t;
  }
  SimTime work_horizon() const { return work_horizon_; }
  /// Components holding the run alive (Component::hold_run).
  void hold(int delta) { holds_ = static_cast<uint32_t>(static_cast<int>(holds_) + delta); }
  uint32_t holds() const { return holds_; }
  void set_drained(bool d) { drained_ = d; }
  bool drained() const { return drained_; }
  const std::string& stop_reason() const { return stop_reason_; }

  EventQueue& queue() { return queue_; }
  const EventQueue& queue() const { return queue_; }
  std::vector<std::vector<Event>>& outboxes() { return outboxes_; }
  const std::vector<std::vector<Event>>& outboxes() const { return outboxes_; }

 private:
  SimTime now_;
  SimTime work_horizon_;  // the latest time given to extend_work_to
  SimTime earliest_sent_ = SimTime::infinity();
  EventQueue queue_;
  std::vector<std::vector<Event>> outboxes_;
  std::string stop_reason_;
  bool stop_for_input_ = false;
  bool drained_ = false;
  uint32_t end_of_instant_ = UINT32_MAX;
  uint32_t holds_ = 0;
};

}  // namespace hx
