// Run orchestration and the assembly of the output file's run-level content.
#include "engine/run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "core/error.h"
#include "core/text.h"
#include "core/version.h"
#include "engine/checkpoint.h"
#include "engine/heap.h"
#include "engine/memory.h"
#include "engine/memory_watch.h"
#include "engine/output_tables.h"
#include "engine/table_reduce.h"
#include "io/collective.h"
#include "io/config_file.h"
#include "io/hdf5_output.h"
#include "partition/partitioner.h"

namespace hx {
namespace {

using Clock = std::chrono::steady_clock;

// The global lookahead and cut, from each rank's own analysis.
CutReport reduce_cut(MPI_Comm comm, const RankCut& mine) {
  int ranks = 0;
  MPI_Comm_size(comm, &ranks);
  uint64_t sums[3] = {mine.ports, mine.cut_ports, mine.weight};
  uint64_t totals[3];
  MPI_Allreduce(sums, totals, 3, MPI_UINT64_T, MPI_SUM, comm);
  uint64_t max_weight = 0;
  MPI_Allreduce(&mine.weight, &max_weight, 1, MPI_UINT64_T, MPI_MAX, comm);
  int64_t latency = mine.min_cut_latency.count_ps();
  int64_t lookahead = 0;
  MPI_Allreduce(&latency, &lookahead, 1, MPI_INT64_T, MPI_MIN, comm);

  CutReport cut;
  cut.ranks = ranks;
  cut.links = totals[0] / 2;
  cut.links_cut = totals[1] / 2;
  cut.lookahead = SimTime::ps(lookahead);
  cut.imbalance =
      totals[2] ? static_cast<double>(max_weight) * ranks / static_cast<double>(totals[2]) : 1.0;
  return cut;
}

// A component on some rank asked to stop (the deadlock watchdog, or input refused while
// running): every rank throws, and rank 0's message holds every rank's report, in rank order.
void throw_if_stopped(MPI_Comm comm, const Simulation& sim) {
  // 2: some rank refused its input (an input error wins over a deadlock it may have caused).
  int stopped = sim.stop_requested() ? (sim.stop_for_input() ? 2 : 1) : 0;
  MPI_Allreduce(MPI_IN_PLACE, &stopped, 1, MPI_INT, MPI_MAX, comm);
  if (!stopped) return;
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const std::string& mine = sim.stop_reason();
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(ranks));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm);
  std::vector<int> offsets(static_cast<std::size_t>(ranks), 0);
  int total = 0;
  for (int r = 0; r < ranks; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += lengths[static_cast<std::size_t>(r)];
  }
  std::string all(static_cast<std::size_t>(rank == 0 ? total : 0), '\0');
  MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
              0, comm);
  std::string report;
  for (int r = 0; rank == 0 && r < ranks; ++r) {
    const auto i = static_cast<std::size_t>(r);
    if (lengths[i] == 0) continue;
    if (!report.empty()) report += "\n";
    report +=
        all.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lengths[i]));
  }
  if (stopped == 2) throw InputError(report);
  throw DeadlockError(report);
}

// Collective: which rank's memory watch stopped an interrupted run, in rank order (every rank
// knows which; rank 0 the figures).
RunResult::MemoryStop gather_memory_stop(MPI_Comm comm, const std::optional<MemoryWatch>& watch,
                                         bool interrupted) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const bool over = interrupted && watch && watch->over();
  const uint64_t mine[4] = {over ? 1u : 0u, watch ? watch->resident() : 0,
                            watch ? watch->reserve() : 0, watch ? watch->limit() : 0};
  std::vector<uint64_t> all(static_cast<std::size_t>(4 * ranks));
  MPI_Gather(mine, 4, MPI_UINT64_T, all.data(), 4, MPI_UINT64_T, 0, comm);
  RunResult::MemoryStop stop;
  for (int r = 0; rank == 0 && r < ranks; ++r) {
    const uint64_t* v = &all[static_cast<std::size_t>(4 * r)];
    if (v[0] == 0) continue;
    stop = {r, v[1], v[2], v[3], watch->source()};  // every rank's limit follows the same rule
    break;
  }
  MPI_Bcast(&stop.rank, 1, MPI_INT, 0, comm);  // every rank exits alike
  return stop;
}

// Rank 0 only: why checkpoints cannot go to `dir` (it or the nearest existing directory above it
// is a file), or "". Found before the run rather than at its first checkpoint.
std::string diagnose_checkpoint_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
    const fs::file_status status = fs::status(p, ec);
    if (!fs::exists(status)) continue;
    if (fs::is_directory(status)) return "";
    const std::string what = p == fs::path(dir) ? "it" : "'" + p.string() + "'";
    return "checkpoint directory '" + dir + "': " + what +
           " is not a directory; name another with --checkpoint-dir";
  }
  return "";
}

}  // namespace

std::vector<ParamSpec> sim_params(const Registry& registry) {
  std::vector<std::string> models;
  for (const ModelInfo& m : registry.models()) models.push_back(m.name);
  return {
      ParamSpec::choice("model", "phold", models, "the model to simulate"),
      ParamSpec::time("end_time", "inf",
                      "simulated time at which the run stops; inf: when no events remain (models "
                      "whose events never run out, like phold, need a finite time)")
          .or_infinite(),
      ParamSpec::integer("seed", 1, "run seed; every random stream derives from it")
          .range(0, 9.2e18),
      ParamSpec::choice("partitioner", "group", partitioner_names(),
                        "how components are assigned to MPI ranks"),
      ParamSpec::time("cycle_time", "1ns", "the cycle that values in 'cycles' refer to"),
      ParamSpec::choice("fidelity", "packet", {"packet", "flow"},
                        "packet: flits through routers with credits; flow: messages as flows "
                        "sharing link bandwidth max-min fairly (network models running "
                        "workload programs)"),
      ParamSpec::choice("fold", "auto", {"auto", "off"},
                        "flow level: auto runs one endpoint per orbit of the workload's "
                        "symmetry where that is exact (docs/MODELS.md \"Folding\"); off runs "
                        "every endpoint"),
  };
}

ResolvedConfig resolve_config(const Registry& registry, const Config& config, const Team* team) {
  ResolvedConfig r;
  // The model is chosen in [sim]; its own section is named after it. Resolve [sim] first so its
  // cycle_time can convert "N cycles" in the model's section.
  const Config::Entry* model_entry = config.find("sim.model");
  const std::string model_name = model_entry ? model_entry->value.text : "phold";
  r.info = &registry.find(model_name);
  std::vector<std::string> sections = {"sim", r.info->name};
  for (const SectionSpec& s : r.info->extra_sections) sections.push_back(s.name);
  check_sections(config, sections);
  r.sim = resolve_section(config, "sim", sim_params(registry));
  const SimTime cycle = r.sim.time("cycle_time");
  r.sections.push_back(resolve_section(config, r.info->name, r.info->params, cycle));
  for (const SectionSpec& s : r.info->extra_sections) {
    r.sections.push_back(resolve_section(config, s.name, s.params, cycle));
  }
  ModelParams params;
  params.sim = &r.sim;
  params.sections = r.sections;
  params.team = team;
  r.model = r.info->make(params);
  if (r.sim.text("fidelity") == "flow" && !r.model->flow_level()) {
    throw InputError("sim.fidelity = \"flow\": model '" + r.info->name +
                     "' cannot run at flow level (network models can); use \"packet\"");
  }
  if (r.sim.time("end_time").is_infinite() && !r.model->ends_by_itself()) {
    throw InputError(
        "sim.end_time = inf: model '" + r.info->name +
        "' never runs out of events; give sim.end_time a finite time such as \"10us\"");
  }
  std::vector<const ParamSet*> resolved = {&r.sim};
  for (const ParamSet& s : r.sections) resolved.push_back(&s);
  r.text = format_resolved_config(resolved);
  r.hash = fnv1a_hex(r.text);
  return r;
}

std::string default_checkpoint_dir(const std::string& output) {
  if (output.empty()) return "hxsim.ckpt";
  return std::filesystem::path(output).replace_extension(".ckpt").string();
}

RunResult run_simulation(MPI_Comm comm, const ResolvedConfig& config, const RunOptions& options) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const Clock::time_point run_start = Clock::now();
  const std::string started = utc_timestamp();
  if (!options.output.empty()) {
    check_output_path(comm, options.output, options.inputs);
    if (rank == 0) {
      for (const std::string& partial : leftover_partials(options.output)) {
        std::fprintf(
            stderr,
            "hxsim: note: '%s' is the partial output of a run that was killed while "
            "it wrote, or of one writing '%s' now; remove it once no run writes that output\n",
            partial.c_str(), options.output.c_str());
      }
    }
  }
  const CheckpointTarget target{
      options.checkpoint_dir.empty() ? default_checkpoint_dir(options.output)
                                     : options.checkpoint_dir,
      options.checkpoint_keep, config.text, restart_config_hash(config.text), options.output};
  const std::string dir_error =
      broadcast(comm, rank == 0 ? diagnose_checkpoint_dir(target.dir) : std::string(), 0);
  if (!dir_error.empty()) throw InputError(dir_error);
  const SimTime end = config.sim.time("end_time");
  if (options.restart) {
    check_compatible(options.restart->manifest(), target.config_hash, options.restart->path());
    // Statistics up to the checkpoint cannot be cut back to an earlier end.
    const SimTime at = SimTime::ps(options.restart->manifest().time_ps);
    if (end < at) {
      throw InputError("sim.end_time = " + format_time(end) + " is before the time of checkpoint " +
                       options.restart->path() + " (" + format_time(at) +
                       "); a restart runs on from there: give sim.end_time >= " + format_time(at));
    }
  }

  const Model& model = *config.model;
  if (rank == 0) {
    for (const std::string& note : model.notes()) {
      std::fprintf(stderr, "hxsim: note: %s\n", note.c_str());
    }
  }
  if (options.check_memory) {
    check_build_memory(comm, model, static_cast<uint64_t>(config.sim.integer("seed")),
                       options.memory_limit);
  }
  const auto partition = make_partition(config.sim.text("partitioner"), model, ranks);
  RunResult result;
  result.cut = reduce_cut(comm, analyse_rank(model, *partition, rank));
  if (result.cut.links_cut > 0 && result.cut.lookahead <= SimTime::zero()) {
    throw InputError(
        "a link cut by the partition has zero latency, so ranks cannot run ahead "
        "of each other; give every link between groups a latency > 0");
  }

  StatsRegistry stats;
  for (const TableSpec& spec : model.tables()) stats.declare(spec);
  const Clock::time_point build_start = Clock::now();
  Simulation sim(model, *partition, rank, static_cast<uint64_t>(config.sim.integer("seed")), stats);
  // Events handled before a restart count once, on rank 0.
  uint64_t events_before = 0;
  if (options.restart) {
    restore_checkpoint(comm, *options.restart, sim, stats);
    if (rank == 0) events_before = options.restart->manifest().events;
  } else {
    sim.setup();
  }
  const double build_s = std::chrono::duration<double>(Clock::now() - build_start).count();
  std::optional<MemoryWatch> watch;
  if (options.check_memory && options.watch_memory) {
    watch = options.memory_limit > 0 ? MemoryWatch(options.memory_limit, "--memory-limit")
                                     : MemoryWatch::for_node(comm);
    if (!options.output.empty()) watch->set_reserve([&stats] { return row_output_reserve(stats); });
  }
  const uint64_t work_before = sim.work_done();  // restored counters: work of an earlier process

  RunControl control;
  control.checkpoint_every = options.checkpoint_every;
  control.shared_sync = options.shared_sync;
  Clock::time_point last_checkpoint = Clock::now();
  SimTime checkpoint_at;
  control.checkpoint = [&](SimTime at, uint64_t events) {
    result.last_checkpoint = save_checkpoint(comm, target, sim, stats, at, events_before + events);
    checkpoint_at = at;
    last_checkpoint = Clock::now();
    if (rank == 0) {
      std::printf("hxsim: checkpoint at %s: %s\n", format_time(at).c_str(),
                  result.last_checkpoint.c_str());
      std::fflush(stdout);
    }
  };
  // Wall-clock limits are rank 0's to decide: one clock, and the executor spreads its request.
  control.poll = [&]() {
    unsigned requests = options.requests ? options.requests() : 0;
    if (watch && watch->check()) requests |= RunControl::kStop;  // any rank's: the executor agrees
    if (rank != 0) return requests;
    const auto since = [](Clock::time_point t) {
      return std::chrono::duration<double>(Clock::now() - t).count();
    };
    if (options.exit_after_s > 0 && since(run_start) >= options.exit_after_s) {
      requests |= RunControl::kStop;
    }
    if (options.checkpoint_every_wall_s > 0 &&
        since(last_checkpoint) >= options.checkpoint_every_wall_s) {
      requests |= RunControl::kCheckpoint;
    }
    return requests;
  };

  // The model's observations from where this run starts (a checkpoint at an observation's time
  // was taken before it, so the restarted run makes it).
  const std::vector<SimTime> observations = model.observation_times();
  const SimTime resume =
      options.restart ? SimTime::ps(options.restart->manifest().time_ps) : SimTime::zero();
  std::size_t first = 0;
  while (first < observations.size() && observations[first] < resume) ++first;
  control.observe_at.assign(observations.begin() + static_cast<std::ptrdiff_t>(first),
                            observations.end());
  control.observe = [&, first](std::size_t i) {
    const std::size_t k = first + i;
    sim.observe(static_cast<uint32_t>(k), observations[k]);
    const std::vector<std::string> tables = model.end_early_tables(k);
    return !tables.empty() && model.end_early(k, reduced_summed_copy(comm, stats, tables));
  };

  // Without an end time, progress is measured against when the model expects to finish.
  Progress progress(rank == 0 ? options.progress : ProgressMode::kOff, options.progress_interval_s,
                    end.is_infinite() ? model.expected_end() : end);
  progress.set_work_unit(model.work_unit());
  const Clock::time_point process_start =
      options.started == Clock::time_point{} ? run_start : options.started;
  const double start_s = std::chrono::duration<double>(Clock::now() - process_start).count();
  result.local = ranks == 1 ? run_sequential(sim, end, &progress, control)
                            : run_windows(sim, comm, result.cut.lookahead, end, &progress, control);
  result.local.mpi_init_s = options.mpi_init_s;
  result.local.config_s = options.config_s;
  result.local.build_s = build_s;
  result.local.start_s = start_s;
  result.local.work = sim.work_done() - work_before;
  result.local.peak_rss = peak_rss_bytes();
  result.work_unit = model.work_unit();
  result.reached = result.local.reached;
  result.interrupted = result.local.interrupted;
  result.memory_stop = gather_memory_stop(comm, watch, result.interrupted);
  result.ended_early = result.local.ended_early;
  sim.finish(result.local.drained, result.reached);
  throw_if_stopped(comm, sim);
  reduce_summed_tables(comm, stats);
  const RunEnd run_end{result.reached, result.interrupted, result.ended_early,
                       result.local.drained};
  result.summary = model.summarize(stats, run_end);
  result.report = model.report(stats, run_end);

  uint64_t mine[3] = {events_before + result.local.events, result.local.remote_sent,
                      result.local.work};
  uint64_t totals[3];
  MPI_Allreduce(mine, totals, 3, MPI_UINT64_T, MPI_SUM, comm);
  result.total_events = totals[0];
  result.restored_events = options.restart ? options.restart->manifest().events : 0;
  result.total_remote = totals[1];
  result.total_work = totals[2];
  MPI_Allreduce(&result.local.run_s, &result.max_run_s, 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(&result.local.peak_rss, &result.max_peak_rss, 1, MPI_UINT64_T, MPI_MAX, comm);
  MPI_Allreduce(&result.local.peak_rss, &result.total_peak_rss, 1, MPI_UINT64_T, MPI_SUM, comm);
  result.endpoints = model.endpoints();

  if (!options.output.empty()) {
    RunTables tables = make_run_tables(rank, sim.component_count(), result.local,
                                       analyse_rank(model, *partition, rank), result.work_unit);
    OutputContent content;
    content.texts.push_back({"/config", config.text});
    for (auto& text : model.texts()) content.texts.push_back(std::move(text));
    content.attributes = {
        {"/", "hxsim_version", std::string(kVersion)},
        {"/", "git_hash", std::string(kGitHash)},
        {"/", "config_hash", config.hash},
        {"/", "model", config.info->name},
        {"/", "seed", config.sim.integer("seed")},
        {"/", "ranks", static_cast<int64_t>(ranks)},
        {"/", "partitioner", config.sim.text("partitioner")},
        {"/", "start_time", started},
        {"/", "end_time", utc_timestamp()},
        {"/", "complete", int64_t{result.interrupted ? 0 : 1}},
        {"/summary", "events", result.total_events},
        {"/summary", "components", static_cast<uint64_t>(model.num_components())},
        {"/summary", "end_time_ps", end.count_ps()},
        {"/summary", "sim_time_ps", result.reached.count_ps()},
        {"/summary", "ended_early", uint64_t{result.ended_early ? 1u : 0u}},
        {"/partition", "description", partition->describe()},
        {"/partition", "links", result.cut.links},
        {"/partition", "links_cut", result.cut.links_cut},
        {"/partition", "lookahead_ps", result.cut.lookahead.count_ps()},
        {"/partition", "imbalance", result.cut.imbalance},
    };
    if (options.restart) {
      content.attributes.push_back({"/", "restarted_from", options.restart->path()});
    }
    // The run's speed: this process's work over the slowest rank's executor time. On /engine,
    // with the other figures that differ from run to run.
    const auto per_s = [&result](uint64_t n) {
      return result.max_run_s > 0 ? static_cast<double>(n) / result.max_run_s : 0.0;
    };
    content.attributes.push_back(
        {"/engine", "events_per_s", per_s(result.total_events - result.restored_events)});
    content.attributes.push_back({"/engine", "allocator", heap_allocator()});
    content.attributes.push_back({"/engine", "sync",
                                  std::string(ranks == 1                 ? "none"
                                              : result.local.shared_sync ? "shared_memory"
                                                                         : "mpi")});
    if (!result.work_unit.empty()) {
      content.attributes.push_back({"/engine", result.work_unit, result.total_work});
      content.attributes.push_back(
          {"/engine", result.work_unit + "_per_s", per_s(result.total_work)});
    }
    for (const SummaryValue& v : result.summary) {
      std::visit([&](auto x) { content.attributes.push_back({"/summary", v.name, x}); }, v.value);
    }
    prepare_tables_for_output(comm, stats);
    content.tables = {&tables.engine, &tables.partition};
    for (const auto& [name, table] : stats.tables()) content.tables.push_back(table.get());
    try {
      write_output(comm, options.output, content);
    } catch (const OutputError& e) {
      if (result.last_checkpoint.empty()) throw;
      // The run's results are lost with this process, but its latest checkpoint holds all
      // of them up to its time: say how to get them back without the whole run again.
      throw OutputError(std::string(e.what()) + "; the latest checkpoint keeps the run up to " +
                        format_time(checkpoint_at) + ": hxsim run --restart " +
                        result.last_checkpoint +
                        " -o OTHER.h5 runs on from there and writes the results");
    }
  }
  return result;
}

}  // namespace hx
