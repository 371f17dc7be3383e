// Progress reports from rank 0 (DESIGN §9): simulated time, % done, events/s and ETA, as a live
// line on a terminal or as plain periodic lines in a batch log.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "core/units.h"

namespace hx {

enum class ProgressMode { kAuto, kTty, kLines, kOff };
ProgressMode parse_progress_mode(const std::string& text);  // InputError on unknown text

class Progress {
 public:
  /// kAuto becomes kTty when stderr is a terminal, kLines otherwise. `interval_s` applies to
  /// kLines; a terminal line refreshes twice a second.
  Progress(ProgressMode mode, double interval_s, SimTime end_time, std::FILE* out = stderr);

  bool enabled() const { return mode_ != ProgressMode::kOff; }
  /// True when a report is due (cheap: one clock read).
  bool due() const;
  /// `work`: units of the model's work done so far (Model::work_unit, named by set_work_unit;
  /// a flow-level run counts flows), shown with their rate when the model has a unit;
  /// `in_progress` of them started and not done ("in flight"), shown when there are any.
  void report(SimTime now, uint64_t events, uint64_t work = 0, uint64_t in_progress = 0);
  void set_work_unit(std::string unit) { work_unit_ = std::move(unit); }
  /// Ends a live line; prints nothing in other modes.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  ProgressMode mode_;
  double interval_s_;
  SimTime end_time_;
  std::FILE* out_;
  Clock::time_point start_;
  Clock::time_point last_;
  uint64_t last_events_ = 0;
  uint64_t last_work_ = 0;
  std::string work_unit_;
  bool printed_ = false;
};

}  // namespace hx
