// The endpoint (chip or NIC, DESIGN §6): generates messages, either of the synthetic pattern with
// Bernoulli injection or from its workload program (program_runner.h), keeps them in a source
// queue (so offered and accepted load can differ; bounded for synthetic traffic by
// traffic.source_queue_limit, unbounded for programs), splits them into packets,
// injects through one or more ports under credit flow control, and ejects arriving packets,
// recording latency and flows.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "core/component.h"
#include "core/model.h"
#include "core/rng.h"
#include "core/stats.h"
#include "models/components/message_table.h"
#include "models/components/program_runner.h"
#include "models/components/ring_queue.h"
#include "models/network/fault_log.h"
#include "models/network/network_context.h"
#include "models/traffic/bernoulli_slots.h"

namespace hx::net {

class Endpoint final : public Component, private ProgramHost {
 public:
  Endpoint(ComponentId id, uint32_t index, const NetworkContext& net, const BuildContext& ctx);

  void setup() override;
  void handle(const Event& e) override;
  void prefetch(const Event& e) const override;
  void observe(uint32_t k) override;
  void finish() override;
  uint64_t work_done() const override { return injected_; }  // packets over its injection link
  HotSpan hot_state() const override { return HotSpan::up_to(this, partial_); }
  void serialize(StateArchive& ar) override;
  bool knows_event(uint16_t kind) const override;

 private:
  static constexpr uint32_t kNoOp = 0xFFFFFFFFu;
  static constexpr SimTime kNone = SimTime::infinity();  // no such time
  struct Message {
    uint64_t seq;  // Packet::message
    SimTime created;
    SimTime path_compute;
    uint32_t dst;
    uint32_t flits;
    uint32_t flits_sent;
    uint32_t op;  // the program's send op, or kNoOp
  };
  struct Injector {  // one per port
    SimTime free;      // the link has sent the last packet's flits by then
    SimTime per_flit;  // serialisation time of one flit
    SimTime pipeline;  // the peer's: a router takes the packet when its head has crossed it
    bool peer_counts_credits = false;  // the peer counts what we return (element.h)
    uint8_t next_vc = 0;
    LinkStats stats;
    uint64_t dropped = 0;  // packets lost on the link to faults
  };
  struct Partial {  // a multi-packet message being received
    SimTime created;
    SimTime first;  // the first packet's tail arrival
    uint32_t flits;
    uint32_t packets;
    uint32_t hops;
  };
  struct PartialKey {
    uint64_t message;
    uint32_t src;
    bool operator==(const PartialKey&) const = default;
    bool operator<(const PartialKey& o) const {
      return src != o.src ? src < o.src : message < o.message;
    }
  };
  struct KeyedPartial {  // for checkpoints, in key order
    PartialKey key;
    Partial partial;
  };

  void generate();
  void schedule_next_message();
  void try_inject();
  bool inject_packet(uint32_t port, uint32_t slot, SimTime now);
  [[gnu::noinline]] bool lost_in_flight(uint32_t port, const Packet& p, SimTime now);
  [[gnu::noinline]] bool held(uint32_t dst, SimTime now);
  void deliver(PortId port, const Packet& packet);
  void message_received(const Packet& p, SimTime first, SimTime last, uint32_t packets,
                        uint32_t hops);
  void post_send(uint32_t dst, uint64_t bytes, uint64_t message, uint32_t op,
                 SimTime path_compute) override;
  void wake(SimTime delay, uint32_t op) override;
  uint32_t& credits(PortId port, uint8_t vc) { return credits_[port * vcs_ + vc]; }

  // What the events touch comes first, in the order of their first use, from net_ to partial_:
  // the hot state the engine prefetches (hot_state, docs/performance/engine.md).
  const NetworkContext& net_;
  uint32_t index_;
  uint8_t vcs_;
  bool sends_ = false;
  uint32_t next_message_ = 0;  // active_ slot whose turn is next
  uint32_t next_port_ = 0;
  SimTime inject_pending_ = kNone;  // time of the scheduled kInject
  uint64_t queued_packets_ = 0;
  BernoulliSlots slots_;          // when synthetic messages start
  RingQueue<Message> queue_;     // messages waiting to start (a line of its own)
  std::vector<Message> active_;  // messages being injected, at most net_.injection_queues
  std::vector<Injector> injectors_;
  std::vector<uint32_t> credits_;          // [port * vcs + vc] at the router's input
  MessageTable<Partial> partial_;          // messages of several packets being received
  std::unique_ptr<ProgramRunner> runner_;  // workloads only
  Rng rng_;
  uint64_t messages_ = 0;
  uint64_t injected_ = 0;
  uint64_t received_ = 0;
  uint64_t flits_offered_ = 0;
  uint64_t flits_accepted_ = 0;
  uint64_t measured_created_ = 0;
  uint64_t measured_delivered_ = 0;
  int64_t latency_sum_ = 0;
  int64_t network_latency_sum_ = 0;
  uint64_t hops_sum_ = 0;
  uint64_t max_queue_ = 0;
  Table* histogram_;

  uint64_t flows_recorded_ = 0;
  Table* links_;
  Table* layout_;
  Table* flows_;
  Table* endpoints_;
  Table* totals_;

  // The source-queue limit and the stability samples (traffic.source_queue_limit and
  // stop_unstable, the queue_samples table, taken in observe): synthetic traffic only.
  uint64_t not_offered_ = 0;  // packets refused at the limit
  Table* queue_samples_;
  Table* timeseries_;
  Table* timeseries_latency_;
  Table* timeseries_links_;
  Table* traffic_matrix_ = nullptr;  // workload.traffic_matrix
  FaultLog fault_log_;
  SimTime held_until_ = kNone;  // within try_inject: when a held message may go (faults.h)
};

}  // namespace hx::net
