// FlowEndpoint: a workload program's or the synthetic traffic's messages as flows.
#include "models/flow/flow_endpoint.h"

#include <algorithm>
#include <boost/serialization/array.hpp>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/state_archive.h"
#include "models/components/state_io.h"
#include "models/flow/flow_events.h"
#include "models/flow/folding.h"
#include "models/network/faults.h"
#include "models/network/network_stats.h"

namespace hx::flow {

FlowEndpoint::FlowEndpoint(ComponentId id, uint32_t index, const net::NetworkContext& net,
                           const BuildContext& ctx)
    : Component(id),
      net_(net),
      index_(index),
      rng_(ctx.seed, id, static_cast<uint64_t>(RngPurpose::kTraffic)),
      flows_(&ctx.stats->table("flows")),
      endpoints_(&ctx.stats->table("endpoints")),
      totals_(&ctx.stats->table("network_totals")),
      histogram_(&ctx.stats->table("latency_histogram")),
      queue_samples_(&ctx.stats->table("queue_samples")),
      timeseries_(&ctx.stats->table("timeseries")),
      timeseries_latency_(&ctx.stats->table("timeseries_latency")) {
  if (net.faults != nullptr) {
    std::vector<PortSpec> ports;
    net.topology->ports(id, ports);
    for (PortId p = 0; p < ports.size(); ++p) {
      injection_links_.push_back(net.topology->first_link(id) + p);
    }
  }
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
  if (net.workload != nullptr) {
    if (net.workload->phases(index) > 0) {
      runner_ = std::make_unique<net::ProgramRunner>(*net.workload, index, *ctx.stats,
                                                     net.traffic_matrix, members_, smallest_);
    }
    if (net.traffic_matrix) traffic_matrix_ = &ctx.stats->table("traffic_matrix");
    return;
  }
  // As the packet-level endpoint draws them, so both fidelities draw the same messages.
  slots_ = net::BernoulliSlots(net.traffic.load,
                               net.traffic.packet_flits * net.traffic.message_packets, net.cycle);
  sends_ = slots_.sends() && net.pattern->sends(index);
}

// The endpoint that member g of this one's orbit is (g = 0: this one).
uint32_t FlowEndpoint::member(uint32_t g, uint32_t endpoint) const {
  return net_.folding ? net_.folding->symmetry().apply(g, endpoint) : endpoint;
}

void FlowEndpoint::setup() {
  if (runner_) runner_->start(now(), *this);
  if (!sends_) return;
  slots_.restart();
  schedule_next_message();
  schedule_background(net_.window_end + net_.traffic.drain_limit, kStopInjection, uint8_t{0});
}

// Sizes as the packet level cuts them, so the two fidelities fill the same columns alike.
uint64_t FlowEndpoint::flits(uint64_t bytes) const {
  return (bytes + net_.router.flit_bytes - 1) / net_.router.flit_bytes;
}
uint64_t FlowEndpoint::packets(uint64_t bytes) const {
  return (flits(bytes) + net_.traffic.packet_flits - 1) / net_.traffic.packet_flits;
}

// One event at the next message's slot if it is before the end of the measurement window.
void FlowEndpoint::schedule_next_message() {
  const SimTime at = slots_.next(rng_);
  if (at < net_.window_end) schedule(at - now(), kGenerate, uint8_t{0});
}

void FlowEndpoint::generate() {
  const uint32_t n = net_.traffic.message_packets;
  if (net_.faults != nullptr && !net_.faults->component_up(id(), now())) {
    schedule_next_message();  // a failed endpoint creates no traffic (as net::Endpoint)
    return;
  }
  if (queued_packets_ + n > net_.traffic.source_queue_limit) {
    not_offered_ += n;
    // At once, not at finish: whether the run is unstable is asked while it runs.
    totals_->add_to(0, net::totals::kPacketsNotOffered, uint64_t{n});
    schedule_next_message();
    return;
  }
  const uint32_t dst = net_.pattern->destination(index_, rng_);
  const uint64_t bytes = uint64_t{n} * net_.traffic.packet_flits * net_.router.flit_bytes;
  const uint64_t message = messages_;
  schedule_next_message();
  post(FlowStart{bytes, message, now(), SimTime::zero(), index_, dst, kNoOp});
}

void FlowEndpoint::post_send(uint32_t dst, uint64_t bytes, uint64_t message, uint32_t op,
                             SimTime path_compute) {
  post(FlowStart{bytes, message, now(), path_compute, index_, dst, op});
}

// A program's messages take workload.injection_queues at a time, as the packet-level NIC's send
// queues do. Synthetic messages all go at once: at packet level the NIC streams them one after
// another into the routers' buffers at link rate; a fluid has no buffers, so holding a message
// until the one before has crossed its bottleneck would queue it behind the network's sharing
// (8.7x the packet level's latency at load 0.3 on the 8x8 mesh). At once, they share the
// injection link instead (docs/VALIDATION.md, "Flow level against packet level").
void FlowEndpoint::post(const FlowStart& s) {
  ++messages_;
  const uint64_t n = packets(s.bytes);
  queued_packets_ += n;
  max_queue_ = std::max(max_queue_, queued_packets_);
  if (net_.in_window(now())) {
    measured_created_ += n;
    flits_offered_ += flits(s.bytes);
  }
  if (sends_ || active_ < net_.injection_queues) {
    start(s);
  } else {
    waiting_.push_back(s);
  }
}

void FlowEndpoint::start(const FlowStart& s) {
  ++active_;
  SimTime until = SimTime::infinity();
  if (net_.faults != nullptr && held(s.dst, until)) {
    held_.push_back(s);
    if (!until.is_infinite()) schedule(until - now(), kRetry, uint8_t{0});
    return;
  }
  enter(s);
}

// Whether a message to `dst` must wait now (held_), and until when what holds it may change.
bool FlowEndpoint::held(uint32_t dst, SimTime& until) const {
  const net::Faults& f = *net_.faults;
  bool all_down = !injection_links_.empty();
  SimTime change = SimTime::infinity();
  for (const uint64_t link : injection_links_) {
    all_down = all_down && !f.link_up(link, now());
    change = std::min(change, f.next_change(link, now()));
  }
  if (all_down) {
    until = change;
    return true;
  }
  return f.held(net_.topology->endpoint_component(dst), now(), until);
}

// Held messages whose way is open again enter the fabric, in the order they were held.
void FlowEndpoint::retry() {
  net::RingQueue<FlowStart> still;
  SimTime next = SimTime::infinity();
  for (; !held_.empty(); held_.pop_front()) {
    const FlowStart s = held_.front();
    SimTime until = SimTime::infinity();
    if (held(s.dst, until)) {
      still.push_back(s);
      next = std::min(next, until);
    } else {
      enter(s);
    }
  }
  held_ = std::move(still);
  if (!next.is_infinite()) schedule(next - now(), kRetry, uint8_t{0});
}

void FlowEndpoint::enter(const FlowStart& s) {
  injected_ += packets(s.bytes);
  if (net_.timeseries_bins > 0) {
    timeseries_->add_to(net_.timeseries_row(now()), net::series::kFlitsInjected,
                        members_ * flits(s.bytes));
  }
  send(kFabricPort, kFlowStart, s);
}

void FlowEndpoint::wake(SimTime delay, uint32_t op) { schedule(delay, kWake, op); }

void FlowEndpoint::handle(const Event& e) {
  switch (e.kind) {
    case kWake:
      runner_->op_done(e.payload_as<uint32_t>(), now(), *this);
      break;
    case kGenerate:
      generate();
      break;
    case kRetry:
      retry();
      break;
    case kStopInjection:
      // As at packet level: what still waits only says the load was not accepted.
      waiting_ = net::RingQueue<FlowStart>();
      break;
    case kSendDone: {
      const auto done = e.payload_as<SendDone>();
      --active_;
      queued_packets_ -= packets(done.bytes);
      if (!waiting_.empty()) {
        start(waiting_.front());
        waiting_.pop_front();
      }
      if (done.op != kNoOp) runner_->op_done(done.op, now(), *this);
      break;
    }
    case kFlowArrived:
      arrived(e.payload_as<FlowArrived>());
      break;
    default:
      throw std::logic_error("flow endpoint " + std::to_string(index_) +
                             ": event of unknown kind " + std::to_string(e.kind));
  }
}

void FlowEndpoint::arrived(const FlowArrived& a) {
  // Its packets arrive spread over the time its bytes took to leave (packet_arrivals.h); the
  // last packet, which arrives now, may hold fewer flits.
  const uint64_t per_packet = net_.traffic.packet_flits;
  const uint64_t flit_count = flits(a.bytes);
  const uint64_t n = (flit_count + per_packet - 1) / per_packet;
  received_ += n;
  const PacketArrivals in(now(), a.sent - a.injected, n);
  const uint64_t short_by = n * per_packet - flit_count;
  const auto flits_of = [&](uint64_t first, uint64_t count) {
    return count * per_packet - (count > 0 && first + count > n ? short_by : 0);
  };
  const uint64_t first_in_window = in.before(net_.window_begin) + 1;
  flits_accepted_ += flits_of(first_in_window, in.before(net_.window_end) + 1 - first_in_window);
  const bool measured = net_.in_window(a.created);
  if (net_.timeseries_bins > 0) {
    using namespace net::series;
    in.for_each_bin([&](SimTime t) { return net_.timeseries_row_end(t); },
                    [&](SimTime t, uint64_t first, uint64_t count) {
                      const uint64_t row = net_.timeseries_row(t);
                      timeseries_->add_to(row, kFlitsDelivered, members_ * flits_of(first, count));
                      timeseries_->add_to(row, kPacketsDelivered, members_ * count);
                      timeseries_->add_to(row, kLatencySumPs,
                                          Wide{members_} * in.sum_since(a.created, first, count));
                    });
    const auto row_or_class_end = [&](SimTime t) {
      return std::min(net_.timeseries_row_end(t),
                      a.created + net::NetworkContext::latency_class_end(t - a.created));
    };
    in.for_each_bin(row_or_class_end, [&](SimTime t, uint64_t, uint64_t count) {
      timeseries_latency_->add_to(net_.timeseries_latency_row(t, t - a.created), 0,
                                  members_ * count);
    });
  }
  if (measured) {
    measured_delivered_ += n;
    latency_sum_ += in.sum_since(a.created, 1, n);
    // Packet i entered when packet i - 1's tail had left: each crossed the path's latency
    // (now - sent) and its own share of the spread.
    network_latency_sum_ += Wide{static_cast<uint64_t>((now() - a.sent).count_ps())} * n +
                            static_cast<uint64_t>((a.sent - a.injected).count_ps());
    hops_sum_ += a.mean_hops * static_cast<double>(n);
    count_in_histogram(in, a);
  }
  if (runner_) runner_->message_arrived(a.src, a.message, a.path_compute, now(), *this);
  if (net_.traffic.flows == net::FlowRecords::kNone ||
      (net_.traffic.flows == net::FlowRecords::kMeasured && !measured)) {
    return;
  }
  // Folded, every member of the orbit records its image of the message.
  for (uint32_t g = 0; g < members_; ++g) {
    flows_->add_owned_row(member(g, index_), flows_recorded_,
                          {uint64_t{member(g, a.src)}, uint64_t{member(g, index_)}, a.message, n,
                           a.bytes, a.created.count_ps(), (n > 0 ? in.at(1) : now()).count_ps(),
                           now().count_ps(), (now() - a.created).count_ps(),
                           static_cast<double>(a.mean_hops), uint64_t{measured ? 1u : 0u}});
  }
  ++flows_recorded_;
}

// The packets' latencies in /latency_histogram's bins: each run of them in the bin of one of
// its packets, the one (2v + 1) / 16 of the way through the run for a v in 0..7 picked by a
// hash of the message (systematic sampling from a random start). Over many messages each
// run's latencies are then represented at 8 evenly spaced points, 64 per message shape, near
// the histogram's own resolution, where a fixed packet of each run (its first or middle one)
// draws a collective's equal messages as 8 spikes. Equal messages still share few bins, which
// stay in cache, where a pick per run by its own hash scattered them over the histogram
// (docs/performance/models.md). The hash takes what every image of a folded message shares
// (its id and creation time, not its endpoints), so folding leaves the histogram as it is.
void FlowEndpoint::count_in_histogram(const PacketArrivals& in, const FlowArrived& a) {
  std::vector<uint64_t>& histogram = histogram_->u64_mutable(net::histogram::kPackets);
  const net::LatencyBins& bins = net_.latency_bins;
  const uint64_t members = members_;  // not reloaded after each store to the histogram
  const uint64_t sixteenths =
      2 * (mix64(mix64(static_cast<uint64_t>(a.created.count_ps())) ^ a.message) >> 61) + 1;
  in.for_each_run([&](uint64_t first, uint64_t count) {
    const uint64_t pick = (count * sixteenths) >> 4;  // count < 2^59: a message's packets
    histogram[bins.of(in.at(first + pick) - a.created)] += count * members;
  });
}

void FlowEndpoint::observe(uint32_t k) {
  const net::NetworkContext::Observation& o = net_.observations[k];
  if (o.bin_end >= 0 && !folded_away_) {
    timeseries_->add_to(static_cast<uint64_t>(o.bin_end), net::series::kPacketsQueued,
                        members_ * queued_packets_);
  }
  if (!sends_ || o.queue_sample < 0) return;
  queue_samples_->add_to(static_cast<uint64_t>(o.queue_sample), 0, uint64_t{1});
  queue_samples_->add_to(static_cast<uint64_t>(o.queue_sample), 1, queued_packets_);
}

void FlowEndpoint::finish() {
  if (folded_away_) return;  // its representative writes its rows
  if (runner_) runner_->finish();
  // Folded, each member of the orbit writes its image of the representative's rows.
  for (uint32_t g = 0; runner_ && traffic_matrix_ && g < members_; ++g) {
    runner_->traffic()->write(*traffic_matrix_, member(g, index_),
                              [&](uint32_t dst) { return member(g, dst); });
  }
  for (uint32_t g = 0; g < members_; ++g) {
    endpoints_->add_row(member(g, index_),
                        {messages_, injected_, received_, flits_offered_, flits_accepted_,
                         measured_delivered_, latency_sum_, max_queue_, not_offered_});
  }
  using namespace net::totals;
  const uint64_t m = members_;
  totals_->add_to(0, kPacketsInjected, m * injected_);
  totals_->add_to(0, kPacketsEjected, m * received_);
  totals_->add_to(0, kLinkSent, m * injected_);
  totals_->add_to(0, kLinkReceived, m * received_);
  totals_->add_to(0, kPacketsQueued, m * queued_packets_);
  if (net_.timeseries_bins > 0) {  // the last bin closes at the run's end
    timeseries_->add_to(net_.timeseries_bins - 1, net::series::kPacketsQueued, m * queued_packets_);
  }
  totals_->add_to(0, kFlitsOffered, m * flits_offered_);
  totals_->add_to(0, kFlitsAccepted, m * flits_accepted_);
  totals_->add_to(0, kMeasuredCreated, m * measured_created_);
  totals_->add_to(0, kMeasuredDelivered, m * measured_delivered_);
  totals_->add_to(0, kLatencySumPs, m * latency_sum_);
  totals_->add_to(0, kNetworkLatencySumPs, m * network_latency_sum_);
  totals_->add_to(0, kHopsSum, m * static_cast<uint64_t>(std::llround(hops_sum_)));
  totals_->add_to(0, kSenders, sends_ || runner_ ? m : uint64_t{0});
}

bool FlowEndpoint::knows_event(uint16_t kind) const {
  if (kind == kGenerate || kind == kStopInjection) return sends_;
  return (runner_ != nullptr || sends_) &&
         (kind == kSendDone || kind == kFlowArrived || kind == kRetry ||
          (kind == kWake && runner_ != nullptr));
}

void FlowEndpoint::serialize(StateArchive& ar) {
  bool has_runner = runner_ != nullptr;
  ar & has_runner;
  if (has_runner != (runner_ != nullptr)) {
    throw InputError("flow endpoint " + std::to_string(index_) +
                     ": the checkpoint's record is of another workload");
  }
  if (runner_) runner_->serialize(ar);
  ar & rng_ & slots_.slot_index();
  net::serialize_queue(ar, waiting_);
  net::serialize_queue(ar, held_);
  ar.bytes(&latency_sum_, sizeof(Wide));  // Boost has no 128-bit integers
  ar.bytes(&network_latency_sum_, sizeof(Wide));
  ar& active_& messages_& injected_& received_& queued_packets_& max_queue_& not_offered_&
      flits_offered_& flits_accepted_& measured_created_& measured_delivered_& hops_sum_&
          flows_recorded_;
}

}  // namespace hx::flow
