// Signal handlers and wall-clock durations.
#include "app/interrupts.h"

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <vector>

#include "core/error.h"
#include "engine/executor.h"

namespace hx {
namespace {

// A signal handler can only reach the program through process-wide flags: this is the one
// place in hxsim with global state. Handlers set flags; the run takes them between windows.
volatile std::sig_atomic_t g_checkpoint = 0;
volatile std::sig_atomic_t g_stop = 0;
volatile std::sig_atomic_t g_stopping = 0;  // a stop was requested: the next one is fatal
SignalAction g_usr1 = SignalAction::kCheckpoint;
SignalAction g_usr2 = SignalAction::kStop;

extern "C" void on_signal(int sig) {
  const SignalAction action = sig == SIGUSR1   ? g_usr1
                              : sig == SIGUSR2 ? g_usr2
                                               : SignalAction::kStop;
  if (action == SignalAction::kCheckpoint) g_checkpoint = 1;
  if (action != SignalAction::kStop) return;
  if (g_stopping) {
    static const char message[] = "hxsim: second stop signal: exiting at once\n";
    const ssize_t ignored = ::write(STDERR_FILENO, message, sizeof message - 1);
    (void)ignored;
    ::_exit(128 + sig);
  }
  g_stopping = 1;
  g_stop = 1;
}

}  // namespace

SignalAction parse_signal_action(const std::string& text, const std::string& option) {
  if (text == "checkpoint") return SignalAction::kCheckpoint;
  if (text == "stop") return SignalAction::kStop;
  if (text == "ignore") return SignalAction::kIgnore;
  throw InputError(option + " = '" + text + "': expected checkpoint, stop or ignore");
}

void install_signal_handlers(SignalAction usr1, SignalAction usr2) {
  g_usr1 = usr1;
  g_usr2 = usr2;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // MPI and file calls resume instead of failing with EINTR
  for (int sig : {SIGTERM, SIGINT, SIGUSR1, SIGUSR2}) sigaction(sig, &sa, nullptr);
}

unsigned take_signal_requests() {
  unsigned requests = 0;
  if (g_checkpoint) {
    g_checkpoint = 0;
    requests |= RunControl::kCheckpoint;
  }
  if (g_stop) {
    g_stop = 0;
    requests |= RunControl::kStop;
  }
  return requests;
}

double parse_wall_duration(const std::string& text, const std::string& option) {
  const std::string expected = "; expected e.g. 90s, 10m, 2h, 45 (seconds), 1:30:00 or 2-00:00:00";
  auto fail = [&]() -> double { throw InputError(option + " = '" + text + "'" + expected); };
  if (text.empty()) return fail();
  if (text.find(':') != std::string::npos || text.find('-') != std::string::npos) {
    // Slurm's forms: [days-]h:m:s or m:s.
    double days = 0;
    std::string rest = text;
    if (const auto dash = text.find('-'); dash != std::string::npos) {
      char* end = nullptr;
      days = std::strtod(text.c_str(), &end);
      if (end != text.c_str() + dash) return fail();
      rest = text.substr(dash + 1);
    }
    std::vector<double> parts;
    std::size_t at = 0;
    while (at <= rest.size()) {
      const std::size_t colon = std::min(rest.find(':', at), rest.size());
      const std::string part = rest.substr(at, colon - at);
      char* end = nullptr;
      const double v = std::strtod(part.c_str(), &end);
      if (part.empty() || *end != '\0' || v < 0) return fail();
      parts.push_back(v);
      at = colon + 1;
    }
    if (parts.size() < 2 || parts.size() > 3) return fail();
    if (parts.size() == 2) parts.insert(parts.begin(), 0.0);
    return days * 86400 + parts[0] * 3600 + parts[1] * 60 + parts[2];
  }
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || v <= 0) return fail();
  const std::string unit = end;
  if (unit.empty() || unit == "s") return v;
  if (unit == "m" || unit == "min") return v * 60;
  if (unit == "h") return v * 3600;
  if (unit == "d") return v * 86400;
  return fail();
}

}  // namespace hx
