// `hxsim run` and `hxsim bench`: load a config (or a built-in one), run it, print a summary.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "app/builtin_configs.h"
#include "app/commands.h"
#include "app/interrupts.h"
#include "core/error.h"
#include "engine/mpi_team.h"
#include "engine/run.h"
#include "io/config_file.h"

namespace hx {
namespace {

Config load(const std::string& path_or_text, bool is_text, const std::vector<std::string>& sets) {
  Config config =
      is_text ? parse_config_text(path_or_text, "built-in config") : load_config_file(path_or_text);
  for (const std::string& s : sets) apply_override(config, s);
  return config;
}

void print_summary(const char* what, const ResolvedConfig& config, const RunResult& r, int ranks,
                   const std::string& output) {
  const uint64_t events = r.total_events - r.restored_events;  // handled by this process
  const double rate = r.max_run_s > 0 ? static_cast<double>(events) / r.max_run_s : 0.0;
  std::printf("hxsim %s: model %s, %d rank(s), partition cut %llu of %llu links, lookahead %s%s\n",
              what, config.info->name.c_str(), ranks,
              static_cast<unsigned long long>(r.cut.links_cut),
              static_cast<unsigned long long>(r.cut.links), format_time(r.cut.lookahead).c_str(),
              ranks == 1            ? ""
              : r.local.shared_sync ? ", ranks meet in shared memory"
                                    : ", ranks meet through MPI");
  std::printf("  simulated %s: %llu events (%llu across ranks) in %.3f s wall = %.4g events/s\n",
              format_time(r.reached).c_str(), static_cast<unsigned long long>(events),
              static_cast<unsigned long long>(r.total_remote), r.max_run_s, rate);
  if (!r.work_unit.empty()) {
    std::string unit = r.work_unit;  // packet_hops -> packet-hops
    std::replace(unit.begin(), unit.end(), '_', '-');
    std::printf("  %llu %s = %.4g %s/s\n", static_cast<unsigned long long>(r.total_work),
                unit.c_str(), r.max_run_s > 0 ? static_cast<double>(r.total_work) / r.max_run_s : 0.0,
                unit.c_str());
  }
  const double mib = 1024.0 * 1024.0;
  std::printf("  peak memory %.1f MiB on the largest rank, %.1f MiB in all",
              static_cast<double>(r.max_peak_rss) / mib, static_cast<double>(r.total_peak_rss) / mib);
  if (r.endpoints > 0) {
    std::printf(" (%.1f KiB per endpoint)",
                static_cast<double>(r.total_peak_rss) / 1024.0 / static_cast<double>(r.endpoints));
  }
  std::printf("\n");
  std::printf(
      "  start-up on rank 0: MPI init %.3f s, config %.3f s, build %.3f s; first event "
      "%.3f s after the process started\n",
      r.local.mpi_init_s, r.local.config_s, r.local.build_s, r.local.start_s);
  if (r.restored_events > 0) {
    std::printf("  resumed from a checkpoint: %llu events in all\n",
                static_cast<unsigned long long>(r.total_events));
  }
  // A model's warnings (an unstable network run) go to stderr, where scripts and logs see them.
  for (const std::string& line : r.report) {
    std::fprintf(line.rfind("warning:", 0) == 0 ? stderr : stdout, "  %s\n", line.c_str());
  }
  if (!output.empty()) std::printf("  output: %s\n", output.c_str());
  std::fflush(stdout);
}

// A NaN result is a mean over nothing: said on stderr, so that it is not taken for a measurement
// that went wrong, nor missed by whoever reads only the exit code.
void warn_undefined(const RunResult& r) {
  std::string names;
  for (const SummaryValue& v : r.summary) {
    const double* x = std::get_if<double>(&v.value);
    if (x && std::isnan(*x)) names += (names.empty() ? "" : ", ") + v.name;
  }
  if (names.empty()) return;
  std::fprintf(stderr,
               "hxsim: warning: /summary %s: NaN, an average over nothing (in a network run: no "
               "measured packet was delivered: none sent, a window too short, or past "
               "saturation); see docs/OUTPUT.md\n",
               names.c_str());
}

// `cycle_time` converts a --checkpoint-every given in cycles.
RunOptions options_from(const RunArgs& args, std::string output, std::vector<std::string> inputs,
                        SimTime cycle_time, CheckpointReader* restart) {
  RunOptions o;
  o.output = std::move(output);
  o.inputs = std::move(inputs);
  o.check_memory = !args.ignore_memory_check;
  if (!args.memory_limit.empty()) {
    o.memory_limit = parse_bytes("--memory-limit", args.memory_limit).count();
    if (o.memory_limit == 0) {
      throw InputError("--memory-limit = '" + args.memory_limit + "': expected > 0");
    }
  }
  o.shared_sync = args.sync == "auto";
  o.progress = parse_progress_mode(args.progress);
  o.progress_interval_s = args.progress_interval_s;
  o.checkpoint_dir = args.checkpoint_dir;
  o.checkpoint_keep = args.checkpoint_keep;
  const std::string wall = "wall:";
  if (args.checkpoint_every.rfind(wall, 0) == 0) {
    o.checkpoint_every_wall_s =
        parse_wall_duration(args.checkpoint_every.substr(wall.size()), "--checkpoint-every");
  } else if (!args.checkpoint_every.empty()) {
    o.checkpoint_every = parse_time("--checkpoint-every", args.checkpoint_every, cycle_time);
    if (o.checkpoint_every <= SimTime::zero() || o.checkpoint_every.is_infinite()) {
      throw InputError("--checkpoint-every = '" + args.checkpoint_every +
                       "': expected a finite time > 0");
    }
  }
  if (!args.exit_after.empty())
    o.exit_after_s = parse_wall_duration(args.exit_after, "--exit-after");
  o.restart = restart;
  install_signal_handlers(parse_signal_action(args.on_sigusr1, "--on-sigusr1"),
                          parse_signal_action(args.on_sigusr2, "--on-sigusr2"));
  o.requests = take_signal_requests;
  o.started = args.started;
  o.mpi_init_s = args.mpi_init_s;
  return o;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Rank 0's word on an interrupted run; returns the exit code.
int report_interrupted(int rank, const RunResult& r, const std::string& output) {
  if (r.memory_stop.rank >= 0) {
    if (rank == 0) {
      const RunResult::MemoryStop& m = r.memory_stop;
      std::fprintf(stderr,
                   "hxsim: error: out of memory: rank %d held %.1f MiB and needs %.1f MiB more "
                   "to write its output, past its limit of %.1f MiB (%s); "
                   "stopped at %s with a checkpoint and results so far in %s (complete = 0)\n"
                   "  resume with more memory per rank (fewer ranks per node, on more nodes): "
                   "hxsim run --restart %s\n",
                   m.rank, static_cast<double>(m.resident) / (1 << 20),
                   static_cast<double>(m.reserve) / (1 << 20),
                   static_cast<double>(m.limit) / (1 << 20), m.source.c_str(),
                   format_time(r.reached).c_str(), output.empty() ? "(no output)" : output.c_str(),
                   r.last_checkpoint.c_str());
    }
    return static_cast<int>(ExitCode::kMemory);
  }
  if (rank == 0) {
    std::printf(
        "hxsim: stopped early at %s; results so far in %s (complete = 0)\n"
        "  resume with: hxsim run --restart %s\n",
        format_time(r.reached).c_str(), output.empty() ? "(no output)" : output.c_str(),
        r.last_checkpoint.c_str());
    std::fflush(stdout);
  }
  return static_cast<int>(ExitCode::kInterrupted);
}

}  // namespace

std::vector<std::string> input_files(const std::string& config_path, const Config& config) {
  std::vector<std::string> files;
  if (!config_path.empty()) files.push_back(config_path);
  for (const Config::Entry& e : config.entries()) {
    std::error_code ec;
    // Only scalars name files (a trace, a workload file).
    const ConfigValue& v = e.value;
    if (v.kind != ConfigValue::Kind::kScalar || v.text.empty()) continue;
    if (std::filesystem::is_regular_file(v.text, ec)) files.push_back(v.text);
  }
  return files;
}

int command_run(MPI_Comm comm, const Registry& registry, const RunArgs& args) {
  // A restart without a config file runs the config the checkpoint holds.
  std::unique_ptr<CheckpointReader> restart;
  const auto config_start = std::chrono::steady_clock::now();
  if (!args.restart.empty()) restart = std::make_unique<CheckpointReader>(args.restart);
  const bool from_checkpoint = restart && args.config.empty();
  const bool builtin = args.config.empty() && !restart;
  const MpiTeam team(comm);
  Config raw;
  if (from_checkpoint) {
    raw = parse_config_text(restart->config_text(), "config of checkpoint " + restart->path());
    for (const std::string& s : args.overrides) apply_override(raw, s);
  } else {
    raw = load(builtin ? kQuickstartConfig : args.config, builtin, args.overrides);
  }
  const ResolvedConfig config = resolve_config(registry, raw, &team);
  std::string output = args.output;
  if (output.empty()) {
    output = from_checkpoint ? restart->manifest().output
             : builtin       ? "quickstart.h5"
                             : std::filesystem::path(args.config).stem().string() + ".h5";
  }
  RunOptions options = options_from(args, output, input_files(args.config, raw),
                                    config.sim.time("cycle_time"), restart.get());
  options.config_s = seconds_since(config_start);
  const RunResult r = run_simulation(comm, config, options);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  if (rank == 0) {
    print_summary("run", config, r, ranks, output);
    warn_undefined(r);
  }
  return r.interrupted ? report_interrupted(rank, r, output) : 0;
}

int command_bench(MPI_Comm comm, const Registry& registry, const std::string& name_or_config,
                  const RunArgs& args) {
  const auto config_start = std::chrono::steady_clock::now();
  const bool builtin = name_or_config == "phold";
  const Config raw = load(builtin ? kBenchPholdConfig : name_or_config, builtin, args.overrides);
  const MpiTeam team(comm);
  const ResolvedConfig config = resolve_config(registry, raw, &team);
  const std::string output = args.no_output ? "" : args.output;
  RunOptions options = options_from(args, output, input_files(builtin ? "" : name_or_config, raw),
                                    config.sim.time("cycle_time"), nullptr);
  options.config_s = seconds_since(config_start);
  const RunResult r = run_simulation(comm, config, options);

  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  // Per-rank lines, gathered so rank 0 prints them in rank order.
  const double mine[6] = {static_cast<double>(r.local.events), r.local.run_s, r.local.exchange_s,
                          r.local.reduce_s, static_cast<double>(r.local.remote_sent),
                          static_cast<double>(r.local.work)};
  std::vector<double> all(static_cast<std::size_t>(6 * ranks));
  MPI_Gather(mine, 6, MPI_DOUBLE, all.data(), 6, MPI_DOUBLE, 0, comm);
  if (rank == 0) {
    print_summary("bench", config, r, ranks, output);
    warn_undefined(r);
    for (int i = 0; i < ranks; ++i) {
      const double* v = &all[static_cast<std::size_t>(6 * i)];
      std::printf(
          "  rank %d: %.0f events, run %.3f s (exchange %.3f s, reduce %.3f s), "
          "%.0f sent to other ranks, %.4g events/s",
          i, v[0], v[1], v[2], v[3], v[4], v[1] > 0 ? v[0] / v[1] : 0.0);
      if (!r.work_unit.empty()) std::printf(", %.4g %s/s", v[1] > 0 ? v[5] / v[1] : 0.0, r.work_unit.c_str());
      std::printf("\n");
    }
    std::fflush(stdout);
  }
  return r.interrupted ? report_interrupted(rank, r, output) : 0;
}

}  // namespace hx
