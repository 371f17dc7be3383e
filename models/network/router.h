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
#include "models/network/network_context.h"
#include "models/network/ring_queue.h"

namespace hx::net {

class Router final : public Component, private PortLoad {
 public:
  Router(ComponentId id, uint32_t index, const NetworkContext& net, const BuildContext& ctx);
  Router(const Router&) = delete;  // its array pointers point into its own buffer
  Router& operator=(const Router&) = delete;

  void handle(const Event& e) override;
  void prefetch(const Event& e) const override;
  void end_of_instant() override { allocate(); }
  void finish() override;
  uint64_t work_done() const override { return sent_; }  // packets sent over its links
  void save_state(boost::archive::binary_oarchive& ar) const override;
  void load_state(boost::archive::binary_iarchive& ar) override;

 private:
  /// A packet in an input VC buffer. The times come first: with the packet's routing fields
  /// they share the queue's first cache line.
  struct Waiting {
    // As head: every output it may take was busy until at least then (0: not known). Outputs
    // only get busier, so allocation skips it, without routing it again, until that time.
    int64_t blocked_until_ps;
    int64_t tail_ps;  // when its tail has arrived and crossed the pipeline
    Packet packet;
  };
  struct Input {
    int64_t free_ps = 0;    // the crossbar input is streaming a packet until then
    uint32_t busy_vcs = 0;  // bit v set when VC v's queue is non-empty
    uint8_t next_vc = 0;    // round-robin pointer over its VCs
  };
  struct Output {
    int64_t stall_since = -1;  // a ready packet waits here for credits since then (-1: none)
    int64_t ps_per_flit = 0;
    uint32_t next_input = 0;   // round-robin pointer of the output arbiter
    bool to_endpoint = false;  // the port's peer is an endpoint (for its input too)
    // A head found too few credits here (or weighed them against a detour) since the last
    // allocation this output's credits triggered: only then can a credit unblock something.
    bool credit_waiter = false;
    LinkStats stats;
  };
  // Credits on their way back from an endpoint. An endpoint takes a packet at link rate and
  // frees its space when the tail is in, so the router knows at sending when the credit will
  // arrive and counts it itself, without an event per packet (docs/PERFORMANCE.md).
  struct Return {
    int64_t at_ps;
    PortId port;
    uint8_t vc;
    uint16_t flits;
  };

  void on_packet(PortId port, const Packet& packet);
  void on_credit(PortId port, const Credit& credit);
  void allocate();
  /// Fills candidates_ for `packet` arriving on `in`.
  void route(PortId in, Packet& packet);
  /// The candidate (port, physical VC) that can leave now with the most downstream credits;
  /// false if none. Lowers `wake` to when a busy candidate output frees; marks credit stalls.
  /// Sets `blocked_until` to when the first candidate output frees if all were busy, else 0.
  bool select(uint16_t flits, int64_t now, int64_t& wake, Candidate& best, int64_t& blocked_until);
  bool select_with_detours(uint16_t flits, int64_t now, int64_t& wake, Candidate& best);
  void forward(const Request& r, int64_t now);
  void request_allocation(int64_t at);
  /// Takes in the endpoint credits due by `until`, as their arrivals would have.
  void absorb_returns(int64_t until);
  /// The earliest return on an output a head waits on for credits (kNever if none).
  int64_t earliest_awaited_return() const;
  void check_watchdog();
  std::string blocked_report() const;
  uint32_t load(PortId port) const override;
  uint32_t& credits(PortId port, uint8_t vc) { return credits_[port * vcs_ + vc]; }
  uint32_t credits(PortId port, uint8_t vc) const { return credits_[port * vcs_ + vc]; }
  RingQueue<Waiting>& queue(PortId port, uint8_t vc) { return queues_[port * vcs_ + vc]; }
  const RingQueue<Waiting>& queue(PortId port, uint8_t vc) const {
    return queues_[port * vcs_ + vc];
  }

  // The state every event touches comes first: the engine prefetches a component's first
  // cache lines, so these fields and the arrays' pointers are at hand when prefetch() runs.
  const NetworkContext& net_;
  uint32_t index_;
  uint8_t vcs_;
  uint8_t classes_;  // VC classes the routing uses; physical VC v is in class v % classes_
  bool watchdog_armed_ = false;
  uint32_t held_ = 0;  // packets in the input buffers
  uint16_t ports_;
  uint64_t received_ = 0;
  uint64_t sent_ = 0;
  int64_t last_move_ps_ = 0;
  int64_t loaded_since_ps_ = 0;
  // The small per-port arrays every allocation round reads live in one buffer, `packed_`, one
  // after another in the order the round reads them: a few neighbouring cache lines instead of
  // a line (or more) per array, each shared with other routers' data (docs/PERFORMANCE.md).
  uint64_t* busy_inputs_;  // [ports / 64 words]: bit `in` set when input `in` has a busy VC
  Input* inputs_;          // [port]
  // [port]: the link has sent its last packet's flits by then. Apart from Output, which fills
  // a cache line, because select() reads it for every candidate.
  int64_t* output_free_ps_;
  uint32_t* credits_;  // [port * vcs + vc], downstream space in flits
  std::vector<RingQueue<Waiting>> queues_;  // [port * vcs + vc]
  std::vector<Output> outputs_;
  std::vector<Return> returns_;               // ascending by at_ps
  std::vector<int64_t> pending_allocations_;  // times of scheduled kAllocate events, ascending

  // Scratch space, shared with the rank's other routers (NetworkContext::scratch).
  Candidates& candidates_;
  std::vector<Request>& requests_;
  std::vector<int32_t>& grant_;
  Rng rng_;  // the hot fields end here, within the five lines the engine prefetches

  std::vector<uint64_t> packed_;  // what the four pointers above point into
  Table* links_;
  Table* totals_;
};

}  // namespace hx::net
