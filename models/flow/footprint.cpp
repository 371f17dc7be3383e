// Path counting over a routing's state graph (footprint.h).
#include "models/flow/footprint.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "models/network/faults.h"
#include "models/network/route_state.h"

namespace hx::flow {
namespace {

using net::Candidate;
using net::Candidates;
using net::Packet;
using net::RouteStateKey;
using net::RouteStateKeyHash;

constexpr uint32_t kDelivered = std::numeric_limits<uint32_t>::max();

struct Edge {
  uint32_t to;  // node, or kDelivered
  uint64_t link;
  SimTime latency;
  uint16_t link_class;
};

// A packet state at a router.
struct Node {
  uint32_t router;
  PortId in_port;
  Packet packet;
  std::vector<Edge> out;
  uint64_t to_dst = 0;    // paths from here to the destination
  uint64_t from_src = 0;  // paths from the source to here
  SimTime slowest;        // latency of the slowest way on, this router included
};

struct Root {
  uint64_t link;  // the injection link
  SimTime latency;
  uint16_t link_class;
  uint32_t node;
};

std::string where(uint32_t src, uint32_t dst) {
  return "flow from endpoint " + std::to_string(src) + " to " + std::to_string(dst);
}

// The routing's candidates reduced to one per output port (its first, which names the VC),
// detours only where nothing else is offered.
std::vector<Candidate> ports_offered(const Candidates& candidates) {
  const bool direct = std::any_of(candidates.begin(), candidates.end(),
                                  [](const Candidate& c) { return c.penalty == 0; });
  std::vector<Candidate> out;
  for (const Candidate& c : candidates) {
    if (direct && c.penalty > 0) continue;
    const bool seen = std::any_of(out.begin(), out.end(),
                                  [&c](const Candidate& o) { return o.port == c.port; });
    if (!seen) out.push_back(c);
  }
  return out;
}

// Builds the graph of every state a packet from src to dst can reach (with a view: over the
// links it says are up).
class StateGraph {
 public:
  StateGraph(const net::Topology& t, const net::Routing& r, uint32_t src, uint32_t dst,
             uint32_t max, const net::RouterView* view)
      : topology_(t), routing_(r), src_(src), dst_(dst), max_hops_(max), view_(view) {}

  void build(std::vector<Root>& roots, std::vector<Node>& nodes) {
    std::vector<PortSpec> src_ports;
    const ComponentId src_id = topology_.endpoint_component(src_);
    topology_.ports(src_id, src_ports);
    std::vector<Packet> starts;
    for (PortId p = 0; p < src_ports.size(); ++p) {
      if (!up(topology_.first_link(src_id) + p)) continue;
      Packet packet;
      packet.src = src_;
      packet.dst = dst_;
      packet.flits = 1;
      const Node first = {topology_.node(src_ports[p].peer).index, src_ports[p].peer_port,
                          packet, {}, 0, 0, SimTime::zero()};
      starts.clear();
      routing_.start_states(first.router, view_ != nullptr ? view_ : &no_faults_, packet, starts);
      for (const Packet& s : starts) {
        roots.push_back({topology_.first_link(src_id) + p, src_ports[p].latency,
                         src_ports[p].link_class, node_of(first.router, first.in_port, s, nodes)});
      }
    }
    Candidates candidates;
    while (!pending_.empty()) {
      const uint32_t i = pending_.back();
      pending_.pop_back();
      Packet packet = nodes[i].packet;
      const uint32_t router = nodes[i].router;
      candidates.clear();
      routing_.route(router, nodes[i].in_port, packet, candidates);
      if (candidates.empty()) fail("no route at router " + std::to_string(router));
      const ComponentId here = topology_.router_component(router);
      if (view_ != nullptr && !keep_live(here, candidates)) {
        // As a router does (Router::route): the routing's fallback, from this state on.
        routing_.route_around(router, nodes[i].in_port, packet, *view_, candidates);
        if (!keep_live(here, candidates)) continue;  // a dead end
      }
      for (const Candidate& c : ports_offered(candidates)) {
        const PortSpec out = topology_.port(here, c.port);
        const Edge edge{kDelivered, topology_.first_link(here) + c.port, out.latency,
                        out.link_class};
        const net::Node next = topology_.node(out.peer);
        if (next.kind == net::NodeKind::kEndpoint) {
          if (next.index != dst_) {
            fail("router " + std::to_string(router) + " delivers to endpoint " +
                 std::to_string(next.index));
          }
          nodes[i].out.push_back(edge);
          continue;
        }
        if (packet.hops >= max_hops_) {
          fail("more than " + std::to_string(max_hops_) + " router-to-router hops");
        }
        Packet on = packet;
        on.vc = c.vc;
        ++on.hops;
        const uint32_t to = node_of(next.index, out.peer_port, on, nodes);
        nodes[i].out.push_back({to, edge.link, edge.latency, edge.link_class});
      }
    }
  }

 private:
  bool up(uint64_t link) const { return view_ == nullptr || view_->link_up(link); }
  // Removes the candidates on failed links of router component `here`; false if none is left.
  bool keep_live(ComponentId here, Candidates& candidates) const {
    const Candidates all = candidates;
    candidates.clear();
    const uint64_t first = topology_.first_link(here);
    for (const Candidate& c : all) {
      if (up(first + c.port)) candidates.add(c.port, c.vc, c.escape, c.penalty);
    }
    return !candidates.empty();
  }
  uint32_t node_of(uint32_t router, PortId in_port, const Packet& packet,
                   std::vector<Node>& nodes) {
    const auto [it, added] = index_.try_emplace(RouteStateKey(router, in_port, packet),
                                                static_cast<uint32_t>(nodes.size()));
    if (added) {
      nodes.push_back({router, in_port, packet, {}, 0, 0, SimTime::zero()});
      pending_.push_back(it->second);
    }
    return it->second;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(where(src_, dst_) + ": " + what);
  }

  const net::Topology& topology_;
  const net::Routing& routing_;
  uint32_t src_, dst_, max_hops_;
  const net::RouterView* view_;  // nullptr: every link up
  const net::LinksAt no_faults_{nullptr, SimTime::zero()};
  std::unordered_map<RouteStateKey, uint32_t, RouteStateKeyHash> index_;
  std::vector<uint32_t> pending_;
};

}  // namespace

Footprint flow_footprint(const net::Topology& topology, const net::Routing& routing, uint32_t src,
                         uint32_t dst, SimTime router_delay, uint32_t max_hops,
                         const net::RouterView* view) {
  std::vector<Root> roots;
  std::vector<Node> nodes;
  StateGraph(topology, routing, src, dst, max_hops, view).build(roots, nodes);

  // Every edge raises the hop count or delivers, so hop order is a topological order.
  std::vector<uint32_t> order(nodes.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&nodes](uint32_t a, uint32_t b) {
    return nodes[a].packet.hops < nodes[b].packet.hops;
  });
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node& n = nodes[*it];
    for (const Edge& e : n.out) {
      const bool last = e.to == kDelivered;
      if (!last && nodes[e.to].to_dst == 0) continue;  // a dead end (faults): no path, no latency
      n.to_dst += last ? 1 : nodes[e.to].to_dst;
      n.slowest = std::max(n.slowest, e.latency + (last ? SimTime::zero() : nodes[e.to].slowest));
    }
    n.slowest += router_delay;
  }
  struct Crossings {
    uint64_t paths = 0;
    uint16_t link_class = 0;
  };
  std::map<uint64_t, Crossings> count;  // by link id
  Footprint f;
  uint64_t paths = 0;
  for (const Root& r : roots) {
    if (nodes[r.node].to_dst == 0) continue;
    nodes[r.node].from_src += 1;
    count[r.link].paths += nodes[r.node].to_dst;
    count[r.link].link_class = r.link_class;
    paths += nodes[r.node].to_dst;
    f.latency = std::max(f.latency, r.latency + nodes[r.node].slowest);
  }
  for (const uint32_t i : order) {
    const Node& n = nodes[i];
    for (const Edge& e : n.out) {
      const bool last = e.to == kDelivered;
      const uint64_t through = n.from_src * (last ? 1 : nodes[e.to].to_dst);
      count[e.link].paths += through;
      count[e.link].link_class = e.link_class;
      if (!last) {
        nodes[e.to].from_src += n.from_src;
        f.hops += through;
      }
    }
  }
  if (paths > std::numeric_limits<uint32_t>::max()) {
    throw std::runtime_error(where(src, dst) + ": more than 2^32 paths");
  }
  f.paths = static_cast<uint32_t>(paths);
  for (const auto& [link, c] : count) {
    if (c.paths == 0) continue;
    if (c.paths > std::numeric_limits<uint32_t>::max()) {
      throw std::runtime_error(where(src, dst) + ": more than 2^32 paths over link " +
                               std::to_string(link));
    }
    f.uses.push_back({link, static_cast<uint32_t>(c.paths)});
    f.link_classes.push_back(c.link_class);
  }
  return f;
}

}  // namespace hx::flow
