// Minimal routing on a HammingMesh, as closed forms of the packet's place and destination.
//
// Path. Dimension order on global chip coordinates, X first. On the source board the packet
// walks along its chip row to the board edge nearer to it (west or east) and takes the X line
// network to the destination's board column; the network delivers it to that board's west or
// east edge chip, whichever is nearer the destination's chip column, and it walks along the row
// to that column. (Boards in the same board column: just the walk.) Y is the same along the
// chip column: walk to the nearer south or north edge, the Y line network to the destination's
// board row, in at the edge nearer the destination chip, walk to it. A chip in the middle of an
// odd-sized board is as near to both edges: each flow takes one, fixed by a hash of (source,
// destination), so both edges' ports carry load; the same for the edge a line network delivers
// to. In a 2-level line network the packet climbs to the spine d-mod-k picks (the destination
// line port modulo the spines), so flows to different ports of one leaf never share a down link.
// Nothing is adaptive: the route is a function of the packet's place and (source, destination).
//
// VCs. A packet's class is the number of line networks it has entered: 0 on its source board,
// 1 after the first (X, or Y when the boards share a column), 2 after the second. The class is
// raised on the link from the edge chip into the network and kept through it and on the board
// walks that follow, so it is the VC a packet arrived on (from its endpoint: 0). Within one
// class the channels form no cycle: the board walks are dimension order (row, then column)
// and never turn back, a line network is entered only from a lower class and left down to a
// board, and a walk after a network ends at the destination or at the next network, which is
// in the next class. So 3 VCs suffice and `hxsim verify` finds them acyclic. With 2 the second
// and third classes share a VC, and on boards of 3 or more chips along Y the channel graph has a
// cycle: a column walk after an X network (class 1) joins the Y network's down link on one
// board edge to its up link on the other, board after board (docs/validation/hammingmesh.md).
#include "models/topologies/hammingmesh/routing.h"

#include <algorithm>
#include <string>

namespace hx::net::hammingmesh {
namespace {

// Bits of a mix of (source, destination) that break the ties of one flow: bit 0 the X exit
// edge, 1 the X entry edge, 2 the Y exit edge, 3 the Y entry edge.
uint32_t flow_bits(uint32_t src, uint32_t dst) {
  uint64_t h = (uint64_t{src} << 32 | dst) * 0x9E3779B97F4A7C15ULL;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ULL;
  return static_cast<uint32_t>(h >> 40);
}

// The board edge nearer to position c of 0..size-1: false the low one (west, south), true the
// high one; as near to both (the middle, or a board one chip wide): the flow's bit.
bool high_edge(uint32_t c, uint32_t size, bool tie) {
  const uint32_t low = c, high = size - 1 - c;
  return low == high ? tie : high < low;
}

class MinimalRouting final : public Routing {
 public:
  MinimalRouting(const Shape& shape, uint8_t vcs) : s_(shape), vcs_(vcs) {}

  std::string name() const override { return "minimal"; }
  uint8_t vcs() const override { return vcs_; }

  void route(uint32_t router, PortId in_port, Packet& packet, Candidates& out) const override {
    const Chip d = s_.chip(packet.dst);
    const uint32_t bits = flow_bits(packet.src, packet.dst);
    if (!s_.is_chip(router)) return through_line(s_.line_switch(router), d, bits, packet, out);
    const Chip c = s_.chip(router);
    const uint8_t cls = in_port == 0 ? 0 : packet.vc;  // injected on any VC, in class 0
    if (c.bx != d.bx) return leave(c.cx, s_.a, bits & 1, kEast, kWest, cls, out);
    if (c.cx != d.cx) return out.add(Shape::dir_port(d.cx > c.cx ? kEast : kWest), cls);
    if (c.by != d.by) return leave(c.cy, s_.b, bits >> 2 & 1, kNorth, kSouth, cls, out);
    if (c.cy != d.cy) return out.add(Shape::dir_port(d.cy > c.cy ? kNorth : kSouth), cls);
    for (uint8_t vc = 0; vc < vcs_; ++vc) out.add(0, vc);
  }

 private:
  // Towards the nearer edge of the board along one axis (position c of size), and into the line
  // network there, one class up.
  void leave(uint32_t c, uint32_t size, bool tie, Dir high, Dir low, uint8_t cls,
             Candidates& out) const {
    const bool up = high_edge(c, size, tie);
    const Dir dir = up ? high : low;
    const bool at_edge = up ? c + 1 == size : c == 0;
    out.add(Shape::dir_port(dir), at_edge ? fold(cls + 1) : cls);
  }

  // Inside a line network: to the line port of the destination's board on the edge nearer the
  // destination chip.
  void through_line(const LineSwitch& w, const Chip& d, uint32_t bits, const Packet& packet,
                    Candidates& out) const {
    const LineNet& n = s_.net(w.axis);
    const uint32_t p = w.axis == kX ? 2 * d.bx + high_edge(d.cx, s_.a, bits >> 1 & 1)
                                    : 2 * d.by + high_edge(d.cy, s_.b, bits >> 3 & 1);
    if (n.single()) return out.add(static_cast<PortId>(p), packet.vc);
    const uint32_t leaf = p / n.down;
    if (!n.is_leaf(w.s)) return out.add(static_cast<PortId>(leaf), packet.vc);  // a spine
    if (w.s == leaf) return out.add(static_cast<PortId>(p % n.down), packet.vc);
    out.add(static_cast<PortId>(n.down_ports(w.s) + p % n.down), packet.vc);  // up, d-mod-k
  }

  uint8_t fold(uint32_t cls) const {
    return static_cast<uint8_t>(std::min<uint32_t>(cls, vcs_ - 1));
  }

  Shape s_;
  uint8_t vcs_;
};

}  // namespace

std::unique_ptr<Routing> make_minimal_routing(const Shape& shape, uint8_t vc_limit) {
  return std::make_unique<MinimalRouting>(shape, vc_limit ? vc_limit : kMinimalClasses);
}

uint32_t minimal_diameter(const Shape& shape) {
  return 2 * ((shape.a - 1) / 2) + shape.xnet.diameter() + 2 * ((shape.b - 1) / 2) +
         shape.ynet.diameter();
}

}  // namespace hx::net::hammingmesh
