// Error types that carry the process exit code, so every rank exits the same way (DESIGN §3.8).
#pragma once

#include <stdexcept>
#include <string>

namespace hx {

/// Documented exit codes of the hxsim executable (README, "Exit codes").
enum class ExitCode : int {
  kOk = 0,
  kInternal = 1,     // a bug: an invariant broke
  kInput = 2,        // bad config, bad key, bad value, bad unit, missing file
  kOutput = 3,       // output path cannot be written
  kDeadlock = 4,     // the network watchdog stopped a run; `hxsim verify` found a cycle
  kInterrupted = 5,  // a signal or --exit-after stopped the run: checkpoint and partial results
                     // written; resume with `hxsim run --restart`
  kMemory = 6,       // an allocation failed (a memory limit, or a run that outgrew the node)
};

/// Bad user input. The message names the key, the value and what was expected.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A model stopped the run because it cannot make progress (the network watchdog); the
/// message is the model's report.
class DeadlockError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The output file or directory cannot be created or written.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace hx
