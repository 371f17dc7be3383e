// Signal handlers and wall-clock durations.
#include "app/interrupts.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <ctime>

#include "core/error.h"
#include "engine/executor.h"

namespace hx {
namespace {

// A signal handler can only reach the program through process-wide flags: this is the one
// place in hxsim with global state. Handlers set flags; the run takes them between windows.
volatile std::sig_atomic_t g_checkpoint = 0;
volatile std::sig_atomic_t g_stop = 0;
volatile std::sig_atomic_t g_stopping = 0;  // a stop was requested: the next one is fatal
// The first stop's signal and time (ms, CLOCK_MONOTONIC). The same signal again within
// kSameStopMs is the same request delivered twice, not a user insisting: GNU timeout signals
// its child and then its whole process group, and a run whose instant takes seconds has
// handled the first by the time the second comes.
volatile std::sig_atomic_t g_stop_signal = 0;
std::atomic<int64_t> g_stop_ms{0};
static_assert(std::atomic<int64_t>::is_always_lock_free, "used in a signal handler");
constexpr int64_t kSameStopMs = 1000;
SignalAction g_usr1 = SignalAction::kCheckpoint;
SignalAction g_usr2 = SignalAction::kStop;
sigset_t g_started_mask;  // the mask the process started with, for release_signals

sigset_t handled_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGTERM, SIGINT, SIGUSR1, SIGUSR2}) sigaddset(&set, sig);
  return set;
}

extern "C" void on_signal(int sig) {
  const SignalAction action = sig == SIGUSR1   ? g_usr1
                              : sig == SIGUSR2 ? g_usr2
                                               : SignalAction::kStop;
  if (action == SignalAction::kCheckpoint) g_checkpoint = 1;
  if (action != SignalAction::kStop) return;
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe
  const int64_t now_ms = int64_t{now.tv_sec} * 1000 + now.tv_nsec / 1000000;
  if (g_stopping && sig == g_stop_signal && now_ms - g_stop_ms.load() < kSameStopMs) return;
  if (g_stopping) {
    static const char message[] = "hxsim: second stop signal: exiting at once\n";
    const ssize_t ignored = ::write(STDERR_FILENO, message, sizeof message - 1);
    (void)ignored;
    ::_exit(128 + sig);
  }
  g_stop_signal = sig;
  g_stop_ms.store(now_ms);
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

void hold_signals() {
  const sigset_t set = handled_signals();
  pthread_sigmask(SIG_BLOCK, &set, &g_started_mask);
}

void release_signals() { pthread_sigmask(SIG_SETMASK, &g_started_mask, nullptr); }

void install_signal_handlers(SignalAction usr1, SignalAction usr2) {
  g_usr1 = usr1;
  g_usr2 = usr2;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // MPI and file calls resume instead of failing with EINTR
  for (int sig : {SIGTERM, SIGINT, SIGUSR1, SIGUSR2}) sigaction(sig, &sa, nullptr);
  const sigset_t set = handled_signals();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
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

}  // namespace hx
