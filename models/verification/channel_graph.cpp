// The channel dependency graph: the path exploration of explore_routes(), reorganised for all
// N^2 endpoint pairs (cached port tables, a state set cleared in O(1), dependencies as bits, no
// per-pair allocation), then an iterative depth-first search for a cycle over dense indices.
#include "models/verification/channel_graph.h"

#include <algorithm>
#include <bit>
#include <deque>
#include <functional>
#include <limits>
#include <stdexcept>
#include <utility>

#include "core/rng.h"

namespace hx::net {
namespace {

// An open-addressing set of 128-bit keys. clear() is O(1): a slot counts only if it carries the
// current generation, so the per-pair state set costs nothing to reset a million times.
class KeySet {
 public:
  /// Inserts (a, b, c); false if it was already there.
  bool insert(uint64_t a, uint64_t b, uint32_t c) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    return place(a, b, c);
  }
  void clear() {
    size_ = 0;
    if (++generation_ == 0) {  // wrapped: stale stamps would look current
      for (Slot& s : slots_) s.generation = 0;
      generation_ = 1;
    }
  }

 private:
  struct Slot {
    uint64_t a = 0, b = 0;
    uint32_t c = 0;           // in what would be padding
    uint32_t generation = 0;  // 0: never used
  };

  bool place(uint64_t a, uint64_t b, uint32_t c) {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = mix64((a * 0x9E3779B97F4A7C15ULL ^ b) + c) & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.generation != generation_) {
        s = Slot{a, b, c, generation_};
        ++size_;
        return true;
      }
      if (s.a == a && s.b == b && s.c == c) return false;
    }
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    const uint32_t old_generation = generation_;
    slots_.assign(std::max<std::size_t>(64, old.size() * 2), Slot{});
    size_ = 0;
    generation_ = 1;
    for (const Slot& s : old) {
      if (s.generation == old_generation) place(s.a, s.b, s.c);
    }
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  uint32_t generation_ = 1;
};

// One router port as the exploration needs it, so the inner loop makes no virtual calls to the
// topology and builds no port vectors.
struct PortInfo {
  uint64_t out_link = 0;  // the directed link leaving this port
  uint64_t in_link = 0;   // the directed link arriving at it (leaving the peer's port)
  uint32_t peer_index = 0;
  bool peer_is_endpoint = false;
  PortId peer_port = 0;
};

struct State {
  uint32_t router;
  PortId in_port;
  Packet packet;
};

[[noreturn]] void broken(uint32_t src, uint32_t dst, uint32_t router, const std::string& what) {
  throw BrokenRouting("routing from endpoint " + std::to_string(src) + " to " +
                          std::to_string(dst) + " at router " + std::to_string(router) + ": " +
                          what,
                      src, dst);
}

}  // namespace

// explore_routes() for many pairs: same start states, same memo key (everything route() may
// read or change), same checks and messages; the buffers live as long as the explorer.
class ChannelExplorer {
 public:
  ChannelExplorer(const Topology& topology, const Routing& routing, uint8_t vcs)
      : topology_(topology),
        routing_(routing),
        vcs_(vcs),
        max_hops_(channel_graph_max_hops(topology)) {
    std::vector<PortSpec> specs;
    const uint32_t routers = topology.num_routers();
    first_port_.reserve(routers + 1);
    for (uint32_t r = 0; r < routers; ++r) {
      first_port_.push_back(ports_.size());
      const ComponentId id = topology.router_component(r);
      specs.clear();
      topology.ports(id, specs);
      const uint64_t first = topology.first_link(id);
      for (PortId p = 0; p < specs.size(); ++p) {
        const Node peer = topology.node(specs[p].peer);
        ports_.push_back(
            PortInfo{first + p, topology.first_link(specs[p].peer) + specs[p].peer_port, peer.index,
                     peer.kind == NodeKind::kEndpoint, static_cast<PortId>(specs[p].peer_port)});
      }
    }
    first_port_.push_back(ports_.size());
    // One bit per (in port, in VC, out port, out VC) of each router, each router's block starting
    // on a word: (ports * vcs)^2 bits a router, a few hundred KB for a 1K-endpoint Dragonfly.
    first_word_.reserve(routers + 1);
    std::size_t words = 0;
    for (uint32_t r = 0; r < routers; ++r) {
      first_word_.push_back(words);
      const std::size_t side = (first_port_[r + 1] - first_port_[r]) * vcs;
      words += (side * side + 63) / 64;
    }
    first_word_.push_back(words);
    dependency_bits_.assign(words, 0);
  }

  uint32_t num_endpoints() const { return topology_.num_endpoints(); }

  void explore_source(uint32_t src) {
    std::vector<PortSpec> specs;
    topology_.ports(topology_.endpoint_component(src), specs);
    injection_.clear();
    const uint64_t first = topology_.first_link(topology_.endpoint_component(src));
    for (PortId p = 0; p < specs.size(); ++p) {
      if (view_ != nullptr && !view_->link_up(first + p)) continue;  // a failed injection link
      injection_.push_back(
          {topology_.node(specs[p].peer).index, static_cast<PortId>(specs[p].peer_port)});
    }
    for (uint32_t dst = 0; dst < topology_.num_endpoints(); ++dst) {
      if (dst != src) explore_pair(src, dst);
    }
  }

  void set_view(const RouterView* view) { view_ = view; }
  std::vector<uint64_t>& bits() { return dependency_bits_; }
  bool saw_non_escape() const { return saw_non_escape_; }
  uint64_t states_without_escape() const { return states_without_escape_; }
  uint64_t pairs() const { return pairs_; }

  ChannelDependencies dependencies() const {
    ChannelDependencies out;
    for (uint32_t r = 0; r + 1 < first_word_.size(); ++r) {
      const PortInfo* ports = ports_.data() + first_port_[r];
      const std::size_t side = (first_port_[r + 1] - first_port_[r]) * vcs_;
      for (std::size_t w = first_word_[r]; w < first_word_[r + 1]; ++w) {
        for (uint64_t bits = dependency_bits_[w]; bits != 0; bits &= bits - 1) {
          const std::size_t bit = (w - first_word_[r]) * 64 + std::countr_zero(bits);
          const std::size_t in = bit / side, to = bit % side;
          out.edges.push_back({ports[in / vcs_].in_link * vcs_ + in % vcs_,
                               ports[to / vcs_].out_link * vcs_ + to % vcs_});
        }
      }
    }
    std::sort(out.edges.begin(), out.edges.end());
    out.saw_non_escape = saw_non_escape_;
    out.states_without_escape = states_without_escape_;
    out.pairs = pairs_;
    return out;
  }

 private:
  struct Injection {
    uint32_t router;
    PortId in_port;
  };

  void explore_pair(uint32_t src, uint32_t dst) {
    ++pairs_;
    seen_.clear();
    stack_.clear();
    for (const Injection& in : injection_) {
      for (uint8_t vc = 0; vc < vcs_; ++vc) {
        Packet packet;
        packet.src = src;
        packet.dst = dst;
        packet.vc = vc;
        packet.flits = 1;
        starts_.clear();
        routing_.start_states(in.router, view_, packet, starts_);
        for (const Packet& s : starts_) push({in.router, in.in_port, s});
      }
    }

    while (!stack_.empty()) {
      State s = stack_.back();
      stack_.pop_back();
      const uint8_t in_vc = s.packet.vc;  // before route(), which may update the packet
      if (in_vc >= vcs_) {  // only start_states() could do this; later VCs are checked below
        broken(src, dst, s.router,
               "start state on VC " + std::to_string(in_vc) + " does not exist");
      }
      candidates_.clear();
      routing_.route(s.router, s.in_port, s.packet, candidates_);
      if (candidates_.empty()) broken(src, dst, s.router, "no route");
      const PortInfo* ports = ports_.data() + first_port_[s.router];
      const std::size_t num_ports = first_port_[s.router + 1] - first_port_[s.router];
      if (view_ != nullptr && !keep_live(ports, num_ports)) {
        routing_.route_around(s.router, s.in_port, s.packet, *view_, candidates_);
        if (!keep_live(ports, num_ports)) continue;  // no live way on: the packet is lost here
      }
      bool escape_offered = false;
      for (const Candidate& c : candidates_) escape_offered = escape_offered || c.escape;
      if (!escape_offered) ++states_without_escape_;
      for (const Candidate& c : candidates_) {
        if (c.port >= num_ports || c.vc >= vcs_) {
          broken(src, dst, s.router,
                 "candidate port " + std::to_string(c.port) + " VC " + std::to_string(c.vc) +
                     " does not exist");
        }
        const PortInfo& out = ports[c.port];
        if (c.escape) {
          const std::size_t bit = ((s.in_port * vcs_ + in_vc) * num_ports + c.port) * vcs_ + c.vc;
          dependency_bits_[first_word_[s.router] + bit / 64] |= uint64_t{1} << (bit % 64);
        } else {
          saw_non_escape_ = true;
        }
        if (out.peer_is_endpoint) {
          if (out.peer_index != dst) {
            broken(src, dst, s.router, "delivered to endpoint " + std::to_string(out.peer_index));
          }
          continue;
        }
        if (s.packet.hops >= max_hops_) {
          broken(src, dst, s.router,
                 "more than " + std::to_string(max_hops_) + " router-to-router hops");
        }
        State n{out.peer_index, out.peer_port, s.packet};
        n.packet.vc = c.vc;
        ++n.packet.hops;
        push(n);
      }
    }
  }

  // Leaves out the candidates on failed links (of this router's `ports`); false if none is left.
  // (A port that does not exist stays, for the check below to report.)
  bool keep_live(const PortInfo* ports, std::size_t num_ports) {
    const Candidates all = candidates_;
    candidates_.clear();
    for (const Candidate& c : all) {
      if (c.port >= num_ports || view_->link_up(ports[c.port].out_link)) {
        candidates_.add(c.port, c.vc, c.escape, c.penalty);
      }
    }
    return !candidates_.empty();
  }

  // Stacks a state unless it was seen before in this pair. Checking on the way in rather than
  // out keeps the many repeats (the same hop reached from every injection VC) off the stack.
  void push(const State& s) {
    const Packet& p = s.packet;
    const uint64_t key_a = static_cast<uint64_t>(s.router) << 32 | p.intermediate;
    const uint64_t key_b =
        static_cast<uint64_t>(s.in_port) << 48 | static_cast<uint64_t>(p.vc) << 40 |
        static_cast<uint64_t>(p.route_aux) << 32 | static_cast<uint64_t>(p.hops) << 16 |
        static_cast<uint64_t>(p.phase) << 8 | p.flags;
    if (seen_.insert(key_a, key_b, p.route_data)) stack_.push_back(s);
  }

  const Topology& topology_;
  const Routing& routing_;
  const uint8_t vcs_;
  const uint32_t max_hops_;
  std::vector<std::size_t> first_port_;  // router r's ports: ports_[first_port_[r], [r + 1])
  std::vector<PortInfo> ports_;
  std::vector<Injection> injection_;
  std::vector<State> stack_;
  std::vector<Packet> starts_;
  Candidates candidates_;
  KeySet seen_;  // packet states of the current pair
  // The kept dependencies so far, as bits of per-router blocks (see the constructor): denser than
  // a hash set of channel pairs and it stays in cache, which matters at a billion insertions.
  std::vector<std::size_t> first_word_;
  std::vector<uint64_t> dependency_bits_;
  bool saw_non_escape_ = false;
  uint64_t states_without_escape_ = 0;
  uint64_t pairs_ = 0;
  const RouterView* view_ = nullptr;  // the links up (nullptr: all)
};

namespace {

// The channel graph over dense node indices, in compressed sparse row form.
struct DenseGraph {
  std::vector<ChannelId> channels;  // node index -> channel, ascending
  std::vector<std::size_t> first;   // node u's successors: next[first[u], first[u + 1])
  std::vector<uint32_t> next;
};

DenseGraph make_dense(const std::vector<ChannelDependency>& edges) {
  DenseGraph g;
  ChannelId max_channel = 0;
  for (const ChannelDependency& e : edges) max_channel = std::max({max_channel, e.from, e.to});
  // Channel ids are (link * vcs + vc), so they are usually dense enough for a direct lookup
  // table, which beats sorting and binary searches by a wide margin on million-edge graphs.
  const bool direct = max_channel < 8 * edges.size() + 1024;
  std::vector<uint32_t> table;
  constexpr uint32_t kAbsent = std::numeric_limits<uint32_t>::max();
  if (direct) {
    table.assign(edges.empty() ? 0 : max_channel + 1, kAbsent);
    for (const ChannelDependency& e : edges) table[e.from] = table[e.to] = 0;
    for (ChannelId c = 0; c < table.size(); ++c) {
      if (table[c] != kAbsent) g.channels.push_back(c);
    }
  } else {
    g.channels.reserve(edges.size() * 2);
    for (const ChannelDependency& e : edges) {
      g.channels.push_back(e.from);
      g.channels.push_back(e.to);
    }
    std::sort(g.channels.begin(), g.channels.end());
    g.channels.erase(std::unique(g.channels.begin(), g.channels.end()), g.channels.end());
  }
  if (g.channels.size() >= kAbsent) {
    throw std::length_error("channel graph: more than 2^32 - 2 channels");
  }
  if (direct) {
    for (std::size_t u = 0; u < g.channels.size(); ++u) {
      table[g.channels[u]] = static_cast<uint32_t>(u);
    }
  }
  auto index = [&](ChannelId c) {
    if (direct) return table[c];
    return static_cast<uint32_t>(std::lower_bound(g.channels.begin(), g.channels.end(), c) -
                                 g.channels.begin());
  };
  // Edges are sorted by `from` and the index map is monotonic, so the rows come out in order.
  g.first.assign(g.channels.size() + 1, 0);
  g.next.reserve(edges.size());
  for (const ChannelDependency& e : edges) {
    ++g.first[index(e.from) + 1];
    g.next.push_back(index(e.to));
  }
  for (std::size_t u = 0; u < g.channels.size(); ++u) g.first[u + 1] += g.first[u];
  return g;
}

// Some cycle of `g`, as node indices in dependency order; empty if `g` is acyclic. Iterative DFS
// with white/grey/black colours: an edge to a grey node closes a cycle along the DFS stack.
std::vector<uint32_t> find_cycle(const DenseGraph& g) {
  enum : uint8_t { kWhite, kGrey, kBlack };
  const std::size_t n = g.channels.size();
  std::vector<uint8_t> colour(n, kWhite);
  struct Frame {
    uint32_t node;
    std::size_t edge;  // next successor to look at
  };
  std::vector<Frame> stack;
  for (uint32_t root = 0; root < n; ++root) {
    if (colour[root] != kWhite) continue;
    colour[root] = kGrey;
    stack.push_back({root, g.first[root]});
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.edge == g.first[top.node + 1]) {
        colour[top.node] = kBlack;
        stack.pop_back();
        continue;
      }
      const uint32_t v = g.next[top.edge++];
      if (colour[v] == kWhite) {
        colour[v] = kGrey;
        stack.push_back({v, g.first[v]});  // invalidates `top`; it is not used again
      } else if (colour[v] == kGrey) {
        // The grey nodes are exactly the stack; the cycle is v ... top.node, then back to v.
        auto at =
            std::find_if(stack.begin(), stack.end(), [v](const Frame& f) { return f.node == v; });
        std::vector<uint32_t> cycle;
        for (; at != stack.end(); ++at) cycle.push_back(at->node);
        return cycle;
      }
    }
  }
  return {};
}

// The shortest cycle through `start` (which lies on one), by breadth-first search: a DFS cycle
// can wander through much of the graph, a short one is what a reader can check by hand.
std::vector<uint32_t> shortest_cycle_through(const DenseGraph& g, uint32_t start) {
  constexpr uint32_t kUnseen = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> parent(g.channels.size(), kUnseen);
  std::deque<uint32_t> queue{start};
  parent[start] = start;
  while (!queue.empty()) {
    const uint32_t u = queue.front();
    queue.pop_front();
    for (std::size_t e = g.first[u]; e < g.first[u + 1]; ++e) {
      const uint32_t v = g.next[e];
      if (v == start) {
        std::vector<uint32_t> cycle;
        for (uint32_t w = u; w != start; w = parent[w]) cycle.push_back(w);
        cycle.push_back(start);
        std::reverse(cycle.begin(), cycle.end());
        return cycle;
      }
      if (parent[v] == kUnseen) {
        parent[v] = u;
        queue.push_back(v);
      }
    }
  }
  throw std::logic_error("shortest_cycle_through: the node is on no cycle");
}

std::string component_name(const Topology& topology, ComponentId id) {
  const Node node = topology.node(id);
  return (node.kind == NodeKind::kRouter ? "router " : "endpoint ") + std::to_string(node.index);
}

}  // namespace

uint32_t channel_graph_max_hops(const Topology& topology) {
  const uint64_t bound = 4 * static_cast<uint64_t>(topology.diameter()) + 8;
  return static_cast<uint32_t>(std::min<uint64_t>(bound, std::numeric_limits<uint16_t>::max()));
}

DependencyCollector::DependencyCollector(const Topology& topology, const Routing& routing,
                                         uint8_t vcs)
    : explorer_(std::make_unique<ChannelExplorer>(topology, routing, vcs)) {}
DependencyCollector::~DependencyCollector() = default;

void DependencyCollector::explore(uint32_t first, uint32_t last, uint32_t stride,
                                  const std::function<void()>& after_source) {
  if (stride == 0) throw std::invalid_argument("DependencyCollector::explore: stride 0");
  for (uint64_t src = first; src < last && src < explorer_->num_endpoints(); src += stride) {
    explorer_->explore_source(static_cast<uint32_t>(src));
    if (after_source) after_source();
  }
}

void DependencyCollector::set_view(const RouterView* view) { explorer_->set_view(view); }
std::vector<uint64_t>& DependencyCollector::bits() { return explorer_->bits(); }
bool DependencyCollector::saw_non_escape() const { return explorer_->saw_non_escape(); }
uint64_t DependencyCollector::states_without_escape() const {
  return explorer_->states_without_escape();
}
uint64_t DependencyCollector::pairs() const { return explorer_->pairs(); }
ChannelDependencies DependencyCollector::dependencies() const { return explorer_->dependencies(); }

ChannelDependencies collect_channel_dependencies(const Topology& topology, const Routing& routing,
                                                 uint8_t vcs, uint32_t first, uint32_t last,
                                                 uint32_t stride) {
  DependencyCollector collector(topology, routing, vcs);
  collector.explore(first, last, stride);
  return collector.dependencies();
}

ChannelGraphReport analyse_channel_graph(const ChannelDependencies& dependencies) {
  const std::vector<ChannelDependency>& edges = dependencies.edges;
  if (std::adjacent_find(edges.begin(), edges.end(), std::greater_equal<>()) != edges.end()) {
    throw std::invalid_argument("analyse_channel_graph: dependencies not sorted and distinct");
  }
  ChannelGraphReport report;
  report.pairs = dependencies.pairs;
  report.escape_only = dependencies.saw_non_escape;
  report.states_without_escape = dependencies.states_without_escape;
  report.dependencies = edges.size();
  const DenseGraph graph = make_dense(edges);
  report.channels = graph.channels.size();
  const std::vector<uint32_t> cycle = find_cycle(graph);
  if (!cycle.empty()) {
    report.acyclic = false;
    for (uint32_t u : shortest_cycle_through(graph, cycle.front())) {
      report.cycle.push_back(graph.channels[u]);
    }
  }
  return report;
}

ChannelGraphReport check_channel_graph(const Topology& topology, const Routing& routing,
                                       uint8_t vcs) {
  return analyse_channel_graph(
      collect_channel_dependencies(topology, routing, vcs, 0, topology.num_endpoints()));
}

std::string describe_channel(const Topology& topology, uint8_t vcs, ChannelId channel) {
  const uint64_t link = vcs == 0 ? std::numeric_limits<uint64_t>::max() : channel / vcs;
  if (link >= topology.num_links()) {
    throw std::out_of_range("channel " + std::to_string(channel) + " with " + std::to_string(vcs) +
                            " VCs: no such link");
  }
  const unsigned vc = static_cast<unsigned>(channel % vcs);

  // The owner of a link is the component whose port range holds it. Topologies number links in
  // component order, so binary search finds it; any other numbering falls back to a scan.
  std::vector<PortSpec> ports;
  auto owns = [&](ComponentId id) {
    const uint64_t first = topology.first_link(id);
    if (first > link) return false;
    ports.clear();
    topology.ports(id, ports);
    return link - first < ports.size();
  };
  ComponentId lo = 0, hi = topology.num_components();  // last id with first_link <= link
  while (hi - lo > 1) {
    const ComponentId mid = lo + (hi - lo) / 2;
    (topology.first_link(mid) <= link ? lo : hi) = mid;
  }
  ComponentId owner = lo;
  if (!owns(owner)) {
    owner = topology.num_components();
    for (ComponentId id = 0; id < topology.num_components() && owner == topology.num_components();
         ++id) {
      if (owns(id)) owner = id;
    }
    if (owner == topology.num_components()) {
      throw std::out_of_range("link " + std::to_string(link) + " belongs to no component");
    }
  }
  const auto port = static_cast<PortId>(link - topology.first_link(owner));
  const PortSpec& spec = ports[port];
  const auto& classes = topology.link_classes();
  const std::string link_class = spec.link_class < classes.size()
                                     ? classes[spec.link_class].name
                                     : "class " + std::to_string(spec.link_class);
  return component_name(topology, owner) + " port " + std::to_string(port) + " (" + link_class +
         ") VC " + std::to_string(vc) + " -> " + component_name(topology, spec.peer) + " port " +
         std::to_string(spec.peer_port);
}

}  // namespace hx::net
