// What interrupts a run from outside the simulation: signals from a batch system or a user
// (docs/OPERATIONS.md).
//   SIGTERM, SIGINT   stop at the next window boundary: checkpoint, partial results, exit code 5;
//                     a second one exits at once (code 128 + signal)
//   SIGUSR1, SIGUSR2  what --on-sigusr1 / --on-sigusr2 say (default: checkpoint and continue /
//                     stop like SIGTERM; mpirun forwards these two but kills on SIGTERM)
#pragma once

#include <string>

namespace hx {

enum class SignalAction { kCheckpoint, kStop, kIgnore };

/// "checkpoint", "stop" or "ignore"; InputError naming `option` otherwise.
SignalAction parse_signal_action(const std::string& text, const std::string& option);

/// Installs the handlers (once per process, before the run starts).
void install_signal_handlers(SignalAction usr1, SignalAction usr2);

/// RunControl request bits (kCheckpoint | kStop) for signals received since the last call.
unsigned take_signal_requests();

}  // namespace hx
