// A whole run, from a config to an output file: resolve and check the config, build the model,
// partition it, build this rank's part, execute, and write the statistics (DESIGN §1).
#pragma once

#include <mpi.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "core/model.h"
#include "core/params.h"
#include "core/registry.h"
#include "engine/executor.h"
#include "engine/progress.h"
#include "io/checkpoint.h"
#include "partition/cut_report.h"

namespace hx {

/// The [sim] section: parameters of the run itself rather than of a model.
std::vector<ParamSpec> sim_params(const Registry& registry);

/// A config resolved against the registry: typed sections, the built model and the resolved
/// config text. Pure: no MPI, same result on every rank. InputError on any bad input.
/// `team`: the ranks resolving it together, which share the model's start-up analysis
/// (every member must call it with the same config); nullptr: a team of one.
struct ResolvedConfig {
  ParamSet sim;
  std::vector<ParamSet> sections;  // the model's own section first, then its extra sections
  const ModelInfo* info = nullptr;
  std::unique_ptr<Model> model;
  std::string text;  // resolved TOML, every key with its value
  std::string hash;  // 16 hex digits of FNV-1a 64 over `text`
};
ResolvedConfig resolve_config(const Registry& registry, const Config& config,
                              const Team* team = nullptr);

struct RunOptions {
  std::string output;               // empty: write no file
  std::vector<std::string> inputs;  // files the output must not replace (config, trace)
  bool check_memory = true;         // refuse a build the nodes have no memory for
  bool watch_memory = true;         // with check_memory: stop a run that outgrows them (exit 6)
  uint64_t memory_limit = 0;        // resident bytes per rank; 0: its share of its node's
  bool shared_sync = true;          // ranks on one host meet in shared memory (RunControl)
  ProgressMode progress = ProgressMode::kAuto;
  double progress_interval_s = 10.0;

  // Checkpoints and interruptions (docs/OPERATIONS.md).
  std::string checkpoint_dir;                      // empty: default_checkpoint_dir(output)
  SimTime checkpoint_every = SimTime::infinity();  // simulated time between checkpoints
  double checkpoint_every_wall_s = 0;              // wall seconds between checkpoints; 0: none
  int checkpoint_keep = 2;                         // newest checkpoints kept
  double exit_after_s = 0;  // wall seconds after which the run checkpoints and stops; 0: never
  CheckpointReader* restart = nullptr;  // resume from this checkpoint instead of setting up
  /// Requests from outside (signals): RunControl::kCheckpoint | kStop. May be empty.
  std::function<unsigned()> requests;

  // Start-up, for /engine: when the process started (default: when run_simulation was called)
  // and what the command spent before it.
  std::chrono::steady_clock::time_point started{};
  double mpi_init_s = 0;
  double config_s = 0;
};

/// `<output without extension>.ckpt`, or "hxsim.ckpt" without an output file.
std::string default_checkpoint_dir(const std::string& output);

/// What a run reports back to the command line (rank 0's view of the global figures).
struct RunResult {
  CutReport cut;
  EngineStats local;             // this rank
  uint64_t total_events = 0;     // all ranks, since the run began (before a restart too)
  uint64_t restored_events = 0;  // of those, handled before the checkpoint restarted from
  uint64_t total_remote = 0;
  uint64_t total_work = 0;      // all ranks, in this process's run (not before a restart)
  std::string work_unit;        // Model::work_unit (empty: the model has none)
  double max_run_s = 0;         // the slowest rank's executor time
  uint64_t max_peak_rss = 0;    // bytes, the largest rank's resident peak
  uint64_t total_peak_rss = 0;  // bytes, summed over ranks
  uint64_t endpoints = 0;       // Model::endpoints, for per-endpoint figures
  SimTime reached;
  bool interrupted = false;           // stopped early by a request; checkpoint and partial results
  // The memory watch made the request: the first rank that saw its resident memory and what
  // writing its output needs pass its limit, in bytes, and where the limit came from (-1: the
  // watch did not stop the run).
  struct MemoryStop {
    int rank = -1;
    uint64_t resident = 0, reserve = 0, limit = 0;
    std::string source;
  } memory_stop;
  bool ended_early = false;           // the model ended it at an observation (Model::end_early)
  std::string last_checkpoint;        // path of the newest checkpoint written, if any
  std::vector<SummaryValue> summary;  // the model's run-level results (same on every rank)
  std::vector<std::string> report;    // the model's lines for the terminal
};

/// Collective over `comm`. InputError / OutputError / DeadlockError are thrown on every rank
/// alike (a DeadlockError's message is the report, complete on rank 0).
RunResult run_simulation(MPI_Comm comm, const ResolvedConfig& config, const RunOptions& options);

}  // namespace hx
