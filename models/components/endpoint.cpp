// Endpoint: Bernoulli message generation, the source queue and injection, and ejection.
#include "models/components/endpoint.h"

#include <algorithm>
#include <boost/serialization/array.hpp>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/prefetch.h"
#include "core/state_archive.h"
#include "models/components/state_io.h"
#include "models/network/layout.h"
#include "models/network/network_stats.h"

namespace hx::net {

Endpoint::Endpoint(ComponentId id, uint32_t index, const NetworkContext& net,
                   const BuildContext& ctx)
    : Component(id),
      net_(net),
      index_(index),
      vcs_(net.router.vcs),
      rng_(ctx.seed, id, static_cast<uint64_t>(RngPurpose::kTraffic)),
      histogram_(&ctx.stats->table("latency_histogram")),
      links_(&ctx.stats->table("links")),
      layout_(&ctx.stats->table("layout")),
      flows_(&ctx.stats->table("flows")),
      endpoints_(&ctx.stats->table("endpoints")),
      totals_(&ctx.stats->table("network_totals")),
      queue_samples_(&ctx.stats->table("queue_samples")),
      timeseries_(&ctx.stats->table("timeseries")),
      timeseries_latency_(&ctx.stats->table("timeseries_latency")),
      timeseries_links_(&ctx.stats->table("timeseries_links")),
      fault_log_(net, ctx, id) {
  std::vector<PortSpec> ports;
  net.topology->ports(id, ports);
  injectors_.resize(ports.size());
  const LinkProtocol& self = net.element_of(id).protocol;
  for (std::size_t p = 0; p < ports.size(); ++p) {
    const LinkProtocol& peer = net.element_of(ports[p].peer).protocol;
    injectors_[p].per_flit = net.per_flit[ports[p].link_class];
    if (peer.has_pipeline) injectors_[p].pipeline = net.router.pipeline;
    injectors_[p].peer_counts_credits = credits_counted_by_sender(peer, self);
  }
  credits_.assign(ports.size() * vcs_, net.router.buffer_flits);

  if (net.workload != nullptr) {
    if (net.workload->phases(index) > 0) {
      runner_ =
          std::make_unique<ProgramRunner>(*net.workload, index, *ctx.stats, net.traffic_matrix);
    }
    if (net.traffic_matrix) traffic_matrix_ = &ctx.stats->table("traffic_matrix");
    return;
  }
  slots_ = BernoulliSlots(net.traffic.load, net.traffic.packet_flits * net.traffic.message_packets,
                          net.cycle);
  sends_ = slots_.sends() && net.pattern->sends(index);
}

void Endpoint::setup() {
  if (runner_) {
    runner_->start(now(), *this);
    return;
  }
  if (!sends_) return;
  slots_.restart();
  schedule_next_message();
  // A background timer: when everything has drained earlier, it must not prolong the run.
  schedule_background(net_.window_end + net_.traffic.drain_limit, kStopInjection,
                      uint8_t{0});
}

// One event at the next message's slot if it is before the end of the measurement window
// (injection stops there and the network drains).
void Endpoint::schedule_next_message() {
  const SimTime at = slots_.next(rng_);
  if (at < net_.window_end) schedule(at - now(), kGenerate, uint8_t{0});
}

void Endpoint::handle(const Event& e) {
  switch (e.kind) {
    case kGenerate:
      generate();
      break;
    case kStopInjection:
      // Beyond saturation the source queues hold more than the network could carry in a long
      // time; what is still queued now only says that the load was not accepted
      // (packets_queued in the totals), so it is dropped and only the network drains.
      queue_ = RingQueue<Message>();
      active_.clear();
      break;
    case kInject:
      inject_pending_ = kNone;
      try_inject();
      break;
    case kPacketArrival:
      deliver(e.port, e.payload_as<Packet>());
      break;
    case kOpDone:
      runner_->op_done(e.payload_as<uint32_t>(), now(), *this);
      break;
    case kMessageDone: {
      const auto m = e.payload_as<MessageDone>();
      runner_->message_arrived(m.src, m.message, m.path_compute, now(), *this);
      break;
    }
    case kCreditArrival: {
      const auto credit = e.payload_as<Credit>();
      credits(e.port, credit.vc) += credit.flits;
      if (!queue_.empty() || !active_.empty()) try_inject();
      break;
    }
    default:
      throw std::logic_error("endpoint " + std::to_string(index_) + ": event of unknown kind " +
                             std::to_string(e.kind));
  }
}

// Beyond the hot state: a packet's delivery reads its port's injector (is the credit ours to
// send?), the delivery counters and, for a message of several packets, the slot where it is
// looked up; the other events may inject, which reads the injectors and the active messages.
void Endpoint::prefetch(const Event& e) const {
  if (e.kind == kPacketArrival) {
    prefetch_read(&injectors_[e.port]);
    prefetch_read(&received_);  // the delivery counters' two lines
    prefetch_read(&histogram_);
    const auto p = e.payload_as<Packet>();
    if (p.flits != p.message_flits) partial_.prefetch(p.src, p.message);
    return;
  }
  prefetch_read(injectors_.data());
  if (!active_.empty()) prefetch_read(active_.data());
}

void Endpoint::generate() {
  const SimTime now = this->now();
  const uint32_t packets = net_.traffic.message_packets;
  if (net_.faults != nullptr && !net_.faults->component_up(id(), now)) {
    schedule_next_message();  // a failed endpoint creates no traffic
    return;
  }
  if (queued_packets_ + packets > net_.traffic.source_queue_limit) {
    not_offered_ += packets;
    // At once, not at finish: whether the run is unstable is asked while it runs.
    totals_->add_to(0, totals::kPacketsNotOffered, uint64_t{packets});
    schedule_next_message();
    return;
  }
  queue_.push_back(Message{messages_++, now, SimTime::zero(), net_.pattern->destination(index_, rng_),
                           packets * net_.traffic.packet_flits, 0, kNoOp});
  queued_packets_ += packets;
  max_queue_ = std::max(max_queue_, queued_packets_);
  if (net_.in_window(now)) {
    measured_created_ += packets;
    flits_offered_ += uint64_t{packets} * net_.traffic.packet_flits;
  }
  schedule_next_message();
  try_inject();
}

void Endpoint::post_send(uint32_t dst, uint64_t bytes, uint64_t message, uint32_t op,
                         SimTime path_compute) {
  const uint64_t flits = (bytes + net_.router.flit_bytes - 1) / net_.router.flit_bytes;
  if (flits > 0xFFFFFFFFULL) {
    refuse_input("endpoint " + std::to_string(index_) + ": a message of " +
                 std::to_string(bytes) + " bytes exceeds 2^32 flits; split it");
    return;
  }
  queue_.push_back(Message{message, now(), path_compute, dst, static_cast<uint32_t>(flits), 0, op});
  const uint64_t packets = (flits + net_.traffic.packet_flits - 1) / net_.traffic.packet_flits;
  queued_packets_ += packets;
  max_queue_ = std::max(max_queue_, queued_packets_);
  ++messages_;
  measured_created_ += packets;
  flits_offered_ += flits;
  try_inject();
}

void Endpoint::wake(SimTime delay, uint32_t op) { schedule(delay, kOpDone, op); }

void Endpoint::try_inject() {
  const SimTime now = this->now();
  const auto ports = static_cast<uint32_t>(injectors_.size());
  held_until_ = kNone;
  for (;;) {
    while (active_.size() < net_.injection_queues && !queue_.empty()) {
      active_.push_back(queue_.front());
      queue_.pop_front();
    }
    if (active_.empty()) return;
    SimTime wake = kNone;
    bool sent = false;
    for (uint32_t k = 0; k < ports && !sent; ++k) {
      const uint32_t port = (next_port_ + k) % ports;
      if (injectors_[port].free > now) {
        wake = std::min(wake, injectors_[port].free);
        continue;
      }
      // A failed link holds what waits for it until it is back.
      if (const Faults* f = net_.faults) {
        const uint64_t link = net_.topology->first_link(id()) + port;
        if (!f->link_up(link, now)) {
          wake = std::min(wake, f->next_change(link, now));
          continue;
        }
      }
      // Messages in progress take turns, so one blocked by credits does not hold up the rest.
      for (uint32_t j = 0; j < active_.size() && !sent; ++j) {
        sent =
            inject_packet(port, static_cast<uint32_t>((next_message_ + j) % active_.size()), now);
      }
    }
    if (sent) continue;
    // Blocked: wake when a port frees; credit-blocked ports wake us with their credits; a
    // message held for a failed destination when that destination changes.
    wake = std::min(wake, held_until_);
    if (wake != kNone && inject_pending_ > wake) {
      inject_pending_ = wake;
      schedule(wake - now, kInject, uint8_t{0});
    }
    return;
  }
}

// Sends the next packet of active_[slot] through `port` if a VC has room for it.
bool Endpoint::inject_packet(uint32_t port, uint32_t slot, SimTime now) {
  Injector& inj = injectors_[port];
  Message& m = active_[slot];
  if (net_.faults != nullptr && held(m.dst, now)) [[unlikely]] return false;
  const auto flits =
      static_cast<uint16_t>(std::min<uint32_t>(net_.traffic.packet_flits, m.flits - m.flits_sent));
  for (uint8_t v = 0; v < vcs_; ++v) {
    const auto vc = static_cast<uint8_t>((inj.next_vc + v) % vcs_);
    if (credits(static_cast<PortId>(port), vc) < flits) continue;
    Packet p;
    p.message = m.seq;
    p.created = m.created;
    p.injected = now;
    p.path_compute = m.path_compute;
    p.src = index_;
    p.dst = m.dst;
    p.message_flits = m.flits;
    p.flits = flits;
    p.vc = vc;
    if (net_.in_window(m.created)) p.flags |= Packet::kMeasured;
    const SimTime ser = inj.per_flit * flits;
    p.stream_ps = static_cast<int32_t>(ser.count_ps());
    if (net_.faults != nullptr && lost_in_flight(port, p, now)) [[unlikely]] {
      ++inj.dropped;
    } else {
      send(static_cast<PortId>(port), kPacketArrival, p, inj.pipeline);
      credits(static_cast<PortId>(port), vc) -= flits;
    }
    inj.free = now + ser;
    inj.next_vc = static_cast<uint8_t>((vc + 1) % vcs_);
    inj.stats.record(net_, now, now + ser, flits);
    next_port_ = (port + 1) % static_cast<uint32_t>(injectors_.size());
    ++injected_;
    if (net_.timeseries_bins > 0) {
      timeseries_->add_to(net_.timeseries_row(now), series::kFlitsInjected, uint64_t{flits});
      record_link_series(*timeseries_links_, net_, this->port(static_cast<PortId>(port)).link_class,
                         now, now + ser, flits);
    }
    --queued_packets_;
    m.flits_sent += flits;
    next_message_ = slot + 1;
    if (m.flits_sent == m.flits) {
      // A send is done when its tail has left.
      if (m.op != kNoOp) schedule(ser, kOpDone, m.op);
      active_.erase(active_.begin() + slot);
      next_message_ = slot;  // the message after it moved into its place
    }
    return true;
  }
  return false;
}

// faults.to_failed_endpoint = "wait": a message to a failed endpoint stays in its send queue
// until the endpoint changes (held_until_ wakes try_inject then).
bool Endpoint::held(uint32_t dst, SimTime now) {
  SimTime until;
  if (!net_.faults->held(net_.topology->endpoint_component(dst), now, until)) return false;
  held_until_ = std::min(held_until_, until);
  return true;
}

// The schedule is known: a link that fails before the head is across loses the packet.
bool Endpoint::lost_in_flight(uint32_t port, const Packet& p, SimTime now) {
  const uint64_t link = net_.topology->first_link(id()) + port;
  const SimTime across = now + this->port(static_cast<PortId>(port)).latency +
                         injectors_[port].pipeline;
  if (net_.faults->link_up_throughout(link, now, across)) return false;
  fault_log_.drop(net_.faults->link_up(link, now) ? net_.faults->next_change(link, now) : now,
                  link, p);
  return true;
}

void Endpoint::deliver(PortId port, const Packet& p) {
  const SimTime tail = now() + SimTime::ps(p.stream_ps);
  if (!injectors_[port].peer_counts_credits) {
    send(port, kCreditArrival, Credit{p.flits, p.vc}, SimTime::ps(p.stream_ps));
  }
  ++received_;
  if (net_.in_window(tail)) flits_accepted_ += p.flits;
  if (net_.timeseries_bins > 0) {
    const uint64_t row = net_.timeseries_row(tail);
    const SimTime latency = tail - p.created;
    timeseries_->add_to(row, series::kFlitsDelivered, uint64_t{p.flits});
    timeseries_->add_to(row, series::kPacketsDelivered, uint64_t{1});
    timeseries_->add_to(row, series::kLatencySumPs,
                        Wide{static_cast<uint64_t>(latency.count_ps())});
    timeseries_latency_->add_to(net_.timeseries_latency_row(tail, latency), 0, uint64_t{1});
  }
  const bool measured = (p.flags & Packet::kMeasured) != 0;
  if (measured) {
    const SimTime latency = tail - p.created;
    ++measured_delivered_;
    latency_sum_ += latency.count_ps();
    network_latency_sum_ += (tail - p.injected).count_ps();
    hops_sum_ += p.hops;
    histogram_->add_to(net_.latency_bins.of(latency), histogram::kPackets, uint64_t{1});
  }
  // Whole messages matter to the workload program and to the flow table.
  if (!runner_ && (net_.traffic.flows == FlowRecords::kNone ||
                   (net_.traffic.flows == FlowRecords::kMeasured && !measured))) {
    return;
  }
  if (p.flits == p.message_flits) {
    message_received(p, tail, tail, 1, p.hops);
    return;
  }
  bool added = false;
  auto& slot = partial_.find_or_add(p.src, p.message, Partial{p.created, tail, 0, 0, 0}, added);
  Partial& part = slot.value;
  part.hops += p.hops;
  ++part.packets;
  part.flits += p.flits;
  if (part.flits == p.message_flits) {
    message_received(p, part.first, tail, part.packets, part.hops);
    partial_.erase(slot);
  }
}

void Endpoint::message_received(const Packet& p, SimTime first, SimTime last, uint32_t packets,
                                uint32_t hops) {
  if (runner_) {
    // The program sees the message when its last tail is in, which is stream_ps from now.
    schedule(last - now(), kMessageDone, MessageDone{p.message, p.path_compute, p.src});
  }
  const bool measured = (p.flags & Packet::kMeasured) != 0;
  if (net_.traffic.flows == FlowRecords::kNone ||
      (net_.traffic.flows == FlowRecords::kMeasured && !measured)) {
    return;
  }
  flows_->add_owned_row(
      index_, flows_recorded_++,
      {uint64_t{p.src}, uint64_t{p.dst}, p.message, uint64_t{packets},
       uint64_t{p.message_flits} * net_.router.flit_bytes, p.created.count_ps(), first.count_ps(),
       last.count_ps(), (last - p.created).count_ps(), static_cast<double>(hops) / packets,
       uint64_t{measured ? 1u : 0u}});
}

void Endpoint::finish() {
  if (runner_) runner_->finish();
  if (runner_ && traffic_matrix_) {
    runner_->traffic()->write(*traffic_matrix_, index_, [](uint32_t dst) { return dst; });
  }
  const double window = net_.window_length(now());
  for (PortId p = 0; p < injectors_.size(); ++p) {
    const LinkStats& s = injectors_[p].stats;
    const PortLink& link = port(p);
    links_->add_row(
        net_.topology->first_link(id()) + p,
        {uint64_t{id()}, uint64_t{p}, uint64_t{link.peer}, uint64_t{link.peer_port},
         uint64_t{link.link_class}, s.packets, s.flits, s.flits * net_.router.flit_bytes,
         s.busy.count_ps(), static_cast<double>(s.busy.count_ps()) / window, s.stall.count_ps(),
         injectors_[p].dropped, fault_log_.down_ps(net_.topology->first_link(id()) + p, now())});
    fault_log_.offer_actions(net_.topology->first_link(id()) + p);
  }
  add_layout_row(*layout_, *net_.topology, id());
  if (net_.timeseries_bins > 0) {  // the last bin closes at the run's end
    timeseries_->add_to(net_.timeseries_bins - 1, series::kPacketsQueued, queued_packets_);
  }
  endpoints_->add_row(index_, {messages_, injected_, received_, flits_offered_, flits_accepted_,
                               measured_delivered_, Wide{static_cast<uint64_t>(latency_sum_)},
                               max_queue_, not_offered_});
  using namespace totals;
  totals_->add_to(0, kPacketsInjected, injected_);
  totals_->add_to(0, kPacketsEjected, received_);
  // Packets lost on the injection link never arrive anywhere.
  uint64_t lost = 0;
  for (const Injector& inj : injectors_) lost += inj.dropped;
  totals_->add_to(0, kLinkSent, injected_ - lost);
  totals_->add_to(0, kLinkReceived, received_);
  totals_->add_to(0, kPacketsQueued, queued_packets_);
  totals_->add_to(0, kFlitsOffered, flits_offered_);
  totals_->add_to(0, kFlitsAccepted, flits_accepted_);
  totals_->add_to(0, kMeasuredCreated, measured_created_);
  totals_->add_to(0, kMeasuredDelivered, measured_delivered_);
  totals_->add_to(0, kLatencySumPs, Wide{static_cast<uint64_t>(latency_sum_)});
  totals_->add_to(0, kNetworkLatencySumPs, Wide{static_cast<uint64_t>(network_latency_sum_)});
  totals_->add_to(0, kHopsSum, hops_sum_);
  totals_->add_to(0, kSenders, uint64_t{sends_ || runner_ ? 1u : 0u});
}

void Endpoint::observe(uint32_t k) {
  const NetworkContext::Observation& o = net_.observations[k];
  if (o.bin_end >= 0) {
    timeseries_->add_to(static_cast<uint64_t>(o.bin_end), series::kPacketsQueued, queued_packets_);
  }
  if (!sends_ || o.queue_sample < 0) return;
  queue_samples_->add_to(static_cast<uint64_t>(o.queue_sample), 0, uint64_t{1});
  queue_samples_->add_to(static_cast<uint64_t>(o.queue_sample), 1, queued_packets_);
}

bool Endpoint::knows_event(uint16_t kind) const {
  switch (kind) {
    case kGenerate:
    case kInject:
    case kStopInjection:
    case kPacketArrival:
    case kCreditArrival:
      return true;
    case kOpDone:
    case kMessageDone:
      return runner_ != nullptr;
    default:
      return false;
  }
}

void Endpoint::serialize(StateArchive& ar) {
  ar & rng_ & slots_.slot_index() & queued_packets_ & inject_pending_ & next_port_;
  serialize_queue(ar, queue_);
  serialize_items(ar, active_);
  ar & next_message_;
  for (Injector& inj : injectors_) {
    ar & inj.free & inj.next_vc & inj.stats.packets & inj.stats.flits & inj.stats.busy &
        inj.stats.stall & inj.dropped;
  }
  uint64_t credit_count = credits_.size();
  ar & credit_count;
  if (credit_count != credits_.size()) {
    throw InputError("endpoint " + std::to_string(index_) + ": the checkpoint's record has " +
                     std::to_string(credit_count) + " (port, VC) credit counters, this endpoint " +
                     std::to_string(credits_.size()) + " (another topology or [router] section?)");
  }
  ar.bytes(credits_.data(), credits_.size() * sizeof(uint32_t));
  // The map goes as records sorted by key, so equal states give equal bytes.
  std::vector<KeyedPartial> partial;
  partial_.for_each([&](uint32_t src, uint64_t message, const Partial& part) {
    partial.push_back({PartialKey{message, src}, part});
  });
  std::sort(partial.begin(), partial.end(),
            [](const KeyedPartial& a, const KeyedPartial& b) { return a.key < b.key; });
  serialize_items(ar, partial);
  if (ar.loading()) {
    partial_.clear();
    bool added = false;
    for (const KeyedPartial& k : partial) {
      partial_.find_or_add(k.key.src, k.key.message, k.partial, added);
    }
  }
  bool has_runner = runner_ != nullptr;
  ar & has_runner;
  if (has_runner != (runner_ != nullptr)) {
    throw InputError("endpoint " + std::to_string(index_) +
                     ": the checkpoint's record is of a run with" + (has_runner ? "" : "out") +
                     " a workload program, this run is not");
  }
  if (runner_) runner_->serialize(ar);
  ar & messages_ & injected_ & received_ & flits_offered_ & flits_accepted_ & measured_created_ &
      measured_delivered_ & latency_sum_ & network_latency_sum_ & hops_sum_ & max_queue_ &
      flows_recorded_;
  ar & not_offered_ & fault_log_.seq();
}

}  // namespace hx::net
