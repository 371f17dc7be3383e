// The subcommands of the hxsim executable. Each is collective over MPI_COMM_WORLD and returns
// the process exit code; bad input is thrown as InputError/OutputError and handled in main().
// A process started alone (no MPI launcher) runs validate, verify, topo and list without MPI:
// their `comm` is then MPI_COMM_NULL, one rank, and they make no MPI call (main.cpp).
#pragma once

#include <mpi.h>

#include <chrono>
#include <string>
#include <vector>

#include "core/params.h"
#include "core/registry.h"
#include "engine/progress.h"
#include "engine/sweep.h"

namespace hx {

/// This process's rank and the rank count in `comm`; MPI_COMM_NULL: rank 0 of 1, MPI not up.
inline int comm_rank(MPI_Comm comm) {
  int rank = 0;
  if (comm != MPI_COMM_NULL) MPI_Comm_rank(comm, &rank);
  return rank;
}
inline int comm_size(MPI_Comm comm) {
  int size = 1;
  if (comm != MPI_COMM_NULL) MPI_Comm_size(comm, &size);
  return size;
}

struct RunArgs {
  std::string config;  // empty: the built-in quickstart
  std::string output;
  std::vector<std::string> overrides;
  std::string progress = "auto";
  double progress_interval_s = 10.0;
  bool no_output = false;
  bool ignore_memory_check = false;
  std::string memory_limit;   // resident memory per rank ("20GiB"); empty: its node's share
  std::string sync = "auto";  // auto: shared memory when every rank shares a host; mpi
  // Checkpoints and interruptions (docs/OPERATIONS.md).
  std::string restart;           // a checkpoint, or a checkpoint directory (its latest)
  std::string checkpoint_dir;    // default: <output>.ckpt
  std::string checkpoint_every;  // simulated time ("50us") or "wall:<duration>"
  int checkpoint_keep = 2;
  std::string exit_after;  // wall-clock duration
  std::string on_sigusr1 = "checkpoint";
  std::string on_sigusr2 = "stop";
  // Start-up (main.cpp), for /engine: when the process started, and MPI_Init's wall time.
  std::chrono::steady_clock::time_point started{};
  double mpi_init_s = 0;
};

int command_run(MPI_Comm comm, const Registry& registry, const RunArgs& args);
/// The files a run reads, which its output must not replace: the config file (if any) and every
/// config value that names an existing file (a trace).
std::vector<std::string> input_files(const std::string& config_path, const Config& config);
/// `name_or_config`: a built-in benchmark name ("phold") or a config file.
int command_bench(MPI_Comm comm, const Registry& registry, const std::string& name_or_config,
                  const RunArgs& args);
int command_validate(MPI_Comm comm, const Registry& registry, const std::string& config,
                     const std::vector<std::string>& overrides, int ranks);
int command_list(MPI_Comm comm, const Registry& registry, const std::string& model);
/// Checks the configured network's routing for deadlock (its channel dependency graph); returns
/// 0 when deadlock-free, ExitCode::kDeadlock when a cycle (printed) or a packet state without
/// escape candidate was found, ExitCode::kInternal when a path of the routing is broken. The
/// same code on every rank.
struct SweepArgs {
  std::string config;
  std::string output;  // default: <config name>_sweep.h5
  std::vector<std::string> overrides;
  SweepOptions sweep;
  bool ignore_memory_check = false;
};
int command_sweep(MPI_Comm comm, const Registry& registry, const SweepArgs& args);

/// `hxsim search`: the [search] space of an LLM config, ranked, the best plans run
/// (docs/workloads/llm_search.md).
struct SearchArgs {
  std::string config;
  std::string output;  // default: <config name>_search.h5 (and .csv beside it)
  std::vector<std::string> overrides;
};
int command_search(MPI_Comm comm, const Registry& registry, const SearchArgs& args);

int command_verify(MPI_Comm comm, const Registry& registry, const std::string& config,
                   const std::vector<std::string>& overrides, ProgressMode progress,
                   double progress_interval_s);

/// Prints the closed forms the configured model registers (a table, or JSON): the report of
/// ClosedFormsSpec::flag `report` ("": the default one); InputError for a model without it.
int command_topo(MPI_Comm comm, const Registry& registry, const std::string& config,
                 const std::vector<std::string>& overrides, bool json, const std::string& report);

}  // namespace hx
