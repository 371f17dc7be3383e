// What a model gives the engine: the network as pure functions of a component id (DESIGN §3.4),
// so each rank builds only its own components. Nothing here knows about ranks or MPI.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/component.h"
#include "core/ids.h"
#include "core/params.h"
#include "core/stats.h"
#include "core/units.h"

namespace hx {

/// One end of a link as the model describes it: port `index` of a component connects to
/// `peer_port` of `peer`. Links are bidirectional and symmetric: the peer's port `peer_port`
/// must name this component and port back, with the same latency.
struct PortSpec {
  ComponentId peer = 0;
  uint32_t peer_port = 0;  // a hub's ports may go past PortId (kWidePort)
  SimTime latency;
  uint16_t link_class = 0;  // model-defined (on-chip, global, optical, ...)
};

/// A level of the model's grouping hierarchy (e.g. "wafer", "node"); `count` groups.
struct GroupLevel {
  std::string name;
  uint64_t count = 0;
};

/// A contiguous range [begin, end) of component ids.
struct ComponentRange {
  ComponentId begin = 0;
  ComponentId end = 0;
  ComponentId size() const { return end - begin; }
};

/// Everything a component needs at construction; no ranks, no MPI.
struct BuildContext {
  uint64_t seed = 0;
  StatsRegistry* stats = nullptr;
};

/// How a run ended, for the model's summary.
struct RunEnd {
  SimTime reached;           // the simulated time it got to (the same on every rank)
  bool interrupted = false;  // a stop request (signal, wall-clock limit) ended it
  bool ended_early = false;  // the model ended it at an observation (end_early)
  bool drained = false;      // no events remained (else sim.end_time or a stop came first)
  bool cut_short() const { return interrupted || ended_early; }
};

class Model {
 public:
  virtual ~Model() = default;

  virtual ComponentId num_components() const = 0;

  /// Grouping levels, coarsest first. Every group is a contiguous id range and each level's
  /// groups nest inside the previous level's. The partitioner keeps groups whole.
  virtual std::vector<GroupLevel> group_levels() const = 0;
  virtual ComponentRange group_range(std::size_t level, uint64_t group) const = 0;

  /// Relative cost of a component, for load balancing.
  virtual uint64_t weight(ComponentId /*id*/) const { return 1; }

  /// A model whose active components all link to one hub and to nothing else (the flow level's
  /// fabric) names the hub: the group partitioner then deals the components with ports to the
  /// ranks in turn and puts the hub on the last rank, since every cut link is then a link to
  /// the hub and what matters is that components busy at the same instant work side by side.
  /// Empty (the default): partition by groups.
  virtual std::optional<ComponentId> hub() const { return std::nullopt; }

  /// Fills `out` with the component's ports, index = port id.
  virtual void ports(ComponentId id, std::vector<PortSpec>& out) const = 0;

  /// Statistics tables the model's components fill (declared on every rank).
  virtual std::vector<TableSpec> tables() const = 0;

  virtual std::unique_ptr<Component> create(ComponentId id, const BuildContext& ctx) const = 0;

  /// True when the model's events run out on their own (a network whose traffic stops), so a
  /// run may have no end time. Endless models (PHOLD) need sim.end_time.
  virtual bool ends_by_itself() const { return false; }

  /// When a run without an end time is expected to finish, for progress reports (a network:
  /// the end of its measurement window). Infinity: unknown.
  virtual SimTime expected_end() const { return SimTime::infinity(); }

  /// Simulated times, ascending, at which the engine observes the run exactly: with every event
  /// before the time handled and none after, it calls every component's Component::observe(k).
  /// Such times are the only ones at which the model may end a run early (end_early).
  virtual std::vector<SimTime> observation_times() const { return {}; }
  /// The kSummed tables end_early(k) reads. Only at observations with some does the engine ask
  /// end_early, having added up just those across ranks: a time series observes every bin's
  /// end, and adding up its tables at each would grow with the square of the bins.
  virtual std::vector<std::string> end_early_tables(std::size_t /*k*/) const { return {}; }
  /// After observation `k`: whether the run ends there, judged from `summed`, the tables of
  /// end_early_tables(k) added up over all ranks (the same on every rank). A run that would only
  /// confirm what it already shows (a sweep point found unstable) need not run on. The decision
  /// may use nothing but `summed`, so that it is the same after a restart from a checkpoint.
  virtual bool end_early(std::size_t /*k*/, const StatsRegistry& /*summed*/) const {
    return false;
  }

  /// Run-level results derived from the tables after the engine has reduced them across ranks
  /// (same on every rank); written as attributes of /summary.
  virtual std::vector<SummaryValue> summarize(const StatsRegistry& /*stats*/,
                                              const RunEnd& /*end*/) const {
    return {};
  }

  /// Lines `hxsim run` prints after its summary (rank 0), from the reduced tables.
  virtual std::vector<std::string> report(const StatsRegistry& /*stats*/,
                                          const RunEnd& /*end*/) const {
    return {};
  }

  /// Advice printed before the run starts (rank 0, standard error, "hxsim: note: ..."): what
  /// the user should know about a choice the config made before waiting for its result.
  virtual std::vector<std::string> notes() const { return {}; }

  /// Text datasets for the output file, (path, text), e.g. the names of table rows.
  virtual std::vector<std::pair<std::string, std::string>> texts() const { return {}; }
  /// What Component::work_done counts ("packet_hops" for networks), or empty: the engine
  /// reports it per rank in /engine and per wall second next to events/s.
  virtual std::string work_unit() const { return {}; }
  /// True when the model was built at flow level (sim.fidelity = flow): a model that ignores
  /// the key stays false, and the run is refused rather than silently run packet by packet.
  virtual bool flow_level() const { return false; }
  /// Network models: endpoints (chips, or cores with on-chip meshes), for per-endpoint figures
  /// such as memory; 0 for models without them.
  virtual uint64_t endpoints() const { return 0; }
};

}  // namespace hx
