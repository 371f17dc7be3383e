// `hxsim sweep`: the latency-throughput curve of a network config up to saturation, printed and
// written to one HDF5 file (docs/OUTPUT.md, "Sweep files").
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "app/commands.h"
#include "core/error.h"
#include "core/version.h"
#include "engine/run.h"
#include "engine/sweep.h"
#include "io/config_file.h"
#include "io/hdf5_output.h"

namespace hx {
namespace {

TableSpec sweep_table() {
  using T = ColumnType;
  return {"sweep",
          "point",
          "one row per offered load run, ascending",
          {
              {"target_load", T::kF64, "flits/cycle/endpoint", "traffic.load of the run"},
              {"offered_load", T::kF64, "flits/cycle/endpoint", "measured offered load"},
              {"accepted_load", T::kF64, "flits/cycle/endpoint", "measured accepted load"},
              {"latency_mean_ps", T::kF64, "ps", "mean packet latency (creation to tail)"},
              {"latency_p50_ps", T::kI64, "ps", "median: the upper edge of its latency bin"},
              {"latency_p99_ps", T::kI64, "ps", "99th percentile, as the median"},
              {"network_latency_mean_ps", T::kF64, "ps", "mean injection-to-tail latency"},
              {"hops_mean", T::kF64, "1", "mean router-to-router hops"},
              {"saturated", T::kU64, "1", "1 if the point met the saturation criterion"},
              {"events", T::kU64, "1", "events the run handled"},
              {"unstable", T::kU64, "1", "1 if its source queues grew without bound (saturated)"},
              {"sim_time_ps", T::kI64, "ps", "simulated time the run got to"},
              {"ended_early", T::kU64, "1",
               "1 if it ended as soon as it was found unstable, before its end"},
          }};
}

}  // namespace

int command_sweep(MPI_Comm comm, const Registry& registry, const SweepArgs& args) {
  Config config = load_config_file(args.config);
  for (const std::string& s : args.overrides) apply_override(config, s);
  const ResolvedConfig base = resolve_config(registry, config);  // InputErrors before any run
  const SweepMetrics& metrics = base.info->sweep;
  if (metrics.load.empty()) {
    throw InputError("hxsim sweep needs a network model (it varies the offered load); model '" +
                     base.info->name + "' is not one");
  }
  if (const auto eq = metrics.load_applies.find('='); eq != std::string::npos) {
    const std::string key = metrics.load_applies.substr(0, eq);
    const std::string wanted = metrics.load_applies.substr(eq + 1);
    const std::string section = key.substr(0, key.find('.'));
    for (const ParamSet& set : base.sections) {
      if (set.section() != section) continue;
      const std::string& value = set.text(key.substr(section.size() + 1));
      if (value != wanted) {
        throw InputError("hxsim sweep varies " + metrics.load + ", which only " + key + " = '" +
                         wanted + "' uses; this config has " + key + " = '" + value +
                         "', whose runs would not change with it");
      }
    }
  }
  const std::string output = args.output.empty()
                                 ? std::filesystem::path(args.config).stem().string() + "_sweep.h5"
                                 : args.output;
  check_output_path(comm, output, input_files(args.config, config));
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);

  if (rank == 0) {
    std::printf("hxsim sweep: %s, %s\n  %s\n", base.info->name.c_str(), args.config.c_str(),
                saturation_criterion(args.sweep, metrics).c_str());
    std::printf("  %10s %10s %10s %12s %10s %10s %6s %10s %s\n", "load", "offered", "accepted",
                "latency_ns", "p99_ns", "hops", "sat", "sim_us", "wall_s");
    std::fflush(stdout);
  }
  SweepOptions options = args.sweep;
  options.check_memory = !args.ignore_memory_check;
  const SweepResult result =
      run_sweep(comm, registry, config, metrics, options, [&](const SweepPoint& p) {
        if (rank != 0) return;
        std::printf("  %10.4f %10.4f %10.4f %12.1f %10.1f %10.3f %6s %9.2f%s %.2f\n", p.target,
                    p.offered, p.accepted, p.latency_mean_ps / 1000.0,
                    static_cast<double>(p.latency_p99_ps) / 1000.0, p.hops_mean,
                    p.unstable ? "unst" : p.saturated ? "yes" : "no",
                    static_cast<double>(p.reached.count_ps()) / 1e6, p.ended_early ? "*" : " ",
                    p.wall_s);
        std::fflush(stdout);
      });

  Table table(sweep_table());
  if (rank == 0) {
    for (std::size_t i = 0; i < result.points.size(); ++i) {
      const SweepPoint& p = result.points[i];
      table.add_row(i, {p.target, p.offered, p.accepted, p.latency_mean_ps, p.latency_p50_ps,
                        p.latency_p99_ps, p.network_latency_mean_ps, p.hops_mean,
                        uint64_t{p.saturated ? 1u : 0u}, p.events,
                        uint64_t{p.unstable ? 1u : 0u}, p.reached.count_ps(),
                        uint64_t{p.ended_early ? 1u : 0u}});
    }
  }
  OutputContent content;
  content.texts.push_back({"/config", base.text});
  content.attributes = {
      {"/", "hxsim_version", std::string(kVersion)},
      {"/", "git_hash", std::string(kGitHash)},
      {"/", "config_hash", base.hash},
      {"/", "model", base.info->name},
      {"/", "seed", base.sim.integer("seed")},
      {"/", "ranks", static_cast<int64_t>(ranks)},
      {"/", "kind", std::string("sweep")},
      {"/summary", "saturation_load", result.saturation_load},
      {"/summary", "saturation_throughput", result.saturation_throughput},
      {"/summary", "reached_max_load", int64_t{result.reached_max ? 1 : 0}},
      {"/summary", "criterion", saturation_criterion(args.sweep, metrics)},
  };
  content.tables = {&table};
  write_output(comm, output, content);
  if (rank == 0) {
    if (std::any_of(result.points.begin(), result.points.end(),
                    [](const SweepPoint& p) { return p.ended_early; })) {
      std::printf("  *: ended at sim_us, as soon as its source queues were found unstable\n");
    }
    std::printf(
        "  saturation throughput %.4g flits/cycle/endpoint (highest accepted load); "
        "highest unsaturated offered load %.4g%s\n  output: %s\n",
        result.saturation_throughput, result.saturation_load,
        result.reached_max ? " (never saturated up to --max)" : "", output.c_str());
  }
  return 0;
}

}  // namespace hx
