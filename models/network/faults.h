// Faults, repairs and reconfigurations at run time (docs/FAULTS.md): a schedule of timed actions
// on links, routers, endpoints, groups and reconfigurable elements (Topology::reconfigurables),
// from the [faults] section, a CSV file and random processes.
// Every rank builds the same schedule from the config, so the state of a link at a simulated
// time is a pure function of the schedule: a change is visible at one instant on every rank,
// and a restart rebuilds the state from the config (nothing to checkpoint but the time).
// The schedule is sparse: it holds the links and components that ever fail, never the network.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <istream>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/params.h"
#include "core/units.h"
#include "models/network/flat_map.h"
#include "models/network/routing.h"
#include "models/network/topology.h"

namespace hx::net {

/// The [faults] section.
std::vector<ParamSpec> fault_params();

/// One action as a schedule file gives it, before it is checked against the topology.
struct FaultRow {
  SimTime at;
  bool fail = true;  // else a repair (or, with `to`, a reconfiguration)
  std::string element;
  std::string to;      // reconfigure: the configuration to switch to
  std::string origin;  // "faults.csv:3", "faults.h5 row 2"
};
/// Reads the rows of an HDF5 schedule file (faults.file ending in .h5 or .hdf5; io/ provides
/// it); InputError naming the file on any problem.
using FaultFileReader = std::function<std::vector<FaultRow>(const std::string& path)>;

/// The CSV form: header line "at,action,element" (or "at,action,element,to" for files with
/// reconfigurations), one action per line, '#' lines and empty lines skipped; `name` goes into
/// the messages and the origins ("name:LINE").
std::vector<FaultRow> parse_faults_csv(std::istream& in, const std::string& name);

/// One action of the schedule as it applies: what it names, where it was given.
struct FaultAction {
  SimTime at;
  bool fail = true;      // a failure or a reconfiguration (it takes links down); else a repair
  std::string element;   // e.g. "router 12", "router 3 port 5", "x-ocs 2 to hyperx:8"
  std::string origin;    // "config.toml:12", "faults.csv:3", "faults.random[0]"
  uint64_t links = 0;    // directed links it takes down (or brings back)
  SimTime settled;       // when its links are in their new state: at, plus a switching time
};

class Faults {
 public:
  /// No faults.
  Faults() = default;
  /// The schedule of `section` ([faults]) on `topology`; the random picks and processes draw
  /// from streams of `seed`. `horizon` bounds the random processes (their failures before it).
  /// faults.file is CSV, or HDF5 (.h5, .hdf5) read by `read_hdf5`. InputError naming the
  /// action's origin and element on bad input.
  static Faults build(const ParamSet& section, const Topology& topology, uint64_t seed,
                      SimTime horizon, const FaultFileReader& read_hdf5 = nullptr);

  bool empty() const { return actions_.empty(); }
  /// faults.to_failed_endpoint = "wait": a source holds a message to a failed endpoint.
  bool holds_for_failed() const { return hold_for_failed_; }
  /// Whether a message to the endpoint `dst` (its component) is held at `t`; when it is,
  /// `until` is the instant the endpoint next changes (infinity: never).
  bool held(ComponentId dst, SimTime t, SimTime& until) const {
    if (!hold_for_failed_ || component_up(dst, t)) return false;
    until = next_component_change(dst, t);
    return true;
  }
  /// The first instant after `t` at which component c fails or comes back (infinity: none).
  SimTime next_component_change(ComponentId c, SimTime t) const;
  const std::vector<FaultAction>& actions() const { return actions_; }

  /// Whether directed link `link` (Topology::first_link numbering) carries traffic at `t`:
  /// neither it nor either end is failed, and, for a circuit, its configuration is live.
  bool link_up(uint64_t link, SimTime t) const;
  /// The configuration instance `instance` of reconfigurable element `element` is in at `t`,
  /// or is switching to (0 before any reconfiguration).
  uint32_t configuration(uint32_t element, uint32_t instance, SimTime t) const;
  /// Up at every instant of [from, to].
  bool link_up_throughout(uint64_t link, SimTime from, SimTime to) const;
  bool component_up(ComponentId c, SimTime t) const;
  /// Whether the link (or component) is ever down: only those need asking.
  bool link_ever_down(uint64_t link) const {
    const History* set = circuit_history(link);
    return links_.count(link) > 0 || (set != nullptr && !set->empty());
  }
  bool component_ever_down(ComponentId c) const { return components_.count(c) > 0; }
  /// Time the link is down within [from, to).
  SimTime down_time(uint64_t link, SimTime from, SimTime to) const;
  /// The action that last took the link down at or before `t` (for /faults dropped counts);
  /// actions().size() if none.
  uint32_t cause(uint64_t link, SimTime t) const;
  /// The first instant after `t` at which the link's state may change (infinity: none).
  SimTime next_change(uint64_t link, SimTime t) const;
  /// The actions that change the link, in time order.
  std::vector<uint32_t> actions_on(uint64_t link) const;
  /// Every instant at which some link's state changes (reconfigurations: when they start and
  /// when they settle), ascending.
  std::vector<SimTime> change_times() const;
  /// Which stretch between change_times() holds `t`: every link's state is the same at any
  /// two instants of one epoch.
  uint32_t epoch(SimTime t) const {
    return static_cast<uint32_t>(std::upper_bound(times_.begin(), times_.end(), t) -
                                 times_.begin());
  }
  /// The instants at which component c itself fails or comes back, ascending.
  std::vector<SimTime> component_changes(ComponentId c) const;

 private:
  // A link's (or component's) count of failed elements covering it, after each change.
  struct Change {
    SimTime at;
    int32_t down = 0;       // failed elements covering it from `at` on
    uint32_t action = 0;    // the action of this change
  };
  using History = std::vector<Change>;
  static constexpr uint32_t kDark = ~0u;  // Change::action of a configuration dark from time 0
  static const Change* state_at(const History& h, SimTime t);
  static bool up_throughout(const History& h, SimTime from, SimTime to);
  // The history of the circuit set `link` belongs to (nullptr: no circuit).
  const History* circuit_history(uint64_t link) const;
  // The link's own history and its circuit set's, summed (they count failed elements alike).
  History merged(uint64_t link) const;

  std::vector<FaultAction> actions_;
  std::vector<SimTime> times_;  // change_times(), for epoch()
  bool hold_for_failed_ = false;
  std::unordered_map<uint64_t, History> links_;
  std::unordered_map<ComponentId, History> components_;
  // Reconfigurable elements: each (element, instance, configuration) is a set of circuit links
  // sharing one history, so the schedule holds a few histories and one (link -> set) map of
  // the circuits rather than a history per link.
  std::vector<History> sets_;
  // Circuit link -> its set: every routing step under a schedule with circuits asks about
  // the links it may take, so the lookup is one probe (a binary search of a sorted list was
  // a tenth of a RailX reconfiguration run).
  FlatMap<uint32_t> circuits_;
  std::vector<uint32_t> first_set_;                      // per element: its first set
  std::vector<uint32_t> first_instance_;                 // per element: its first instance
  std::vector<uint32_t> configurations_;                 // per element: how many
  // Per instance of every element: (start, configuration) of each reconfiguration, in order.
  std::vector<std::vector<std::pair<SimTime, uint32_t>>> switches_;
  uint32_t set_of(uint32_t element, uint32_t instance, uint32_t configuration) const {
    return first_set_[element] + instance * configurations_[element] + configuration;
  }

  friend class FaultScheduleBuilder;
};

/// What a routing sees of the links at instant `at` away from a router (the flow level's paths,
/// `hxsim verify`): no port loads, the links the schedule (nullptr: none) has up then.
class LinksAt final : public RouterView {
 public:
  LinksAt(const Faults* faults, SimTime when) : faults_(faults), at(when) {
    any_faults_ = faults != nullptr;
  }
  uint32_t load(PortId) const override { return 0; }
  bool link_up(uint64_t link) const override {
    return faults_ == nullptr || faults_->link_up(link, at);
  }
  uint32_t configuration(uint32_t element, uint32_t instance) const override {
    return faults_ == nullptr ? 0 : faults_->configuration(element, instance, at);
  }

 private:
  const Faults* faults_;

 public:
  SimTime at;
};

}  // namespace hx::net
