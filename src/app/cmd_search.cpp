// `hxsim search`: the best parallelism of an LLM config's model on its cluster
// (docs/workloads/llm_search.md). Every plan of the [search] space is ranked by its α–β
// estimate; the best `search.top` run at flow level (each on one rank when there are at least
// as many as ranks, else one after another on all ranks); the ranked table goes to an HDF5 file
// and a CSV file beside it.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <type_traits>
#include <variant>

#include "app/commands.h"
#include "core/error.h"
#include "core/version.h"
#include "engine/run.h"
#include "io/config_file.h"
#include "io/hdf5_output.h"
#include "models/workloads/llm_search.h"

namespace hx {
namespace {

// What a plan's run reports; -1 where it did not run.
struct Measured {
  double seconds = -1, mfu = -1;
  double exposed[5] = {-1, -1, -1, -1, -1};  // TP, CP, EP, PP, DP, seconds per GPU
  double status = 0;                         // 0 not run, 1 complete, 2 refused, 3 incomplete
};
constexpr int kFields = 8;
const char* const kDims[] = {"TP", "CP", "EP", "PP", "DP"};

double summary_value(const RunResult& r, const std::string& name) {
  for (const SummaryValue& v : r.summary) {
    if (v.name != name) continue;
    return std::visit(
        [](const auto& x) -> double {
          if constexpr (std::is_arithmetic_v<std::decay_t<decltype(x)>>) {
            return static_cast<double>(x);
          } else {
            return 0;
          }
        },
        v.value);
  }
  return 0;
}

Measured run_plan(MPI_Comm comm, const Registry& registry, Config config, const wl::Plan& plan,
                  const wl::SearchSpace& space) {
  for (const auto& [key, value] : wl::plan_overrides(plan, space)) config.set(key, value, "search");
  Measured m;
  try {
    const ResolvedConfig resolved = resolve_config(registry, config);
    RunOptions options;
    options.progress = ProgressMode::kOff;
    const RunResult r = run_simulation(comm, resolved, options);
    m.seconds = summary_value(r, "workload_end_ps") * 1e-12;
    m.mfu = summary_value(r, "mfu");
    for (int d = 0; d < 5; ++d) {
      m.exposed[d] = summary_value(r, std::string("exposed_") + kDims[d] + "_ps") * 1e-12;
    }
    m.status = summary_value(r, "workload_complete") == 1 ? 1 : 3;
  } catch (const InputError& e) {
    std::cerr << "hxsim search: plan tp " << plan.par.tp << " pp " << plan.par.pp << " ep "
              << plan.par.ep << " refused: " << e.what() << "\n";
    m.status = 2;
  }
  return m;
}

TableSpec search_table() {
  using T = ColumnType;
  const auto count = [](const char* name, const char* help) {
    return ColumnSpec{name, T::kU64, "1", help};
  };
  const auto secs = [](const char* name, const char* help) {
    return ColumnSpec{name, T::kF64, "s", help};
  };
  return {"search",
          "plan",
          "one row per plan that divides the model and fits, best first",
          {count("tp", "tensor parallelism"),
           count("cp", "context parallelism"),
           count("ep", "expert parallelism"),
           count("dp", "data parallelism D_e"),
           count("pp", "pipeline parallelism"),
           count("micro_batch", "sequences per micro-batch"),
           count("micro_batches", "micro-batches per iteration"),
           count("virtual_stages", "model chunks per pipeline stage"),
           count("recompute", "activation recomputation: 0 none, 1 selective, 2 full"),
           {"memory_gib", T::kF64, "GiB", "memory of the most loaded GPU"},
           secs("analytic_s", "α–β estimate of the iteration"),
           {"analytic_mfu", T::kF64, "1", "MFU of the estimate"},
           secs("run_s", "simulated iteration (-1: not run)"),
           {"run_mfu", T::kF64, "1", "MFU of the run (-1: not run)"},
           secs("exposed_tp_s", "run: exposed TP communication per GPU"),
           secs("exposed_cp_s", "run: exposed CP communication per GPU"),
           secs("exposed_ep_s", "run: exposed EP communication per GPU"),
           secs("exposed_pp_s", "run: exposed PP communication per GPU"),
           secs("exposed_dp_s", "run: exposed DP communication per GPU"),
           count("run_status", "0 not run, 1 complete, 2 refused by the model, 3 incomplete")}};
}

// Runs first (by simulated time), then the rest by their estimate.
std::vector<std::size_t> final_order(const std::vector<wl::Plan>& plans,
                                     const std::vector<Measured>& runs) {
  std::vector<std::size_t> order(plans.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const bool ra = a < runs.size() && runs[a].status == 1;
    const bool rb = b < runs.size() && runs[b].status == 1;
    if (ra != rb) return ra;
    return ra && runs[a].seconds < runs[b].seconds;
  });
  return order;
}

}  // namespace

int command_search(MPI_Comm comm, const Registry& registry, const SearchArgs& args) {
  Config config = load_config_file(args.config);
  for (const std::string& s : args.overrides) apply_override(config, s);
  const Config::Entry* kind = config.find("workload.kind");
  if (kind == nullptr || kind->value.text != "llm") {
    throw InputError("hxsim search: the config needs workload.kind = \"llm\"");
  }
  const ResolvedConfig resolved = resolve_config(registry, config);  // the base must run too
  const ParamSet search = resolve_section(config, "search", wl::search_params());
  const wl::LlmConfig base = wl::llm_config(resolve_section(config, "llm", wl::llm_params()));
  const wl::SearchSpace space = wl::search_space(search, base);
  wl::SearchCounts counts;
  const std::vector<wl::Plan> plans = wl::rank_plans(base, space, counts);
  const std::string output = args.output.empty()
                                 ? std::filesystem::path(args.config).stem().string() + "_search.h5"
                                 : args.output;
  const std::string csv_path = std::filesystem::path(output).replace_extension(".csv").string();
  check_output_path(comm, output, input_files(args.config, config));
  check_output_path(comm, csv_path, input_files(args.config, config));

  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const std::size_t top = std::min<std::size_t>(space.top, plans.size());
  if (rank == 0) {
    std::printf(
        "hxsim search: %s on %u GPUs, global batch %llu\n  %llu candidates: %llu do not "
        "divide, %llu do not fit in %.4g GiB, %zu plans; the best %zu run at %s level\n",
        base.model.name.c_str(), space.gpus, static_cast<unsigned long long>(space.global_batch),
        static_cast<unsigned long long>(counts.candidates),
        static_cast<unsigned long long>(counts.indivisible),
        static_cast<unsigned long long>(counts.too_big),
        space.memory.capacity_bytes / double(1ull << 30), plans.size(), top,
        space.fidelity.c_str());
    std::fflush(stdout);
  }
  // Many plans: one per rank at a time, each on its own; few: each on every rank.
  std::vector<Measured> runs(top);
  const bool spread = top >= static_cast<std::size_t>(ranks) && ranks > 1;
  for (std::size_t i = 0; i < top; ++i) {
    if (spread && i % ranks != static_cast<std::size_t>(rank)) continue;
    runs[i] = run_plan(spread ? MPI_COMM_SELF : comm, registry, config, plans[i], space);
  }
  if (spread) {  // gather: each plan's fields from the rank that ran it
    std::vector<double> mine(top * kFields, -1e300), all(top * kFields);
    for (std::size_t i = 0; i < top; ++i) {
      if (i % ranks != static_cast<std::size_t>(rank)) continue;
      const Measured& m = runs[i];
      const double f[kFields] = {m.seconds,    m.mfu,        m.exposed[0], m.exposed[1],
                                 m.exposed[2], m.exposed[3], m.exposed[4], m.status};
      std::copy(f, f + kFields, mine.begin() + static_cast<std::ptrdiff_t>(i * kFields));
    }
    MPI_Allreduce(mine.data(), all.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_MAX, comm);
    for (std::size_t i = 0; i < top; ++i) {
      const double* f = &all[i * kFields];
      runs[i] = {f[0], f[1], {f[2], f[3], f[4], f[5], f[6]}, f[7]};
    }
  }

  Table table(search_table());
  const std::vector<std::size_t> order = final_order(plans, runs);
  // The CSV goes beside the HDF5 file once that is written; a failed search leaves neither.
  const std::string csv_partial = csv_path + ".partial";
  std::ofstream csv;
  if (rank == 0) {
    csv.open(csv_partial);
    csv << "rank,tp,cp,ep,dp,pp,micro_batch,micro_batches,virtual_stages,recompute,memory_gib,"
           "analytic_s,analytic_mfu,run_s,run_mfu,exposed_tp_s,exposed_cp_s,exposed_ep_s,"
           "exposed_pp_s,exposed_dp_s,run_status\n";
    std::printf("  %4s %4s %3s %3s %5s %4s %3s %5s %2s %9s %7s %10s %8s %10s %8s\n", "rank", "tp",
                "cp", "ep", "dp", "pp", "mb", "nmb", "v", "recompute", "mem_gib", "analytic_s",
                "a_mfu", "run_s", "run_mfu");
  }
  for (std::size_t k = 0; k < order.size(); ++k) {
    const wl::Plan& p = plans[order[k]];
    const Measured m = order[k] < runs.size() ? runs[order[k]] : Measured{};
    const double gib = p.memory.total() / double(1ull << 30);
    if (rank != 0) continue;
    table.add_row(k, {uint64_t{p.par.tp},
                      uint64_t{p.par.cp},
                      uint64_t{p.par.ep},
                      uint64_t{p.par.dp},
                      uint64_t{p.par.pp},
                      uint64_t{p.par.micro_batch},
                      uint64_t{p.par.micro_batches},
                      uint64_t{p.par.virtual_stages},
                      static_cast<uint64_t>(p.recompute),
                      gib,
                      p.analytic.seconds,
                      p.analytic.mfu,
                      m.seconds,
                      m.mfu,
                      m.exposed[0],
                      m.exposed[1],
                      m.exposed[2],
                      m.exposed[3],
                      m.exposed[4],
                      static_cast<uint64_t>(m.status)});
    csv << k << ',' << p.par.tp << ',' << p.par.cp << ',' << p.par.ep << ',' << p.par.dp << ','
        << p.par.pp << ',' << p.par.micro_batch << ',' << p.par.micro_batches << ','
        << p.par.virtual_stages << ',' << wl::recompute_name(p.recompute) << ',' << gib << ','
        << p.analytic.seconds << ',' << p.analytic.mfu << ',' << m.seconds << ',' << m.mfu << ','
        << m.exposed[0] << ',' << m.exposed[1] << ',' << m.exposed[2] << ',' << m.exposed[3] << ','
        << m.exposed[4] << ',' << m.status << '\n';
    if (k < std::max<std::size_t>(top, 10)) {
      std::printf("  %4zu %4u %3u %3u %5u %4u %3llu %5u %2u %9s %7.1f %10.4g %8.4f %10.4g %8.4f\n",
                  k, p.par.tp, p.par.cp, p.par.ep, p.par.dp, p.par.pp,
                  static_cast<unsigned long long>(p.par.micro_batch), p.par.micro_batches,
                  p.par.virtual_stages, wl::recompute_name(p.recompute), gib, p.analytic.seconds,
                  p.analytic.mfu, m.seconds, m.mfu);
    }
  }
  OutputContent content;
  content.texts.push_back({"/config", resolved.text});
  content.attributes = {
      {"/", "hxsim_version", std::string(kVersion)},
      {"/", "git_hash", std::string(kGitHash)},
      {"/", "kind", std::string("search")},
      {"/", "config_hash", resolved.hash},
      {"/", "model", resolved.info->name},
      {"/", "ranks", static_cast<int64_t>(ranks)},
      {"/summary", "gpus", static_cast<int64_t>(space.gpus)},
      {"/summary", "global_batch", static_cast<int64_t>(space.global_batch)},
      {"/summary", "candidates", static_cast<int64_t>(counts.candidates)},
      {"/summary", "indivisible", static_cast<int64_t>(counts.indivisible)},
      {"/summary", "too_big", static_cast<int64_t>(counts.too_big)},
  };
  content.tables = {&table};
  int csv_ok = 1;
  if (rank == 0) {
    csv.close();
    csv_ok = csv.fail() ? 0 : 1;
  }
  MPI_Bcast(&csv_ok, 1, MPI_INT, 0, comm);
  if (csv_ok == 0) {
    if (rank == 0) std::filesystem::remove(csv_partial);
    throw OutputError("cannot write " + csv_partial);
  }
  try {
    write_output(comm, output, content);
  } catch (const OutputError&) {
    if (rank == 0) std::filesystem::remove(csv_partial);
    throw;
  }
  if (rank == 0) {
    std::error_code ec;
    std::filesystem::rename(csv_partial, csv_path, ec);
    if (ec) std::filesystem::remove(csv_partial);
    csv_ok = ec ? 0 : 1;
  }
  MPI_Bcast(&csv_ok, 1, MPI_INT, 0, comm);
  if (csv_ok == 0) throw OutputError("cannot rename " + csv_partial + " to " + csv_path);
  if (rank == 0) std::printf("  output: %s, %s\n", output.c_str(), csv_path.c_str());
  return 0;
}

}  // namespace hx
