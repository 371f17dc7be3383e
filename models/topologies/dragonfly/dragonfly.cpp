// Dragonfly topology and routing as closed forms of (p, a, h, g); nothing is tabulated.
//
// Components: router r (r = group * a + local) is component r * (p + 1) and its p terminals follow
// it, so endpoint e (terminal e % p of router e / p) is component (e / p) * (p + 1) + 1 + e % p and
// group i is the component range [i * a * (p + 1), (i + 1) * a * (p + 1)).
//
// Router ports: [0, p) terminals (port t to endpoint r * p + t); [p, p + a - 1) local (port p + l
// to local router l < local ? l : l + 1); then the router's global slots s (port p + a - 1 + s).
//
// Global links (the "absolute" arrangement of Kim et al. and BookSim): group i has g - 1 global
// links j in [0, g - 1); link j leads to group (j < i ? j : j + 1) and is global slot j % h of
// local router j / h. Consecutive groups hang off the same router, so the group-shift adversary's
// Valiant paths mostly need no local hop in the intermediate group (spreading the links
// round-robin over routers instead makes those local links the bottleneck). With fewer than
// a * h + 1 groups the last routers keep only the slots that lead somewhere; unused ports are left
// out of ports(), so link ids stay dense. Two groups share exactly one global link.
//
// Directed link ids: group by group, each router's ports followed by its terminals' port 0.
#include "models/topologies/dragonfly/dragonfly.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.h"
#include "models/network/concentrated_topology.h"
#include "models/network/layout.h"
#include "models/topologies/dragonfly/analytic.h"

namespace hx::net {
namespace {

constexpr uint16_t kTerminalClass = 0;
constexpr uint16_t kLocalClass = 1;
constexpr uint16_t kGlobalClass = 2;

// Sizes and the closed forms the topology and the routing share.
struct Shape {
  uint32_t p = 0, a = 0, h = 0, g = 0;

  uint32_t routers() const { return g * a; }
  uint32_t group_of(uint32_t router) const { return router / a; }
  uint32_t local_of(uint32_t router) const { return router % a; }

  // Index of the global link of group `from` that leads to group `to` (from != to), and back.
  static uint32_t link_index(uint32_t from, uint32_t to) { return to < from ? to : to - 1; }
  static uint32_t link_target(uint32_t from, uint32_t j) { return j < from ? j : j + 1; }

  // Global slots of local router `local`: the j in [local * h, local * h + h) with j < g - 1.
  uint32_t slots(uint32_t local) const {
    const uint64_t links = g - 1, first = uint64_t{local} * h;
    return first >= links ? 0 : static_cast<uint32_t>(std::min<uint64_t>(h, links - first));
  }
  // Global slots of local routers [0, local).
  uint64_t slots_before(uint32_t local) const {
    return std::min<uint64_t>(g - 1, uint64_t{local} * h);
  }
  uint32_t router_ports(uint32_t local) const { return p + a - 1 + slots(local); }
  // Directed links of one group: its routers' ports plus one per terminal.
  uint64_t links_per_group() const { return uint64_t{a} * (2 * p + a - 1) + (g - 1); }
  // The id of the link leaving port 0 of a router.
  uint64_t first_link(uint32_t router) const {
    const uint32_t local = local_of(router);
    return group_of(router) * links_per_group() + uint64_t{local} * (2 * p + a - 1) +
           slots_before(local);
  }

  PortId local_port(uint32_t from_local, uint32_t to_local) const {
    return static_cast<PortId>(p + (to_local < from_local ? to_local : to_local - 1));
  }
  PortId global_port(uint32_t j) const { return static_cast<PortId>(p + a - 1 + j % h); }
  // The router of group `from` holding the link to group `to`, and the router it lands on.
  uint32_t gateway(uint32_t from, uint32_t to) const { return from * a + link_index(from, to) / h; }
  uint32_t landing(uint32_t from, uint32_t to) const { return gateway(to, from); }

  // Router hops of the minimal path between two routers, and of the path through `via` group.
  uint32_t hops(uint32_t from, uint32_t to) const {
    const uint32_t fg = group_of(from), tg = group_of(to);
    if (fg == tg) return from == to ? 0 : 1;
    return (from != gateway(fg, tg) ? 1 : 0) + 1 + (landing(fg, tg) != to ? 1 : 0);
  }
  uint32_t hops_via(uint32_t from, uint32_t via, uint32_t to) const {
    const uint32_t fg = group_of(from);
    return (from != gateway(fg, via) ? 1 : 0) + 1 + hops(landing(fg, via), to);
  }

  // The next hop from `router` towards group `target`, or to endpoint `dst` once in its group.
  enum class HopKind { kTerminal, kLocal, kGlobal };
  struct Hop {
    PortId port;
    HopKind kind;
  };
  Hop next_hop(uint32_t router, uint32_t target, uint32_t dst) const {
    const uint32_t here = group_of(router);
    if (here != target) {
      const uint32_t gw = gateway(here, target);
      if (router == gw) return {global_port(link_index(here, target)), HopKind::kGlobal};
      return {local_port(local_of(router), local_of(gw)), HopKind::kLocal};
    }
    const uint32_t dst_router = dst / p;
    if (router == dst_router) return {static_cast<PortId>(dst % p), HopKind::kTerminal};
    return {local_port(local_of(router), local_of(dst_router)), HopKind::kLocal};
  }
};

class DragonflyTopology final : public ConcentratedTopology {
 public:
  DragonflyTopology(const Shape& shape, std::vector<LinkClass> classes)
      : ConcentratedTopology(shape.p), s_(shape), classes_(std::move(classes)) {}

  std::string describe() const override {
    return "dragonfly p=" + std::to_string(s_.p) + " a=" + std::to_string(s_.a) +
           " h=" + std::to_string(s_.h) + " g=" + std::to_string(s_.g) + ": " +
           std::to_string(num_endpoints()) + " endpoints, " + std::to_string(num_routers()) +
           " routers";
  }
  uint32_t num_routers() const override { return s_.routers(); }
  uint32_t num_endpoints() const override { return s_.routers() * s_.p; }

  void ports(ComponentId id, std::vector<PortSpec>& out) const override {
    const Node n = node(id);
    const uint32_t count =
        n.kind == NodeKind::kEndpoint ? 1 : s_.router_ports(s_.local_of(n.index));
    for (uint32_t p = 0; p < count; ++p) out.push_back(port_of(n, id, static_cast<PortId>(p)));
  }
  // The flow level asks for one port at a time, for every candidate of every state it explores.
  PortSpec port(ComponentId id, PortId p) const override { return port_of(node(id), id, p); }

  uint64_t first_link(ComponentId id) const override {
    const uint32_t router = id / (s_.p + 1), slot = id % (s_.p + 1);
    const uint64_t base = s_.first_link(router);
    return slot == 0 ? base : base + s_.router_ports(s_.local_of(router)) + slot - 1;
  }
  uint64_t num_links() const override { return s_.g * s_.links_per_group(); }

  std::vector<GroupLevel> group_levels() const override {
    return {{"group", s_.g}, {"router", s_.routers()}};
  }
  ComponentRange group_range(std::size_t level, uint64_t group) const override {
    const ComponentId size = (level == 0 ? s_.a : 1) * (s_.p + 1);
    const auto first = static_cast<ComponentId>(group * size);
    return {first, first + size};
  }

  const std::vector<LinkClass>& link_classes() const override { return classes_; }

  uint32_t num_endpoint_groups() const override { return s_.g; }
  uint32_t endpoint_group(uint32_t endpoint) const override { return endpoint / (s_.a * s_.p); }
  EndpointRange endpoint_group_range(uint32_t group) const override {
    return {group * s_.a * s_.p, (group + 1) * s_.a * s_.p};
  }
  std::vector<uint32_t> endpoint_dims() const override { return {s_.p, s_.a, s_.g}; }

  // Pictures: the groups on a circle, each group's routers on a circle of their own (their local
  // links all-to-all), endpoints below their router.
  std::string picture_group() const override { return "group"; }
  PicturePlace picture_place(ComponentId id) const override {
    const Node n = node(id);
    const uint32_t router = n.kind == NodeKind::kRouter ? n.index : n.index / s_.p;
    const uint32_t local = s_.local_of(router), group = s_.group_of(router);
    const Point at = n.kind == NodeKind::kRouter ? on_circle(local, s_.a, 2.0)
                                                 : outside(local, s_.a, 2.0, n.index % s_.p, s_.p);
    return place_at(group, on_circle(group, s_.g), at);
  }

  // Local, global, local; without a second router or a second group that hop is missing.
  uint32_t diameter() const override {
    const uint32_t local = s_.a > 1 ? 1 : 0;
    return s_.g > 1 ? 2 * local + 1 : local;
  }

 private:
  PortSpec port_of(const Node& n, ComponentId id, PortId p) const {
    const SimTime terminal = classes_[kTerminalClass].latency;
    if (n.kind == NodeKind::kEndpoint) {
      return {router_component(n.index / s_.p), static_cast<PortId>(n.index % s_.p), terminal,
              kTerminalClass};
    }
    if (p < s_.p) return {id + 1 + p, 0, terminal, kTerminalClass};
    const uint32_t group = s_.group_of(n.index), local = s_.local_of(n.index);
    if (p < s_.p + s_.a - 1) {
      const uint32_t l = p - s_.p, peer = l < local ? l : l + 1;
      return {router_component(group * s_.a + peer), s_.local_port(peer, local),
              classes_[kLocalClass].latency, kLocalClass};
    }
    const uint32_t slot = p - (s_.p + s_.a - 1);
    if (slot >= s_.slots(local)) {
      throw std::out_of_range("dragonfly router " + std::to_string(n.index) + " has no port " +
                              std::to_string(p));
    }
    const uint32_t to = Shape::link_target(group, local * s_.h + slot);
    const uint32_t back = Shape::link_index(to, group);
    return {router_component(to * s_.a + back / s_.h), s_.global_port(back),
            classes_[kGlobalClass].latency, kGlobalClass};
  }

  Shape s_;
  std::vector<LinkClass> classes_;
};

enum class Algorithm { kMinimal, kValiant, kUgalL };

// VCs by global hops taken: a packet crosses each link on VC = number of global links it has
// crossed, counting the link itself. Minimal: VC 0 in the source group, VC 1 on the global link
// and after it (2 VCs). Valiant: 0, then 1 from the first global link, 2 from the second (3 VCs).
// Within one VC a packet takes at most one local hop and then a global hop or leaves the network,
// so the channel dependency graph is acyclic. The VC of the arrival link tells the next router
// how many global hops were taken, except on the first hop (any VC from the endpoint: level 0).
//
// Valiant goes minimally to a random intermediate group other than the source and destination
// groups (packet.intermediate = that group's first router; only its group matters), phase 0 -> 1
// on arrival in that group, then minimally to the destination: at most local, global, local,
// global, local = 5 hops. Packets whose source and destination share a group, or with only two
// groups, route minimally.
//
// UGAL-L decides at the source router with one random Valiant candidate: Valiant when
// load(minimal port) * minimal hops > load(Valiant port) * Valiant hops + ugal_threshold.
//
// Around a failed link (route_around, docs/FAULTS.md): a packet that has crossed no global link
// yet and finds its next hop failed leaves through a live global link of the router it is at,
// to that link's group as its (new) Valiant intermediate: the VCs stay those of a Valiant path
// (valiant and ugal_l only; minimal has no VC for the second global hop). Packets past their
// first global link have no fallback.
class DragonflyRouting final : public Routing {
 public:
  DragonflyRouting(const Shape& shape, Algorithm algorithm, uint64_t threshold)
      : s_(shape), algorithm_(algorithm), threshold_(threshold) {}

  std::string name() const override {
    switch (algorithm_) {
      case Algorithm::kMinimal:
        return "minimal";
      case Algorithm::kValiant:
        return "valiant";
      case Algorithm::kUgalL:
        return "ugal_l";
    }
    return "";
  }
  uint8_t vcs() const override { return algorithm_ == Algorithm::kMinimal ? 2 : 3; }
  bool minimal() const override { return algorithm_ == Algorithm::kMinimal; }

  void start(uint32_t router, const RouterView& load, Rng& rng, Packet& packet) const override {
    packet.phase = 0;
    packet.intermediate = kNoRouter;
    const uint32_t src_group = s_.group_of(router), dst_group = s_.group_of(packet.dst / s_.p);
    if (algorithm_ == Algorithm::kMinimal || !can_detour(src_group, dst_group)) return;
    // Uniform over the g - 2 groups that are neither source nor destination.
    uint32_t via = group_skipping(static_cast<uint32_t>(rng.below(s_.g - 2)), src_group, dst_group);
    // Around failed global links: Valiant when the minimal one is down, through a group whose
    // two global links are up, drawn again until one is (taking the next group instead would
    // pile a failed link's share onto its neighbours' links: oblivious Valiant then saturates
    // them, at load 0.3 with 16 of 528 links failed).
    bool minimal_up = true;
    if (load.any_faults()) {
      minimal_up = global_up(src_group, dst_group, load);
      for (uint32_t k = 0; k < 4 * s_.g && !(global_up(src_group, via, load) &&
                                              global_up(via, dst_group, load));
           ++k) {
        via = group_skipping(static_cast<uint32_t>(rng.below(s_.g - 2)), src_group, dst_group);
      }
    }
    if (minimal_up && algorithm_ == Algorithm::kUgalL &&
        !ugal_takes_valiant(router, via, load, packet)) {
      return;
    }
    packet.intermediate = via * s_.a;
  }

  void route_around(uint32_t router, PortId in_port, Packet& packet, const RouterView& view,
                    Candidates& out) const override {
    const auto level = static_cast<uint8_t>(in_port < s_.p ? 0 : packet.vc);
    const uint32_t here = s_.group_of(router), local = s_.local_of(router);
    const uint32_t dst_group = s_.group_of(packet.dst / s_.p);
    if (algorithm_ == Algorithm::kMinimal || level > 0 || here == dst_group) return;
    const uint32_t slots = s_.slots(local);
    if (slots == 0) return;
    // A rotation fixed per packet spreads the detours over the live links.
    const auto first = static_cast<uint32_t>((packet.src * 0x9E3779B1ULL + packet.message) % slots);
    for (uint32_t k = 0; k < slots; ++k) {
      const uint32_t j = local * s_.h + (first + k) % slots;
      const PortId port = s_.global_port(j);
      if (!view.link_up(s_.first_link(router) + port)) continue;
      const uint32_t to = Shape::link_target(here, j);
      packet.phase = 0;
      packet.intermediate = to == dst_group ? kNoRouter : to * s_.a;
      out.add(port, static_cast<uint8_t>(level + 1));
      return;
    }
  }

  void start_states(uint32_t router, const RouterView* /*view*/, const Packet& packet,
                    std::vector<Packet>& out) const override {
    Packet minimal = packet;
    minimal.phase = 0;
    minimal.intermediate = kNoRouter;
    const uint32_t src_group = s_.group_of(router), dst_group = s_.group_of(packet.dst / s_.p);
    if (algorithm_ != Algorithm::kValiant || !can_detour(src_group, dst_group)) {
      out.push_back(minimal);
    }
    if (algorithm_ == Algorithm::kMinimal || !can_detour(src_group, dst_group)) return;
    for (uint32_t via = 0; via < s_.g; ++via) {
      if (via == src_group || via == dst_group) continue;
      Packet valiant = minimal;
      valiant.intermediate = via * s_.a;
      out.push_back(valiant);
    }
  }

  void route(uint32_t router, PortId in_port, Packet& packet, Candidates& out) const override {
    const auto level = static_cast<uint8_t>(in_port < s_.p ? 0 : packet.vc);
    const uint32_t here = s_.group_of(router);
    const bool detour = packet.intermediate != kNoRouter;
    if (detour && packet.phase == 0 && here == s_.group_of(packet.intermediate)) packet.phase = 1;
    const uint32_t target = detour && packet.phase == 0 ? s_.group_of(packet.intermediate)
                                                        : s_.group_of(packet.dst / s_.p);
    const Shape::Hop hop = s_.next_hop(router, target, packet.dst);
    switch (hop.kind) {
      case Shape::HopKind::kLocal:
        out.add(hop.port, level);
        break;
      case Shape::HopKind::kGlobal:
        out.add(hop.port, static_cast<uint8_t>(level + 1));
        break;
      case Shape::HopKind::kTerminal:
        for (uint8_t vc = 0; vc < vcs(); ++vc) out.add(hop.port, vc);
        break;
    }
  }

 private:
  // The k-th group (k < g - 2) that is neither a nor b.
  static uint32_t group_skipping(uint32_t k, uint32_t a, uint32_t b) {
    if (k >= std::min(a, b)) ++k;
    if (k >= std::max(a, b)) ++k;
    return k;
  }
  // The global link from group `from` to group `to` is up (faults.h).
  bool global_up(uint32_t from, uint32_t to, const RouterView& view) const {
    const uint32_t gw = s_.gateway(from, to);
    return view.link_up(s_.first_link(gw) + s_.global_port(Shape::link_index(from, to)));
  }

  bool can_detour(uint32_t src_group, uint32_t dst_group) const {
    return s_.g >= 3 && src_group != dst_group;
  }

  bool ugal_takes_valiant(uint32_t router, uint32_t via, const RouterView& load,
                          const Packet& packet) const {
    const uint32_t dst_router = packet.dst / s_.p;
    const uint64_t min_load =
        load.load(s_.next_hop(router, s_.group_of(dst_router), packet.dst).port);
    const uint64_t via_load = load.load(s_.next_hop(router, via, packet.dst).port);
    return min_load * s_.hops(router, dst_router) >
           via_load * s_.hops_via(router, via, dst_router) + threshold_;
  }

  Shape s_;
  Algorithm algorithm_;
  uint64_t threshold_;
};

Network make_dragonfly(const ParamSet& params) {
  Shape s;
  s.p = static_cast<uint32_t>(params.integer("p"));
  s.a = static_cast<uint32_t>(params.integer("a"));
  s.h = static_cast<uint32_t>(params.integer("h"));
  const uint64_t max_groups = uint64_t{s.a} * s.h + 1;
  const auto g = static_cast<uint64_t>(params.integer("g"));
  if (g > max_groups) {
    throw InputError("dragonfly.g = " + std::to_string(g) +
                     ": at most a*h+1 = " + std::to_string(max_groups) + " groups");
  }
  s.g = static_cast<uint32_t>(g == 0 ? max_groups : g);
  // Component ids are 32-bit and kNoRouter must stay out of the router range.
  const uint64_t components = uint64_t{s.g} * s.a * (s.p + 1);
  if (components >= kNoRouter) {
    throw InputError("dragonfly.g = " + std::to_string(s.g) + " (with p = " + std::to_string(s.p) +
                     ", a = " + std::to_string(s.a) + "): " + std::to_string(components) +
                     " components, more than the " + std::to_string(kNoRouter - 1) +
                     " a network can have");
  }

  std::vector<LinkClass> classes = {
      {"terminal", positive_time(params, "dragonfly", "terminal_latency"),
       params.real("terminal_speed")},
      {"local", positive_time(params, "dragonfly", "local_latency"), params.real("local_speed")},
      {"global", positive_time(params, "dragonfly", "global_latency"),
       params.real("global_speed")}};
  const std::string& routing = params.text("routing");
  const Algorithm algorithm = routing == "minimal"   ? Algorithm::kMinimal
                              : routing == "valiant" ? Algorithm::kValiant
                                                     : Algorithm::kUgalL;
  Network net;
  net.topology = std::make_unique<DragonflyTopology>(s, std::move(classes));
  net.routing = std::make_unique<DragonflyRouting>(
      s, algorithm, static_cast<uint64_t>(params.integer("ugal_threshold")));
  return net;
}

}  // namespace

TopologyFamily dragonfly_family() {
  return TopologyFamily{
      "dragonfly",
      "Dragonfly (Kim, Dally, Scott, Abts, ISCA 2008): g groups of a routers, each group fully "
      "connected by local links; every router has p endpoints and h global links, and every two "
      "groups share one global link",
      {
          ParamSpec::integer("p", 4, "endpoints (terminals) per router").range(1, 1024),
          ParamSpec::integer("a", 8, "routers per group").range(1, 1024),
          ParamSpec::integer("h", 4, "global links per router").range(1, 1024),
          ParamSpec::integer("g", 0,
                             "groups, at most a*h+1 (0: a*h+1); with fewer groups routers keep "
                             "only the global ports that lead to a group")
              .range(0, 1024 * 1024 + 1),
          ParamSpec::time("terminal_latency", "1cycle", "latency of router-endpoint links"),
          ParamSpec::time("local_latency", "1cycle", "latency of links inside a group"),
          ParamSpec::time("global_latency", "10cycles", "latency of links between groups"),
          ParamSpec::real("terminal_speed", 1.0, "bandwidth of terminal links in flits/cycle")
              .range(0.01, 1024),
          ParamSpec::real("local_speed", 1.0, "bandwidth of local links in flits/cycle")
              .range(0.01, 1024),
          ParamSpec::real("global_speed", 1.0, "bandwidth of global links in flits/cycle")
              .range(0.01, 1024),
          ParamSpec::choice("routing", "ugal_l", {"minimal", "valiant", "ugal_l"},
                            "minimal (2 VCs); valiant: via a random third group (3 VCs); ugal_l: "
                            "minimal or Valiant, chosen at the source router from its output "
                            "loads (3 VCs). Same-group traffic always routes minimally"),
          ParamSpec::integer("ugal_threshold", 0,
                             "ugal_l takes the Valiant path when load(minimal port) * minimal "
                             "hops > load(Valiant port) * Valiant hops + ugal_threshold (loads "
                             "in flits); larger values favour minimal paths")
              .range(0, 1e9),
      },
      make_dragonfly,
      {{"", "sizes, throughput bounds, diameter and hop energy", dragonfly_closed_forms}}};
}

}  // namespace hx::net
