// Progress line formatting and pacing.
#include "engine/progress.h"

#include <unistd.h>

#include <cinttypes>

#include "core/error.h"

namespace hx {

ProgressMode parse_progress_mode(const std::string& text) {
  if (text == "auto") return ProgressMode::kAuto;
  if (text == "tty") return ProgressMode::kTty;
  if (text == "lines") return ProgressMode::kLines;
  if (text == "off") return ProgressMode::kOff;
  throw InputError("--progress: '" + text + "' is not a mode; expected auto, tty, lines or off");
}

Progress::Progress(ProgressMode mode, double interval_s, SimTime end_time, std::FILE* out)
    : mode_(mode), interval_s_(interval_s), end_time_(end_time), out_(out) {
  if (mode_ == ProgressMode::kAuto) {
    mode_ = isatty(fileno(out_)) ? ProgressMode::kTty : ProgressMode::kLines;
  }
  if (mode_ == ProgressMode::kTty) interval_s_ = 0.5;
  start_ = last_ = Clock::now();
}

bool Progress::due() const {
  if (mode_ == ProgressMode::kOff) return false;
  return std::chrono::duration<double>(Clock::now() - last_).count() >= interval_s_;
}

void Progress::report(SimTime now, uint64_t events, uint64_t work, uint64_t in_progress) {
  if (mode_ == ProgressMode::kOff) return;
  const Clock::time_point t = Clock::now();
  const double elapsed = std::chrono::duration<double>(t - start_).count();
  const double since = std::chrono::duration<double>(t - last_).count();
  const double rate = since > 0 ? static_cast<double>(events - last_events_) / since : 0.0;
  // An unknown end (infinity) or one already passed (a network draining after its measurement
  // window) has no meaningful share done or ETA.
  const bool known = !end_time_.is_infinite() && end_time_.count_ps() > 0;
  double done =
      known ? static_cast<double>(now.count_ps()) / static_cast<double>(end_time_.count_ps()) : 0.0;
  std::string eta = "?";
  if (done > 1) done = 1;
  if (done > 0 && done < 1) {
    const auto s = static_cast<int64_t>(elapsed * (1 - done) / done);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%" PRId64 ":%02d:%02d", s / 3600, static_cast<int>(s / 60 % 60),
                  static_cast<int>(s % 60));
    eta = buf;
  }
  std::string work_text;
  if (!work_unit_.empty()) {
    char buf[128];
    std::snprintf(buf, sizeof buf, ", %" PRIu64 " %s (%.3g/s)", work, work_unit_.c_str(),
                  since > 0 ? static_cast<double>(work - last_work_) / since : 0.0);
    work_text = buf;
    if (in_progress > 0) {
      std::snprintf(buf, sizeof buf, ", %" PRIu64 " in flight", in_progress);
      work_text += buf;
    }
  }
  // No end (a workload runs until its programs do): no share done or ETA to print.
  std::string of, until;
  if (!end_time_.is_infinite()) {
    char buf[96];
    std::snprintf(buf, sizeof buf, " of %s (%.1f%%)", format_time(end_time_).c_str(), 100 * done);
    of = buf;
    until = ", ETA " + eta;
  }
  std::fprintf(out_, "%shxsim: t=%s%s, %.3g events/s%s%s%s",
               mode_ == ProgressMode::kTty ? "\r" : "", format_time(now).c_str(), of.c_str(), rate,
               work_text.c_str(), until.c_str(), mode_ == ProgressMode::kTty ? "\033[K" : "\n");
  std::fflush(out_);
  printed_ = true;
  last_ = t;
  last_events_ = events;
  last_work_ = work;
}

void Progress::finish() {
  if (mode_ == ProgressMode::kTty && printed_) std::fputc('\n', out_);
}

}  // namespace hx
