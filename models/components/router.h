// The input-queued virtual cut-through router (DESIGN §6): V virtual channels per input port,
// credit-based flow control, a pipeline delay, separable round-robin VC/switch allocation and
// output serialisation at each link's bandwidth. Packets move as whole units: a packet may leave
// only when the downstream VC has credits for all of its flits, which is what virtual
// cut-through guarantees, so one event per hop carries it (its tail follows stream_ps later).
// That event arrives when the head has crossed the pipeline; the allocation round runs once per
// instant in end_of_instant(), after all of the instant's arrivals and credits.
#pragma once

#include <cstdint>
#include <vector>

#include "core/component.h"
#include "core/model.h"
#include "core/rng.h"
#include "core/stats.h"
#include "models/components/port_state.h"
#include "models/components/ring_queue.h"
#include "models/components/route_cache.h"
#include "models/network/fault_log.h"
#include "models/network/network_context.h"

namespace hx::net {

class Router final : public Component, private RouterView {
 public:
  Router(ComponentId id, uint32_t index, const NetworkContext& net, const BuildContext& ctx);
  Router(const Router&) = delete;
  Router& operator=(const Router&) = delete;

  void setup() override;
  void handle(const Event& e) override;
  void prefetch(const Event& e) const override;
  void end_of_instant() override { allocate(); }
  void observe(uint32_t k) override;
  void finish() override;
  uint64_t work_done() const override { return sent_; }  // packets sent over its links
  HotSpan hot_state() const override { return HotSpan::up_to(this, rng_); }
  void serialize(StateArchive& ar) override;
  bool knows_event(uint16_t kind) const override;

 private:
  /// A packet in an input VC buffer. The times come first: with the packet's routing fields
  /// they share the queue's first cache line.
  struct Waiting {
    // As head: every output it may take was busy until at least then (0: not known). Outputs
    // only get busier, so allocation skips it, without routing it again, until that time.
    SimTime blocked_until;
    SimTime tail;  // when its tail has arrived and crossed the pipeline
    Packet packet;
  };
  static constexpr SimTime kNotStalled = SimTime::infinity();
  // What the output's link is (its speed, its peer) lives in PortState (set_link), beside the
  // output's free time, which the allocation has just read when a packet leaves.
  struct alignas(64) Output {           // one line each: a forward writes its port's whole entry
    SimTime stall_since = kNotStalled;  // a ready packet waits here for credits since then
    uint32_t next_input = 0;            // round-robin pointer of the output arbiter
    // A head found too few credits here (or weighed them against a detour) since the last
    // allocation this output's credits triggered: only then can a credit unblock something.
    bool credit_waiter = false;
    LinkStats stats;
    uint64_t dropped = 0;  // packets lost on this link to faults
  };
  // Credits on their way back from a peer that sinks at link rate (an endpoint), which frees a
  // packet's space when the tail is in: the router knows at sending when the credit will arrive
  // and counts it itself, without an event per packet (element.h, docs/performance/engine.md).
  struct Return {
    SimTime at;
    PortId port;
    uint8_t vc;
    uint16_t flits;
  };

  void on_packet(PortId port, const Packet& packet);
  /// The router itself fails or comes back (faults.h): failed, it loses what it holds.
  void on_fault_change();
  /// Loses the head of (in, vc) for want of link `link`.
  void drop_head(PortId in, uint8_t vc, uint64_t link, SimTime now);
  void on_credit(PortId port, const Credit& credit);
  void allocate();
  /// Fills candidates_ for `packet` arriving on `in`. With faults, only live links: false when
  /// none is left, with `dead` the link of the routing's first choice.
  bool route(PortId in, Packet& packet, uint64_t& dead);
  /// Fills candidates_ for `packet` as the routing sees it: in its VC's class.
  void route_class(PortId in, Packet& packet);
  // The fault paths, out of line so that the hot functions stay as small as without faults.
  [[gnu::noinline]] bool route_live(PortId in, Packet& packet, uint64_t& dead);
  [[gnu::noinline]] bool route_kept(PortId in, Packet& packet);
  /// Keeps the candidates of the last route() for the head of input queue `queue`, which stays.
  [[gnu::noinline]] void keep_route(uint32_t queue);
  bool keep_live_candidates();
  /// Whether the link of `r` fails before packet `p`'s head is across; if so `p` is lost.
  [[gnu::noinline]] bool lost_in_flight(const Request& r, const Packet& p, SimTime now,
                                        SimTime pipeline);
  /// The candidate (port, physical VC) that can leave now with the most downstream credits;
  /// false if none. Lowers `wake` to when a busy candidate output frees; marks credit stalls.
  /// Sets `blocked_until` to when the first candidate output frees if all were busy, else 0.
  /// Always inlined into allocate(), as it was before the fault paths grew allocate().
  [[gnu::always_inline]] bool select(uint16_t flits, SimTime now, SimTime& wake, Candidate& best,
                                     SimTime& blocked_until);
  bool select_outlined(uint16_t flits, SimTime now, SimTime& wake, Candidate& best,
                       SimTime& blocked_until);
  bool select_with_detours(uint16_t flits, SimTime now, SimTime& wake, Candidate& best);
  std::size_t grant_requests(SimTime now, SimTime& wake, bool input_wakes);
  void arbitrate();
  // router.arch = "ideal" (router_ideal.cpp): allocation without the input-queued limits, and
  // the packets behind the head of (in, vc) proposing when it cannot leave.
  void allocate_ideal();
  void propose_behind(PortId in, uint8_t vc, SimTime now, SimTime& wake);
  void forward(const Request& r, SimTime now);
  void request_allocation(SimTime at);
  /// Takes in the endpoint credits due by `until`, as their arrivals would have.
  void absorb_returns(SimTime until);
  /// The earliest return on an output a head waits on for credits (infinity if none).
  SimTime earliest_awaited_return() const;
  void check_watchdog();
  std::string blocked_report() const;
  void snapshot_buffers(uint64_t bin);  // into /timeseries and /timeseries_links
  uint32_t load(PortId port) const override;
  bool link_up(uint64_t link) const override;
  uint32_t configuration(uint32_t element, uint32_t instance) const override;
  // The non-empty VCs of `input` as a mask rotated to start at its next_vc (round-robin), and
  // the VC of such a mask's lowest bit.
  uint64_t vcs_from_next(const PortState::Input& input) const {
    const uint32_t start = input.next_vc;
    const uint64_t mask = input.busy_vcs;
    return ((mask >> start) | (mask << (vcs_ - start))) & ((uint64_t{1} << vcs_) - 1);
  }
  uint8_t vc_at(const PortState::Input& input, uint64_t rotated) const {
    const uint32_t vc = input.next_vc + static_cast<uint32_t>(__builtin_ctzll(rotated));
    return static_cast<uint8_t>(vc >= vcs_ ? vc - vcs_ : vc);
  }
  uint32_t& credits(PortId port, uint8_t vc) { return state_.credits(port, vc); }
  uint32_t credits(PortId port, uint8_t vc) const { return state_.credits(port, vc); }
  RingQueue<Waiting>& queue(PortId port, uint8_t vc) { return queues_[port * vcs_ + vc]; }
  const RingQueue<Waiting>& queue(PortId port, uint8_t vc) const {
    return queues_[port * vcs_ + vc];
  }

  // The state every event touches, from net_ to rng_: the hot state the engine prefetches
  // (hot_state), so these fields and the arrays' pointers are at hand when prefetch() runs.
  const NetworkContext& net_;
  uint32_t index_;
  uint8_t vcs_;
  uint8_t classes_;  // VC classes the routing uses; physical VC v is in class v % classes_
  bool watchdog_armed_ = false;
  bool ideal_;         // router.arch = "ideal": allocate_ideal()
  uint32_t held_ = 0;  // packets in the input buffers
  uint16_t ports_;
  // The routing asks for its candidates to be kept (Routing::keep_candidates) and the router
  // is input-queued: routes_ keeps the heads' candidates.
  bool keep_routes_ = false;
  // The last route()'s candidates are newly found (not from routes_) and may be kept: only
  // ever set when keep_routes_.
  bool fresh_route_ = false;
  uint64_t received_ = 0;
  uint64_t sent_ = 0;
  SimTime last_move_;
  SimTime loaded_since_;
  PortState state_;
  std::vector<RingQueue<Waiting>> queues_;  // [port * vcs + vc]
  std::vector<Output> outputs_;
  std::vector<Return> returns_;               // ascending by at
  std::vector<SimTime> pending_allocations_;  // times of scheduled kAllocate events, ascending

  // Scratch space, shared with the rank's other routers (NetworkContext::scratch).
  Candidates& candidates_;
  std::vector<Request>& requests_;
  std::vector<int32_t>& grant_;
  std::vector<int32_t>& vc_grant_;
  std::vector<PortId>& claimed_;
  std::vector<uint8_t>& settled_;
  Rng rng_;  // the hot state ends here
  RouteCache routes_;         // the candidates of heads that stayed, when keep_routes_
  uint32_t fresh_epoch_ = 0;  // of the fault schedule (0 without faults), with fresh_route_
  // Faults (faults.h): nullptr unless the router or a link at one of its ports ever fails.
  const Faults* faults_ = nullptr;
  uint64_t first_link_ = 0;  // the link of port 0 (Topology::first_link)
  FaultLog fault_log_;
  Table* links_;
  Table* layout_;
  Table* totals_;
  Table* timeseries_;
  Table* timeseries_links_;
};

}  // namespace hx::net
