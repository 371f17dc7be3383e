// hxsim's entry point: parses the command line (CLI11), runs one subcommand, and turns errors
// into one message from rank 0 and the same exit code on every rank (DESIGN §3.8).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>

#include "app/commands.h"
#include "app/interrupts.h"
#include "core/error.h"
#include "core/text.h"
#include "core/version.h"
#include "engine/heap.h"
#include "engine/memory.h"
#include "io/chakra_file.h"
#include "io/fault_file.h"
#include "io/trace_file.h"
#include "models/register_all.h"

namespace {

// CLI::PositiveNumber's message prints its upper limit, the largest double, in 300 digits.
const CLI::Validator kPositive(
    [](std::string& text) {
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      return !text.empty() && *end == '\0' && v > 0 ? std::string()
                                                    : "'" + text + "' is not a number > 0";
    },
    "POSITIVE");

// MPI, brought up when needed. A process that an MPI launcher started (mpirun, srun) brings it
// up at once, as its fellow ranks do; one started alone only for a command that simulates (run,
// bench, sweep, search), so --help, --version, list, topo, validate and verify answer without
// MPI's start-up (a singleton's MPI_Init takes about 0.3 s here: docs/PERFORMANCE.md).
class Mpi {
 public:
  Mpi(int& argc, char**& argv) : argc_(argc), argv_(argv) {
    for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
      if (const char* value = std::getenv(name)) {
        rank_ = std::atoi(value);
        start();
        return;
      }
    }
    rank_ = -1;  // alone: rank 0 of 1, MPI not up yet
  }
  void start() {
    if (up()) return;
    // Alone, Open MPI starts its runtime daemon (orted) for a world of one. Its "isolated"
    // singleton would not (0.09 s less), but every isolated singleton shares one session
    // directory, which the first to finish removes under the others (measured: MPI-IO errors
    // in concurrent runs), so it is not used. A world of one talks to nobody, so it takes the
    // plain point-to-point layer (ob1): choosing one otherwise opens the cm layer, whose PSM and
    // PSM2 transports probe for Omni-Path hardware (0.2 s of a 0.3 s MPI_Init here). A user's
    // own OMPI_MCA_pml wins.
    if (rank_ < 0) setenv("OMPI_MCA_pml", "ob1", /*overwrite=*/0);
    const auto before = std::chrono::steady_clock::now();
    MPI_Init(&argc_, &argv_);
    init_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count();
    comm_ = MPI_COMM_WORLD;
    MPI_Comm_rank(comm_, &rank_);
  }
  bool up() const { return comm_ != MPI_COMM_NULL; }
  MPI_Comm comm() const { return comm_; }  // MPI_COMM_NULL until started
  int rank() const { return rank_ < 0 ? 0 : rank_; }
  double init_s() const { return init_s_; }  // MPI_Init's wall time

 private:
  int& argc_;
  char**& argv_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;  // -1 until MPI is up in a process started alone
  double init_s_ = 0;
};

int dispatch(int argc, char** argv, Mpi& mpi, std::chrono::steady_clock::time_point started) {
  const int rank = mpi.rank();
  hx::Registry registry;
  hx::register_all_models(registry, {.read_trace = hx::read_trace_file,
                                     .read_chakra = hx::read_chakra_trace,
                                     .read_chakra_groups = hx::read_chakra_groups,
                                     .read_faults = hx::read_fault_hdf5});

  CLI::App app{"hxsim: parallel discrete-event simulator for hyper-scale interconnects"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("hxsim ") + hx::kVersion + " (" + hx::kGitHash +
                                        ")\nallocator: " + hx::heap_allocator());

  hx::RunArgs run;
  auto add_run_options = [&run](CLI::App* sub) {
    sub->add_option("-o,--output", run.output, "output HDF5 file (default: <config name>.h5)");
    sub->add_option("--set", run.overrides, "override a config value: --set phold.lps=1000")
        ->take_all();
    sub->add_option("--progress", run.progress, "progress reports: auto, tty, lines or off")
        ->capture_default_str();
    sub->add_option("--progress-interval", run.progress_interval_s,
                    "seconds between progress lines in batch logs")
        ->capture_default_str()
        ->check(kPositive);
    sub->add_option("--checkpoint-dir", run.checkpoint_dir,
                    "where checkpoints go (default: <output>.ckpt)");
    sub->add_option("--checkpoint-every", run.checkpoint_every,
                    "checkpoint every simulated time (\"50us\") or wall time (\"wall:30m\")");
    sub->add_option("--checkpoint-keep", run.checkpoint_keep, "newest checkpoints to keep")
        ->capture_default_str()
        ->check(kPositive);
    sub->add_option("--exit-after", run.exit_after,
                    "after this wall time (\"90m\", \"1:30:00\"): checkpoint, write partial "
                    "results and exit with code 5");
    sub->add_option("--on-sigusr1", run.on_sigusr1, "checkpoint, stop or ignore")
        ->capture_default_str();
    sub->add_option("--on-sigusr2", run.on_sigusr2, "checkpoint, stop or ignore")
        ->capture_default_str();
    sub->add_option("--sync", run.sync,
                    "how ranks meet at window boundaries: auto (shared memory when every rank "
                    "is on one host, else MPI) or mpi")
        ->capture_default_str()
        ->check(CLI::IsMember({"auto", "mpi"}));
    sub->add_flag("--ignore-memory-check", run.ignore_memory_check,
                  "build the model even if its estimated memory exceeds what the nodes have, "
                  "and let it grow past them");
    sub->add_option("--memory-limit", run.memory_limit,
                    "resident memory each rank may use (\"20GiB\"); past it the run stops with "
                    "a checkpoint, results so far and exit code 6 (default: its share of its "
                    "node's)");
  };

  CLI::App* run_cmd = app.add_subcommand("run", "run a simulation (no CONFIG: the quickstart)");
  run_cmd->add_option("config", run.config, "TOML config file");
  add_run_options(run_cmd);
  run_cmd->add_option("--restart", run.restart,
                      "resume from a checkpoint (or a checkpoint directory's latest); CONFIG "
                      "may then be omitted");
  run_cmd->footer(
      "Signals: SIGTERM or SIGINT stops at the next window boundary: a checkpoint, results so far\n"
      "(root attribute complete = 0) and exit code 5; a second one exits at once. SIGUSR1 and\n"
      "SIGUSR2 do what --on-sigusr1/--on-sigusr2 say. Resume with: hxsim run --restart DIR.");

  std::string bench_target = "phold";
  CLI::App* bench_cmd = app.add_subcommand("bench", "run a benchmark and report events/s");
  bench_cmd->add_option("benchmark", bench_target, "built-in benchmark (phold) or a config file")
      ->capture_default_str();
  add_run_options(bench_cmd);
  bench_cmd->add_flag("--no-output", run.no_output, "write no HDF5 file (the default for bench)");

  std::string validate_config;
  int validate_ranks = 0;
  std::vector<std::string> validate_overrides;
  CLI::App* validate_cmd =
      app.add_subcommand("validate", "check a config, print it resolved and the partition's cut");
  validate_cmd->add_option("config", validate_config, "TOML config file")->required();
  validate_cmd->add_option("--set", validate_overrides, "override a config value")->take_all();
  validate_cmd
      ->add_option("--ranks", validate_ranks, "rank count to partition for (default: this run's)")
      ->check(kPositive);

  hx::SweepArgs sweep;
  CLI::App* sweep_cmd = app.add_subcommand(
      "sweep",
      "raise a network's offered load until it saturates; write the latency-throughput "
      "curve and the saturation throughput");
  sweep_cmd->add_option("config", sweep.config, "TOML config file of a network model")->required();
  sweep_cmd->add_option("-o,--output", sweep.output,
                        "output HDF5 file (default: <config>_sweep.h5)");
  sweep_cmd->add_option("--set", sweep.overrides, "override a config value")->take_all();
  sweep_cmd->add_option("--start", sweep.sweep.start, "first offered load (flits/cycle/endpoint)")
      ->capture_default_str()
      ->check(kPositive);
  sweep_cmd->add_option("--step", sweep.sweep.step, "load increment until saturation")
      ->capture_default_str()
      ->check(kPositive);
  sweep_cmd->add_option("--max", sweep.sweep.max, "highest load to try")
      ->capture_default_str()
      ->check(kPositive);
  sweep_cmd
      ->add_option("--refine", sweep.sweep.refine,
                   "bisection steps between the last unsaturated and first saturated load")
      ->capture_default_str()
      ->check(CLI::Range(0, 20));
  sweep_cmd->add_flag("--ignore-memory-check", sweep.ignore_memory_check,
                      "build each point even if its estimated memory exceeds what the nodes have");
  sweep_cmd->footer(
      "Saturation: a load is saturated when the accepted load falls more than 5% short of the "
      "offered load, or the mean latency exceeds 10x that of the first load, or no measured "
      "packet arrives, or the run is unstable (its source queues grow through the window; such "
      "a run ends at the first queue sample that finds it so, marked * after sim_us). The "
      "saturation throughput is the highest accepted load of any run.");

  hx::SearchArgs search;
  CLI::App* search_cmd = app.add_subcommand(
      "search",
      "find the best parallelism of an LLM config on its cluster: rank every plan of its "
      "[search] space by an α–β estimate, run the best at flow level");
  search_cmd->add_option("config", search.config, "TOML config with workload.kind = \"llm\"")
      ->required();
  search_cmd->add_option("-o,--output", search.output,
                         "output HDF5 file (default: <config>_search.h5; a .csv beside it)");
  search_cmd->add_option("--set", search.overrides, "override a config value")->take_all();

  std::string verify_config;
  std::vector<std::string> verify_overrides;
  CLI::App* verify_cmd =
      app.add_subcommand("verify",
                         "check that a network's routing cannot deadlock (exit code 4 "
                         "if it can)");
  verify_cmd->footer(
      "Builds the channel dependency graph of the routing over every pair of endpoints (for an\n"
      "adaptive routing: the dependencies on its escape candidates) and prints a cycle if there\n"
      "is one, one channel per line. Sources are shared out over the MPI ranks.\n"
      "Exit codes: 0 acyclic; 4 a cycle, or a packet state offered no escape candidate (the\n"
      "routing can deadlock); 1 the routing is broken (a path dead-ends, exceeds the hop bound\n"
      "or reaches the wrong endpoint); 2 bad input.");
  verify_cmd->add_option("config", verify_config, "TOML config file of a network model")
      ->required();
  verify_cmd->add_option("--set", verify_overrides, "override a config value")->take_all();
  std::string verify_progress = "auto";
  double verify_interval_s = 10.0;
  verify_cmd
      ->add_option("--progress", verify_progress,
                   "share of the sources explored: auto, tty, lines or off")
      ->capture_default_str();
  verify_cmd
      ->add_option("--progress-interval", verify_interval_s,
                   "seconds between progress lines in batch logs")
      ->capture_default_str()
      ->check(kPositive);

  std::string topo_config;
  std::vector<std::string> topo_overrides;
  bool topo_json = false;
  CLI::App* topo_cmd = app.add_subcommand(
      "topo", "print a network's closed forms: sizes, throughput bounds, diameter, hop energy");
  topo_cmd->add_option("config", topo_config, "TOML config file of a network model")->required();
  topo_cmd->add_option("--set", topo_overrides, "override a config value")->take_all();
  topo_cmd->add_flag("--json", topo_json, "print JSON instead of a table");
  // The models with closed forms, and a flag per further report a family registers.
  std::vector<std::string> topo_models;
  std::map<std::string, bool> topo_reports;
  for (const hx::ModelInfo& m : registry.models()) {
    for (const hx::ClosedFormsSpec& s : m.closed_forms) {
      if (s.flag.empty()) {
        topo_models.push_back(m.name);
      } else if (topo_reports.count(s.flag) == 0) {
        topo_cmd->add_flag("--" + s.flag, topo_reports[s.flag],
                           m.name + ": " + s.help + " instead");
      }
    }
  }
  topo_cmd->footer(
      "Formulas of the papers (docs/models/analytic.md); nothing is simulated.\n"
      "Models with closed forms: " +
      hx::join(topo_models) + ". Other models: exit code 2.");

  std::string list_model;
  CLI::App* list_cmd = app.add_subcommand("list", "list models with their parameters and outputs");
  list_cmd->add_option("model", list_model, "only this model");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return rank == 0 ? app.exit(e) : 0;
  } catch (const CLI::CallForAllHelp& e) {
    return rank == 0 ? app.exit(e) : 0;
  } catch (const CLI::CallForVersion& e) {
    return rank == 0 ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    // CLI11 reports a mistyped command as "a subcommand is required"; name the word instead.
    const std::string first = argc > 1 ? argv[1] : "";
    const auto known =
        app.get_subcommands([&first](CLI::App* sub) { return sub->get_name() == first; });
    if (!first.empty() && first[0] != '-' && known.empty()) {
      throw hx::InputError(
          std::string("unknown command '") + argv[1] +
          "'; expected run, bench, sweep, search, validate, verify, topo or list (see hxsim "
          "--help)");
    }
    throw hx::InputError(e.what() + std::string(" (see hxsim --help)"));
  }

  // Only a run handles the signals held since main began (hold_signals); the other commands
  // take them as they would have.
  if (!*run_cmd) hx::release_signals();
  if (*run_cmd || *bench_cmd || *sweep_cmd || *search_cmd) mpi.start();
  run.started = started;
  run.mpi_init_s = mpi.init_s();
  const MPI_Comm comm = mpi.comm();
  if (*run_cmd) return hx::command_run(comm, registry, run);
  if (*bench_cmd) return hx::command_bench(comm, registry, bench_target, run);
  if (*validate_cmd) {
    return hx::command_validate(comm, registry, validate_config, validate_overrides,
                                validate_ranks);
  }
  if (*sweep_cmd) return hx::command_sweep(comm, registry, sweep);
  if (*search_cmd) return hx::command_search(comm, registry, search);
  if (*verify_cmd) {
    return hx::command_verify(comm, registry, verify_config, verify_overrides,
                              hx::parse_progress_mode(verify_progress), verify_interval_s);
  }
  if (*topo_cmd) {
    std::string report;
    for (const auto& [flag, set] : topo_reports) {
      if (set && !report.empty()) throw hx::InputError("hxsim topo: one report at a time");
      if (set) report = flag;
    }
    return hx::command_topo(comm, registry, topo_config, topo_overrides, topo_json, report);
  }
  return hx::command_list(comm, registry, list_model);
}

}  // namespace

int main(int argc, char** argv) {
  const auto started = std::chrono::steady_clock::now();
  hx::hold_signals();  // before MPI_Init, which an MPI launcher's ranks run at once
  Mpi mpi(argc, argv);
  int code = static_cast<int>(hx::ExitCode::kOk);
  try {
    code = dispatch(argc, argv, mpi, started);
  } catch (const hx::InputError& e) {
    // Input is checked identically on every rank, so every rank gets here; rank 0 speaks.
    if (mpi.rank() == 0) std::cerr << "hxsim: error: " << e.what() << "\n";
    code = static_cast<int>(hx::ExitCode::kInput);
  } catch (const hx::DeadlockError& e) {
    // The network watchdog's report, gathered to rank 0.
    if (mpi.rank() == 0) std::cerr << "hxsim: error: " << e.what() << "\n";
    code = static_cast<int>(hx::ExitCode::kDeadlock);
  } catch (const hx::OutputError& e) {
    if (mpi.rank() == 0) std::cerr << "hxsim: error: " << e.what() << "\n";
    code = static_cast<int>(hx::ExitCode::kOutput);
  } catch (const std::bad_alloc&) {
    // Not a bug as such: the run outgrew what this process may allocate (a ulimit, a job's
    // memory limit, or events and flows in flight beyond what the build-time estimate covers).
    std::cerr << "hxsim: error: out of memory on rank " << mpi.rank() << " (resident peak "
              << hx::peak_rss_bytes() / (1024 * 1024)
              << " MiB): the run needs more memory than this process may allocate; use more "
                 "ranks or nodes, a smaller model or workload, or raise the memory limit\n";
    int ranks = 1;
    if (mpi.up()) MPI_Comm_size(mpi.comm(), &ranks);
    // Other ranks may be waiting in a collective: stop them too.
    if (ranks > 1) MPI_Abort(mpi.comm(), static_cast<int>(hx::ExitCode::kMemory));
    if (mpi.up()) MPI_Finalize();
    return static_cast<int>(hx::ExitCode::kMemory);
  } catch (const std::exception& e) {
    // Not an input problem: other ranks may be waiting in a collective, so abort them all.
    std::cerr << "hxsim: internal error on rank " << mpi.rank() << ": " << e.what() << "\n";
    if (mpi.up()) MPI_Abort(mpi.comm(), static_cast<int>(hx::ExitCode::kInternal));
    return static_cast<int>(hx::ExitCode::kInternal);
  }
  std::cout.flush();
  if (mpi.up()) MPI_Finalize();
  return code;
}
