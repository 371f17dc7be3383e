// The network model: builds routers and endpoints over a topology family, and registers each
// family as a model with the shared [router] and [traffic] sections.
#include "models/network/network_model.h"

#include <cmath>
#include <optional>
#include <stdexcept>

#include "core/error.h"
#include "models/components/program_runner.h"
#include "models/components/traffic_matrix.h"
#include "models/flow/fabric.h"
#include "models/flow/flow_endpoint.h"
#include "models/flow/folding.h"
#include "models/network/faults.h"
#include "models/network/network_context.h"
#include "models/network/network_stats.h"
#include "models/network/workload_config.h"
#include "models/workloads/llm.h"
#include "models/workloads/llm_search.h"

namespace hx::net {
namespace {

// A router at flow level: the fabric stands for it, so it has no ports and gets no events.
class FlowLevelRouter final : public Component {
 public:
  using Component::Component;
  void handle(const Event& e) override {
    throw std::logic_error("router " + std::to_string(id()) + " at flow level got event kind " +
                           std::to_string(e.kind));
  }
  void serialize(StateArchive&) override {}
};

class BuiltNetworkModel final : public NetworkModel {
 public:
  BuiltNetworkModel(Network network, const ModelParams& params, const std::string& family,
                    const InputFiles& files)
      : network_(std::move(network)) {
    const Topology& t = *network_.topology;
    const Routing& r = *network_.routing;
    net_.topology = &t;
    net_.routing = &r;
    net_.elements = standard_elements();
    for (const std::string& name : t.switch_elements()) net_.element(name);
    net_.router = router_config_from(params.section("router"), r.vcs(), r.name());
    net_.traffic = traffic_config_from(params.section("traffic"));
    net_.cycle = params.sim->time("cycle_time");
    if (net_.cycle <= SimTime::zero())
      throw InputError("sim.cycle_time = 0ps: network models need a cycle");
    net_.latency_bins = LatencyBins(net_.cycle, net_.traffic.histogram_bins);
    if (net_.traffic.packet_flits > net_.router.buffer_flits) {
      throw InputError(
          "traffic.packet_flits = " + std::to_string(net_.traffic.packet_flits) +
          " exceeds router.buffer_flits = " + std::to_string(net_.router.buffer_flits) +
          ": virtual cut-through needs room for a whole packet in one VC buffer");
    }
    for (const LinkClass& c : t.link_classes()) {
      const auto ps = static_cast<int64_t>(
          std::llround(static_cast<double>(net_.cycle.count_ps()) / c.flits_per_cycle));
      if (ps <= 0) {
        throw InputError(family + ": link class '" + c.name + "' at " +
                         std::to_string(c.flits_per_cycle) +
                         " flits/cycle is faster than one flit per picosecond");
      }
      net_.per_flit.push_back(SimTime::ps(ps));
    }
    net_.window_begin = net_.traffic.warmup;
    net_.window_end = net_.window_begin + net_.traffic.measure;

    workload_ = make_workload(params.section("workload"), params.section("llm"), net_, files,
                              static_cast<uint64_t>(params.sim->integer("seed")));
    faults_ = Faults::build(params.section("faults"), t,
                            static_cast<uint64_t>(params.sim->integer("seed")),
                            params.sim->time("end_time"), files.read_faults);
    if (!faults_.empty()) net_.faults = &faults_;
    flow_level_ = params.sim->text("fidelity") == "flow";
    if (flow_level_ && params.sim->text("fold") == "auto") {
      if (faults_.empty()) {
        fold(t, r, params.team);
      } else {
        fold_note_ = "faults break the symmetry folding needs";
      }
    }
    set_timeseries(params.sim->time("end_time"));
    plan_observations();
    if (workload_) {
      // A program runs until it is done: everything it does is measured.
      net_.workload = workload_.get();
      net_.injection_queues =
          static_cast<uint32_t>(params.section("workload").integer("injection_queues"));
      net_.traffic_matrix = params.section("workload").flag("traffic_matrix");
      net_.window_begin = SimTime::zero();
      net_.window_end = SimTime::infinity();
      return;
    }
    PatternParams pattern;
    pattern.name = net_.traffic.pattern;
    pattern.hotspot_groups = net_.traffic.hotspot_groups;
    pattern.block = net_.traffic.block;
    pattern.bit_fit = net_.traffic.bit_fit;
    pattern.ring_unit = net_.traffic.ring_unit;
    pattern.ring_order = net_.traffic.ring_order;
    pattern.seed = static_cast<uint64_t>(params.sim->integer("seed"));
    pattern_ = make_pattern(pattern, t);
    net_.pattern = pattern_.get();
    // A source queue that cannot hold one message refuses every message.
    if (net_.traffic.message_packets > net_.traffic.source_queue_limit) {
      throw InputError(
          "traffic.source_queue_limit = " + std::to_string(net_.traffic.source_queue_limit) +
          " packets: less than one message of traffic.message_packets = " +
          std::to_string(net_.traffic.message_packets) + ", so every message would be refused");
    }
    // A pattern can leave every endpoint to itself: a permutation over blocks of 2 is the
    // identity for half the seeds. Such a run measures nothing (all its means NaN).
    if (net_.traffic.load > 0) {
      uint32_t e = 0;
      while (e < t.num_endpoints() && !pattern_->sends(e)) ++e;
      if (e == t.num_endpoints()) {
        throw InputError(
            "traffic.pattern = \"" + pattern.name + "\"" +
            (pattern.block > 0 ? " in blocks of " + std::to_string(pattern.block) : std::string()) +
            ": no endpoint sends to another with sim.seed = " + std::to_string(pattern.seed) +
            ", so the run would measure nothing; change the seed or the pattern");
      }
    }
  }

  // /timeseries rows: up to the end of the run (sim.end_time, or for synthetic traffic the
  // drain limit after the window; a workload's end is not known before it runs).
  void set_timeseries(SimTime end_time) {
    const SimTime bin = net_.traffic.timeseries_bin;
    if (bin <= SimTime::zero()) return;
    SimTime end = end_time;
    if (end.is_infinite() && !workload_) end = net_.window_end + net_.traffic.drain_limit;
    if (end.is_infinite()) {
      throw InputError("traffic.timeseries_bin = " + format_time(bin) +
                       ": a workload run's time series needs sim.end_time (its last bin)");
    }
    // The last row is the bin holding the end (from the end itself when it is a bin's end):
    // its queue observation is the run's end, and it takes what lies beyond. A bin wholly
    // after the end would hold only that, and the one before it would end after the run,
    // unobserved.
    const uint64_t rows = static_cast<uint64_t>(end.count_ps() / bin.count_ps()) + 1;
    if (rows > 10'000'000) {
      throw InputError("traffic.timeseries_bin = " + format_time(bin) + ": " +
                       std::to_string(rows) + " bins up to " + format_time(end) +
                       "; at most 10,000,000");
    }
    net_.timeseries_bins = rows;
  }

  // The observations (net_.observations): synthetic traffic's queue samples in its window and
  // the end of every /timeseries bin but the last (the run's end closes it), in time order.
  // Both lists come in time order, so they merge in one pass (up to 10^7 bins).
  void plan_observations() {
    std::vector<std::pair<SimTime, int32_t>> samples;  // a later sample at the same time wins
    for (uint32_t k = 0; !workload_ && k < kQueueSamples; ++k) {
      const SimTime t = queue_sample_time(net_.window_begin, net_.window_end, k);
      if (samples.empty() || samples.back().first != t) samples.emplace_back(t, 0);
      samples.back().second = static_cast<int32_t>(k);
    }
    const int64_t bin = net_.traffic.timeseries_bin.count_ps();
    const uint64_t bin_ends = net_.timeseries_bins > 0 ? net_.timeseries_bins - 1 : 0;
    observation_times_.reserve(samples.size() + bin_ends);
    net_.observations.reserve(samples.size() + bin_ends);
    std::size_t s = 0;
    for (uint64_t b = 0; b <= bin_ends; ++b) {
      const SimTime end =
          b < bin_ends ? SimTime::ps(bin * static_cast<int64_t>(b + 1)) : SimTime::infinity();
      for (; s < samples.size() && samples[s].first < end; ++s) {
        observation_times_.push_back(samples[s].first);
        net_.observations.push_back({samples[s].second, -1});
      }
      if (b == bin_ends) break;
      NetworkContext::Observation o{-1, static_cast<int64_t>(b)};
      if (s < samples.size() && samples[s].first == end) o.queue_sample = samples[s++].second;
      observation_times_.push_back(end);
      net_.observations.push_back(o);
    }
  }

  // Folding (models/flow/folding.h) when it is exact; otherwise the reason goes in the report.
  void fold(const Topology& t, const Routing& r, const Team* team) {
    if (!workload_) return;
    const SoloTeam solo;
    try {
      folding_ = flow::Folding::build(t, r, *workload_, net_.router.pipeline, flow::hop_limit(t),
                                      team ? *team : solo, fold_note_);
    } catch (const std::runtime_error& e) {
      throw InputError(std::string("sim.fidelity = \"flow\": ") + e.what());
    }
    net_.folding = folding_.get();
    const wl::Symmetry* sym = workload_->symmetry();
    symmetry_unused_ = !folding_ && sym != nullptr && sym->order() >= 2;
  }
  uint32_t simulated_endpoints() const {
    return folding_ ? static_cast<uint32_t>(folding_->representatives().size())
                    : topology().num_endpoints();
  }
  // The fabric's port to endpoint e, or none for an endpoint folded into another.
  std::optional<uint32_t> fabric_port(uint32_t e) const {
    if (!folding_) return e;
    const uint32_t port = folding_->port_of(e);
    if (port == flow::Folding::kNone) return std::nullopt;
    return port;
  }

  const Topology& topology() const override { return *network_.topology; }
  const Routing& routing() const override { return *network_.routing; }
  uint8_t vcs() const override { return net_.router.vcs; }
  const Faults* faults() const override { return net_.faults; }

  // At flow level one more component, the fabric, comes after the topology's; every endpoint
  // has one port to it and the routers have none.
  ComponentId num_components() const override {
    return topology().num_components() + (flow_level_ ? 1 : 0);
  }
  bool flow_level() const override { return flow_level_; }
  ComponentId fabric() const { return topology().num_components(); }
  std::optional<ComponentId> hub() const override {
    return flow_level_ ? std::optional<ComponentId>(fabric()) : std::nullopt;
  }
  std::vector<GroupLevel> group_levels() const override { return topology().group_levels(); }
  ComponentRange group_range(std::size_t level, uint64_t group) const override {
    return topology().group_range(level, group);
  }
  // Routers handle several events per packet hop, endpoints about two per packet.
  uint64_t weight(ComponentId id) const override {
    if (flow_level_) return id == fabric() ? simulated_endpoints() : 1;
    return topology().node(id).kind == NodeKind::kRouter ? 4 : 1;
  }
  void ports(ComponentId id, std::vector<PortSpec>& out) const override {
    if (!flow_level_) {
      topology().ports(id, out);
      return;
    }
    const SimTime latency = flow::Fabric::kPortLatency;
    if (id == fabric()) {
      for (uint32_t e = 0; e < topology().num_endpoints(); ++e) {
        if (!fabric_port(e)) continue;
        out.push_back(
            {topology().endpoint_component(e), flow::FlowEndpoint::kFabricPort, latency, 0});
      }
      return;
    }
    const Node node = topology().node(id);
    if (node.kind != NodeKind::kEndpoint) return;
    if (const auto port = fabric_port(node.index)) out.push_back({fabric(), *port, latency, 0});
  }
  std::vector<TableSpec> tables() const override {
    std::vector<TableSpec> tables = network_tables(topology(), net_.latency_bins,
                                                   faults_.actions().size(), net_.timeseries_bins);
    if (workload_) {
      for (TableSpec& t : workload_tables(*workload_)) tables.push_back(std::move(t));
    }
    if (net_.traffic_matrix) tables.push_back(traffic_matrix_table(topology().num_endpoints()));
    return tables;
  }
  std::unique_ptr<Component> create(ComponentId id, const BuildContext& ctx) const override {
    if (!flow_level_) return net_.element_of(id).make(id, topology().node(id).index, net_, ctx);
    if (id == fabric()) return std::make_unique<flow::Fabric>(id, net_, ctx);
    const Node node = topology().node(id);
    if (node.kind == NodeKind::kRouter) return std::make_unique<FlowLevelRouter>(id);
    return std::make_unique<flow::FlowEndpoint>(id, node.index, net_, ctx);
  }
  bool ends_by_itself() const override { return true; }
  SimTime expected_end() const override {
    return workload_ ? SimTime::infinity() : net_.window_end;
  }
  std::vector<SummaryValue> summarize(const StatsRegistry& stats,
                                      const RunEnd& end) const override {
    std::vector<SummaryValue> values = summarize_run(stats, end);
    values.push_back({"timeseries_bin_ps", net_.traffic.timeseries_bin.count_ps(), "ps",
                      "/timeseries bin width (traffic.timeseries_bin; 0: none)"});
    return values;
  }
  std::vector<SummaryValue> summarize_run(const StatsRegistry& stats, const RunEnd& end) const {
    if (!workload_) {
      // A run cut short measured only the part of the window it reached.
      SimTime measured = net_.traffic.measure;
      if (end.cut_short() &&
          net_.window_overlap(net_.window_begin, end.reached) > SimTime::zero()) {
        measured = net_.window_overlap(net_.window_begin, end.reached);
      }
      return summarize_network(stats, topology(), net_.cycle, measured);
    }
    // Rates of a workload run are over its whole length.
    const SimTime last = SimTime::ps(stats.table("workload_totals").i64(4)[0]);
    std::vector<SummaryValue> values = summarize_network(stats, topology(), net_.cycle, last);
    for (SummaryValue& v : summarize_workload(stats, *workload_)) values.push_back(std::move(v));
    if (flow_level_) {
      values.push_back({"folded_members", uint64_t{folding_ ? folding_->members() : 1u}, "1",
                        "flow level: endpoints each simulated endpoint stands for (1: not "
                        "folded; docs/MODELS.md \"Folding\")"});
    }
    return values;
  }
  // Source queues are sampled at observations (Endpoint::observe), and the queues at the end
  // of each /timeseries bin; a sweep point found unstable at a sample ends there
  // (traffic.stop_unstable).
  std::vector<SimTime> observation_times() const override { return observation_times_; }
  std::vector<std::string> end_early_tables(std::size_t k) const override {
    if (workload_ || !net_.traffic.stop_unstable || net_.observations[k].queue_sample < 0)
      return {};
    return {"network_totals", "queue_samples"};  // what queues_unstable reads
  }
  bool end_early(std::size_t k, const StatsRegistry& summed) const override {
    const int32_t sample = net_.observations[k].queue_sample;
    return sample >= 0 && queues_unstable(summed, static_cast<std::size_t>(sample) + 1);
  }
  // One packet crossing one link (injection, router-to-router or ejection): the unit of
  // simulator speed the field compares (issue #8).
  // At flow level the unit is a flow (a message) carried end to end.
  std::string work_unit() const override { return flow_level_ ? "flows" : "packet_hops"; }
  uint64_t endpoints() const override { return topology().num_endpoints(); }

  std::vector<std::string> notes() const override {
    if (!flow_level_) return {};
    std::vector<std::string> notes;
    if (!workload_) {
      notes.push_back(
          "synthetic traffic at flow level: every message is a flow, and each start or end "
          "solves again the rates of the flows that share links with it, so with thousands "
          "in flight this runs slower than the packet level (docs/performance/models.md, "
          "\"Synthetic traffic of small messages\")");
    } else if (symmetry_unused_) {
      // Said before the run: an unfolded iteration can take hours where a folded one takes
      // seconds, and the reason is known now.
      notes.push_back("not folded (" + fold_note_ + "): all " +
                      std::to_string(simulated_endpoints()) +
                      " endpoints run their programs, each message a flow (docs/MODELS.md "
                      "\"Folding\")");
    }
    if (!routing().minimal()) {
      notes.push_back("routing \"" + routing().name() +
                      "\" at flow level: each flow also takes every non-minimal path (through "
                      "every intermediate), so flows share links across the network and each "
                      "start or end solves more of them again: slower than minimal routing, by "
                      "an order of magnitude on all-to-all and synthetic traffic "
                      "(docs/performance/models.md, \"Non-minimal routing\")");
    }
    if (routing().detours()) {
      notes.push_back("routing \"" + routing().name() +
                      "\" at flow level: flows keep to the direct paths and take a detour only "
                      "where nothing else is offered, where packets detour around busy links, so "
                      "traffic that fills the direct paths takes longer than at packet level "
                      "(docs/VALIDATION.md, \"Flow level against packet level\")");
    }
    return notes;
  }

  std::vector<std::string> report(const StatsRegistry& stats, const RunEnd& end) const override {
    std::vector<std::string> lines;
    if (workload_) {
      lines = report_workload(stats, *workload_, end);
      if (flow_level_) {
        lines.insert(lines.begin(),
                     folding_ ? "folded: " + folding_->describe() : "not folded: " + fold_note_);
      }
    } else if (std::string warning =
                   instability_warning(summarize(stats, end), net_.traffic.source_queue_limit, end);
               !warning.empty()) {
      lines.push_back(std::move(warning));
    }
    // A lost packet's message never completes (docs/FAULTS.md): say so beside the workload.
    if (!faults_.empty()) {
      const uint64_t lost = stats.table("network_totals").u64(totals::kPacketsDropped)[0];
      const std::size_t n = faults_.actions().size();
      lines.push_back("faults: " + std::to_string(n) + (n == 1 ? " action, " : " actions, ") +
                      std::to_string(lost) +
                      " packets lost (/faults, /drops; their messages "
                      "never complete)");
    }
    return lines;
  }
  std::vector<std::pair<std::string, std::string>> texts() const override {
    std::vector<std::pair<std::string, std::string>> out;
    std::string elements;
    for (const FaultAction& a : faults_.actions()) elements += a.element + "\n";
    out.emplace_back("/fault_elements", elements);
    if (!workload_) return out;
    std::string names;
    for (const wl::OpGroup& g : workload_->groups()) names += g.name + "\n";
    out.emplace_back("/workload_group_names", names);
    if (!net_.traffic_matrix) return out;
    std::string types;
    for (const std::string& t : workload_->traffic_types()) types += t + "\n";
    out.emplace_back("/traffic_types", types);
    return out;
  }

 private:
  Network network_;
  std::unique_ptr<TrafficPattern> pattern_;
  std::vector<SimTime> observation_times_;  // net_.observations' times
  std::unique_ptr<wl::Workload> workload_;
  bool flow_level_ = false;  // sim.fidelity = flow
  std::unique_ptr<const flow::Folding> folding_;
  Faults faults_;  // the schedule; net_.faults points here unless it is empty
  std::string fold_note_ = "sim.fold = \"off\"";  // why there is no folding
  bool symmetry_unused_ = false;  // the workload has one, and the network shares none of it
  NetworkContext net_;
};

// What `hxsim list` shows for the tables of a network model (and of a workload run), without
// building one.
std::vector<TableSpec> table_descriptions() {
  class Empty final : public Topology {
   public:
    std::string describe() const override { return ""; }
    uint32_t num_routers() const override { return 0; }
    uint32_t num_endpoints() const override { return 0; }
    Node node(ComponentId) const override { return {}; }
    ComponentId router_component(uint32_t) const override { return 0; }
    ComponentId endpoint_component(uint32_t) const override { return 0; }
    void ports(ComponentId, std::vector<PortSpec>&) const override {}
    uint64_t first_link(ComponentId) const override { return 0; }
    uint64_t num_links() const override { return 0; }
    std::vector<GroupLevel> group_levels() const override { return {}; }
    ComponentRange group_range(std::size_t, uint64_t) const override { return {}; }
    const std::vector<LinkClass>& link_classes() const override { return classes_; }
    uint32_t num_endpoint_groups() const override { return 0; }
    uint32_t endpoint_group(uint32_t) const override { return 0; }
    EndpointRange endpoint_group_range(uint32_t) const override { return {}; }
    uint32_t endpoint_router(uint32_t) const override { return 0; }
    uint32_t diameter() const override { return 0; }

   private:
    std::vector<LinkClass> classes_;
  };
  class NoWork final : public wl::Workload {
   public:
    uint32_t phases(uint32_t) const override { return 0; }
    void generate(uint32_t, uint32_t, wl::Program&) const override {}
    const std::vector<wl::OpGroup>& groups() const override { return groups_; }

   private:
    std::vector<wl::OpGroup> groups_;
  };
  std::vector<TableSpec> tables = network_tables(Empty(), LatencyBins(SimTime::ps(1), 1), 0, 0);
  std::vector<TableSpec> workload = workload_tables(NoWork());
  workload.push_back(traffic_matrix_table(0));
  for (TableSpec& t : workload) {
    t.help += " (workload runs only)";
    tables.push_back(std::move(t));
  }
  return tables;
}

}  // namespace

const NetworkModel* as_network(const Model& model) {
  return dynamic_cast<const NetworkModel*>(&model);
}

void register_network_family(Registry& registry, TopologyFamily family, const InputFiles& files) {
  ModelInfo info;
  info.name = family.name;
  info.help = family.help;
  info.params = family.params;
  info.extra_sections = {{"router", router_params()},     {"traffic", traffic_params()},
                         {"workload", workload_params()}, {"llm", wl::llm_params()},
                         {"search", wl::search_params()}, {"faults", fault_params()}};
  info.tables = table_descriptions();
  info.make = [family, files](const ModelParams& params) -> std::unique_ptr<Model> {
    return std::make_unique<BuiltNetworkModel>(family.make(params.section(family.name)), params,
                                               family.name, files);
  };
  info.closed_forms = family.closed_forms;
  // The /summary values of network_stats.cpp; traffic.load is the [traffic] section's.
  info.sweep = {
      "traffic.load",   "offered_load",          "accepted_load",           "latency_mean_ps",
      "latency_p50_ps", "latency_p99_ps",        "network_latency_mean_ps", "hops_mean",
      "unstable",       "traffic.stop_unstable", "workload.kind=synthetic"};
  registry.add(std::move(info));
}

}  // namespace hx::net
