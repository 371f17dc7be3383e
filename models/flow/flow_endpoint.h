// An endpoint at flow level: it runs its workload program (program_runner.h), or generates
// synthetic traffic ([traffic] pattern) exactly as the packet-level endpoint does (the same
// Bernoulli slots and destinations from the same random stream), and hands each message to the
// fabric as a flow; the fabric says when the last byte has left (the send is done) and when a
// message has arrived. As the packet-level NIC injects workload.injection_queues messages at
// once, at most that many of a program's flows are in the fabric, the others wait in order;
// synthetic messages all enter at once (post()). No packets or credits: the fabric's max-min rates stand for them. Statistics
// are counted as the packet level counts them, in packets of traffic.packet_flits flits.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/component.h"
#include "core/model.h"
#include "core/rng.h"
#include "models/components/program_runner.h"
#include "models/components/ring_queue.h"
#include "models/flow/flow_events.h"
#include "models/flow/packet_arrivals.h"
#include "models/network/network_context.h"
#include "models/traffic/bernoulli_slots.h"

namespace hx::flow {

class FlowEndpoint final : public Component, private net::ProgramHost {
 public:
  FlowEndpoint(ComponentId id, uint32_t index, const net::NetworkContext& net,
               const BuildContext& ctx);

  void setup() override;
  void handle(const Event& e) override;
  void observe(uint32_t k) override;
  void finish() override;
  void serialize(StateArchive& ar) override;
  bool knows_event(uint16_t kind) const override;

  /// The endpoint's only port goes to the fabric.
  static constexpr PortId kFabricPort = 0;

 private:
  void post_send(uint32_t dst, uint64_t bytes, uint64_t message, uint32_t op,
                 SimTime path_compute) override;
  void wake(SimTime delay, uint32_t op) override;
  void post(const FlowStart& s);
  void schedule_next_message();
  void generate();
  void arrived(const FlowArrived& a);
  void count_in_histogram(const PacketArrivals& in, const FlowArrived& a);
  void start(const FlowStart& s);
  void enter(const FlowStart& s);
  bool held(uint32_t dst, SimTime& until) const;
  void retry();
  uint32_t member(uint32_t g, uint32_t endpoint) const;
  uint64_t flits(uint64_t bytes) const;
  uint64_t packets(uint64_t bytes) const;

  const net::NetworkContext& net_;
  uint32_t index_;
  // Folded (net_.folding): the endpoints this one stands for, and the smallest of them; or
  // whether it is one a representative stands for.
  uint32_t members_ = 1;
  uint32_t smallest_ = index_;
  bool folded_away_ = false;
  std::unique_ptr<net::ProgramRunner> runner_;
  // Synthetic traffic.
  Rng rng_;
  net::BernoulliSlots slots_;
  bool sends_ = false;

  net::RingQueue<FlowStart> waiting_;  // posted, not yet in the fabric
  uint32_t active_ = 0;                // in the fabric, or held
  // Faults (faults.h): messages held, in their send-queue slots, while every injection link is
  // down or (faults.to_failed_endpoint = "wait") their destination is failed, as the packet
  // level holds them; retried when what held them changes.
  net::RingQueue<FlowStart> held_;
  std::vector<uint64_t> injection_links_;
  // As the packet-level endpoint counts them (docs/OUTPUT.md /endpoints, /network_totals).
  uint64_t messages_ = 0;
  uint64_t injected_ = 0;  // packets of the flows that entered the fabric
  uint64_t received_ = 0;
  uint64_t queued_packets_ = 0;  // of messages whose last byte has not left
  uint64_t max_queue_ = 0;
  uint64_t not_offered_ = 0;
  uint64_t flits_offered_ = 0;
  uint64_t flits_accepted_ = 0;
  uint64_t measured_created_ = 0;
  uint64_t measured_delivered_ = 0;
  Wide latency_sum_ = 0;  // a long iteration's packets outgrow 64 bits of ps
  Wide network_latency_sum_ = 0;
  double hops_sum_ = 0;
  uint64_t flows_recorded_ = 0;
  Table* flows_;
  Table* endpoints_;
  Table* totals_;
  Table* histogram_;
  Table* queue_samples_;
  Table* timeseries_;
  Table* timeseries_latency_;
  Table* traffic_matrix_ = nullptr;  // workload.traffic_matrix
};

}  // namespace hx::flow
