// Path counting over a routing's state graph (footprint.h).
#include "models/flow/footprint.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "models/network/faults.h"
#include "models/network/route_state.h"

namespace hx::flow {
namespace {

constexpr uint32_t kDelivered = std::numeric_limits<uint32_t>::max();

std::string where(uint32_t src, uint32_t dst) {
  return "flow from endpoint " + std::to_string(src) + " to " + std::to_string(dst);
}

// The routing's candidates reduced to one per output port (its first, which names the VC),
// detours only where nothing else is offered.
void ports_offered(const net::Candidates& candidates, std::vector<net::Candidate>& out) {
  const bool direct = std::any_of(candidates.begin(), candidates.end(),
                                  [](const net::Candidate& c) { return c.penalty == 0; });
  out.clear();
  for (const net::Candidate& c : candidates) {
    if (direct && c.penalty > 0) continue;
    const bool seen = std::any_of(out.begin(), out.end(),
                                  [&c](const net::Candidate& o) { return o.port == c.port; });
    if (!seen) out.push_back(c);
  }
}

}  // namespace

void FootprintBuilder::fail(uint32_t src, uint32_t dst, const std::string& what) const {
  throw std::runtime_error(where(src, dst) + ": " + what);
}

// The graph of every state a packet from src to dst can reach (with a view: over the links it
// says are up), in nodes_ and edges_; roots_ are its injections.
void FootprintBuilder::explore(uint32_t src, uint32_t dst, const net::RouterView* view) {
  roots_.clear();
  nodes_.clear();
  edges_.clear();
  pending_.clear();
  if (++stamp_ == 0) {  // the stamps wrapped: empty the index for real
    std::fill(stamps_.begin(), stamps_.end(), 0u);
    stamp_ = 1;
  }
  const auto up = [view](uint64_t link) { return view == nullptr || view->link_up(link); };
  const net::LinksAt no_faults{nullptr, SimTime::zero()};
  const ComponentId src_id = topology_.endpoint_component(src);
  src_ports_.clear();
  topology_.ports(src_id, src_ports_);
  for (PortId p = 0; p < src_ports_.size(); ++p) {
    if (!up(topology_.first_link(src_id) + p)) continue;
    net::Packet packet;
    packet.src = src;
    packet.dst = dst;
    packet.flits = 1;
    const uint32_t router = topology_.node(src_ports_[p].peer).index;
    starts_.clear();
    routing_.start_states(router, view != nullptr ? view : &no_faults, packet, starts_);
    for (const net::Packet& s : starts_) {
      roots_.push_back({topology_.first_link(src_id) + p, src_ports_[p].latency,
                        src_ports_[p].link_class, node_of(router, src_ports_[p].peer_port, s)});
    }
  }
  while (!pending_.empty()) {
    const uint32_t i = pending_.back();
    pending_.pop_back();
    net::Packet packet = nodes_[i].packet;
    const uint32_t router = nodes_[i].router;
    const PortId in_port = nodes_[i].in_port;
    candidates_.clear();
    routing_.route(router, in_port, packet, candidates_);
    if (candidates_.empty()) fail(src, dst, "no route at router " + std::to_string(router));
    const ComponentId here = topology_.router_component(router);
    if (view != nullptr && !keep_live(here, *view)) {
      // As a router does (Router::route): the routing's fallback, from this state on.
      routing_.route_around(router, in_port, packet, *view, candidates_);
      if (!keep_live(here, *view)) continue;  // a dead end
    }
    nodes_[i].first_edge = static_cast<uint32_t>(edges_.size());
    ports_offered(candidates_, offered_);
    for (const net::Candidate& c : offered_) {
      const PortSpec out = topology_.port(here, c.port);
      const uint64_t link = topology_.first_link(here) + c.port;
      const net::Node next = topology_.node(out.peer);
      uint32_t to = kDelivered;
      if (next.kind == net::NodeKind::kEndpoint) {
        if (next.index != dst) {
          fail(src, dst,
               "router " + std::to_string(router) + " delivers to endpoint " +
                   std::to_string(next.index));
        }
      } else {
        if (packet.hops >= max_hops_) {
          fail(src, dst, "more than " + std::to_string(max_hops_) + " router-to-router hops");
        }
        net::Packet on = packet;
        on.vc = c.vc;
        ++on.hops;
        to = node_of(next.index, out.peer_port, on);  // may move nodes_: index it again
      }
      edges_.push_back({to, link, out.latency, out.link_class});
      ++nodes_[i].edges;
    }
  }
}

// Removes the candidates on failed links of router component `here`; false if none is left.
bool FootprintBuilder::keep_live(ComponentId here, const net::RouterView& view) {
  live_.clear();
  const uint64_t first = topology_.first_link(here);
  for (const net::Candidate& c : candidates_) {
    if (view.link_up(first + c.port)) live_.add(c.port, c.vc, c.escape, c.penalty);
  }
  candidates_ = live_;
  return !candidates_.empty();
}

uint32_t FootprintBuilder::node_of(uint32_t router, PortId in_port, const net::Packet& packet) {
  if (2 * (nodes_.size() + 1) > slots_.size()) grow_index();
  const net::RouteStateKey key(router, in_port, packet);
  const std::size_t mask = slots_.size() - 1;
  const std::size_t home = net::RouteStateKeyHash{}(key);
  for (std::size_t s = home & mask;; s = (s + 1) & mask) {
    if (stamps_[s] != stamp_) {
      stamps_[s] = stamp_;
      slots_[s] = static_cast<uint32_t>(nodes_.size());
      nodes_.push_back({router, in_port, packet, 0, 0, false, SimTime::zero()});
      pending_.push_back(slots_[s]);
      return slots_[s];
    }
    const Node& n = nodes_[slots_[s]];
    if (net::RouteStateKey(n.router, n.in_port, n.packet) == key) return slots_[s];
  }
}

// Doubles the index and places this build's nodes again.
void FootprintBuilder::grow_index() {
  const std::size_t size = slots_.empty() ? 64 : 2 * slots_.size();
  slots_.assign(size, 0);
  stamps_.assign(size, 0);
  stamp_ = 1;
  const std::size_t mask = size - 1;
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    std::size_t s = net::RouteStateKeyHash{}(net::RouteStateKey(n.router, n.in_port, n.packet));
    for (s &= mask; stamps_[s] == stamp_; s = (s + 1) & mask) {
    }
    stamps_[s] = stamp_;
    slots_[s] = i;
  }
}

Footprint FootprintBuilder::build(uint32_t src, uint32_t dst, const net::RouterView* view) {
  explore(src, dst, view);
  return count_paths();
}

Footprint FootprintBuilder::count_paths() {
  // Every edge raises the hop count or delivers, so hop order is a topological order.
  order_.resize(nodes_.size());
  std::iota(order_.begin(), order_.end(), 0u);
  std::stable_sort(order_.begin(), order_.end(), [this](uint32_t a, uint32_t b) {
    return nodes_[a].packet.hops < nodes_[b].packet.hops;
  });
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    Node& n = nodes_[*it];
    for (const Edge& e : edges_of(n)) {
      const bool last = e.to == kDelivered;
      if (!last && !nodes_[e.to].reaches) continue;  // a dead end (faults): no path, no latency
      n.reaches = true;
      n.slowest = std::max(n.slowest, e.latency + (last ? SimTime::zero() : nodes_[e.to].slowest));
    }
    n.slowest += router_delay_;
  }
  Footprint f;
  for (const Root& r : roots_) {
    const Node& n = nodes_[r.node];
    if (n.reaches) f.latency = std::max(f.latency, r.latency + n.slowest);
  }
  if (!count(exact_, f)) count(wide_, f);
  return f;
}

std::span<const FootprintBuilder::Edge> FootprintBuilder::edges_of(const Node& n) const {
  return {edges_.data() + n.first_edge, n.edges};
}

namespace {

// a += b, or false when the sum does not fit (never for long double).
template <class Count>
bool add(Count& a, Count b) {
  if constexpr (!std::is_floating_point_v<Count>) {
    return !__builtin_add_overflow(a, b, &a);
  } else {
    a += b;
    return true;
  }
}
template <class Count>
bool multiply(Count a, Count b, Count& product) {
  if constexpr (!std::is_floating_point_v<Count>) {
    return !__builtin_mul_overflow(a, b, &product);
  } else {
    product = a * b;
    return true;
  }
}

}  // namespace

// Counts the paths and each link's crossings into f (paths, hops, uses, link_classes): false,
// with f's counts untouched, when a count does not fit Count.
template <class Count>
bool FootprintBuilder::count(Counts<Count>& c, Footprint& f) {
  c.to_dst.assign(nodes_.size(), Count{0});
  c.from_src.assign(nodes_.size(), Count{0});
  c.crossings.clear();
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    for (const Edge& e : edges_of(nodes_[*it])) {
      const bool last = e.to == kDelivered;
      if (!add(c.to_dst[*it], last ? Count{1} : c.to_dst[e.to])) return false;
    }
  }
  Count paths = 0;
  Count hops = 0;
  for (const Root& r : roots_) {
    if (!nodes_[r.node].reaches) continue;
    c.from_src[r.node] += 1;  // at most the roots: the paths below bound it
    c.crossings.push_back({r.link, c.to_dst[r.node], r.link_class});
    if (!add(paths, c.to_dst[r.node])) return false;
  }
  for (const uint32_t i : order_) {
    for (const Edge& e : edges_of(nodes_[i])) {
      const bool last = e.to == kDelivered;
      Count through;
      if (!multiply(c.from_src[i], last ? Count{1} : c.to_dst[e.to], through)) return false;
      c.crossings.push_back({e.link, through, e.link_class});
      if (!last && (!add(c.from_src[e.to], c.from_src[i]) || !add(hops, through))) return false;
    }
  }
  // Each link's crossings summed (a path may cross a link twice), by ascending link id.
  std::sort(c.crossings.begin(), c.crossings.end(),
            [](const Crossing<Count>& a, const Crossing<Count>& b) { return a.link < b.link; });
  std::size_t links = 0;
  for (std::size_t i = 0; i < c.crossings.size(); ++i) {
    if (links > 0 && c.crossings[i].link == c.crossings[links - 1].link) {
      if (!add(c.crossings[links - 1].paths, c.crossings[i].paths)) return false;
    } else {
      c.crossings[links++] = c.crossings[i];
    }
  }
  c.crossings.resize(links);
  // A count as it goes into the footprint: exact, or its share of kScaledPaths, rounded to the
  // nearest, when one does not fit the solver's counts.
  Count busiest = 0;  // the largest link count
  for (const Crossing<Count>& x : c.crossings) busiest = std::max(busiest, x.paths);
  const bool scaled = std::max(paths, busiest) > Count{kMaxPaths};
  Count product;
  if (scaled && !multiply(std::max({paths, hops, busiest}), Count{kScaledPaths}, product)) {
    return false;
  }
  const auto counted = [&](Count n) -> uint64_t {
    if (!scaled) return static_cast<uint64_t>(n);
    if constexpr (std::is_floating_point_v<Count>) {
      return static_cast<uint64_t>(std::floor(n / paths * Count{kScaledPaths} + Count{0.5}));
    } else {
      return static_cast<uint64_t>((n * kScaledPaths + paths / 2) / paths);
    }
  };
  f.paths = static_cast<uint32_t>(counted(paths));
  f.hops = counted(hops);
  f.uses.reserve(links);
  f.link_classes.reserve(links);
  for (const Crossing<Count>& x : c.crossings) {
    const auto n = static_cast<uint32_t>(counted(x.paths));
    if (n == 0) continue;
    f.uses.push_back({x.link, n});
    f.link_classes.push_back(x.link_class);
  }
  return true;
}

}  // namespace hx::flow
