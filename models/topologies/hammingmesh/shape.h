// HammingMesh (Hoefler et al., SC'22) as closed forms: which chip or switch a router is, where
// its ports lead, and how components and links are numbered. Nothing is tabulated, so a
// 200K-chip HxMesh costs a few integers.
//
// Boards. A board is an a x b mesh of chips on a PCB; chip (cx, cy) of board (bx, by) is router
// ((by x + bx) b + cy) a + cx, so boards are contiguous and board-major. Boards form an x-by-y
// grid: x boards per board row, y per board column. Every chip has four network ports, one per
// direction (east +x, west -x, north +y, south -y): to its neighbour on the board, or, on the
// board's edge, to a line network.
//
// Lines. The chips of one global chip row (chip row cy of board row by: "X line" by b + cy) are
// joined across the x boards by a switch network over 2x line ports: port 2 bx is the west edge
// chip (cx = 0) of board bx, port 2 bx + 1 its east edge chip (cx = a - 1). Likewise every global
// chip column (Y line bx a + cx) joins the south (2 by) and north (2 by + 1) edge chips of its y
// boards. A line network is one switch when its 2n ports fit the switch radix k, else a 2-level
// fat tree (LineNet below).
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/ids.h"

namespace hx::net::hammingmesh {

enum Dir : uint8_t { kEast = 0, kWest = 1, kNorth = 2, kSouth = 3 };
enum Axis : uint8_t { kX = 0, kY = 1 };

/// The switches of one line, over `ports` line ports (2 per board). One switch (leaves == 0):
/// its port p is line port p. Otherwise a 2-level fat tree of radix k: leaves = ceil(ports /
/// (k/2)) leaf switches, each over `down` consecutive line ports (the last may have fewer), and
/// `down` spines; leaf l's port i < its down ports is line port l down + i, its port
/// down_ports(l) + j goes to spine j, whose port l comes back. Switches of a line: the leaves,
/// then the spines.
struct LineNet {
  uint32_t ports = 0;
  uint32_t leaves = 0;
  uint32_t down = 0;

  LineNet() = default;
  LineNet(uint32_t line_ports, uint32_t radix) : ports(line_ports) {
    if (ports <= radix) return;
    const uint32_t half = radix / 2;
    leaves = (ports + half - 1) / half;
    down = (ports + leaves - 1) / leaves;  // balanced: every leaf but the last is full
  }
  bool single() const { return leaves == 0; }
  uint32_t switches() const { return single() ? 1 : leaves + down; }
  bool is_leaf(uint32_t s) const { return !single() && s < leaves; }
  uint32_t down_ports(uint32_t leaf) const {
    return std::min(ports, (leaf + 1) * down) - leaf * down;
  }
  uint32_t num_ports(uint32_t s) const {
    if (single()) return ports;
    return s < leaves ? down_ports(s) + down : leaves;
  }
  /// Ports of the switches of the line before switch s (the line's directed links before s's).
  uint32_t ports_before(uint32_t s) const {
    if (single()) return s == 0 ? 0 : ports;
    return s < leaves ? 2 * s * down : ports + leaves * down + (s - leaves) * leaves;
  }
  uint32_t links() const { return ports_before(switches()); }
  /// Switch hops from a line port into the network to another line port: 2 or 4.
  uint32_t diameter() const { return single() ? 2 : 4; }
};

struct Chip {
  uint32_t bx = 0, by = 0, cx = 0, cy = 0;  // board column, board row; chip on the board
};

/// A line switch: its axis, its line (global chip row for X, column for Y), its index in the line.
struct LineSwitch {
  Axis axis = kX;
  uint32_t line = 0;
  uint32_t s = 0;
};

struct Shape {
  uint32_t a = 1, b = 1;  // chips per board along x and y
  uint32_t x = 2, y = 2;  // boards per board row, per board column
  LineNet xnet, ynet;     // every X line's network (2x ports), every Y line's (2y)

  Shape() = default;
  Shape(uint32_t a_in, uint32_t b_in, uint32_t x_in, uint32_t y_in, uint32_t radix)
      : a(a_in), b(b_in), x(x_in), y(y_in), xnet(2 * x_in, radix), ynet(2 * y_in, radix) {}

  uint32_t board_chips() const { return a * b; }
  uint32_t chips() const { return a * b * x * y; }
  uint32_t x_switches() const { return y * b * xnet.switches(); }
  uint32_t y_switches() const { return x * a * ynet.switches(); }
  uint32_t routers() const { return chips() + x_switches() + y_switches(); }

  Chip chip(uint32_t r) const {
    const uint32_t board = r / board_chips(), q = r % board_chips();
    return {board % x, board / x, q % a, q / a};
  }
  uint32_t chip_router(const Chip& c) const { return ((c.by * x + c.bx) * b + c.cy) * a + c.cx; }
  bool is_chip(uint32_t r) const { return r < chips(); }
  /// Router r >= chips(): the X switches by line, then the Y switches by line.
  LineSwitch line_switch(uint32_t r) const {
    const uint32_t i = r - chips();
    if (i < x_switches()) return {kX, i / xnet.switches(), i % xnet.switches()};
    const uint32_t j = i - x_switches();
    return {kY, j / ynet.switches(), j % ynet.switches()};
  }
  uint32_t switch_router(const LineSwitch& w) const {
    return w.axis == kX ? chips() + w.line * xnet.switches() + w.s
                        : chips() + x_switches() + w.line * ynet.switches() + w.s;
  }
  const LineNet& net(Axis axis) const { return axis == kX ? xnet : ynet; }

  // Components. Board row by holds its x boards' chips (each router followed by its endpoint,
  // component 2 i + 1), then the switches of its b X lines; the Y switches follow the last row,
  // board column by board column. So a board row with its X networks is one contiguous range,
  // and only the Y networks' links leave it.
  uint32_t row_chips() const { return x * a * b; }
  uint32_t row_switches() const { return b * xnet.switches(); }
  uint64_t row_span() const { return 2 * uint64_t{row_chips()} + row_switches(); }
  ComponentId y_base() const { return static_cast<ComponentId>(y * row_span()); }
  uint64_t components() const { return y * row_span() + y_switches(); }

  ComponentId router_component(uint32_t r) const {
    if (r < chips()) {
      return static_cast<ComponentId>(r / row_chips() * row_span() + 2 * (r % row_chips()));
    }
    const uint32_t i = r - chips();
    if (i < x_switches()) {
      return static_cast<ComponentId>(i / row_switches() * row_span() + 2 * row_chips() +
                                      i % row_switches());
    }
    return y_base() + (i - x_switches());
  }
  /// Whether component id is an endpoint, and its router (chip or switch).
  uint32_t router_of(ComponentId id, bool& endpoint) const {
    endpoint = false;
    if (id >= y_base()) return chips() + x_switches() + (id - y_base());
    const uint32_t row = static_cast<uint32_t>(id / row_span());
    const uint32_t k = static_cast<uint32_t>(id % row_span());
    if (k >= 2 * row_chips()) return chips() + row * row_switches() + (k - 2 * row_chips());
    endpoint = k % 2 == 1;
    return row * row_chips() + k / 2;
  }

  // Directed links: component order, each component's ports in turn. A chip has 5 ports (its
  // endpoint, then east, west, north, south), its endpoint 1.
  static constexpr uint32_t kChipPorts = 5;
  uint64_t row_links() const {
    return uint64_t{row_chips()} * (kChipPorts + 1) + uint64_t{b} * xnet.links();
  }
  uint64_t first_link(ComponentId id) const {
    bool endpoint = false;
    const uint32_t r = router_of(id, endpoint);
    if (r < chips()) {
      return r / row_chips() * row_links() + uint64_t{r % row_chips()} * (kChipPorts + 1) +
             (endpoint ? kChipPorts : 0);
    }
    const LineSwitch w = line_switch(r);
    if (w.axis == kX) {
      const uint32_t row = w.line / b, line_in_row = w.line % b;
      return row * row_links() + uint64_t{row_chips()} * (kChipPorts + 1) +
             uint64_t{line_in_row} * xnet.links() + xnet.ports_before(w.s);
    }
    return y * row_links() + uint64_t{w.line} * ynet.links() + ynet.ports_before(w.s);
  }
  uint64_t links() const { return y * row_links() + uint64_t{x} * a * ynet.links(); }

  // A chip port: 0 its endpoint, 1 + direction.
  static PortId dir_port(Dir d) { return static_cast<PortId>(1 + d); }
  /// The line a board-edge chip's port in direction d joins, and its line port; false when the
  /// direction leads to a neighbour on the board.
  bool line_port(const Chip& c, Dir d, Axis& axis, uint32_t& line, uint32_t& port) const {
    axis = d == kEast || d == kWest ? kX : kY;
    const bool high = d == kEast || d == kNorth;
    if (axis == kX) {
      if (high ? c.cx + 1 < a : c.cx > 0) return false;
      line = c.by * b + c.cy;
      port = 2 * c.bx + high;
      return true;
    }
    if (high ? c.cy + 1 < b : c.cy > 0) return false;
    line = c.bx * a + c.cx;
    port = 2 * c.by + high;
    return true;
  }
  /// The edge chip behind a line port, and the chip port it uses.
  Chip line_chip(Axis axis, uint32_t line, uint32_t port, PortId& chip_port) const {
    const bool high = port % 2 == 1;
    if (axis == kX) {
      chip_port = dir_port(high ? kEast : kWest);
      return {port / 2, line / b, high ? a - 1 : 0, line % b};
    }
    chip_port = dir_port(high ? kNorth : kSouth);
    return {line / a, port / 2, line % a, high ? b - 1 : 0};
  }
  /// The switch of a line that line port p attaches to, and the port it uses there.
  static uint32_t port_switch(const LineNet& n, uint32_t p, PortId& switch_port) {
    if (n.single()) {
      switch_port = static_cast<PortId>(p);
      return 0;
    }
    switch_port = static_cast<PortId>(p % n.down);
    return p / n.down;
  }
};

}  // namespace hx::net::hammingmesh
