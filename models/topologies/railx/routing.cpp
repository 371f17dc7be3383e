// Minimal routing, as closed forms of the packet's place and destination:
//
// Path (Algorithm 1, generalised). Logical dimensions are corrected in order, X's before Y's.
// In the first unaligned dimension d the next node is the destination's coordinate (hyperx) or
// one step along the shorter way round (torus, ties to +). Of the node's rail ports whose
// circuit reaches that node, the packet heads for the nearest on the mesh ("the nearest chip
// links"); ties are broken by a rotation fixed per (source, destination), which spreads flows
// over equally near rails and keeps the target stable while the packet walks towards it (each
// mesh hop brings it one closer, so no other port can overtake it). At that chip every port of
// it that reaches the next node is a candidate. Inside the destination node the packet walks
// the mesh to its chip. Mesh walks are dimension order (x first) or north-last (every productive
// move but north, north only last: Glass & Ni's turn model), on one VC class.
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
#include "models/topologies/railx/routing.h"

#include <algorithm>
#include <string>

namespace hx::net::railx {
namespace {

class MinimalRouting final : public Routing {
 public:
  MinimalRouting(const Shape& shape, const RoutingOptions& options)
      : s_(shape), o_(options), vcs_(o_.vc_limit ? o_.vc_limit : needed_vcs(shape)) {}

  std::string name() const override { return "minimal"; }
  uint8_t vcs() const override { return vcs_; }

  void route(uint32_t router, PortId in_port, Packet& packet, Candidates& out) const override {
    const uint32_t mm = s_.chips_per_node(), node = router / mm, x = router % mm % s_.m,
                   y = router % mm / s_.m;
    Axis axis;
    RailPort arrived;
    if (s_.port_rail(x, y, in_port, axis, arrived)) {
      packet.phase = static_cast<uint8_t>(s_.rail_dim[axis][arrived.rail] + 1);
    }
    const uint8_t cls = in_port == 0 ? 0 : packet.vc;  // injected on any VC, in class 0
    const uint32_t dst_node = packet.dst / mm;
    for (uint32_t d = 0; d < s_.dims.size(); ++d) {
      if (s_.coord(node, d) != s_.coord(dst_node, d)) return leave(node, x, y, d, cls, packet, out);
    }
    const uint32_t dx = packet.dst % mm % s_.m, dy = packet.dst % mm / s_.m;
    if (dx == x && dy == y) {
      for (uint8_t vc = 0; vc < vcs_; ++vc) out.add(0, vc);
      return;
    }
    walk(x, y, dx, dy, cls, out);
  }

 private:
  // Towards the next node in dimension d.
  void leave(uint32_t node, uint32_t x, uint32_t y, uint32_t d, uint8_t cls, const Packet& packet,
             Candidates& out) const {
    const Dim& dim = s_.dims[d];
    const uint32_t c = s_.coord(node, d), t = s_.coord(packet.dst / s_.chips_per_node(), d);
    uint32_t step = 1;  // class increment of the optical hop
    const std::vector<RailPort>* hyperx = nullptr;
    bool plus = true;
    const bool entering = packet.phase != 0 && packet.phase != d + 1;
    if (dim.kind == Kind::kHyperX) {
      hyperx = &dim.links[uint64_t{c} * dim.size + t];
    } else {
      plus = (t + dim.size - c) % dim.size <= dim.size / 2;
      const bool dateline = plus ? c == dim.size - 1 : c == 0;
      step = entering + dateline;
    }
    const uint32_t count =
        hyperx ? static_cast<uint32_t>(hyperx->size()) : static_cast<uint32_t>(dim.rails.size());
    const auto port = [&](uint32_t i) {
      return hyperx ? (*hyperx)[i] : RailPort{dim.rails[i], plus};
    };
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
    const bool spread = !hyperx && entering;
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
    const uint8_t vc = fold(cls + step);
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t px, py;
      s_.chip_of(dim.axis, port(i), px, py);
      if (px == x && py == y)
        out.add(static_cast<PortId>(s_.rail_port(x, y, dim.axis, port(i))), vc);
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
  uint8_t vcs_;
};

}  // namespace

uint8_t needed_vcs(const Shape& shape) {
  uint32_t classes = 1;
  for (uint32_t d = 0; d < shape.dims.size(); ++d) {
    classes += shape.dims[d].kind == Kind::kHyperX ? 1 : d == 0 ? 1 : 2;
  }
  return static_cast<uint8_t>(std::min<uint32_t>(classes, 255));
}

std::unique_ptr<Routing> make_routing(const Shape& shape, const RoutingOptions& options) {
  return std::make_unique<MinimalRouting>(shape, options);
}

}  // namespace hx::net::railx
