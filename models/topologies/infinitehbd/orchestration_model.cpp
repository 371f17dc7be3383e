// §6.4's orchestration study (Fig. 17a-c): one component per (cluster size, job scale, node
// fault ratio) places the job `samples` times, under fresh Bernoulli node faults each time,
// with Algorithm 5 and with the greedy baseline (orchestration.h), at finish(): nothing flows
// between points, and the engine gives them ranks, determinism and the HDF5 table. The fault
// sets depend on the cluster size and the ratio only, so every job scale sees the same ones and
// a curve over job scales is not noise between points.
#include "models/topologies/infinitehbd/orchestration_model.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/model.h"
#include "core/rng.h"
#include "models/topologies/infinitehbd/list_params.h"
#include "models/topologies/infinitehbd/orchestration.h"

namespace hx::net::infinitehbd {
namespace {

const std::string kSection = "hbd_orchestration";

struct Point {
  uint32_t size = 0;   // index into Config::sizes
  uint32_t ratio = 0;  // index into Config::ratios
  double job_scale = 0;
};

struct Config {
  std::vector<uint64_t> sizes;  // cluster GPUs
  std::vector<double> ratios;   // node fault ratios
  std::vector<Point> points;
  TpShape shape;
  uint32_t nodes_per_tor = 0;
  uint32_t domain_gpus = 0;
  uint32_t hops = 0;
  uint32_t samples = 0;
  uint64_t seed = 0;

  FatTree tree(uint32_t size) const {
    return {static_cast<uint32_t>(sizes[size] / shape.gpus_per_node), nodes_per_tor,
            domain_gpus / shape.gpus_per_node, hops};
  }
  // Whole TP groups: a job of 85% of 8,192 GPUs at TP-32 takes 217 groups.
  uint64_t job_gpus(const Point& pt) const {
    const auto gpus = static_cast<double>(sizes[pt.size]);
    return static_cast<uint64_t>(pt.job_scale * gpus) / shape.tp * shape.tp;
  }
};

std::vector<TableSpec> orchestration_tables(uint64_t points) {
  using T = ColumnType;
  const char* nan = " (NaN when no sample placed the job)";
  return {{"hbd_cross_tor",
           "point",
           "cross-ToR share of the CP ring edges per (cluster size, job scale, fault ratio), "
           "optimized (Algorithm 5) and the greedy baseline (Sec. 6.4, Fig. 17a-c)",
           {{"gpus", T::kU64, "1", "GPUs of the cluster"},
            {"job_scale", T::kF64, "1", "the job's share of the cluster's GPUs"},
            {"job_gpus", T::kU64, "1", "the job's GPUs: whole TP groups"},
            {"node_fault_ratio", T::kF64, "1", "each node faulty with this probability"},
            {"samples", T::kU64, "1", "fault sets drawn"},
            {"optimized_placed", T::kU64, "1", "fault sets under which Algorithm 5 fits the job"},
            {"optimized_cross", T::kF64, "1",
             std::string("mean cross-ToR share of the CP ring edges where it fits") + nan},
            {"optimized_constraints", T::kF64, "1",
             std::string("mean share of Algorithm 5's constraints kept where it fits") + nan},
            {"baseline_placed", T::kU64, "1", "fault sets under which the baseline fits the job"},
            {"baseline_cross", T::kF64, "1",
             "mean cross-ToR share of the CP ring edges of the groups it placed, whole job or "
             "not"}},
           TableKind::kById,
           points}};
}

class Study final : public Component {
 public:
  Study(ComponentId id, const Config& c, const BuildContext& ctx)
      : Component(id), c_(c), table_(&ctx.stats->table("hbd_cross_tor")) {}

  void finish() override {
    const Point& pt = c_.points[id()];
    const FatTree tree = c_.tree(pt.size);
    const uint64_t job = c_.job_gpus(pt);
    const double constraints = max_constraints(tree);
    const auto p = tree.nodes_per_tor;
    // Streams named by the cluster size and the ratio, not by the point's place in the study:
    // a point draws the same fault sets (and baseline tries) whatever else the study lists.
    const uint64_t stream =
        c_.sizes[pt.size] << 32 | static_cast<uint64_t>(std::llround(c_.ratios[pt.ratio] * 1e9));
    Rng faults(c_.seed, stream, static_cast<uint64_t>(RngPurpose::kFaults));
    Rng greedy(c_.seed, stream, static_cast<uint64_t>(RngPurpose::kModel));
    uint64_t opt_placed = 0, base_placed = 0;
    double opt_cross = 0, opt_kept = 0, base_cross = 0;
    std::vector<uint32_t> faulty;
    for (uint32_t s = 0; s < c_.samples; ++s) {
      faulty.clear();
      for (uint32_t n = 0; n < tree.nodes; ++n) {
        if (faults.bernoulli(c_.ratios[pt.ratio])) faulty.push_back(n);
      }
      if (auto plan = orchestrate_fat_tree(tree, faulty, c_.shape, job)) {
        // The job takes the first groups of the rank order (orchestration.h).
        plan->placement.groups.resize(job / c_.shape.tp);
        opt_cross += cross_tor_traffic(plan->placement.groups, p, p).share();
        opt_kept += plan->constraints / constraints;
        ++opt_placed;
      }
      // The baseline's share counts whatever it placed, also when that falls short of the job:
      // it runs out of free runs of m nodes long before Algorithm 5 does.
      const Placement base = greedy_placement(tree, faulty, c_.shape, job, greedy);
      base_cross += cross_tor_traffic(base.groups, p, p).share();
      base_placed += base.gpus >= job;
    }
    const auto mean = [](double sum, uint64_t n) {
      return n == 0 ? std::numeric_limits<double>::quiet_NaN() : sum / static_cast<double>(n);
    };
    table_->add_row(id(), {c_.sizes[pt.size], pt.job_scale, job, c_.ratios[pt.ratio],
                           uint64_t{c_.samples}, opt_placed, mean(opt_cross, opt_placed),
                           mean(opt_kept, opt_placed), base_placed, mean(base_cross, c_.samples)});
  }

  void handle(const Event& /*e*/) override {}       // it gets none: the study is at finish()
  void serialize(StateArchive& /*ar*/) override {}  // and holds no state before it
  bool knows_event(uint16_t /*kind*/) const override { return false; }

 private:
  const Config& c_;
  Table* table_;
};

class OrchestrationModel final : public Model {
 public:
  explicit OrchestrationModel(Config c) : c_(std::move(c)) {}

  ComponentId num_components() const override { return static_cast<ComponentId>(c_.points.size()); }
  std::vector<GroupLevel> group_levels() const override { return {{"point", c_.points.size()}}; }
  ComponentRange group_range(std::size_t /*level*/, uint64_t group) const override {
    return {static_cast<ComponentId>(group), static_cast<ComponentId>(group + 1)};
  }
  void ports(ComponentId /*id*/, std::vector<PortSpec>& /*out*/) const override {}
  std::vector<TableSpec> tables() const override { return orchestration_tables(c_.points.size()); }
  std::unique_ptr<Component> create(ComponentId id, const BuildContext& ctx) const override {
    return std::make_unique<Study>(id, c_, ctx);
  }
  bool ends_by_itself() const override { return true; }

  std::vector<std::string> report(const StatsRegistry& stats,
                                  const RunEnd& /*end*/) const override {
    const Table& t = stats.table("hbd_cross_tor");
    std::vector<std::string> lines = {
        "hbd_orchestration: TP-" + std::to_string(c_.shape.tp) + " on nodes of " +
        std::to_string(c_.shape.gpus_per_node) + " GPUs, " + std::to_string(c_.nodes_per_tor) +
        " per ToR, K = " + std::to_string(c_.hops) + ", " + std::to_string(c_.samples) +
        " fault sets per point; cross-ToR share of CP ring edges, optimized / baseline "
        "(fault sets under which each fits the job)"};
    const auto pct = [](double v) {
      if (std::isnan(v)) return std::string("-");
      char text[32];
      std::snprintf(text, sizeof text, "%.2f%%", 100 * v);
      return std::string(text);
    };
    for (std::size_t r = 0; r < t.rows(); ++r) {
      char head[96];
      std::snprintf(head, sizeof head, "  %llu GPUs, job %.0f%%, faults %.1f%%: ",
                    static_cast<unsigned long long>(t.u64(0)[r]), 100 * t.f64(1)[r],
                    100 * t.f64(3)[r]);
      lines.push_back(head + pct(t.f64(6)[r]) + " (" + std::to_string(t.u64(5)[r]) + ") / " +
                      pct(t.f64(9)[r]) + " (" + std::to_string(t.u64(8)[r]) + ")");
    }
    return lines;
  }

 private:
  Config c_;
};

uint32_t positive(const ParamSet& p, const std::string& key) {
  return static_cast<uint32_t>(p.integer(key));
}

std::unique_ptr<Model> make_orchestration_model(const ModelParams& mp) {
  const ParamSet& p = mp.section(kSection);
  Config c;
  c.seed = static_cast<uint64_t>(mp.sim->integer("seed"));
  c.shape = {positive(p, "tp"), positive(p, "gpus_per_node")};
  c.nodes_per_tor = positive(p, "nodes_per_tor");
  c.domain_gpus = positive(p, "domain_gpus");
  c.hops = positive(p, "hops");
  c.samples = positive(p, "samples");
  const std::string r = std::to_string(c.shape.gpus_per_node);
  if (c.shape.tp % c.shape.gpus_per_node != 0) {
    throw InputError(kSection + ".tp = " + std::to_string(c.shape.tp) +
                     ": a TP group takes whole nodes; expected a multiple of gpus_per_node = " + r);
  }
  const uint32_t domain_unit = c.shape.gpus_per_node * c.nodes_per_tor;
  if (c.domain_gpus % domain_unit != 0) {
    throw InputError(kSection + ".domain_gpus = " + std::to_string(c.domain_gpus) +
                     ": a domain holds whole ToRs; expected a multiple of gpus_per_node x "
                     "nodes_per_tor = " +
                     std::to_string(domain_unit));
  }
  for (const std::string& s : list_items(p.text("gpus"))) {
    const uint64_t gpus =
        s.find_first_not_of("0123456789") == std::string::npos && s.size() < 9 ? std::stoull(s) : 0;
    if (gpus == 0 || gpus % c.domain_gpus != 0) {
      throw InputError(kSection + ".gpus: '" + s + "' is not whole aggregation domains of " +
                       "domain_gpus = " + std::to_string(c.domain_gpus) + " GPUs");
    }
    c.sizes.push_back(gpus);
  }
  for (const std::string& s : list_items(p.text("fault_ratios"))) {
    c.ratios.push_back(share_in(kSection, "fault_ratios", s));
  }
  std::vector<double> scales;
  for (const std::string& s : list_items(p.text("job_scales"))) {
    scales.push_back(share_in(kSection, "job_scales", s));
  }
  if (c.sizes.empty() || c.ratios.empty() || scales.empty()) {
    throw InputError(kSection + ": gpus, job_scales and fault_ratios must each list at least one");
  }
  for (uint32_t si = 0; si < c.sizes.size(); ++si) {
    for (uint32_t ri = 0; ri < c.ratios.size(); ++ri) {
      for (const double js : scales) c.points.push_back({si, ri, js});
    }
  }
  return std::make_unique<OrchestrationModel>(std::move(c));
}

}  // namespace

void register_orchestration_model(Registry& registry) {
  registry.add(ModelInfo{
      kSection,
      "InfiniteHBD's orchestration study (Sec. 6.4, Fig. 17a-c): Algorithm 5 and the greedy "
      "baseline place a TP job on the K-hop line over a two-tier fat tree under Bernoulli node "
      "faults; the cross-ToR share of the CP ring edges per cluster size, job scale and fault "
      "ratio",
      {
          ParamSpec::text("gpus", "8192",
                          "cluster sizes in GPUs, separated by ',' (Fig. 17a: several; "
                          "Sec. 6.4: 8,192)"),
          ParamSpec::integer("gpus_per_node", 8,
                             "GPUs per node (8: the H100 servers of the fat tree of [24] and of "
                             "the paper's fault trace)")
              .range(1, 64),
          ParamSpec::integer("nodes_per_tor", 2,
                             "nodes under each ToR, p (2: a rack of two 8-GPU servers, [24]); "
                             "CP runs across the p sub-lines")
              .range(1, 1024),
          ParamSpec::integer("domain_gpus", 2048,
                             "GPUs under one group of aggregation switches, d nodes' worth (an "
                             "assumption: the paper gives no size)")
              .range(1, 1 << 24),
          ParamSpec::integer("hops", 2, "K of the K-hop line (2: the paper's preferred design)")
              .range(1, 64),
          ParamSpec::integer("tp", 32, "TP group size in GPUs (Sec. 6.4: TP-32)").range(1, 4096),
          ParamSpec::text("job_scales", "0.5, 0.6, 0.7, 0.8, 0.85, 0.9",
                          "job sizes as shares of the cluster's GPUs (Fig. 17b)"),
          ParamSpec::text("fault_ratios", "0.05",
                          "node fault ratios, separated by ',' (Fig. 17b: 5%; Fig. 17c: a sweep)"),
          ParamSpec::integer("samples", 50, "fault sets per point").range(1, 1e6),
      },
      {},
      orchestration_tables(0),
      make_orchestration_model});
}

}  // namespace hx::net::infinitehbd
