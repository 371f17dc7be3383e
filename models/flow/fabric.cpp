// Fabric: flows, their rates and their ends.
#include "models/flow/fabric.h"

#include <algorithm>
#include <boost/serialization/map.hpp>
#include <boost/serialization/vector.hpp>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>

#include "core/error.h"
#include "core/state_archive.h"
#include "models/flow/flow_events.h"
#include "models/flow/folding.h"
#include "models/network/layout.h"
#include "models/network/network_stats.h"

namespace hx::flow {
namespace {

constexpr uint64_t kPsPerSecond = 1'000'000'000'000ULL;
// Pairs whose footprints are kept; past this the cache starts afresh (flows keep their own).
constexpr std::size_t kFootprintCache = 1 << 20;

}  // namespace

Fabric::Fabric(ComponentId id, const net::NetworkContext& net, const BuildContext& ctx)
    : Component(id),
      net_(net),
      builder_(*net.topology, *net.routing, net.router.pipeline, hop_limit(*net.topology)),
      link_bytes_(net.folding ? net.folding->groups() : net.topology->num_links(), 0),
      link_flows_(link_bytes_.size(), 0),
      view_(net.faults, SimTime::zero()),
      link_dropped_(link_bytes_.size(), 0),
      series_bytes_(net.timeseries_bins * net.topology->link_classes().size(), 0),
      links_(&ctx.stats->table("links")),
      layout_(&ctx.stats->table("layout")),
      timeseries_links_(&ctx.stats->table("timeseries_links")),
      drops_(&ctx.stats->table("drops")),
      timeseries_(&ctx.stats->table("timeseries")),
      faults_(&ctx.stats->table("faults")),
      totals_(&ctx.stats->table("network_totals")) {
  if (const wl::Symmetry* sym = net.workload ? net.workload->symmetry() : nullptr) {
    to_representative_.resize(sym->endpoints());
    for (uint32_t e = 0; e < sym->endpoints(); ++e) {
      to_representative_[e] = sym->inverse(sym->element_of(e));
    }
  }
}

uint64_t Fabric::members() const { return net_.folding ? net_.folding->members() : 1; }

uint32_t Fabric::port_to(uint32_t endpoint) const {
  return net_.folding ? net_.folding->port_of(endpoint) : endpoint;
}

bool Fabric::knows_event(uint16_t kind) const {
  return kind == kFlowStart || kind == kFlowEnd || (kind == kFaultChange && net_.faults != nullptr);
}

void Fabric::setup() {
  if (net_.faults == nullptr) return;
  for (const SimTime at : net_.faults->change_times()) {
    schedule_background(at - now(), kFaultChange, uint8_t{0});
  }
}

// std::runtime_error when the routing gives no path. Under faults, the paths live in the
// current fault state (view_): paths == 0 when there is none.
FootprintRef Fabric::footprint(uint32_t src, uint32_t dst) {
  if (net_.folding) return net_.folding->footprint(src, dst);
  const uint64_t key = uint64_t{src} << 32 | dst;
  if (const uint32_t* known = footprint_of_.find(key)) return footprints_[*known];
  if (footprints_.size() >= kFootprintCache) forget_footprints();
  footprints_.push_back(boost::make_local_shared<const Footprint>(
      builder_.build(src, dst, net_.faults ? &view_ : nullptr)));
  footprint_of_[key] = static_cast<uint32_t>(footprints_.size() - 1);
  return footprints_.back();
}

void Fabric::forget_footprints() {
  footprint_of_.clear();
  footprints_.clear();
}

// Bytes per second of a link of this class: a flit per per_flit.
Rate Fabric::capacity(uint16_t link_class) const {
  return net_.router.flit_bytes * kPsPerSecond /
         static_cast<uint64_t>(net_.per_flit[link_class].count_ps());
}

void Fabric::handle(const Event& e) {
  switch (e.kind) {
    case kFlowStart:
      start(e.payload_as<FlowStart>());
      break;
    case kFlowEnd: {
      if (e.payload_as<uint32_t>() != wake_version_) break;  // replaced by a later wake-up
      wake_at_ = SimTime::infinity();
      end_due();
      break;
    }
    case kFaultChange:
      try {
        on_fault_change();
      } catch (const std::runtime_error& error) {
        // Refused on every rank; a throw from here would stop this rank alone.
        refuse_input(std::string("sim.fidelity = \"flow\": ") + error.what());
      }
      break;
    default:
      throw std::logic_error("fabric: event of unknown kind " + std::to_string(e.kind));
  }
}

void Fabric::start(const FlowStart& s) {
  const uint32_t src = s.src;
  if (s.dst >= net_.topology->num_endpoints()) {
    refuse_input("endpoint " + std::to_string(src) + " sends to endpoint " + std::to_string(s.dst) +
                 ", which has no route from it");
    return;
  }
  uint32_t slot;
  if (free_.empty()) {
    slot = static_cast<uint32_t>(flows_.size());
    flows_.emplace_back();
  } else {
    slot = free_.back();
    free_.pop_back();
  }
  Flow& f = flows_[slot];
  f.live = true;
  f.src = src;
  f.dst = s.dst;
  f.op = s.op;
  f.bytes = s.bytes;
  f.message = s.message;
  f.created = s.created;
  f.path_compute = s.path_compute;
  f.started = now();
  f.updated = now();
  f.left = static_cast<u128>(s.bytes) * kPsPerSecond;
  f.measured = 0;
  f.rate = 0;
  f.end = SimTime::infinity();
  try {
    f.footprint = footprint(src, s.dst);
    if (f.footprint->paths == 0) {  // under faults: no live path, lost at its start
      lose(slot, nullptr);
      return;
    }
  } catch (const std::runtime_error& e) {
    // Refused on every rank; a throw from here would stop this rank alone.
    refuse_input(std::string("sim.fidelity = \"flow\": ") + e.what());
    f.live = false;
    free_.push_back(slot);
    return;
  }
  add_to_solver(slot);
  if (live_++ == 0) hold_run();
  request_end_of_instant();
}

void Fabric::add_to_solver(uint32_t slot) {
  Flow& f = flows_[slot];
  for (std::size_t i = 0; i < f.footprint->uses.size(); ++i) {
    const uint64_t link = f.footprint->uses[i].link;
    if (!solver_.has_link(link)) solver_.set_capacity(link, capacity(f.footprint->link_classes[i]));
  }
  f.solver_id = solver_.add(f.footprint->uses);
  if (slot_of_.size() <= f.solver_id) slot_of_.resize(f.solver_id + 1);
  slot_of_[f.solver_id] = slot;
}

// Moves the flow on to now at its current rate, and the links it loads with it.
void Fabric::advance(Flow& f) {
  const SimTime from = f.updated;
  f.updated = now();
  const auto elapsed = static_cast<u128>((now() - from).count_ps());
  if (f.rate == 0 || elapsed == 0) return;
  if (!series_bytes_.empty()) record_series(f, from, now());
  const u128 sent = static_cast<u128>(f.rate) * f.footprint->paths * elapsed;
  f.left -= std::min(sent, f.left);
  // /links counts the measurement window, as the packet level does; per flow here, and on its
  // links once (count_on_links) rather than at every rate change. Exact: integer sums.
  f.measured += static_cast<u128>(f.rate) * net_.window_overlap(from, now()).count_ps();
}

void Fabric::count_on_links(Flow& f) {
  if (f.measured == 0) return;
  for (const LinkUse& u : f.footprint->uses) link_bytes_[u.link] += f.measured * u.count;
  f.measured = 0;
}

// What the flow's links carried over [from, to) at its rate, cut at the /timeseries bins. A
// folded link group stands for its member links, each carrying what the group does.
void Fabric::record_series(const Flow& f, SimTime from, SimTime to) {
  const std::size_t classes = net_.topology->link_classes().size();
  const Footprint& fp = *f.footprint;
  for (SimTime t = from; t < to;) {
    const uint64_t bin = net_.timeseries_row(t);
    const SimTime bin_end =
        bin + 1 < net_.timeseries_bins
            ? SimTime::ps(net_.traffic.timeseries_bin.count_ps() * static_cast<int64_t>(bin + 1))
            : to;
    const SimTime until = std::min(bin_end, to);
    const auto ps = static_cast<u128>((until - t).count_ps());
    for (std::size_t i = 0; i < fp.uses.size(); ++i) {
      const uint64_t links = net_.folding ? net_.folding->group_size(fp.uses[i].link) : 1;
      series_bytes_[bin * classes + fp.link_classes[i]] +=
          static_cast<u128>(f.rate) * fp.uses[i].count * links * ps;
    }
    t = until;
  }
}

// /timeseries_links from series_bytes_: flits as the packet level cuts bytes, busy time at the
// class's full rate.
void Fabric::write_series() {
  const std::size_t classes = net_.topology->link_classes().size();
  for (std::size_t row = 0; row < series_bytes_.size(); ++row) {
    if (series_bytes_[row] == 0) continue;
    const auto bytes = static_cast<uint64_t>(series_bytes_[row] / kPsPerSecond);
    const uint64_t flits = (bytes + net_.router.flit_bytes - 1) / net_.router.flit_bytes;
    const auto link_class = static_cast<uint16_t>(row % classes);
    timeseries_links_->add_to(row, net::series::kLinkFlits, flits);
    timeseries_links_->add_to(row, net::series::kLinkBusyPs,
                              static_cast<uint64_t>(series_bytes_[row] / capacity(link_class)));
  }
}

// The flow's end at its current rate.
void Fabric::schedule_end(uint32_t slot) {
  Flow& f = flows_[slot];
  const SimTime before = f.end;  // its entry stays right if the end does not move
  f.end = SimTime::infinity();
  const u128 per_ps = static_cast<u128>(f.rate) * f.footprint->paths;
  if (per_ps == 0) {  // it waits for a rate
    ends_.remove(slot);
    return;
  }
  // At least 1 ps: nothing may be scheduled at the current time from end_of_instant (an empty
  // message still takes its ps).
  const u128 ps = std::max<u128>((f.left + per_ps - 1) / per_ps, 1);
  if (ps > static_cast<u128>(std::numeric_limits<int64_t>::max() / 2)) {
    refuse_input("a flow of " + std::to_string(f.bytes) + " bytes from endpoint " +
                 std::to_string(f.src) + " would end beyond the simulated time hxsim can hold");
    ends_.remove(slot);
    return;
  }
  f.end = now() + SimTime::ps(static_cast<int64_t>(ps));
  if (f.end != before) ends_.set(slot, f.end);
}

void Fabric::wake_at_earliest_end() {
  const SimTime earliest = ends_.earliest();
  if (earliest.is_infinite() || earliest == wake_at_) return;
  wake_at_ = earliest;
  schedule_background(wake_at_ - now(), kFlowEnd, ++wake_version_);
}

void Fabric::end_of_instant() {
  for (const MaxMinSolver::FlowId id : solver_.solve()) {
    const uint32_t slot = slot_of_[id];
    Flow& f = flows_[slot];
    advance(f);
    f.rate = solver_.rate(id);
    schedule_end(slot);
  }
  wake_at_earliest_end();
}

// The flows due now end together. Their notices go out in an order that depends on what each
// endpoint sees, not on slots: first the senders' (by sender, destination, message), then the
// receivers' (by receiver, source, message), the peer as seen from the endpoint (frame()), so
// that every image of an endpoint hears of its flows in the same order, folded or not.
void Fabric::end_due() {
  std::vector<Notice>& sent = sent_;
  std::vector<Notice>& arrived = arrived_;
  sent.clear();
  arrived.clear();
  due_.clear();
  ends_.take_due(now(), due_);
  for (const uint32_t slot : due_) {
    Flow& f = flows_[slot];
    f.end = SimTime::infinity();
    advance(f);
    count_on_links(f);
    solver_.remove(f.solver_id);
    if (net_.in_window(f.started)) {
      for (const LinkUse& u : f.footprint->uses) link_flows_[u.link] += u.count;
    }
    const PairKeys& keys = pair_keys(f.src, f.dst);
    sent.push_back({f.src, f.dst, f.message, slot, keys.sender_key});
    arrived.push_back({keys.receiver, keys.source_seen, f.message, slot, keys.receiver_key});
  }
  std::sort(sent.begin(), sent.end());
  std::sort(arrived.begin(), arrived.end());
  // The sender hears when the last byte has left; the receiver when it has crossed the path.
  for (const Notice& n : sent) {
    send(port_to(n.to), kSendDone, SendDone{flows_[n.slot].bytes, flows_[n.slot].op});
  }
  for (const Notice& n : arrived) {
    const Flow& f = flows_[n.slot];
    const SimTime extra = std::max(SimTime::zero(), f.footprint->latency - kPortLatency);
    const float hops = f.footprint->paths > 0 ? static_cast<float>(f.footprint->hops) /
                                                    static_cast<float>(f.footprint->paths)
                                              : 0.0f;
    send(port_to(n.to), kFlowArrived,
         FlowArrived{f.message, f.bytes, f.created, f.started, now(), f.path_compute, n.peer, hops},
         extra);
  }
  for (const Notice& n : sent) {
    Flow& f = flows_[n.slot];
    f.live = false;
    f.footprint.reset();
    free_.push_back(n.slot);
    flows_done_ += members();
    if (--live_ == 0) release_run();
  }
  request_end_of_instant();
}

// A link failed or came back: every flow goes on over the paths live now, with the bytes it has
// left; one with none is lost. A flow whose load is unchanged keeps its rate until the solve
// (others may change it), so a change far from most flows recomputes few. A flow due now has
// sent its last byte: it ends in this instant, whichever of its end and the change comes first.
void Fabric::on_fault_change() {
  view_.at = now();
  forget_footprints();
  const auto same_load = [](const Footprint& a, const Footprint& b) {
    return a.paths == b.paths && std::equal(a.uses.begin(), a.uses.end(), b.uses.begin(),
                                            b.uses.end(), [](const LinkUse& x, const LinkUse& y) {
                                              return x.link == y.link && x.count == y.count;
                                            });
  };
  for (uint32_t slot = 0; slot < flows_.size(); ++slot) {
    Flow& f = flows_[slot];
    if (!f.live || f.end <= now()) continue;
    FootprintRef next = footprint(f.src, f.dst);
    if (same_load(*next, *f.footprint)) {
      f.footprint = std::move(next);  // its latency and hops may differ
      continue;
    }
    advance(f);
    count_on_links(f);
    solver_.remove(f.solver_id);
    f.end = SimTime::infinity();
    ends_.remove(slot);
    if (next->paths == 0) {
      lose(slot, f.footprint.get());
      if (--live_ == 0) release_run();
      continue;
    }
    f.footprint = std::move(next);
    add_to_solver(slot);
  }
  request_end_of_instant();
}

// Flow `slot` has no live path, `old` its footprint until now (nullptr at its start). As at
// packet level its message never completes: sender and receiver are not told. The packets of
// the bytes it has left (cut as FlowEndpoint::packets cuts them) are dropped on the link
// lost_on() names, filed under that link's sender as a packet-level drop would be.
void Fabric::lose(uint32_t slot, const Footprint* old) {
  Flow& f = flows_[slot];
  const uint64_t link = lost_on(old, f.src, f.dst);
  const auto bytes = static_cast<uint64_t>((f.left + kPsPerSecond - 1) / kPsPerSecond);
  const uint64_t flits = (bytes + net_.router.flit_bytes - 1) / net_.router.flit_bytes;
  const uint64_t packets = (flits + net_.traffic.packet_flits - 1) / net_.traffic.packet_flits;
  const uint32_t action = net_.faults->cause(link, view_.at);
  const ComponentId owner = sender(link);
  drops_->add_owned_row(owner, drops_seen_[owner]++,
                        {now().count_ps(), link, uint64_t{f.src}, uint64_t{f.dst}, f.message, flits,
                         uint64_t{action}});
  totals_->add_to(0, net::totals::kPacketsDropped, packets);
  if (net_.timeseries_bins > 0) timeseries_->add_to(net_.timeseries_row(now()), 2, packets);
  if (action < net_.faults->actions().size()) faults_->add_to(action, 3, packets);
  link_dropped_[link] += packets;
  f.live = false;
  f.footprint.reset();
  free_.push_back(slot);
}

// The link a lost flow is counted on: of the links of `old` that are down now, the one most of
// its paths crossed (the lowest id of those), else the same of its fault-free footprint in the
// configurations live now (at its start it had no paths, after a repair the routing can take a
// way that dead-ends elsewhere, and a reconfiguration can move it onto circuits still switching).
// That footprint always has one down: if every link of it is up, the exploration over live links
// meets the same candidates at every state and finds its paths.
// Most paths, not the first: a failed destination's last link carries them all, while a link
// down since earlier may carry only some.
uint64_t Fabric::lost_on(const Footprint* old, uint32_t src, uint32_t dst) const {
  constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
  const auto most_used_down = [this](const Footprint& f) {
    uint64_t link = kNone;
    uint32_t count = 0;
    for (const LinkUse& u : f.uses) {
      if (u.count > count && !view_.link_up(u.link)) link = u.link, count = u.count;
    }
    return link;
  };
  if (old != nullptr) {
    if (const uint64_t link = most_used_down(*old); link != kNone) return link;
  }
  // The routing's view now, with every link up.
  struct LiveConfigurations final : net::RouterView {
    explicit LiveConfigurations(const net::LinksAt& v) : view(v) {}
    uint32_t load(PortId) const override { return 0; }
    uint32_t configuration(uint32_t element, uint32_t instance) const override {
      return view.configuration(element, instance);
    }
    const net::LinksAt& view;
  } live(view_);
  const uint64_t link =
      most_used_down(flow_footprint(*net_.topology, *net_.routing, src, dst, net_.router.pipeline,
                                    hop_limit(*net_.topology), &live));
  if (link == kNone) {
    throw std::logic_error("fabric: the flow from endpoint " + std::to_string(src) + " to " +
                           std::to_string(dst) + " is lost with every link of its paths up");
  }
  return link;
}

// The component the link leaves (first_link is ascending in the component id).
ComponentId Fabric::sender(uint64_t link) const {
  const net::Topology& t = *net_.topology;
  ComponentId lo = 0, hi = t.num_components();
  while (hi - lo > 1) {
    const ComponentId mid = lo + (hi - lo) / 2;
    (t.first_link(mid) <= link ? lo : hi) = mid;
  }
  return lo;
}

// Endpoint `peer` as `endpoint` sees it: mapped by the workload's symmetry to where it is
// from the representative of `endpoint`'s orbit, so every image of an endpoint orders its
// peers alike; the peer itself when the workload has none.
uint32_t Fabric::frame(uint32_t endpoint, uint32_t peer) const {
  const wl::Symmetry* sym = net_.workload ? net_.workload->symmetry() : nullptr;
  if (sym == nullptr || endpoint >= sym->endpoints() || peer >= sym->endpoints()) return peer;
  return sym->apply(to_representative_[endpoint], peer);
}

const Fabric::PairKeys& Fabric::pair_keys(uint32_t src, uint32_t dst) {
  PairKeys& keys = pair_keys_[uint64_t{src} << 32 | dst];
  if (keys.receiver == PairKeys::kUnset) {
    keys = {receiver(dst), source_seen(src, dst), frame(src, dst), frame(dst, src)};
  }
  return keys;
}

// Folded, a flow to dst stands for one to every image of dst; the one that reaches the
// simulated endpoint of dst's orbit comes from the matching image of the source.
uint32_t Fabric::receiver(uint32_t dst) const {
  return net_.folding ? net_.folding->symmetry().representative(dst) : dst;
}
uint32_t Fabric::source_seen(uint32_t src, uint32_t dst) const {
  if (!net_.folding) return src;
  const wl::Symmetry& sym = net_.folding->symmetry();
  return sym.apply(sym.inverse(sym.element_of(dst)), src);
}

void Fabric::finish() {
  for (Flow& f : flows_) {
    if (!f.live) continue;
    advance(f);
    count_on_links(f);
  }
  write_series();
  const double window = net_.window_length(now());
  const net::Topology& t = *net_.topology;
  std::vector<PortSpec> ports;
  for (ComponentId c = 0; c < t.num_components(); ++c) {
    add_layout_row(*layout_, t, c);
    ports.clear();
    t.ports(c, ports);
    for (PortId p = 0; p < ports.size(); ++p) {
      // Folded, a link carries what every link of its group does.
      uint64_t link = t.first_link(c) + p;
      if (net_.folding) {
        const uint32_t group = net_.folding->group_of(link);
        if (group == Folding::kNone) {
          links_->add_row(
              t.first_link(c) + p,
              {uint64_t{c}, uint64_t{p}, uint64_t{ports[p].peer}, uint64_t{ports[p].peer_port},
               uint64_t{ports[p].link_class}, uint64_t{0}, uint64_t{0}, uint64_t{0}, int64_t{0},
               0.0, int64_t{0}, uint64_t{0}, int64_t{0}});
          continue;
        }
        link = group;
      }
      const auto bytes = static_cast<uint64_t>(link_bytes_[link] / kPsPerSecond);
      const uint64_t flits = (bytes + net_.router.flit_bytes - 1) / net_.router.flit_bytes;
      // Busy: the time the link would take to carry its bytes at full rate.
      const auto busy = static_cast<int64_t>(link_bytes_[link] / capacity(ports[p].link_class));
      const int64_t down =
          net_.faults ? net_.faults->down_time(link, SimTime::zero(), now()).count_ps() : 0;
      links_->add_row(
          t.first_link(c) + p,
          {uint64_t{c}, uint64_t{p}, uint64_t{ports[p].peer}, uint64_t{ports[p].peer_port},
           uint64_t{ports[p].link_class}, link_flows_[link], flits, bytes, busy,
           window > 0 ? static_cast<double>(busy) / window : 0.0, int64_t{0}, link_dropped_[link],
           down});
    }
  }
  // The routers and endpoints offer the /faults rows at packet level; here the fabric does.
  if (net_.faults == nullptr) return;
  for (uint32_t a = 0; a < net_.faults->actions().size(); ++a) {
    const net::FaultAction& f = net_.faults->actions()[a];
    faults_->offer(a, {f.at.count_ps(), uint64_t{f.fail ? 1u : 0u}, f.links, uint64_t{0},
                       f.settled.count_ps()});
  }
}

// A restart may end at another time than the run that wrote the checkpoint
// (docs/OPERATIONS.md), so its time series may have other rows. What the flows carried up to
// the checkpoint lies in the rows both have, except that the last row takes all beyond its start,
// as in record_series: rows past this run's last are added to it, and a last row of the
// checkpoint's that holds anything cannot be split over this run's later rows.
void Fabric::serialize_series(StateArchive& ar) {
  uint64_t stored = series_bytes_.size();
  ar& stored;
  if (!ar.loading() || stored == series_bytes_.size()) {
    ar.bytes(series_bytes_.data(), series_bytes_.size() * sizeof(u128));
    return;
  }
  const std::size_t classes = net_.topology->link_classes().size();
  if (stored % classes != 0 || series_bytes_.empty() != (stored == 0)) {
    throw InputError("fabric: the checkpoint's time series has " + std::to_string(stored) +
                     " rows of link classes, not whole bins of this network's " +
                     std::to_string(classes) + " classes");
  }
  std::vector<u128> rows(stored);
  ar.bytes(rows.data(), rows.size() * sizeof(u128));
  if (stored < series_bytes_.size() &&
      std::any_of(rows.end() - static_cast<std::ptrdiff_t>(classes), rows.end(),
                  [](u128 b) { return b != 0; })) {
    throw InputError(
        "fabric: the checkpoint's time series holds traffic past the start of its "
        "last bin, which a restart with a later end cannot place in its own bins; "
        "restart it with an end time no later than its run's");
  }
  const std::size_t last = series_bytes_.size() - classes;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    series_bytes_[std::min(i, last + i % classes)] += rows[i];
  }
}

void Fabric::serialize(StateArchive& ar) {
  // The checkpoint holds no flow's uncounted bytes: counting them now changes no sum.
  if (!ar.loading()) {
    for (Flow& f : flows_) {
      if (f.live) count_on_links(f);
    }
  }
  uint64_t count = flows_.size();
  ar& count;
  if (ar.loading()) flows_.assign(count, Flow{});
  for (Flow& f : flows_) {
    ar& f.live& f.src& f.dst& f.op& f.bytes& f.message& f.created& f.path_compute& f.started& f
        .updated& f.rate& f.end;
    uint64_t high = static_cast<uint64_t>(f.left >> 64), low = static_cast<uint64_t>(f.left);
    ar& high& low;
    f.left = static_cast<u128>(high) << 64 | low;
  }
  ar& free_& flows_done_& link_flows_& wake_version_& wake_at_& link_dropped_& drops_seen_& view_
      .at;
  if (link_flows_.size() != link_bytes_.size() || link_dropped_.size() != link_bytes_.size()) {
    throw InputError("fabric: the checkpoint's record is of a network with " +
                     std::to_string(link_flows_.size()) + " links, this one has " +
                     std::to_string(link_bytes_.size()));
  }
  ar.bytes(link_bytes_.data(), link_bytes_.size() * sizeof(u128));
  serialize_series(ar);
  if (!ar.loading()) return;
  // The solver is rebuilt from the flows: its rates depend only on the flows present. Their
  // footprints are those of the fault state they were computed in (view_.at).
  ends_ = EndQueue{};
  for (uint32_t slot = 0; slot < flows_.size(); ++slot) {
    Flow& f = flows_[slot];
    if (!f.live) continue;
    f.footprint = footprint(f.src, f.dst);
    add_to_solver(slot);
    if (!f.end.is_infinite()) ends_.set(slot, f.end);
    ++live_;
  }
  solver_.solve();
  if (live_ > 0) hold_run();
}

}  // namespace hx::flow
