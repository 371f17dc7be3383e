// What interrupts a run from outside the simulation: signals from a batch system or a user
// (docs/OPERATIONS.md).
//   SIGTERM, SIGINT   stop at the next window boundary: checkpoint, partial results, exit code 5;
//                     a second one exits at once (code 128 + signal), unless it is the same
//                     signal within 1 s (one request delivered twice)
//   SIGUSR1, SIGUSR2  what --on-sigusr1 / --on-sigusr2 say (default: checkpoint and continue /
//                     stop like SIGTERM; mpirun forwards these two but kills on SIGTERM)
#pragma once

#include <string>

namespace hx {

enum class SignalAction { kCheckpoint, kStop, kIgnore };

/// "checkpoint", "stop" or "ignore"; InputError naming `option` otherwise.
SignalAction parse_signal_action(const std::string& text, const std::string& option);

/// Holds the four signals back (blocks them) from the first line of main, so that one arriving
/// during MPI's start-up or the config's resolution waits for the run's handlers instead of
/// ending the process with its default action. MPI's threads, started meanwhile, keep them
/// blocked, so the handlers run on the main thread.
void hold_signals();

/// For commands that install no handlers: the signal mask the process started with again, so
/// a held signal takes its default action now.
void release_signals();

/// Installs the handlers (once per process, before the run starts) and lets the held signals
/// through to them, including any that arrived while they were held.
void install_signal_handlers(SignalAction usr1, SignalAction usr2);

/// RunControl request bits (kCheckpoint | kStop) for signals received since the last call.
unsigned take_signal_requests();

}  // namespace hx
