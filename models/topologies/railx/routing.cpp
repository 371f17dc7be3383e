// Minimal routing, as closed forms of the packet's place and destination:
//
// Path (Algorithm 1, generalised). Logical dimensions are corrected in order, X's before Y's.
// In the first unaligned dimension d the next node is the destination's coordinate (hyperx) or
// one step along the shorter way round (torus; halfway round, a way fixed per flow). Of the
// node's rail ports whose circuit reaches that node, the packet heads for the nearest on the
// mesh ("the nearest chip links"); ties are broken by a rotation fixed per (source, destination),
// which spreads flows over equally near rails and keeps the target stable while the packet walks
// towards it (each mesh hop brings it one closer, so no other port can overtake it). At that chip
// every port of it that reaches the next node is a candidate. Inside the destination node the
// packet walks the mesh to its chip. Mesh walks are dimension order (x first) or north-last (every
// productive move but north, north only last: Glass & Ni's turn model), on one VC class.
//
// VCs. A packet's class only grows and only on optical hops, so the VC it arrived on is its
// class (from its endpoint: 0), and its mesh walks travel in that class as Algorithm 1 does.
// A hyperx hop adds one (Algorithm 1: VC = inter-node hops, d_o + 1 VCs for a HyperX). A torus
// dimension is one ring; crossing its dateline (the wrap between coordinates S-1 and 0) adds
// one, and so does entering it from an earlier dimension, so each ring is walked on two classes
// that no other dimension uses; a packet's first dimension needs no entry step because class 0
// holds only source-node walks. Within one class a packet moves forward along one ring or makes
// one hyperx hop between mesh walks, so the channel dependency graph is acyclic; `hxsim verify`
// checks it for each configuration. With vc_limit below what this needs, the top classes share
// the last VC: the configuration verify should find a cycle in.
//
// Delivery class (option `delivery`, minimal routing). Along a torus ring a packet keeps its
// class, so in a node it passes through, the walk from the rail it arrived on to its destination
// chip shares each mesh VC with the node's own packets walking to their rail ports: an ejecting
// packet waits behind one that waits for a busy rail (head-of-line blocking), and a ring's nodes
// hold each other up. (Measured: a CP all-gather over torus:4 rings of 4 x 4-chip nodes took
// 2.2 x its α-β time, against 1.02 x on single-chip nodes.) With `delivery` the optical
// hop into the destination node and the walk there take one more class, the top one, which
// only ever waits for itself (mesh walks in dimension order or north-last, inside one node) and
// for ejection: edges lead into it but none out, so the graph stays acyclic. Algorithm 1 does
// the same for a 2D HyperX reached by two hops (VC-2 at the destination); with the option it
// holds for every route.
//
// Dragonfly (Table 2: the X-rails join the groups, the columns, each all-to-all by its Y-rails).
// To another group: a local Y hop to a row whose X circuits link the two groups (if the packet's
// own row does not), the global X hop, a local Y hop to the destination's row (if that is not
// the row of the global hop): at most 3 optical hops, each adding a class, so 4 VCs (d_o + 1),
// and the same argument as for the hyperx makes the graph acyclic.
//
// Adaptive (§4.1.2's first method: a VC per inter-node hop). Only on hyperx dimensions. At the
// chip of its minimal rail port, a packet may instead leave by another of that chip's ports of
// the same dimension (a detour to a third node of the line, from which it goes on minimally) if
// its route then still fits in a inter-node hops: class + 1 + unaligned dimensions <= a. The
// detour is offered with a penalty, so the router takes it only when the minimal port's
// downstream space is smaller by more than that (Candidate::penalty): Fig. 10's "if the direct
// channel is congested". Every optical hop adds one class and a route has at most a of them,
// so a + 1 VCs keep each class to mesh walks inside one node: acyclic. (The paper's refinement,
// unlimited XY-torus hops within a class, relies on bubble flow control, which the router does
// not model; here a route's detours are bounded by a instead.)
#include "models/topologies/railx/routing.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace hx::net::railx {
namespace {

class RailRouting final : public Routing {
 public:
  static constexpr uint32_t kAligned = ~0u;

  RailRouting(const Shape& shape, const RoutingOptions& options)
      : s_(shape),
        o_(options),
        hops_(o_.hops ? o_.hops : minimal_hops(shape) + 1),
        vcs_(o_.vc_limit ? o_.vc_limit : needed_vcs(shape, options)) {}

  std::string name() const override { return o_.adaptive ? "adaptive" : "minimal"; }
  uint8_t vcs() const override { return vcs_; }

  void route(uint32_t router, PortId in_port, Packet& packet, Candidates& out) const override {
    const uint32_t mm = s_.chips_per_node(), node = router / mm, x = router % mm % s_.m,
                   y = router % mm / s_.m;
    Axis axis;
    RailPort arrived;
    uint32_t block;
    int16_t dim;
    if (s_.port_rail(x, y, in_port, axis, arrived, block, dim)) {
      packet.phase = static_cast<uint8_t>(dim + 1);
    }
    const uint8_t cls = in_port == 0 ? 0 : packet.vc;  // injected on any VC, in class 0
    const uint32_t dst_node = packet.dst / mm;
    uint32_t first = kAligned, unaligned = 0;
    for (uint32_t d = 0; d < s_.dims.size(); ++d) {
      if (s_.coord(node, d) == s_.coord(dst_node, d)) continue;
      if (first == kAligned) first = d;
      ++unaligned;
    }
    if (first != kAligned && s_.dims[first].kind == Kind::kDragonfly) {
      return leave_group(node, x, y, dst_node, unaligned == 1, cls, packet, out);
    }
    if (first != kAligned) {
      const bool detours = o_.adaptive && cls + 1 + unaligned <= hops_;
      return leave(node, x, y, first, s_.coord(dst_node, first), unaligned == 1, cls, detours,
                   packet, out);
    }
    const uint32_t dx = packet.dst % mm % s_.m, dy = packet.dst % mm / s_.m;
    if (dx == x && dy == y) {
      for (uint8_t vc = 0; vc < vcs_; ++vc) out.add(0, vc);
      return;
    }
    walk(x, y, dx, dy, cls, out);
  }

 private:
  // Dragonfly (dimension 0, the groups; dimension 1 the hyperx inside them): to another group
  // by local, global, local hops. The global hop leaves from a row whose circuits link the two
  // groups: the packet's own row if they do (no first local hop), else the destination's row (no
  // last one), else the first such row in an order rotated per flow, which spreads such flows
  // over the rows. On arriving in the chosen row the packet's own row qualifies, so the choice
  // needs no packet state.
  void leave_group(uint32_t node, uint32_t x, uint32_t y, uint32_t dst_node, bool last, uint8_t cls,
                   const Packet& packet, Candidates& out) const {
    const Dim& groups = s_.dims[0];
    const uint32_t a = s_.coord(node, 0), b = s_.coord(dst_node, 0), row = s_.coord(node, 1),
                   rows = s_.dims[1].size;
    const auto linked = [&](uint32_t j) { return groups.links(j, a, b).size() > 0; };
    uint32_t via = row;
    if (!linked(via)) via = s_.coord(dst_node, 1);
    if (!linked(via)) {
      const uint32_t rotate = (packet.src * 2654435761u ^ packet.dst) % rows;
      for (uint32_t k = 0; k < rows; ++k) {
        via = (k + rotate) % rows;
        if (linked(via)) break;  // one exists: the shape checks every pair of groups
      }
    }
    if (via != row) return leave(node, x, y, 1, via, false, cls, false, packet, out);
    leave(node, x, y, 0, b, last, cls, false, packet, out);
  }

  // Towards coordinate t in dimension d; `last`: d is the only dimension left to correct.
  void leave(uint32_t node, uint32_t x, uint32_t y, uint32_t d, uint32_t t, bool last, uint8_t cls,
             bool detours, const Packet& packet, Candidates& out) const {
    const Dim& dim = s_.dims[d];
    uint32_t step = 1;  // class increment of the optical hop
    RailLinks links;    // hyperx, dragonfly: the ports reaching t
    bool plus = true;
    const bool entering = packet.phase != 0 && packet.phase != d + 1;
    const bool ring = dim.kind == Kind::kTorus;
    if (!ring) {
      links = s_.links(node, d, t);
    } else {
      const uint32_t c = s_.coord(node, d);
      // Halfway round (the other node of a 2-ring, say) both ways are as short: each flow
      // takes one, fixed by (source, destination), so both directions' circuits carry load.
      const uint32_t ahead = (t + dim.size - c) % dim.size;
      plus = 2 * ahead < dim.size ||
             (2 * ahead == dim.size && (packet.src * 2654435761u ^ packet.dst * 40503u) >> 16 & 1);
      const bool dateline = plus ? c == dim.size - 1 : c == 0;
      step = entering + dateline;
      last = last && (plus ? ahead == 1 : ahead == dim.size - 1);  // one step from t
    }
    const uint32_t count = ring ? static_cast<uint32_t>(dim.rails.size()) : links.size();
    const auto port = [&](uint32_t i) { return ring ? RailPort{dim.rails[i], plus} : links[i]; };
    // The nearest port's chip (Algorithm 1). A packet entering a torus ring from an earlier
    // dimension arrived on an edge line of the node, and the nearest ring ports are on that same
    // edge: every ring entry would pile onto two lines of rails. There the cost also counts the
    // walk from where the circuit lands to the destination chip, so of the equally short ways it
    // takes any line between the arrival's and the destination's, as chip-level dimension order
    // would. (At the source and along a ring the nearest port is on the packet's own line, which
    // keeps the mesh walks of one VC class from joining the two ring directions in a cycle.)
    // Ties go to the first in an order rotated per flow.
    const uint32_t mm = s_.chips_per_node(), dx = packet.dst % mm % s_.m,
                   dy = packet.dst % mm / s_.m;
    const auto dist = [](uint32_t ax, uint32_t ay, uint32_t bx, uint32_t by) {
      return (ax > bx ? ax - bx : bx - ax) + (ay > by ? ay - by : by - ay);
    };
    const bool spread = ring && entering;
    const uint32_t rotate = (packet.src * 2654435761u ^ packet.dst) % count;
    uint32_t best_x = 0, best_y = 0, best = ~0u, best_walk = 0;
    for (uint32_t k = 0; k < count; ++k) {
      const RailPort p = port((k + rotate) % count);
      uint32_t px, py, ax = 0, ay = 0;
      s_.chip_of(dim.axis, p, px, py);
      const uint32_t walk_here = dist(px, py, x, y);
      uint32_t cost = walk_here;
      if (spread) {
        s_.chip_of(dim.axis, RailPort{p.rail, !p.plus}, ax, ay);
        cost += dist(ax, ay, dx, dy);
      }
      if (cost < best) best = cost, best_x = px, best_y = py, best_walk = walk_here;
    }
    if (best_walk > 0) return walk(x, y, best_x, best_y, cls, out);
    const uint8_t vc = fold(o_.delivery && last ? vcs_ - 1u : cls + step);
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t px, py;
      s_.chip_of(dim.axis, port(i), px, py);
      if (px == x && py == y)
        out.add(static_cast<PortId>(s_.rail_port(x, y, dim.axis, port(i))), vc);
    }
    if (detours) detour(node, x, y, d, t, vc, out);
  }

  // This chip's other ports of hyperx dimension d: each leads to a node of the line that is
  // neither this one nor the target coordinate t.
  void detour(uint32_t node, uint32_t x, uint32_t y, uint32_t d, uint32_t t, uint8_t vc,
              Candidates& out) const {
    const Axis axis = s_.dims[d].axis;
    for (const bool plus : {true, false}) {
      uint32_t first = 0;
      for (uint32_t i = 0, count = s_.rails_at(x, y, axis, plus, first); i < count; ++i) {
        const RailPort p{static_cast<uint16_t>(first + i), plus};
        if (s_.rail_dim[axis][p.rail] != static_cast<int16_t>(d)) continue;
        if (s_.coord(s_.far_node(node, axis, p), d) == t) continue;
        out.add(static_cast<PortId>(s_.rail_port(x, y, axis, p)), vc, true, o_.penalty);
      }
    }
  }

  // One mesh hop from (x, y) towards (tx, ty) on VC vc.
  void walk(uint32_t x, uint32_t y, uint32_t tx, uint32_t ty, uint8_t vc, Candidates& out) const {
    const auto hop = [&](uint32_t dir) {
      out.add(static_cast<PortId>(s_.mesh_port(x, y, dir)), vc);
    };
    if (o_.mesh == MeshRouting::kDor) return hop(tx > x ? 0 : tx < x ? 1 : ty > y ? 2 : 3);
    if (tx > x) hop(0);
    if (tx < x) hop(1);
    if (ty < y) hop(3);
    if (out.empty()) hop(2);  // north only when it is the last direction left
  }

  uint8_t fold(uint32_t vc) const { return static_cast<uint8_t>(std::min<uint32_t>(vc, vcs_ - 1)); }

  Shape s_;
  RoutingOptions o_;
  uint32_t hops_;  // adaptive: a
  uint8_t vcs_;
};

// With alternative configurations (shape.h): one RailRouting per pair of X and Y configurations,
// all on the same VCs. A packet routes in the pair it was given at its first router, kept in
// route_aux: the X configuration of its source row (its X hops stay in that row) and the Y
// configuration of its destination's column (its Y hops are in that column), live then or being
// switched to. A packet whose circuits are switched away while it heads for them is lost at
// their rail chip, as on any failed link, and so is one that reaches the new circuits before
// they settle. Moving it to the new configuration instead would turn some mesh walks back on
// themselves (the two configurations' rail ports sit on different chips): a channel dependency
// cycle `hxsim verify` finds. Each configuration's mesh walks are dimension order, whatever the
// target chip, so the union of the configurations' graphs stays acyclic.
class SwitchedRouting final : public Routing {
 public:
  SwitchedRouting(const std::vector<Shape>& shapes, uint32_t ys, const Elements& elements,
                  RoutingOptions options)
      : s_(shapes[0]), ys_(ys), elements_(elements) {
    if (options.vc_limit == 0) {
      for (const Shape& s : shapes) {
        options.vc_limit = std::max(options.vc_limit, needed_vcs(s, options));
      }
    }
    for (const Shape& s : shapes) plans_.push_back(std::make_unique<RailRouting>(s, options));
  }

  std::string name() const override { return plans_[0]->name(); }
  uint8_t vcs() const override { return plans_[0]->vcs(); }

  void start(uint32_t router, const RouterView& view, Rng& /*rng*/,
             Packet& packet) const override {
    packet.route_aux = live(router, view, packet);
  }
  void start_states(uint32_t router, const RouterView* view, const Packet& packet,
                    std::vector<Packet>& out) const override {
    for (uint32_t pair = 0; pair < plans_.size(); ++pair) {
      if (view != nullptr && pair != live(router, *view, packet)) continue;
      out.push_back(packet);
      out.back().route_aux = static_cast<uint8_t>(pair);
    }
  }
  void route(uint32_t router, PortId in_port, Packet& packet, Candidates& out) const override {
    plans_[packet.route_aux]->route(router, in_port, packet, out);
  }
 private:
  uint8_t live(uint32_t router, const RouterView& view, const Packet& packet) const {
    const uint32_t mm = s_.chips_per_node();
    const uint32_t cx = elements_.x < 0 ? 0
                        : view.configuration(static_cast<uint32_t>(elements_.x),
                                             s_.axis_pos(router / mm, kY));
    const uint32_t cy = elements_.y < 0 ? 0
                        : view.configuration(static_cast<uint32_t>(elements_.y),
                                             s_.axis_pos(packet.dst / mm, kX));
    return static_cast<uint8_t>(cx * ys_ + cy);
  }

  Shape s_;
  uint32_t ys_;
  Elements elements_;
  std::vector<std::unique_ptr<RailRouting>> plans_;
};

}  // namespace

uint32_t minimal_hops(const Shape& shape) {
  uint32_t hops = 0;
  for (const Dim& d : shape.dims) {
    hops += d.kind == Kind::kHyperX ? 1 : d.kind == Kind::kDragonfly ? 2 : d.size / 2;
  }
  return hops;
}

uint8_t needed_vcs(const Shape& shape, const RoutingOptions& options) {
  if (options.adaptive) {
    const uint32_t a = options.hops ? options.hops : minimal_hops(shape) + 1;
    return static_cast<uint8_t>(std::min<uint32_t>(a + 1, 255));
  }
  uint32_t classes = options.delivery ? 2 : 1;
  for (uint32_t d = 0; d < shape.dims.size(); ++d) {
    const Kind kind = shape.dims[d].kind;
    classes += kind == Kind::kHyperX ? 1 : kind == Kind::kDragonfly ? 2 : d == 0 ? 1 : 2;
  }
  return static_cast<uint8_t>(std::min<uint32_t>(classes, 255));
}

std::unique_ptr<Routing> make_routing(const std::vector<Shape>& shapes, uint32_t ys,
                                      const Elements& elements, const RoutingOptions& options) {
  if (shapes.size() == 1) return std::make_unique<RailRouting>(shapes[0], options);
  return std::make_unique<SwitchedRouting>(shapes, ys, elements, options);
}

}  // namespace hx::net::railx
