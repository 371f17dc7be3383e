// Router: packet and credit arrivals, the allocators. What it reports (the watchdog, its
// /links rows, time-series snapshots) is in router_report.cpp.
#include "models/components/router.h"

#include <algorithm>
#include <boost/serialization/array.hpp>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/prefetch.h"
#include "core/state_archive.h"
#include "models/components/state_io.h"
#include "models/network/network_stats.h"

namespace hx::net {
namespace {

constexpr SimTime kNever = SimTime::infinity();

uint16_t port_count(const NetworkContext& net, ComponentId id) {
  std::vector<PortSpec> ports;
  net.topology->ports(id, ports);
  return static_cast<uint16_t>(ports.size());
}

}  // namespace

Router::Router(ComponentId id, uint32_t index, const NetworkContext& net, const BuildContext& ctx)
    : Component(id),
      net_(net),
      index_(index),
      vcs_(net.router.vcs),
      classes_(net.routing->vcs()),
      ideal_(net.router.ideal),
      ports_(port_count(net, id)),
      state_(ports_, vcs_, net.router.buffer_flits),
      candidates_(net.scratch.candidates),
      requests_(net.scratch.requests),
      grant_(net.scratch.grant),
      vc_grant_(net.scratch.vc_grant),
      claimed_(net.scratch.claimed),
      settled_(net.scratch.settled),
      rng_(ctx.seed, id, static_cast<uint64_t>(RngPurpose::kRouting)),
      fault_log_(net, ctx, id),
      links_(&ctx.stats->table("links")),
      layout_(&ctx.stats->table("layout")),
      totals_(&ctx.stats->table("network_totals")),
      timeseries_(&ctx.stats->table("timeseries")),
      timeseries_links_(&ctx.stats->table("timeseries_links")) {
  std::vector<PortSpec> ports;
  net.topology->ports(id, ports);
  const std::size_t n = ports.size();
  queues_.resize(n * vcs_);
  outputs_.resize(n);
  if (grant_.size() < n) grant_.resize(n, -1);
  if (vc_grant_.size() < n * vcs_) vc_grant_.resize(n * vcs_, -1);
  if (ideal_ && settled_.size() < n * vcs_) settled_.resize(n * vcs_);
  const LinkProtocol& self = net.element_of(id).protocol;
  for (std::size_t p = 0; p < n; ++p) {
    const LinkProtocol& peer = net.element_of(ports[p].peer).protocol;
    // From the link protocols (element.h): we count the peer's credits ourselves (Return),
    // and the peer's pipeline delays what we send.
    const bool to_endpoint = net.topology->node(ports[p].peer).kind == NodeKind::kEndpoint;
    state_.set_link(static_cast<PortId>(p), net.per_flit[ports[p].link_class],
                    (to_endpoint ? PortState::kToEndpoint : 0) |
                        (credits_counted_by_sender(self, peer) ? PortState::kCountsReturns : 0) |
                        (peer.has_pipeline ? PortState::kPeerPipeline : 0));
  }
  // Only a router that fails or has a failing link checks the schedule on its paths; the
  // routing asks about links anywhere when there are faults at all.
  any_faults_ = net.faults != nullptr;
  if (const Faults* f = net.faults) {
    bool affected = f->component_ever_down(id);
    for (std::size_t p = 0; p < n && !affected; ++p) {
      affected = f->link_ever_down(net.topology->first_link(id) + p);
    }
    if (affected) faults_ = f;
  }
  first_link_ = net.topology->first_link(id);
  // The ideal router routes packets behind the heads too, which the cache does not key.
  keep_routes_ = !ideal_ && net.routing->keep_candidates();
}

void Router::setup() {
  if (faults_ == nullptr) return;
  for (const SimTime at : faults_->component_changes(id())) {
    schedule_background(at - now(), kFaultChange, uint8_t{0});
  }
}

bool Router::link_up(uint64_t link) const {
  return net_.faults == nullptr || net_.faults->link_up(link, now());
}

uint32_t Router::configuration(uint32_t element, uint32_t instance) const {
  return net_.faults == nullptr ? 0 : net_.faults->configuration(element, instance, now());
}

// Failed, the router loses every packet in its buffers; their space is returned upstream as
// if they had left (credits are not lost: docs/FAULTS.md).
void Router::on_fault_change() {
  if (faults_->component_up(id(), now())) return;
  const SimTime now = this->now();
  for (PortId in = 0; in < ports_; ++in) {
    const PortLink& link = port(in);
    const uint64_t in_link = net_.topology->first_link(link.peer) + link.peer_port;
    for (uint8_t vc = 0; vc < vcs_; ++vc) {
      while (!queue(in, vc).empty()) drop_head(in, vc, in_link, now);
    }
  }
}

void Router::drop_head(PortId in, uint8_t vc, uint64_t link, SimTime now) {
  RingQueue<Waiting>& q = queue(in, vc);
  const Waiting w = q.front();
  q.pop_front();
  if (keep_routes_) routes_.drop(in * vcs_ + vc);
  if (q.empty()) state_.clear_busy(in, vc);
  --held_;
  fault_log_.drop(now, link, w.packet);
  const uint64_t first = first_link_;
  if (link >= first && link < first + ports_) ++outputs_[link - first].dropped;
  send(in, kCreditArrival, Credit{w.packet.flits, vc}, std::max(SimTime::zero(), w.tail - now));
}

bool Router::knows_event(uint16_t kind) const {
  return kind == kPacketArrival || kind == kCreditArrival || kind == kAllocate ||
         kind == kWatchdog || (kind == kFaultChange && faults_ != nullptr);
}

void Router::handle(const Event& e) {
  switch (e.kind) {
    case kPacketArrival:
      on_packet(e.port, e.payload_as<Packet>());
      break;
    case kCreditArrival:
      on_credit(e.port, e.payload_as<Credit>());
      break;
    case kAllocate:
      // This event is the earliest pending one: later ones stay scheduled. The round runs
      // after everything else that arrives in this instant.
      pending_allocations_.erase(pending_allocations_.begin());
      request_end_of_instant();
      break;
    case kWatchdog:
      check_watchdog();
      break;
    case kFaultChange:
      on_fault_change();
      break;
    default:
      throw std::logic_error("router " + std::to_string(index_) + ": event of unknown kind " +
                             std::to_string(e.kind));
  }
}

void Router::prefetch(const Event& e) const {
  switch (e.kind) {
    case kPacketArrival: {
      uint8_t vc;  // of the packet's fields only its VC is needed
      std::memcpy(&vc, e.payload.data() + offsetof(Packet, vc), sizeof vc);
      // The queue and, when it is empty, the slot the packet will take.
      const char* queue = reinterpret_cast<const char*>(&queues_[e.port * vcs_ + vc]);
      prefetch_read(queue);
      prefetch_read(queue + kCacheLine);
      state_.prefetch_input(e.port);
      // The allocation round after it scans the inputs, weighs outputs and arbitrates.
      state_.prefetch_round();
      prefetch_read(grant_.data());
      // The wiring its sends read: the packet's way on (often among the first ports) and the
      // credit's way back.
      prefetch_read(&port(0));
      prefetch_read(&port(e.port));
      break;
    }
    case kCreditArrival:
      state_.prefetch_credits(e.port);
      prefetch_read(&outputs_[e.port]);
      break;
    case kAllocate:
      state_.prefetch_round();
      prefetch_read(queues_.data());
      prefetch_read(grant_.data());
      prefetch_read(pending_allocations_.data());
      break;
    default:
      break;
  }
}

// The packet arrives when its head has crossed the pipeline (the sender adds the delay), so it
// can leave in this instant's allocation round.
void Router::on_packet(PortId port, const Packet& packet) {
  const SimTime now = this->now();
  Waiting w{SimTime::zero(), now + SimTime::ps(packet.stream_ps), packet};
  // Source decisions (Valiant intermediate, UGAL) are made once, at the first router.
  if (state_.link(port) & PortState::kToEndpoint) {
    net_.routing->start(index_, *this, rng_, w.packet);
  }
  RingQueue<Waiting>& q = queue(port, packet.vc);
  q.push_back(w);
  ++received_;
  if (held_++ == 0) loaded_since_ = now;
  if (q.size() == 1) {
    state_.set_busy(port, packet.vc);
    request_end_of_instant();
  } else if (ideal_) {
    request_end_of_instant();  // it may leave before the head (router_ideal.cpp)
  }
  if (!watchdog_armed_) {
    watchdog_armed_ = true;
    schedule_background(net_.router.watchdog, kWatchdog, uint8_t{0});
  }
}

void Router::on_credit(PortId port, const Credit& credit) {
  credits(port, credit.vc) += credit.flits;
  Output& out = outputs_[port];
  if (out.stall_since != kNotStalled) {
    out.stats.stall += net_.window_overlap(out.stall_since, now());
    out.stall_since = kNotStalled;
  }
  // Every other blocked head already has a wake-up scheduled (its ready time, its input's or
  // output's free time), so only heads short of credits here need an allocation now.
  if (out.credit_waiter) {
    out.credit_waiter = false;
    request_allocation(now());
  }
}

void Router::absorb_returns(SimTime until) {
  std::size_t n = 0;
  for (; n < returns_.size() && returns_[n].at <= until; ++n) {
    const Return& r = returns_[n];
    credits(r.port, r.vc) += r.flits;
    Output& out = outputs_[r.port];
    out.credit_waiter = false;  // the allocation absorbing it is the one the credit triggers
    if (out.stall_since != kNotStalled) {
      out.stats.stall += net_.window_overlap(out.stall_since, r.at);
      out.stall_since = kNotStalled;
    }
  }
  returns_.erase(returns_.begin(), returns_.begin() + static_cast<std::ptrdiff_t>(n));
}

SimTime Router::earliest_awaited_return() const {
  for (const Return& r : returns_) {
    if (outputs_[r.port].credit_waiter) return r.at;
  }
  return kNever;
}

void Router::request_allocation(SimTime at) {
  if (at <= now()) {
    request_end_of_instant();
    return;
  }
  // An earlier (or simultaneous) allocation will look again and schedule what it still needs.
  if (!pending_allocations_.empty() && pending_allocations_.front() <= at) return;
  pending_allocations_.insert(pending_allocations_.begin(), at);
  schedule(at - now(), kAllocate, uint8_t{0});
}

// The routing sees VC classes: with more VCs than it needs, physical VC v belongs to class
// v % classes, so the router spreads each class over several buffers (fewer head-of-line
// blocks) and the routing's deadlock argument carries over unchanged.
inline void Router::route_class(PortId in, Packet& packet) {
  const uint8_t physical = packet.vc;
  packet.vc = static_cast<uint8_t>(physical % classes_);
  candidates_.clear();
  net_.routing->route(index_, in, packet, candidates_);
  packet.vc = physical;
}

bool Router::route(PortId in, Packet& packet, uint64_t& dead) {
  if (faults_ != nullptr) [[unlikely]]
    return route_live(in, packet, dead);
  if (keep_routes_) [[unlikely]]
    return route_kept(in, packet);
  route_class(in, packet);
  return true;
}

// The head of input VC (in, packet.vc) gets the candidates kept since its first route, if any
// (route_cache.h); forward() forgets them when it leaves.
bool Router::route_kept(PortId in, Packet& packet) {
  fresh_route_ = !routes_.load(in * vcs_ + packet.vc, 0, candidates_);
  if (!fresh_route_) return true;
  fresh_epoch_ = 0;
  route_class(in, packet);
  return true;
}

void Router::keep_route(uint32_t queue) { routes_.store(queue, fresh_epoch_, candidates_); }

// With candidates kept, those of a head whose route needed no fallback hold for the rest of
// the fault schedule's epoch: the same route() and the same live links.
bool Router::route_live(PortId in, Packet& packet, uint64_t& dead) {
  const uint8_t physical = packet.vc;
  if (keep_routes_) {
    fresh_epoch_ = faults_->epoch(now());
    fresh_route_ = !routes_.load(in * vcs_ + physical, fresh_epoch_, candidates_);
    if (!fresh_route_) return true;
  }
  route_class(in, packet);
  bool routable = true, around = false;
  if (!candidates_.empty()) {
    dead = first_link_ + candidates_[0].port;
    if (!keep_live_candidates()) {
      packet.vc = static_cast<uint8_t>(physical % classes_);
      net_.routing->route_around(index_, in, packet, *this, candidates_);
      packet.vc = physical;
      routable = keep_live_candidates();
      around = true;
    }
  }
  fresh_route_ = fresh_route_ && !around;  // a fallback's candidates are not kept
  return routable;
}

// Removes the candidates on failed links; false if none is left. A port's VCs come as
// neighbouring candidates, so each link is looked up once.
bool Router::keep_live_candidates() {
  const SimTime now = this->now();
  PortId last = 0;
  bool up = false, asked = false;
  candidates_.keep_if([&](const Candidate& c) {
    if (!asked || c.port != last) {
      asked = true;
      last = c.port;
      up = faults_->link_up(first_link_ + c.port, now);
    }
    return up;
  });
  return !candidates_.empty();
}

inline bool Router::select(uint16_t flits, SimTime now, SimTime& wake, Candidate& best,
                    SimTime& blocked_until) {
  blocked_until = SimTime::zero();
  if (candidates_.has_detours()) return select_with_detours(flits, now, wake, best);
  uint32_t best_credits = 0;
  bool found = false;
  SimTime first_free = kNever;
  bool all_busy = true;
  for (const Candidate& c : candidates_) {
    const SimTime free = state_.output_free(c.port);
    if (free > now) {
      wake = std::min(wake, free);
      first_free = std::min(first_free, free);
      continue;
    }
    Output& out = outputs_[c.port];
    all_busy = false;
    for (uint32_t vc = c.vc; vc < vcs_; vc += classes_) {
      const uint32_t space = credits(c.port, static_cast<uint8_t>(vc));
      if (space < flits) {
        if (out.stall_since == kNotStalled) out.stall_since = now;
        out.credit_waiter = true;
        continue;
      }
      if (!found || space > best_credits) {
        best = Candidate{c.port, static_cast<uint8_t>(vc), c.escape};
        best_credits = space;
        found = true;
      }
    }
  }
  if (all_busy && first_free != kNever) blocked_until = first_free;
  return found;
}

// select() for router_ideal.cpp, which cannot inline it.
bool Router::select_outlined(uint16_t flits, SimTime now, SimTime& wake, Candidate& best,
                             SimTime& blocked_until) {
  return select(flits, now, wake, best, blocked_until);
}

// As select(), scoring each usable candidate by its space less its penalty; a detour wins only
// when it beats the best space of the direct candidates, counting those it would wait for.
bool Router::select_with_detours(uint16_t flits, SimTime now, SimTime& wake, Candidate& best) {
  int32_t best_score = 0, direct_score = -1;
  bool found = false;
  for (const Candidate& c : candidates_) {
    Output& out = outputs_[c.port];
    out.credit_waiter = true;  // any credit here can change the choice between direct and detour
    const SimTime free = state_.output_free(c.port);
    const bool busy = free > now;
    if (busy) {
      wake = std::min(wake, free);
      if (c.penalty > 0) continue;
    }
    for (uint32_t vc = c.vc; vc < vcs_; vc += classes_) {
      const auto space = static_cast<int32_t>(credits(c.port, static_cast<uint8_t>(vc)));
      if (c.penalty == 0) direct_score = std::max(direct_score, space);
      if (busy) continue;
      if (space < flits) {
        if (out.stall_since == kNotStalled) out.stall_since = now;
        continue;
      }
      const int32_t score = space - c.penalty;
      if (!found || score > best_score) {
        best = Candidate{c.port, static_cast<uint8_t>(vc), c.escape, c.penalty};
        best_score = score;
        found = true;
      }
    }
  }
  return found && (best.penalty == 0 || best_score > direct_score);
}

// Separable allocation, iterated within the instant: each free input proposes the head of one
// of its VCs (round-robin over VCs) with its best candidate; each output grants one proposal
// (round-robin over inputs). Inputs that lost propose again to what is still free, until every
// proposal of a round is granted. What blocks the remaining heads sets the next wake-up; heads
// blocked on credits wake when credits arrive.
void Router::allocate() {
  if (ideal_) return allocate_ideal();
  const SimTime now = this->now();
  const std::size_t busy_words = state_.busy_words();
  SimTime wake = kNever;
  if (!returns_.empty()) absorb_returns(now);
  for (;;) {
    requests_.clear();
    wake = kNever;
    bool dropped = false;  // a head with no live way on was lost: look again at its VC
    for (std::size_t word = 0; word < busy_words; ++word) {
      for (uint64_t busy = state_.busy_word(word); busy != 0; busy &= busy - 1) {
        const auto bit = static_cast<unsigned>(__builtin_ctzll(busy));
        const auto in = static_cast<PortId>(64 * word + bit);
        const PortState::Input& input = state_.input(in);
        if (input.free > now) {
          wake = std::min(wake, input.free);
          continue;
        }
        // The non-empty VCs in round-robin order from next_vc.
        for (uint64_t rotated = vcs_from_next(input); rotated != 0; rotated &= rotated - 1) {
          const uint8_t vc = vc_at(input, rotated);
          Waiting& head = queue(in, vc).front();
          if (head.blocked_until > now) {
            wake = std::min(wake, head.blocked_until);
            continue;
          }
          uint64_t dead = 0;
          if (!route(in, head.packet, dead)) {
            drop_head(in, vc, dead, now);
            dropped = true;
            continue;
          }
          Candidate best;
          if (select(head.packet.flits, now, wake, best, head.blocked_until)) {
            requests_.push_back({in, vc, best});
            // forward() updates the output if granted: start its load behind the other inputs.
            prefetch_write(&outputs_[best.port]);
            break;
          }
          // It stays: keep its candidates for the next rounds (route_cache.h).
          if (fresh_route_) [[unlikely]]
            keep_route(in * vcs_ + vc);
        }
      }
    }
    if (requests_.empty()) {
      if (dropped) continue;
      break;
    }

    const std::size_t granted = grant_requests(now, wake, true);
    // Without losers another round finds nothing new: granted inputs are busy now, and every
    // other head's obstacle is already in `wake`.
    if (granted == requests_.size() && !dropped) break;
  }
  // Endpoint credits have no arrival event to trigger the allocation they unblock.
  if (!returns_.empty()) wake = std::min(wake, earliest_awaited_return());
  if (wake != kNever) request_allocation(wake);
}

// Sends the granted requests: a lone request goes, several are arbitrated. `input_wakes`: wake
// when a granted input that holds more is free.
std::size_t Router::grant_requests(SimTime now, SimTime& wake, bool input_wakes) {
  if (requests_.size() > 1) arbitrate();
  std::size_t granted = 0;
  for (const Request& r : requests_) {
    if (requests_.size() > 1) {
      const int32_t g = grant_[r.candidate.port];
      if (g < 0 || &requests_[static_cast<std::size_t>(g)] != &r) continue;
    }
    forward(r, now);
    ++granted;
    // The input reads this packet out until it is free; what else waits there goes then.
    const PortState::Input& input = state_.input(r.input);
    if (input_wakes && input.busy_vcs > 0) wake = std::min(wake, input.free);
  }
  if (requests_.size() > 1) {
    for (const Request& r : requests_) {
      grant_[r.candidate.port] = -1;
      vc_grant_[r.candidate.port * vcs_ + r.candidate.vc] = -1;
    }
  }
  return granted;
}

// Output arbitration in two stages, as a router's VC and switch allocators: each output VC
// picks the requesting input first at or after its own round-robin pointer, and each output
// grants the pick first at or after the port's pointer (forward() moves both past the granted
// input). With the port's pointer alone, grants of the port's other VCs could keep moving an
// input's turn past it: an input starved for as long as the load lasted (docs/MODELS.md
// "Allocation"). Fills grant_ (and vc_grant_, which grant_requests() clears).
void Router::arbitrate() {
  const uint32_t ports = ports_;
  const auto turn = [ports](PortId input, uint32_t pointer) {
    return (input + ports - pointer) % ports;
  };
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    const Request& r = requests_[i];
    int32_t& pick = vc_grant_[r.candidate.port * vcs_ + r.candidate.vc];
    if (pick < 0) {
      pick = static_cast<int32_t>(i);
      continue;
    }
    const uint32_t pointer = state_.next_input(r.candidate.port, r.candidate.vc);
    if (turn(r.input, pointer) < turn(requests_[static_cast<std::size_t>(pick)].input, pointer)) {
      pick = static_cast<int32_t>(i);
    }
  }
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    const Request& r = requests_[i];
    const PortId out = r.candidate.port;
    if (vc_grant_[out * vcs_ + r.candidate.vc] != static_cast<int32_t>(i)) continue;
    int32_t& granted = grant_[out];
    if (granted < 0) {
      granted = static_cast<int32_t>(i);
      continue;
    }
    const uint32_t pointer = outputs_[out].next_input;
    if (turn(r.input, pointer) <
        turn(requests_[static_cast<std::size_t>(granted)].input, pointer)) {
      granted = static_cast<int32_t>(i);
    }
  }
}

// Flattened: with the fault path beside it GCC stopped inlining the sends and the event
// queue's commit here (+9% instructions on the Dragonfly benchmark; flattened +1.0%,
// docs/performance/engine.md "Cost of faults").
[[gnu::flatten]] void Router::forward(const Request& r, SimTime now) {
  RingQueue<Waiting>& q = queue(r.input, r.vc);
  // Copied out: popping moves the next packet into the front's place. The packet may come from
  // behind the head (router.arch = "ideal").
  Waiting w = q.at(r.depth);
  if (r.depth > 0) [[unlikely]] {
    q.erase(r.depth);
  } else {
    q.pop_front();
    if (keep_routes_) [[unlikely]]
      routes_.drop(r.input * vcs_ + r.vc);
  }
  if (q.empty()) state_.clear_busy(r.input, r.vc);
  PortState::Input& input = state_.input(r.input);
  --held_;
  ++sent_;
  last_move_ = now;

  Output& out = outputs_[r.candidate.port];
  const uint8_t link = state_.link(r.candidate.port);
  const uint16_t flits = w.packet.flits;
  // The tail leaves after the packet's serialisation on this link, but not before it has
  // arrived and crossed the pipeline (a faster output waits for a slower input). The link is
  // spent only for the serialisation: a stream slower than the link leaves gaps that other
  // packets' flits fill, as flit-level VC multiplexing does (RailX's k-times meshes rely on it).
  const SimTime sent = now + state_.per_flit(r.candidate.port) * flits;
  const SimTime tail_out = std::max(sent, w.tail);
  state_.output_free(r.candidate.port) = sent;
  out.next_input = (r.input + 1u) % ports_;
  state_.next_input(r.candidate.port, r.candidate.vc) = static_cast<PortId>(out.next_input);
  if (out.stall_since != kNotStalled) {
    out.stats.stall += net_.window_overlap(out.stall_since, now);
    out.stall_since = kNotStalled;
  }
  out.stats.record(net_, now, sent, flits);
  if (net_.timeseries_bins > 0) [[unlikely]] {
    record_link_series(*timeseries_links_, net_, port(r.candidate.port).link_class, now, sent,
                       flits);
  }
  // The input reads the packet out at its own link's rate; a slower output (or a tail still
  // arriving) leaves it free for other VCs' packets in the meantime, as flit interleaving does.
  input.free = now + state_.per_flit(r.input) * flits;
  input.next_vc = static_cast<uint8_t>((r.vc + 1) % vcs_);
  const SimTime pipeline =
      (link & PortState::kPeerPipeline) ? net_.router.pipeline : SimTime::zero();
  Packet& p = w.packet;  // leaves in place, as the next hop sees it
  const uint8_t in_vc = p.vc;
  if (faults_ == nullptr || !lost_in_flight(r, p, now, pipeline)) [[likely]] {
    credits(r.candidate.port, r.candidate.vc) -= flits;
    p.vc = r.candidate.vc;
    p.stream_ps = static_cast<int32_t>((tail_out - now).count_ps());
    if (!(link & PortState::kToEndpoint)) ++p.hops;
    send(r.candidate.port, kPacketArrival, p, pipeline);
    if (link & PortState::kCountsReturns) {
      // The peer frees the space when the tail is in; the credit then crosses the link back.
      const SimTime at = tail_out + port(r.candidate.port).latency * 2;
      auto pos = returns_.end();
      while (pos != returns_.begin() && (pos - 1)->at > at) --pos;
      returns_.insert(pos, Return{at, r.candidate.port, r.candidate.vc, flits});
      extend_run_to(at);
    }
  }
  // The upstream VC regains the packet's space when its tail has left this buffer (a packet
  // lost on the link too: credits are not lost, docs/FAULTS.md).
  send(r.input, kCreditArrival, Credit{flits, in_vc}, tail_out - now);
}

// The schedule is known: a link that fails before the head is across loses the packet.
bool Router::lost_in_flight(const Request& r, const Packet& p, SimTime now, SimTime pipeline) {
  const uint64_t link = first_link_ + r.candidate.port;
  if (faults_->link_up_throughout(link, now, now + port(r.candidate.port).latency + pipeline)) {
    return false;
  }
  // Lost when the link goes down (the sender only knows it ahead because the schedule is).
  fault_log_.drop(faults_->link_up(link, now) ? faults_->next_change(link, now) : now, link, p);
  ++outputs_[r.candidate.port].dropped;
  --sent_;  // no peer receives it: links count what arrives
  return true;
}

// UGAL weighs the ports towards other groups, never those to endpoints, so the endpoint credits
// due by now that allocate() has not yet absorbed are counted only for completeness.
uint32_t Router::load(PortId port) const {
  uint32_t used = 0;
  for (uint8_t vc = 0; vc < vcs_; ++vc) used += net_.router.buffer_flits - credits(port, vc);
  const SimTime now = this->now();
  for (const Return& r : returns_) {
    if (r.at > now) break;
    if (r.port == port) used -= r.flits;
  }
  return used;
}

void Router::serialize(StateArchive& ar) {
  state_.serialize(ar, index_);  // first: it checks the record's shape
  ar& rng_;
  for (auto& q : queues_) serialize_queue(ar, q);
  for (Output& out : outputs_) {
    ar& out.stall_since& out.next_input& out.credit_waiter& out.stats.packets& out.stats.flits& out
        .stats.busy& out.stats.stall& out.dropped;
  }
  serialize_items(ar, pending_allocations_);
  serialize_items(ar, returns_);
  ar& held_& last_move_& loaded_since_& watchdog_armed_& received_& sent_& fault_log_.seq();
}

}  // namespace hx::net
