// FlowEndpoint: a workload program's messages as flows.
#include "models/flow/flow_endpoint.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/state_archive.h"
#include "models/components/state_io.h"
#include "models/flow/flow_events.h"
#include "models/flow/folding.h"
#include "models/network/network_stats.h"

namespace hx::flow {

FlowEndpoint::FlowEndpoint(ComponentId id, uint32_t index, const net::NetworkContext& net,
                           const BuildContext& ctx)
    : Component(id),
      net_(net),
      index_(index),
      flows_(&ctx.stats->table("flows")),
      endpoints_(&ctx.stats->table("endpoints")),
      totals_(&ctx.stats->table("network_totals")) {
  if (net.folding != nullptr) {
    // Folded: a representative runs for its whole orbit, the others are not simulated.
    const wl::Symmetry& sym = net.folding->symmetry();
    if (!sym.is_representative(index)) {
      folded_away_ = true;
      return;
    }
    members_ = sym.order();
    for (uint32_t g = 0; g < members_; ++g) smallest_ = std::min(smallest_, sym.apply(g, index));
  }
  if (net.workload != nullptr && net.workload->phases(index) > 0) {
    runner_ = std::make_unique<net::ProgramRunner>(*net.workload, index, *ctx.stats, members_,
                                                   smallest_);
  }
}

// The endpoint that member g of this one's orbit is (g = 0: this one).
uint32_t FlowEndpoint::member(uint32_t g, uint32_t endpoint) const {
  return net_.folding ? net_.folding->symmetry().apply(g, endpoint) : endpoint;
}

void FlowEndpoint::setup() {
  if (runner_) runner_->start(now(), *this);
}

// Sizes as the packet level cuts them, so the two fidelities fill the same columns alike.
uint64_t FlowEndpoint::flits(uint64_t bytes) const {
  return (bytes + net_.router.flit_bytes - 1) / net_.router.flit_bytes;
}
uint64_t FlowEndpoint::packets(uint64_t bytes) const {
  return (flits(bytes) + net_.traffic.packet_flits - 1) / net_.traffic.packet_flits;
}

void FlowEndpoint::post_send(uint32_t dst, uint64_t bytes, uint64_t message, uint32_t op,
                             SimTime path_compute) {
  ++messages_;
  packets_sent_ += packets(bytes);
  flits_offered_ += flits(bytes);
  const FlowStart s{bytes, message, now(), path_compute, dst, op};
  if (active_ < net_.injection_queues) {
    start(s);
  } else {
    waiting_.push_back(s);
  }
}

void FlowEndpoint::start(const FlowStart& s) {
  ++active_;
  send(kFabricPort, kFlowStart, s);
}

void FlowEndpoint::wake(SimTime delay, uint32_t op) { schedule(delay, kWake, op); }

void FlowEndpoint::handle(const Event& e) {
  switch (e.kind) {
    case kWake:
      runner_->op_done(e.payload_as<uint32_t>(), now(), *this);
      break;
    case kSendDone:
      --active_;
      if (!waiting_.empty()) {
        start(waiting_.front());
        waiting_.pop_front();
      }
      runner_->op_done(e.payload_as<uint32_t>(), now(), *this);
      break;
    case kFlowArrived:
      arrived(e.payload_as<FlowArrived>());
      break;
    default:
      throw std::logic_error("flow endpoint " + std::to_string(index_) +
                             ": event of unknown kind " + std::to_string(e.kind));
  }
}

void FlowEndpoint::arrived(const FlowArrived& a) {
  ++received_;
  const uint64_t n = packets(a.bytes);
  packets_received_ += n;
  flits_accepted_ += flits(a.bytes);
  const SimTime latency = now() - a.created;
  latency_sum_ += latency.count_ps() * static_cast<int64_t>(n);
  hops_sum_ += a.mean_hops * static_cast<double>(n);
  if (runner_) runner_->message_arrived(a.src, a.message, a.path_compute, now(), *this);
  if (net_.traffic.flows == net::FlowRecords::kNone) return;
  // At flow level a message arrives whole: its first and last arrivals are one time. Folded,
  // every member of the orbit records its image of the message.
  for (uint32_t g = 0; g < members_; ++g) {
    flows_->add_owned_row(member(g, index_), flows_recorded_,
                          {uint64_t{member(g, a.src)}, uint64_t{member(g, index_)}, a.message, n,
                           a.bytes, a.created.count_ps(), now().count_ps(), now().count_ps(),
                           latency.count_ps(), static_cast<double>(a.mean_hops), uint64_t{1}});
  }
  ++flows_recorded_;
}

void FlowEndpoint::finish() {
  if (folded_away_) return;  // its representative writes its rows
  if (runner_) runner_->finish();
  for (uint32_t g = 0; g < members_; ++g) {
    endpoints_->add_row(member(g, index_),
                        {messages_, packets_sent_, packets_received_, flits_offered_,
                         flits_accepted_, packets_received_, latency_sum_, uint64_t{0},
                         uint64_t{0}});
  }
  using namespace net::totals;
  const uint64_t m = members_;
  totals_->add_to(0, kPacketsInjected, m * packets_sent_);
  totals_->add_to(0, kPacketsEjected, m * packets_received_);
  totals_->add_to(0, kLinkSent, m * packets_sent_);
  totals_->add_to(0, kLinkReceived, m * packets_received_);
  totals_->add_to(0, kFlitsOffered, m * flits_offered_);
  totals_->add_to(0, kFlitsAccepted, m * flits_accepted_);
  totals_->add_to(0, kMeasuredCreated, m * packets_sent_);
  totals_->add_to(0, kMeasuredDelivered, m * packets_received_);
  totals_->add_to(0, kLatencySumPs, static_cast<int64_t>(m) * latency_sum_);
  totals_->add_to(0, kNetworkLatencySumPs, static_cast<int64_t>(m) * latency_sum_);
  totals_->add_to(0, kHopsSum, m * static_cast<uint64_t>(std::llround(hops_sum_)));
  totals_->add_to(0, kSenders, runner_ ? m : uint64_t{0});
}

bool FlowEndpoint::knows_event(uint16_t kind) const {
  return runner_ != nullptr && (kind == kWake || kind == kSendDone || kind == kFlowArrived);
}

void FlowEndpoint::serialize(StateArchive& ar) {
  bool has_runner = runner_ != nullptr;
  ar & has_runner;
  if (has_runner != (runner_ != nullptr)) {
    throw InputError("flow endpoint " + std::to_string(index_) +
                     ": the checkpoint's record is of another workload");
  }
  if (runner_) runner_->serialize(ar);
  net::serialize_queue(ar, waiting_);
  ar & active_ & messages_ & received_ & packets_sent_ & packets_received_ & flits_offered_ &
      flits_accepted_ & latency_sum_ & hops_sum_ & flows_recorded_;
}

}  // namespace hx::flow
