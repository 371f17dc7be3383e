// When a synthetic source starts its messages (DESIGN §7): time is cut into slots of one cycle
// (of 1/n cycle above one message per cycle, so any load the ports can carry is possible) and
// each slot starts a message with probability q, the gap to the next one drawn as a geometric
// variable. The packet-level and the flow-level endpoint share it, so both fidelities draw the
// same messages from the same random stream.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/rng.h"
#include "core/units.h"

namespace hx::net {

class BernoulliSlots {
 public:
  BernoulliSlots() = default;
  /// `load` flits per cycle in messages of `message_flits` flits.
  BernoulliSlots(double load, uint32_t message_flits, SimTime cycle) {
    const double per_cycle = load / static_cast<double>(message_flits);
    const double slots = std::max(1.0, std::ceil(per_cycle));
    slot_ = SimTime::ps(cycle.count_ps() / static_cast<int64_t>(slots));
    probability_ = per_cycle / slots;
    log_miss_ = std::log1p(-probability_);
    // Within the range by a wide margin, so that the times next() returns cannot overflow.
    last_slot_ = static_cast<double>(kNoMore) / static_cast<double>(slot_.count_ps());
  }

  /// Whether any message is ever started.
  bool sends() const { return probability_ > 0; }
  /// Before the first message.
  void restart() { next_slot_ = -1; }
  /// The time of the next message: the slot after a geometric gap (one draw from `rng` unless
  /// every slot starts one).
  /// A gap beyond what SimTime holds (a load of 1e-300) is infinity: no further message.
  SimTime next(Rng& rng) {
    double gap = 1;
    if (probability_ < 1.0) gap += std::floor(std::log1p(-rng.uniform()) / log_miss_);
    if (next_slot_ == kNoMore || static_cast<double>(next_slot_) + gap >= last_slot_) {
      next_slot_ = kNoMore;
      return SimTime::infinity();
    }
    next_slot_ += static_cast<int64_t>(gap);
    return slot_ * next_slot_;
  }
  /// The index of the last slot drawn: the state a checkpoint keeps.
  int64_t& slot_index() { return next_slot_; }

 private:
  static constexpr int64_t kNoMore = int64_t{1} << 62;  // next_slot_ once the gaps ran out
  SimTime slot_;
  double probability_ = 0;  // of a new message in each slot
  double log_miss_ = 0;     // log(1 - probability_): the geometric gap's scale
  double last_slot_ = 0;    // no slot from this one on
  int64_t next_slot_ = 0;
};

}  // namespace hx::net
