// An endpoint at flow level: it runs its workload program (program_runner.h) and hands each
// message to the fabric as a flow; the fabric says when the last byte has left (the send is done)
// and when a message has arrived. As the packet-level NIC injects workload.injection_queues
// messages at once, at most that many of its flows are in the fabric; the others wait in order.
// No packets or credits: the fabric's max-min rates stand for them.
#pragma once

#include <cstdint>
#include <memory>

#include "core/component.h"
#include "core/model.h"
#include "models/components/program_runner.h"
#include "models/components/ring_queue.h"
#include "models/flow/flow_events.h"
#include "models/network/network_context.h"

namespace hx::flow {

class FlowEndpoint final : public Component, private net::ProgramHost {
 public:
  FlowEndpoint(ComponentId id, uint32_t index, const net::NetworkContext& net,
               const BuildContext& ctx);

  void setup() override;
  void handle(const Event& e) override;
  void finish() override;
  void serialize(StateArchive& ar) override;
  bool knows_event(uint16_t kind) const override;

  /// The endpoint's only port goes to the fabric.
  static constexpr PortId kFabricPort = 0;

 private:
  void post_send(uint32_t dst, uint64_t bytes, uint64_t message, uint32_t op,
                 SimTime path_compute) override;
  void wake(SimTime delay, uint32_t op) override;
  void arrived(const FlowArrived& a);
  void start(const FlowStart& s);
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
  net::RingQueue<FlowStart> waiting_;  // posted, not yet in the fabric
  uint32_t active_ = 0;                // in the fabric
  uint64_t messages_ = 0;
  uint64_t received_ = 0;
  uint64_t packets_sent_ = 0;  // what the messages would be at packet level
  uint64_t packets_received_ = 0;
  uint64_t flits_offered_ = 0;
  uint64_t flits_accepted_ = 0;
  int64_t latency_sum_ = 0;
  double hops_sum_ = 0;
  uint64_t flows_recorded_ = 0;
  Table* flows_;
  Table* endpoints_;
  Table* totals_;
};

}  // namespace hx::flow
