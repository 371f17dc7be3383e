// The network at flow level: one component that holds the messages in flight as flows on their
// footprints (footprint.h), shares link capacities among them max-min fairly (max_min.h) and
// moves each at its rate. Rates change only when a flow starts or ends; all starts and ends of
// one instant are solved together (end_of_instant). The flows' ends are kept in order here, and
// one background timer wakes the fabric at the earliest (a rate change that moves it schedules
// another and leaves the old one to pass unused); the fabric holds the run alive while flows
// are in it (Component::hold_run), so unused timers never prolong a run.
//
// Every simulated endpoint has one port to it, of 1 ps: a flow starts 1 ps after its message
// is posted, the sender hears 1 ps after the last byte left, and the receiver when that byte
// has crossed the slowest path (its links plus router.pipeline_delay per router). Folded
// (folding.h), only representatives have ports, a flow is a class of flows on link groups, and
// its arrival goes to the representative of the destination's orbit.
//
// It also keeps the per-link (folded: per-group) byte counts and writes every row of /links.
//
// Under faults (net.faults, faults.h; never folded) a flow loads only the paths live in the
// current fault state. At each instant the schedule changes a link, every flow moves onto the
// paths live then with the bytes it has left; a flow with none is lost, as a packet with no live
// way on is at packet level: its sender and receiver never hear of it, and its remaining
// packets count as dropped (/drops, /faults, /links, /network_totals).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "core/component.h"
#include "core/model.h"
#include "models/flow/end_queue.h"
#include "models/flow/footprint.h"
#include "models/flow/max_min.h"
#include "models/network/faults.h"
#include "models/network/flat_map.h"
#include "models/network/network_context.h"
#include "models/network/routing.h"

namespace hx::flow {

struct FlowStart;

class Fabric final : public Component {
 public:
  Fabric(ComponentId id, const net::NetworkContext& net, const BuildContext& ctx);

  void setup() override;
  void handle(const Event& e) override;
  void end_of_instant() override;
  void finish() override;
  uint64_t work_done() const override { return flows_done_; }
  uint64_t work_in_progress() const override { return live_ * members(); }
  void serialize(StateArchive& ar) override;
  bool knows_event(uint16_t kind) const override;
  bool many_ports() const override { return true; }  // FlowStart names its sender

  /// Latency of the endpoint-fabric links.
  static constexpr SimTime kPortLatency = SimTime::ps(1);

 private:
  __extension__ using u128 = unsigned __int128;
  struct Flow {
    bool live = false;
    uint32_t src = 0, dst = 0, op = 0;
    uint64_t bytes = 0, message = 0;
    SimTime created, path_compute, started, updated;
    u128 left = 0;  // bytes still to send, times 10^12 (bytes x ps per second)
    // What each of its paths carried in the measurement window and /links has yet to count,
    // times 10^12: added to its links when it ends, changes paths or the state is saved.
    u128 measured = 0;
    Rate rate = 0;  // per path, bytes per second
    SimTime end = SimTime::infinity();  // at the current rate
    FootprintRef footprint;
    MaxMinSolver::FlowId solver_id = 0;
  };

  void start(const FlowStart& s);
  void record_series(const Flow& f, SimTime from, SimTime to);
  void write_series();
  void serialize_series(StateArchive& ar);
  void on_fault_change();
  void lose(uint32_t slot, const Footprint* old);
  uint64_t lost_on(const Footprint* old, uint32_t src, uint32_t dst) const;
  ComponentId sender(uint64_t link) const;
  void end_due();
  uint64_t members() const;  // flows each flow here stands for
  uint32_t port_to(uint32_t endpoint) const;
  uint32_t receiver(uint32_t dst) const;
  uint32_t source_seen(uint32_t src, uint32_t dst) const;
  uint32_t frame(uint32_t endpoint, uint32_t peer) const;
  // The notices' addressees and order keys of a flow from src to dst, worked out by the
  // functions above once per pair: each costs a few divisions per symmetry digit, and a
  // collective's flows run between the same pairs over and over.
  struct PairKeys {
    static constexpr uint32_t kUnset = UINT32_MAX;
    uint32_t receiver = kUnset, source_seen = 0, sender_key = 0, receiver_key = 0;
  };
  const PairKeys& pair_keys(uint32_t src, uint32_t dst);
  void add_to_solver(uint32_t slot);
  void advance(Flow& f);
  void count_on_links(Flow& f);
  void schedule_end(uint32_t slot);
  void wake_at_earliest_end();
  Rate capacity(uint16_t link_class) const;
  FootprintRef footprint(uint32_t src, uint32_t dst);
  void forget_footprints();

  const net::NetworkContext& net_;
  MaxMinSolver solver_;
  std::vector<Flow> flows_;
  std::vector<uint32_t> free_;
  std::vector<uint32_t> slot_of_;  // solver flow id -> slot
  // Footprints by (src, dst): a collective sends between the same pairs over and over.
  // footprint_of_ maps src << 32 | dst to the index in footprints_ (a flat table: one look-up
  // per flow start).
  net::FlatMap<uint32_t> footprint_of_;
  std::vector<FootprintRef> footprints_;
  FootprintBuilder builder_;       // of the footprints not yet cached
  std::vector<u128> link_bytes_;   // per link, bytes carried times 10^12
  std::vector<uint64_t> link_flows_;  // per link, paths of finished flows started in the window
  // A flow's end as an endpoint hears of it (end_due).
  struct Notice {
    uint32_t to, peer;
    uint64_t message;
    uint32_t slot;
    uint32_t key = 0;  // the peer as seen from the endpoint
    bool operator<(const Notice& o) const {
      return std::tie(to, key, message) < std::tie(o.to, o.key, o.message);
    }
  };
  std::vector<Notice> sent_, arrived_;  // reused by end_due
  // Per endpoint, the element of the workload's symmetry that maps it to its representative
  // (frame()), when the workload has one.
  std::vector<uint32_t> to_representative_;
  net::FlatMap<PairKeys> pair_keys_;  // by src << 32 | dst
  EndQueue ends_;                     // the slots of the flows with a finite end, by end
  std::vector<uint32_t> due_;         // reused by end_due
  uint32_t wake_version_ = 0;                     // of the timer that counts
  SimTime wake_at_ = SimTime::infinity();         // its time
  uint64_t live_ = 0;                             // flows in the fabric
  uint64_t flows_done_ = 0;
  // Faults.
  // What the routing sees at flow level: the links up at view_.at, the instant of the last
  // fault change the fabric has handled: the state every live flow's footprint was computed in
  // (a change applies once the flows that start at its instant have started, the fabric's own
  // events coming after the endpoints'), so a cached footprint, a fresh one and one recomputed
  // after a restart agree. Without faults, unused.
  net::LinksAt view_;
  std::vector<uint64_t> link_dropped_;  // per link, packets of the flows lost on it
  // With a time series: per (bin, link class), the bytes (times 10^12) the links carried.
  std::vector<u128> series_bytes_;
  std::map<ComponentId, uint64_t> drops_seen_;  // per /drops owner, its rows so far
  Table* links_;
  Table* layout_;
  Table* timeseries_links_;
  Table* drops_;
  Table* timeseries_;
  Table* faults_;
  Table* totals_;
};

}  // namespace hx::flow
