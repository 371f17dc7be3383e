// Runs one endpoint's message-DAG program (models/workloads/program.h) inside the simulated
// network: ops start when their dependencies are done, sends go out through the endpoint's
// injection queue, recvs complete when the matching message has fully arrived. It also keeps the
// workload statistics: per operation group (start, end, critical path), per parallelism
// dimension (exposed communication), per run, and the endpoint's row of the traffic matrix.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <queue>
#include <utility>
#include <vector>

#include "core/model.h"
#include "core/stats.h"
#include "core/units.h"
#include "models/components/message_table.h"
#include "models/components/traffic_matrix.h"
#include "models/network/flat_map.h"
#include "models/workloads/program.h"

namespace hx {
class StateArchive;  // core/state_archive.h
}  // namespace hx

namespace hx::net {

/// What the runner asks of its endpoint.
class ProgramHost {
 public:
  virtual ~ProgramHost() = default;
  /// Queue a message for injection; when its last flit has left, call op_done(op).
  /// `path_compute` travels with the message (critical-path accounting).
  virtual void post_send(uint32_t dst, uint64_t bytes, uint64_t message, uint32_t op,
                         SimTime path_compute) = 0;
  /// Call op_done(op) `delay` from now.
  virtual void wake(SimTime delay, uint32_t op) = 0;
};

/// The tables the runners fill (docs/OUTPUT.md).
std::vector<TableSpec> workload_tables(const wl::Workload& workload);

/// The /summary values of a workload run, from the reduced tables.
std::vector<SummaryValue> summarize_workload(const StatsRegistry& stats,
                                             const wl::Workload& workload);

/// What `hxsim run` prints of a workload: the totals and each operation group's time next to
/// its α–β model time. `end` says why programs that did not complete stopped.
std::vector<std::string> report_workload(const StatsRegistry& stats, const wl::Workload& workload,
                                         const RunEnd& end);

/// Message ids on the wire: the phase in the high half, so phases may reuse tags.
inline uint64_t message_id(uint32_t phase, uint32_t tag) { return uint64_t{phase} << 32 | tag; }

class ProgramRunner {
 public:
  /// `members` > 1: the runner stands for that many endpoints whose programs are images of
  /// this one's (flow-level folding): sums are counted for all of them, and ties of the latest
  /// end go to `smallest`, the least of their indices. `traffic_matrix`: keep traffic().
  ProgramRunner(const wl::Workload& workload, uint32_t endpoint, StatsRegistry& stats,
                bool traffic_matrix, uint32_t members = 1, uint32_t smallest = 0);

  void start(SimTime now, ProgramHost& host);
  void op_done(uint32_t op, SimTime now, ProgramHost& host);
  /// The whole message `message` from `src` has arrived.
  void message_arrived(uint32_t src, uint64_t message, SimTime path_compute, SimTime now,
                       ProgramHost& host);
  void finish();
  /// What this endpoint's sends carried to other endpoints (self-messages left out), by
  /// destination and traffic type; nullptr unless asked for. The host writes its rows.
  const TrafficTally* traffic() const { return traffic_.get(); }

  /// Checkpoints (Component::serialize): writes or reads back the runner's state.
  void serialize(StateArchive& ar);

 private:
  struct Arrival {
    SimTime at;
    SimTime path_compute;
  };

  void begin_phase(SimTime now, ProgramHost& host);
  void load_phase();
  void start_op(uint32_t op, SimTime now, ProgramHost& host);
  void complete(uint32_t op, SimTime now, SimTime path, ProgramHost& host);
  void run_ready(SimTime now, ProgramHost& host);
  void expose(uint32_t group, SimTime t);
  wl::Dim dim_of(uint32_t group) const { return workload_.groups()[group].dim; }

  const wl::Workload& workload_;
  uint32_t endpoint_;
  uint32_t members_;
  uint32_t smallest_;
  uint32_t phases_;
  Table* groups_;
  Table* dims_;
  Table* totals_;

  // The current phase: its ops, successors (CSR) and per-op progress.
  uint32_t phase_ = 0;
  wl::Program program_;
  std::vector<uint32_t> succ_begin_;
  std::vector<uint32_t> succ_;
  std::vector<uint32_t> fill_;  // load_phase's scratch, kept to spare an allocation per phase
  std::vector<uint32_t> remaining_;    // dependencies not yet done
  std::vector<uint32_t> occurrence_;   // a send's or recv's number for message_id()
  std::vector<SimTime> start_at_;      // kNotStarted until it starts
  std::vector<SimTime> ready_at_;      // when its latest dependency finished
  std::vector<SimTime> ready_path_;    // compute on the critical path up to then
  std::vector<uint32_t> ready_group_;  // group of that latest dependency
  uint32_t done_ = 0;
  // Ops whose dependencies are done, smallest index first (always empty between events).
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready_;

  // Keyed by (source endpoint, message id); flat, since a node per message made the allocator
  // a tenth of a flow-level run.
  MessageTable<Arrival> arrived_;  // messages whose recv has not started yet
  MessageTable<uint32_t> posted_;  // started recvs waiting for their message
  // Sends and recvs so far per (peer << 32 | tag), the current phase's included (load_phase).
  FlatCounts sends_to_;
  FlatCounts recvs_from_;

  // Carried across phases.
  SimTime last_end_;         // end of the latest op so far
  SimTime last_path_;        // its critical-path compute
  uint32_t last_group_ = 0;  // its group
  uint32_t computing_ = 0;   // compute ops running now
  SimTime idle_mark_;        // time without compute is accounted up to here
  bool finished_ = false;
  // Per op group and per Dim, what this endpoint's ops have done: offered to the tables at
  // finish, since an offer per op costs a generic reduction of a whole row.
  struct GroupTally {
    int64_t start = std::numeric_limits<int64_t>::max();
    int64_t end = std::numeric_limits<int64_t>::min();
    int64_t critical = 0;  // the path of the first op to end at `end`
    uint64_t ops = 0;
    uint64_t messages = 0;
    uint64_t bytes = 0;
    int64_t exposed = 0;
  };
  struct DimTally {
    uint64_t messages = 0;
    uint64_t bytes = 0;
  };
  std::vector<GroupTally> tally_;
  std::vector<DimTally> dim_tally_;
  std::vector<SimTime> exposed_;  // per Dim: time with no compute running, each stretch charged
                                  // to the dim of the op that ended during it
  SimTime compute_;
  uint64_t ops_ = 0;
  std::unique_ptr<TrafficTally> traffic_;
};

}  // namespace hx::net
