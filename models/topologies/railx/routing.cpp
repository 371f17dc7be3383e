// Minimal routing, as closed forms of the packet's place and destination:
//
// Path (Algorithm 1, generalised). Logical dimensions are corrected in order, X's before Y's.
// In the first unaligned dimension d the next node is the destination's coordinate (hyperx) or
// one step along the shorter way round (torus; halfway round, a way fixed per flow). Of the
// node's rail ports whose circuit reaches that node, the packet heads for the nearest on the
// mesh ("the nearest chip links"); ties are broken by a rotation fixed per (source, destination),
// which spreads flows over equally near rails and keeps the target stable while the packet walks
// towards it (each mesh hop brings it one closer, so no other port can overtake it). At that chip
// every port of it that reaches the next node is a candidate. In a hyperx or dragonfly dimension
// two other choices exist (option `rail`): `shortest` counts the walk from where the circuit
// lands to the destination chip too, `spread` takes the first port of the rotated order however
// far it is. Either keeps the target fixed along the walk, and any choice is deadlock-free
// there: the walk stays inside one node, in one class, in dimension order or north-last.
// Inside the destination node the
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
// Around failed chips and rails (start, under a fault schedule). A packet's first router
// follows its minimal route over the links live then; if a link on it is down, it tries other
// routes of the same kind and keeps the first that is live, in route_data: per axis, the side
// of its hops (a torus ring's way round, the long way included; a hyperx's + or - ports) and,
// where it enters a Y dimension from an X one, the chip column it leaves from. A ring is still
// walked forward and crosses its dateline at most once. The walks at the source and along a
// ring stay straight: in VC class 0 a walk towards a port of another line would share mesh
// links with the deliveries of the ring's other direction (a +Y delivery walks along the south
// edge row, where a -Y source walk to another column would go on to a -Y port), joining the
// ring's two directions in a cycle `hxsim verify` finds. The entering walk may take any column
// because its Y hop is in the next class, so in its own class it leads only out. So the
// argument above holds for every choice, and `hxsim verify` checks each fault state's. A
// packet with no live choice takes its minimal route and is lost where it meets the failure,
// as is one whose route fails after it started.
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
        vcs_(o_.vc_limit ? o_.vc_limit : needed_vcs(shape, options)) {
    for (const Dim& d : s_.dims) {
      std::vector<Line>& lines = lines_.emplace_back();
      for (uint32_t i = 0; d.kind == Kind::kTorus && i < d.rails.size(); ++i) {
        const uint32_t line = d.rails[i] / s_.n;
        if (lines.empty() || lines.back().line != line) lines.push_back({line, i, i});
        lines.back().last = i + 1;
      }
    }
  }

  std::string name() const override { return o_.adaptive ? "adaptive" : "minimal"; }
  uint8_t vcs() const override { return vcs_; }
  bool detours() const override { return o_.adaptive; }
  // Each route searches the node's rail ports for the nearest (Algorithm 1): a RailX
  // collective's heads, short of credits, were routed about ten times per hop.
  bool keep_candidates() const override { return true; }

  void start(uint32_t router, const RouterView& view, Rng& /*rng*/, Packet& packet) const override {
    plan(router, view, packet);
  }
  void start_states(uint32_t router, const RouterView* view, const Packet& packet,
                    std::vector<Packet>& out) const override {
    out.push_back(packet);
    if (view != nullptr) plan(router, *view, out.back());
  }

  // The packet's route around failed links (the header comment), in route_data: the X choice
  // (a side: 0 either, 1 +, 2 -) + 3 x the Y choice (Choice); 0 is the minimal route. For each
  // X choice that gets the packet past its X hops, the Y choices in turn.
  void plan(uint32_t router, const RouterView& view, Packet& packet) const {
    packet.route_data = 0;
    if (!view.any_faults()) return;
    Reach reach = reaches(router, packet, view);
    if (reach == Reach::kReached) return;
    // Chip r's endpoint is endpoint r, on the chip's port 0: with it down nothing reaches it.
    if (!view.link_up(s_.first_link(packet.dst))) return;
    const uint32_t m = s_.m, rotate = packet.src * 2654435761u ^ packet.dst;
    for (uint32_t i = 0; i < 3; ++i) {
      const uint32_t x = i == 0 ? 0 : 1 + (i - 1 + rotate) % 2;
      packet.route_data = x;
      if (i > 0) reach = reaches(router, packet, view);
      if (reach == Reach::kReached) return;
      if (reach == Reach::kLostOnX) continue;
      // The lines with either side, then with each side.
      for (uint32_t j = 1; j <= 3 * m; ++j) {
        const uint32_t y =
            j <= m ? 1 + (j - 1 + rotate / 7) % m : 1 + m + (j - 1 - m + rotate / 7) % (2 * m);
        packet.route_data = x + 3 * y;
        if (reaches(router, packet, view) == Reach::kReached) return;
      }
    }
    packet.route_data = 0;
  }

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

  // A route around failed links on an axis (the header comment): the side of its hops and, on
  // entering a Y dimension from an X one, the line (chip column) it takes them from. In
  // route_data: X 0 (either side), 1 + or 2 -; Y 0 (either side, any line) or 1 + line + m side.
  struct Choice {
    uint32_t line = kAny;
    uint32_t side = 0;  // 0 either, 1 +, 2 -
  };
  static constexpr uint32_t kAny = ~0u;
  Choice choice(const Packet& packet, Axis axis) const {
    if (axis == kX) return Choice{kAny, packet.route_data % 3};
    const uint32_t c = packet.route_data / 3;
    return c == 0 ? Choice{} : Choice{(c - 1) % s_.m, (c - 1) / s_.m};
  }

  // Towards coordinate t in dimension d; `last`: d is the only dimension left to correct.
  void leave(uint32_t node, uint32_t x, uint32_t y, uint32_t d, uint32_t t, bool last, uint8_t cls,
             bool detours, const Packet& packet, Candidates& out) const {
    const Dim& dim = s_.dims[d];
    uint32_t step = 1;  // class increment of the optical hop
    RailLinks links;    // hyperx, dragonfly: the ports reaching t
    bool plus = true;
    const bool entering = packet.phase != 0 && packet.phase != d + 1;
    Choice chosen = choice(packet, dim.axis);
    if (!entering) chosen.line = kAny;  // walks at the source and along a ring stay straight
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
      if (chosen.side != 0) plus = chosen.side == 1;
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
    // Where the walk from the landing chip counts: a ring entered from an earlier dimension,
    // or any hyperx or dragonfly hop with rail choice `shortest`; `spread` counts no walk.
    const bool spread = ring ? entering : o_.rail == RailChoice::kShortest;
    const bool any_port = !ring && o_.rail == RailChoice::kSpread;
    const uint32_t rotate = (packet.src * 2654435761u ^ packet.dst) % count;
    // A route around failed links takes the ports of its line and side, if any reaches t.
    const auto chosen_port = [&](RailPort p) {
      return (chosen.line == kAny || p.rail / s_.n == chosen.line) &&
             (chosen.side == 0 || p.plus == (chosen.side == 1));
    };
    // The walk to port p's chip, plus (spread) the walk from where its circuit lands.
    const auto cost_of = [&](RailPort p, uint32_t& px, uint32_t& py, uint32_t& walk_here) {
      s_.chip_of(dim.axis, p, px, py);
      walk_here = dist(px, py, x, y);
      if (any_port) return 0u;
      if (!spread) return walk_here;
      uint32_t ax, ay;
      s_.chip_of(dim.axis, RailPort{p.rail, !p.plus}, ax, ay);
      return walk_here + dist(ax, ay, dx, dy);
    };
    uint32_t best_x = 0, best_y = 0, best = ~0u, best_walk = 0;
    uint32_t best_rank = 0;
    for (const bool only_chosen : {true, false}) {
      if (best != ~0u) break;
      if (ring) {
        // The same search a line at a time: a ring's ports on one line are one chip's, a run
        // of the dimension's rails, and the line's place in the rotated order is its first
        // rail's there.
        for (const Line& l : lines_[d]) {
          if (only_chosen && chosen.line != kAny && l.line != chosen.line) continue;
          uint32_t px, py, walk_here;
          const uint32_t cost = cost_of(RailPort{dim.rails[l.first], plus}, px, py, walk_here);
          const uint32_t rank =
              rotate >= l.first && rotate < l.last ? 0 : (l.first + count - rotate) % count;
          if (cost < best || (cost == best && rank < best_rank)) {
            best = cost, best_rank = rank, best_x = px, best_y = py, best_walk = walk_here;
          }
        }
        continue;
      }
      for (uint32_t k = 0; k < count; ++k) {
        const RailPort p = port((k + rotate) % count);
        if (only_chosen && !chosen_port(p)) continue;
        uint32_t px, py, walk_here;
        const uint32_t cost = cost_of(p, px, py, walk_here);
        if (cost < best) best = cost, best_x = px, best_y = py, best_walk = walk_here;
      }
    }
    if (best_walk > 0) return walk(x, y, best_x, best_y, cls, out);
    const uint8_t vc = fold(o_.delivery && last ? vcs_ - 1u : cls + step);
    if (ring) {  // this chip's line of the dimension's rails
      for (const Line& l : lines_[d]) {
        if (l.line != (dim.axis == kX ? y : x)) continue;
        for (uint32_t i = l.first; i < l.last; ++i) {
          out.add(static_cast<PortId>(s_.rail_port(x, y, dim.axis, port(i))), vc);
        }
      }
      return;
    }
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

  // Whether `packet`, from its first router, reaches its destination over the links `view`
  // shows up, taking the first live candidate at each router (a minimal route's candidates at a
  // router all lead to the same chip); if not, whether it was lost before its X hops were done.
  enum class Reach { kReached, kLostOnX, kLostOnY };
  Reach reaches(uint32_t router, Packet packet, const RouterView& view) const {
    PortId in = 0;
    packet.vc = 0;
    packet.phase = 0;
    Candidates out;
    // Optical hops (a ring the long way round: S - 1) with a walk of at most 2m mesh hops
    // before each and after the last.
    uint32_t hops = 1;
    for (const Dim& d : s_.dims) hops += d.kind == Kind::kTorus ? d.size : 2;
    for (uint32_t step = 0; step < hops * (2 * s_.m + 1); ++step) {
      out.clear();
      route(router, in, packet, out);
      const uint64_t first = s_.first_link(router);
      const Candidate* live = nullptr;
      for (const Candidate& c : out) {
        if (view.link_up(first + c.port)) {
          live = &c;
          break;
        }
      }
      if (live == nullptr) return on_x(router, packet.dst) ? Reach::kLostOnX : Reach::kLostOnY;
      if (live->port == 0) return Reach::kReached;  // the destination endpoint's port
      packet.vc = live->vc;
      next(router, live->port, router, in);
    }
    return Reach::kLostOnY;
  }

  // Whether a packet at `router` still has X dimensions to correct.
  bool on_x(uint32_t router, uint32_t dst) const {
    const uint32_t mm = s_.chips_per_node();
    for (uint32_t d = 0; d < s_.dims.size(); ++d) {
      if (s_.dims[d].axis == kX && s_.coord(router / mm, d) != s_.coord(dst / mm, d)) return true;
    }
    return false;
  }

  // The router and port a link from `port` of `router` arrives at.
  void next(uint32_t router, PortId port, uint32_t& to, PortId& in) const {
    const uint32_t mm = s_.chips_per_node(), node = router / mm, x = router % mm % s_.m,
                   y = router % mm / s_.m;
    Axis axis;
    RailPort rail;
    uint32_t block, far = 0, far_port = 0;
    int16_t dim;
    if (s_.port_rail(x, y, port, axis, rail, block, dim)) {
      s_.far_end(node, axis, rail, far, far_port);
      to = far;
      in = static_cast<PortId>(far_port);
      return;
    }
    const bool present[4] = {x + 1 < s_.m, x > 0, y + 1 < s_.m, y > 0};
    const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
    for (uint32_t dir = 0; dir < 4; ++dir) {
      if (!present[dir] || s_.mesh_port(x, y, dir) != port) continue;
      const auto qx = static_cast<uint32_t>(static_cast<int>(x) + dx[dir]),
                 qy = static_cast<uint32_t>(static_cast<int>(y) + dy[dir]);
      to = node * mm + qy * s_.m + qx;
      in = static_cast<PortId>(s_.mesh_port(qx, qy, dir ^ 1));
      return;
    }
  }

  Shape s_;
  RoutingOptions o_;
  uint32_t hops_;  // adaptive: a
  uint8_t vcs_;
  // Per torus dimension, its rails by line (chip row of an X rail, column of a Y rail): the
  // indices [first, last) into Dim::rails.
  struct Line {
    uint32_t line, first, last;
  };
  std::vector<std::vector<Line>> lines_;
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
  bool detours() const override { return plans_[0]->detours(); }
  bool keep_candidates() const override { return true; }

  void start(uint32_t router, const RouterView& view, Rng& /*rng*/, Packet& packet) const override {
    packet.route_aux = live(router, view, packet);
    plans_[packet.route_aux]->plan(router, view, packet);
  }
  void start_states(uint32_t router, const RouterView* view, const Packet& packet,
                    std::vector<Packet>& out) const override {
    for (uint32_t pair = 0; pair < plans_.size(); ++pair) {
      if (view != nullptr && pair != live(router, *view, packet)) continue;
      out.push_back(packet);
      out.back().route_aux = static_cast<uint8_t>(pair);
      if (view != nullptr) plans_[pair]->plan(router, *view, out.back());
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
