// The cluster-level fault simulation: one component per (architecture, TP size) replays the
// node fault trace, re-placing TP groups at every change (placer.h keeps cluster.h's placement
// up to date change by change). A replay is a sweep over the trace's changes at finish(), not
// events: the trace spans a year, beyond SimTime's range, and nothing flows between the runs.
// The engine gives the runs their ranks, the determinism and the HDF5 tables, which are numbered
// by run, so any rank count writes the same file.
#include "models/topologies/infinitehbd/cluster_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/model.h"
#include "core/rng.h"
#include "core/text.h"
#include "models/topologies/infinitehbd/cluster.h"
#include "models/topologies/infinitehbd/fault_trace.h"
#include "models/topologies/infinitehbd/list_params.h"
#include "models/topologies/infinitehbd/placer.h"

namespace hx::net::infinitehbd {
namespace {

const std::string kSection = "hbd_cluster";

struct Run {
  uint32_t arch = 0;  // index into Config::archs
  uint32_t tp = 0;
};

struct Config {
  Cluster cluster;
  std::vector<HbdArch> archs;
  std::vector<Run> runs;
  std::vector<std::string> skipped;  // "nvl36 TP-64: why"
  FaultTrace trace;                  // in the cluster's nodes
  std::vector<double> job_scales;    // shares of the cluster's GPUs
  std::vector<double> ratios;        // Bernoulli node fault ratios
  uint32_t samples = 0;
  uint64_t seed = 0;
};

std::vector<TableSpec> cluster_tables(uint64_t runs) {
  using T = ColumnType;
  return {
      {"hbd_runs",
       "run",
       "one row per (architecture, TP size) replayed over the fault trace",
       {{"arch", T::kU64, "1", "the architecture: line `arch` of /hbd_architectures"},
        {"tp", T::kU64, "1", "TP group size in GPUs"},
        {"steps", T::kU64, "1", "fault states replayed (the trace's changes, and time 0)"},
        {"mean_waste", T::kF64, "1", "time-weighted mean of the GPU waste ratio (Sec. 2.1)"},
        {"p99_waste", T::kF64, "1", "the least ratio the waste stays at or below 99% of the time"},
        {"max_waste", T::kF64, "1", "largest waste ratio"},
        {"min_placed", T::kU64, "1",
         "fewest GPUs placed in TP groups: the largest job always fits"},
        {"duration_s", T::kI64, "s",
         "the trace's span: the last state of /hbd_series lasts until it"}},
       TableKind::kById,
       runs},
      {"hbd_series",
       "step",
       "the waste over time: one row per fault state of each run",
       {{"time_s", T::kI64, "s", "when the state begins"},
        {"faulty_gpus", T::kU64, "1", "GPUs of faulty nodes"},
        {"placed", T::kU64, "1", "GPUs in TP groups"},
        {"wasted", T::kU64, "1", "healthy GPUs in no TP group"}},
       TableKind::kPerOwner,
       runs},
      {"hbd_waiting",
       "job",
       "fault-waiting time of each job size (Fig. 16), per run",
       {{"job_scale", T::kF64, "1", "the job's share of the cluster's GPUs"},
        {"job_gpus", T::kU64, "1", "its GPUs: whole TP groups"},
        {"wait_s", T::kI64, "s", "time the placed GPUs are fewer than the job's"}},
       TableKind::kPerOwner,
       runs},
      {"hbd_bernoulli",
       "point",
       "expected waste under Bernoulli node faults (Fig. 14, 22)",
       {{"node_fault_ratio", T::kF64, "1", "each node faulty with this probability"},
        {"waste_ratio", T::kF64, "1", "mean GPU waste ratio over hbd_cluster.samples fault sets"},
        {"placed", T::kF64, "1", "mean GPUs placed"}},
       TableKind::kPerOwner,
       runs},
  };
}

class Replay final : public Component {
 public:
  Replay(ComponentId id, const Config& c, const BuildContext& ctx)
      : Component(id),
        c_(c),
        runs_(&ctx.stats->table("hbd_runs")),
        series_(&ctx.stats->table("hbd_series")),
        waiting_(&ctx.stats->table("hbd_waiting")),
        bernoulli_(&ctx.stats->table("hbd_bernoulli")) {}

  void finish() override {
    const Run& run = c_.runs[id()];
    const HbdArch& arch = c_.archs[run.arch];
    const uint64_t gpus = c_.cluster.gpus();
    // The trace's changes in time order; counts per node, so touching intervals stay faulty.
    std::vector<std::pair<TraceTime, int64_t>> changes;  // (time, +-(node + 1))
    for (const FaultInterval& f : c_.trace.intervals()) {
      changes.emplace_back(f.start, int64_t{f.node} + 1);
      changes.emplace_back(f.end, -(int64_t{f.node} + 1));
    }
    std::sort(changes.begin(), changes.end());
    std::vector<uint32_t> down(c_.cluster.nodes, 0);
    struct Step {
      TraceTime from;
      Usage usage;
    };
    std::vector<Step> steps;
    Placer placer(arch, c_.cluster, run.tp);  // a change costs O(log n), not a rescan
    const Usage healthy = placer.usage();
    for (std::size_t i = 0; i <= changes.size();) {
      const TraceTime at = i < changes.size() ? changes[i].first : c_.trace.duration();
      if (i == changes.size() && !steps.empty()) break;
      for (; i < changes.size() && changes[i].first == at; ++i) {
        const int64_t v = changes[i].second;
        const auto node = static_cast<uint32_t>(std::llabs(v) - 1);
        down[node] += v > 0 ? 1 : -1;
        placer.set_faulty(node, down[node] > 0);
      }
      if (at >= c_.trace.duration()) break;
      steps.push_back({at, placer.usage()});
    }
    if (steps.empty() || steps[0].from > TraceTime()) {  // nothing faulty until the first change
      steps.insert(steps.begin(), {TraceTime(), healthy});
    }
    // Time-weighted statistics over [0, duration).
    const double total = static_cast<double>(c_.trace.duration().count_s());
    std::vector<std::pair<double, double>> by_waste;  // (waste ratio, seconds)
    double mean = 0, worst = 0;
    uint64_t min_placed = gpus;
    for (std::size_t k = 0; k < steps.size(); ++k) {
      const Usage& u = steps[k].usage;
      const TraceTime end = k + 1 < steps.size() ? steps[k + 1].from : c_.trace.duration();
      const double dt = static_cast<double>((end - steps[k].from).count_s());
      mean += u.waste_ratio() * dt / total;
      worst = std::max(worst, u.waste_ratio());
      min_placed = std::min(min_placed, u.placed);
      by_waste.emplace_back(u.waste_ratio(), dt);
      series_->add_owned_row(id(), k, {steps[k].from.count_s(), u.faulty, u.placed, u.wasted});
    }
    std::sort(by_waste.begin(), by_waste.end());
    double p99 = 0, covered = 0;
    for (const auto& [waste, dt] : by_waste) {
      p99 = waste;
      covered += dt;
      if (covered >= 0.99 * total) break;
    }
    runs_->add_row(id(), {uint64_t{run.arch}, uint64_t{run.tp}, uint64_t{steps.size()}, mean, p99,
                          worst, min_placed, c_.trace.duration().count_s()});
    for (std::size_t j = 0; j < c_.job_scales.size(); ++j) {
      const uint64_t job =
          static_cast<uint64_t>(c_.job_scales[j] * static_cast<double>(gpus)) / run.tp * run.tp;
      int64_t wait = 0;
      for (std::size_t k = 0; k < steps.size(); ++k) {
        const TraceTime end = k + 1 < steps.size() ? steps[k + 1].from : c_.trace.duration();
        if (steps[k].usage.placed < job) wait += (end - steps[k].from).count_s();
      }
      waiting_->add_owned_row(id(), j, {c_.job_scales[j], job, wait});
    }
    for (std::size_t j = 0; j < c_.ratios.size(); ++j) {
      // One stream per ratio: every run sees the same fault sets at a given ratio.
      Rng rng(c_.seed, j, static_cast<uint64_t>(RngPurpose::kFaults));
      const std::vector<MeanUsage> m = expected_usage(
          std::span<const HbdArch>(&arch, 1), c_.cluster, run.tp, c_.ratios[j], c_.samples, rng);
      bernoulli_->add_owned_row(id(), j, {c_.ratios[j], m[0].waste_ratio, m[0].placed});
    }
  }

  void handle(const Event& /*e*/) override {}       // it gets none: the replay is at finish()
  void serialize(StateArchive& /*ar*/) override {}  // and holds no state before it
  bool knows_event(uint16_t /*kind*/) const override { return false; }

 private:
  const Config& c_;
  Table* runs_;
  Table* series_;
  Table* waiting_;
  Table* bernoulli_;
};

class ClusterModel final : public Model {
 public:
  explicit ClusterModel(Config c) : c_(std::move(c)) {}

  ComponentId num_components() const override { return static_cast<ComponentId>(c_.runs.size()); }
  std::vector<GroupLevel> group_levels() const override { return {{"run", c_.runs.size()}}; }
  ComponentRange group_range(std::size_t /*level*/, uint64_t group) const override {
    return {static_cast<ComponentId>(group), static_cast<ComponentId>(group + 1)};
  }
  void ports(ComponentId /*id*/, std::vector<PortSpec>& /*out*/) const override {}
  std::vector<TableSpec> tables() const override { return cluster_tables(c_.runs.size()); }
  std::unique_ptr<Component> create(ComponentId id, const BuildContext& ctx) const override {
    return std::make_unique<Replay>(id, c_, ctx);
  }
  bool ends_by_itself() const override { return true; }

  std::vector<std::pair<std::string, std::string>> texts() const override {
    std::string names;
    for (const HbdArch& a : c_.archs) names += a.name + "\n";
    return {{"hbd_architectures", names}};
  }

  std::vector<std::string> report(const StatsRegistry& stats,
                                  const RunEnd& /*end*/) const override {
    const Table& t = stats.table("hbd_runs");
    const auto pct = [](double v) {
      char text[32];
      std::snprintf(text, sizeof text, "%.2f%%", 100 * v);
      return std::string(text);
    };
    std::vector<std::string> lines = {"hbd_cluster: " + std::to_string(c_.cluster.gpus()) +
                                      " GPUs (" + std::to_string(c_.cluster.nodes) + " nodes), " +
                                      std::to_string(c_.trace.intervals().size()) +
                                      " faults over " + format_trace_time(c_.trace.duration()) +
                                      "; GPU waste ratio mean / P99 / max, largest job"};
    for (std::size_t r = 0; r < t.rows(); ++r) {
      lines.push_back("  " + c_.archs[t.u64(0)[r]].name + " TP-" + std::to_string(t.u64(1)[r]) +
                      ": " + pct(t.f64(3)[r]) + " / " + pct(t.f64(4)[r]) + " / " +
                      pct(t.f64(5)[r]) + ", " + std::to_string(t.u64(6)[r]) + " GPUs");
    }
    for (const std::string& s : c_.skipped) lines.push_back("  skipped " + s);
    return lines;
  }

 private:
  Config c_;
};

// The trace in the cluster's nodes: read or generated in nodes of trace_gpus_per_node GPUs,
// split into 4-GPU nodes as Appendix A does when the cluster has those, cut to the cluster's
// nodes (the simulator "linearly maps the fault trace", §7), faults lasting `repair` if set.
FaultTrace cluster_trace(const ParamSet& p, const Cluster& cluster, uint64_t seed) {
  const auto tg = static_cast<uint32_t>(p.integer("trace_gpus_per_node"));
  if (tg != cluster.gpus_per_node && !(tg == 8 && cluster.gpus_per_node == 4)) {
    throw InputError(kSection + ".trace_gpus_per_node = " + std::to_string(tg) +
                     ": a trace maps onto nodes of as many GPUs, or from 8-GPU onto 4-GPU nodes "
                     "(Appendix A); gpus_per_node = " +
                     std::to_string(cluster.gpus_per_node));
  }
  const uint32_t per = cluster.gpus_per_node == tg ? 1 : 2;
  const TraceTime duration = parse_trace_time(kSection + ".duration", p.text("duration"));
  uint32_t nodes = static_cast<uint32_t>(p.integer("trace_nodes"));
  if (nodes == 0) nodes = (cluster.nodes + per - 1) / per;
  FaultTrace trace;
  if (const std::string& path = p.text("trace"); !path.empty()) {
    std::ifstream in(path);
    if (!in) throw InputError(kSection + ".trace = '" + path + "': cannot open the file");
    trace = parse_fault_trace_csv(in, path, nodes, duration);
  } else {
    TraceModel m;
    m.nodes = nodes;
    m.duration = duration;
    m.faulty_ratio = p.real("faulty_ratio");
    m.mean_repair = parse_trace_time(kSection + ".mean_repair", p.text("mean_repair"));
    m.burst_share = p.real("burst_share");
    m.burst_hit = p.real("burst_hit");
    trace = generate_fault_trace(m, seed);
  }
  if (per == 2) {
    Rng rng(seed, 1, static_cast<uint64_t>(RngPurpose::kFaults));
    trace = to_four_gpu_nodes(trace, rng);
  }
  if (trace.nodes() < cluster.nodes) {
    throw InputError(kSection + ": the trace covers " + std::to_string(trace.nodes()) +
                     " nodes of " + std::to_string(cluster.gpus_per_node) +
                     " GPUs; the cluster has " + std::to_string(cluster.nodes) +
                     " (set trace_nodes)");
  }
  const TraceTime repair = parse_trace_time(kSection + ".repair", p.text("repair"));
  std::vector<FaultInterval> kept;
  for (FaultInterval f : trace.intervals()) {  // sorted by (node, start)
    if (f.node >= cluster.nodes) continue;
    if (repair > TraceTime()) f.end = std::min(f.start + repair, duration);
    if (!kept.empty() && kept.back().node == f.node && f.start <= kept.back().end) {
      kept.back().end = std::max(kept.back().end, f.end);  // a fixed repair can overlap the next
      continue;
    }
    kept.push_back(f);
  }
  return FaultTrace(cluster.nodes, duration, std::move(kept));
}

std::unique_ptr<Model> make_cluster_model(const ModelParams& mp) {
  const ParamSet& p = mp.section(kSection);
  Config c;
  c.cluster = {static_cast<uint32_t>(p.integer("nodes")),
               static_cast<uint32_t>(p.integer("gpus_per_node"))};
  c.seed = static_cast<uint64_t>(mp.sim->integer("seed"));
  const std::vector<HbdArch> known = compared_architectures();
  for (const std::string& name : list_items(p.text("architectures"))) {
    const auto it =
        std::find_if(known.begin(), known.end(), [&](const HbdArch& a) { return a.name == name; });
    if (it == known.end()) {
      std::vector<std::string> names;
      for (const HbdArch& a : known) names.push_back(a.name);
      throw InputError(kSection + ".architectures: unknown '" + name + "'; known: " + join(names));
    }
    c.archs.push_back(*it);
  }
  std::vector<uint32_t> tps;
  for (const std::string& t : list_items(p.text("tps"))) {
    if (t.find_first_not_of("0123456789") != std::string::npos || t.size() > 6 || t == "0") {
      throw InputError(kSection + ".tps: '" + t + "' is not a TP size in GPUs");
    }
    tps.push_back(static_cast<uint32_t>(std::stoul(t)));
  }
  if (c.archs.empty() || tps.empty()) {
    throw InputError(kSection + ": architectures and tps must each name at least one");
  }
  for (uint32_t a = 0; a < c.archs.size(); ++a) {
    for (const uint32_t tp : tps) {
      try {
        place(c.archs[a], c.cluster, {}, tp);
        c.runs.push_back({a, tp});
      } catch (const InputError& e) {  // e.g. TP-64 on NVL-36: reported, not run
        c.skipped.push_back(c.archs[a].name + " TP-" + std::to_string(tp) + ": " + e.what());
      }
    }
  }
  if (c.runs.empty()) throw InputError(kSection + ": no architecture can run any of the tps");
  for (const std::string& s : list_items(p.text("job_scales"))) {
    c.job_scales.push_back(share_in(kSection, "job_scales", s));
  }
  for (const std::string& s : list_items(p.text("bernoulli")))
    c.ratios.push_back(share_in(kSection, "bernoulli", s));
  c.samples = static_cast<uint32_t>(p.integer("samples"));
  c.trace = cluster_trace(p, c.cluster, c.seed);
  return std::make_unique<ClusterModel>(std::move(c));
}

}  // namespace

void register_cluster_model(Registry& registry) {
  registry.add(ModelInfo{
      kSection,
      "InfiniteHBD's cluster-level fault simulation (Sec. 6.2): every listed HBD architecture "
      "re-places TP groups after each change of a node fault trace; GPU waste over time, its "
      "mean and P99, the largest job, fault-waiting times, and the waste under Bernoulli faults",
      {
          ParamSpec::integer("nodes", 720, "nodes of the cluster (Sec. 7: 2,880 GPUs)")
              .range(1, 1 << 24),
          ParamSpec::integer("gpus_per_node", 4, "GPUs per node").range(1, 64),
          ParamSpec::text("architectures",
                          "big_switch, infinitehbd_k2, infinitehbd_k3, nvl36, nvl72, nvl576, "
                          "tpuv4, sip_ring",
                          "the HBDs to compare (docs/models/infinitehbd.md), "
                          "separated by ','"),
          ParamSpec::text("tps", "8, 16, 32, 64", "TP group sizes in GPUs, separated by ','"),
          ParamSpec::text("trace", "",
                          "a node fault trace, CSV node,start,end (times with s, min, h or d); "
                          "\"\": generate one (faulty_ratio, mean_repair, burst_*)"),
          ParamSpec::integer("trace_nodes", 0, "nodes the trace covers (0: enough for the cluster)")
              .range(0, 1 << 24),
          ParamSpec::integer("trace_gpus_per_node", 8,
                             "GPUs per node of the trace (8: the paper's; onto 4-GPU nodes it "
                             "is split as Appendix A does)")
              .range(1, 64),
          ParamSpec::text("duration", "348d", "the trace's span (Appendix A: 348 days)"),
          ParamSpec::real("faulty_ratio", 0.0233,
                          "generated trace: mean share of faulty trace nodes (Sec. 6.1: 2.33%)")
              .range(0, 0.99),
          ParamSpec::text("mean_repair", "24h",
                          "generated trace: mean time a fault lasts (the paper gives none)"),
          ParamSpec::real("burst_share", 0,
                          "generated trace: share of faults from cluster-wide bursts (0: "
                          "independent nodes, P99 about 4.2%; 0.2 with burst_hit 0.05: about "
                          "the paper's 7.22%)")
              .range(0, 1),
          ParamSpec::real("burst_hit", 0.05, "generated trace: share of nodes a burst hits")
              .range(0, 1),
          ParamSpec::text("repair", "0s",
                          "every fault lasts this long (Fig. 16: the trace's mean recovery time); "
                          "0s: as the trace has it"),
          ParamSpec::text("job_scales", "0.85, 0.9, 0.95",
                          "job sizes for the fault-waiting time, as shares of the GPUs"),
          ParamSpec::text("bernoulli", "",
                          "node fault ratios for the expected waste under Bernoulli faults, "
                          "e.g. \"0.01, 0.02, 0.05\" (Fig. 14, 22)"),
          ParamSpec::integer("samples", 100, "fault sets per Bernoulli ratio").range(1, 1e6),
      },
      {},
      cluster_tables(0),
      make_cluster_model});
}

}  // namespace hx::net::infinitehbd
