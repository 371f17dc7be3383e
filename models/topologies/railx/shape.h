// RailX's physical architecture and circuit configuration (paper §3.2-3.3) as closed forms and
// small per-dimension tables: which chip owns a rail port, and which node a circuit leads to.
//
// Physical. A node is an m x m mesh of chips; chip (x, y) of node N is router N m^2 + y m + x.
// A node has r = m n rails per axis. X-rail l belongs to chip row l / n: its + port sits on the
// east chip (m-1, l/n), its - port on the west chip (0, l/n). Y-rail l belongs to chip column
// l / n: + on the north chip (l/n, m-1), - on the south chip (l/n, 0). Nodes form an sx x sy
// grid (at most R/2 x R/2), node (X, Y) = X + sx Y. The X-rails of the nodes of one row meet at
// r X-OCSes, one per rail; Y-rails likewise per column (Eq. 1: N_s = r R for the full system).
//
// Logical. Each axis is split into logical dimensions (§3.1 "interface grouping", §3.3.4): a
// row of sx nodes is a mixed-radix grid of sizes S_0 x S_1 ..., and each dimension owns a set of
// the axis's rails. A circuit wires node u's + port to node v's - port on one rail:
//  - torus: every rail of the dimension is a ring u -> u + 1 (mod S) along the dimension;
//  - hyperx: rail t of the dimension is the t mod (S-1)-th Hamiltonian cycle of K*_S (Lemma
//    3.1), so the S nodes of a line are all-to-all, each pair on two rails per S-1 rails;
//  - dragonfly (X only, with one hyperx Y dimension, Table 2): each column of nodes is a group,
//    all-to-all by its Y-rails, and the S groups are joined by the X-rails: rail t of row j is the
//    (j r_x + t) mod (S-1)-th cycle, so the rows take turns through the cycles and, with enough
//    rows x rails, every pair of groups is linked directly in some row.
// Rails are dealt to an axis's dimensions in proportion to their counts (round-robin when the
// counts are equal), so each chip row's n rails hold every dimension's share to within one rail
// and a dimension's ports spread over the node's edge chips rather than crowding a few of them.
//
// Reconfiguration (§5.2). An axis may have alternative configurations: the same line sizes, other
// kinds or rail counts (torus:8 for CP, hyperx:8 for EP). Each configuration's rail ports are
// ports of their own on the chip, in blocks after configuration 0's (Shape::blocks), so every
// configuration is wired all the time and the OCS's switching decides which one carries traffic
// (faults.h). A Shape describes one configuration per axis and knows the whole block layout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hx::net::railx {

enum class Kind : uint8_t { kTorus, kHyperX, kDragonfly };
enum Axis : uint8_t { kX = 0, kY = 1 };

inline const char* kind_name(Kind k) {
  return k == Kind::kTorus ? "torus" : k == Kind::kHyperX ? "hyperx" : "dragonfly";
}

/// One end of a circuit as the node sees it: a rail of an axis, on its + or - side.
struct RailPort {
  uint16_t rail = 0;
  bool plus = true;
};

/// The rail ports of a node at position c of a hyperx or dragonfly line whose circuits reach
/// position v, by increasing rail, + before - on one rail. Closed forms rather than lists (a
/// dragonfly's differ per row): the + port of rail slot t reaches v when t carries the cycle
/// holding arc c -> v, the - port when it carries the one holding v -> c, and the slots carrying
/// one cycle repeat every S-1 rails, so the two progressions interleave.
struct RailLinks {
  const std::vector<uint16_t>* rails = nullptr;  // the dimension's rails (slot -> rail)
  uint32_t period = 1;                           // S - 1
  uint32_t first = 0, second = 0;                // first slot of each progression, first <= second
  bool first_plus = true;
  uint32_t count = 0;

  uint32_t size() const { return count; }
  RailPort operator[](uint32_t i) const {
    const uint32_t slot = (i % 2 == 0 ? first : second) + i / 2 * period;
    return {(*rails)[slot], (i % 2 == 0) == first_plus};
  }
};

/// A logical dimension: a line of `size` nodes along one axis, on `rails` of that axis.
struct Dim {
  Kind kind = Kind::kTorus;
  Axis axis = kX;
  uint32_t size = 0;
  uint32_t stride = 0;          // node position step along the axis
  std::vector<uint16_t> rails;  // the axis's rails this dimension owns, increasing
  // hyperx, dragonfly: the S-1 Hamiltonian cycles of K*_S, next[k][c] = the position after c on
  // cycle k (prev: before), and arc[c * size + v] = the cycle holding the arc c -> v.
  std::vector<std::vector<uint32_t>> next, prev;
  std::vector<uint32_t> arc;

  uint32_t coord(uint32_t axis_pos) const { return axis_pos / stride % size; }
  /// hyperx, dragonfly: the cycle the dimension's t-th rail carries in row `row` (the node's
  /// position on the other axis; only a dragonfly's rows differ).
  uint32_t cycle(uint32_t row, uint32_t t) const {
    const uint64_t shift = kind == Kind::kDragonfly ? uint64_t{row} * rails.size() : 0;
    return static_cast<uint32_t>((shift + t) % next.size());
  }
  /// hyperx, dragonfly: the ports of a node at position c of row `row` that reach v != c.
  RailLinks links(uint32_t row, uint32_t c, uint32_t v) const;
};

struct Shape {
  uint32_t m = 0, n = 0, r = 0;        // mesh side, ports per chip edge, rails per axis (m n)
  uint32_t radix = 0;                  // OCS ports R: at most R/2 nodes per row and column
  uint32_t sx = 1, sy = 1;             // nodes per row (X) and per column (Y)
  std::vector<Dim> dims;               // X dimensions first, then Y
  uint32_t used[2] = {0, 0};           // rails in use per axis: 0 .. used - 1
  std::vector<int16_t> rail_dim[2];    // per axis and rail: owning dimension, or -1
  std::vector<uint16_t> rail_slot[2];  // its index among that dimension's rails

  // The chip's optical ports in blocks, one per (axis, configuration): configuration 0's X then
  // Y rails, then those of the alternatives. Within a block, + ports then - ports, by rail.
  struct Block {
    Axis axis = kX;
    uint32_t used = 0;              // that configuration's used[axis]
    std::vector<int16_t> rail_dim;  // its rail_dim[axis]
  };
  std::vector<Block> blocks;   // one configuration: {X, Y}
  uint32_t block[2] = {0, 1};  // this shape's block of each axis

  /// The shapes of every pair of configurations, cx * ys.size() + cy for X configuration cx and
  /// Y configuration cy, all with one block layout; InputError naming the key if an alternative
  /// changes a line size or is a dragonfly.
  static std::vector<Shape> configurations(uint32_t m, uint32_t n, uint32_t radix,
                                           const std::vector<std::string>& xs,
                                           const std::vector<std::string>& ys);

  /// Parses the per-axis specs ("hyperx:9", "torus:64", "hyperx:8:18,torus:8:18", "none") and
  /// builds the circuits; throws InputError naming the key on anything invalid.
  Shape(uint32_t m, uint32_t n, uint32_t radix, const std::string& x, const std::string& y);

  uint32_t chips_per_node() const { return m * m; }
  uint32_t nodes() const { return sx * sy; }
  uint64_t chips() const { return uint64_t{nodes()} * chips_per_node(); }
  uint32_t axis_pos(uint32_t node, Axis a) const { return a == kX ? node % sx : node / sx; }
  uint32_t coord(uint32_t node, uint32_t d) const {
    return dims[d].coord(axis_pos(node, dims[d].axis));
  }
  /// The node with dimension d's coordinate set to c.
  uint32_t with_coord(uint32_t node, uint32_t d, uint32_t c) const {
    const Dim& dim = dims[d];
    const int64_t step = int64_t{c} - dim.coord(axis_pos(node, dim.axis));
    return static_cast<uint32_t>(node + step * dim.stride * (dim.axis == kX ? 1 : sx));
  }

  /// Rails of axis a present on chip (x, y) on side `plus`, as [first, first + count).
  uint32_t rails_at(uint32_t x, uint32_t y, Axis a, bool plus, uint32_t& first) const {
    return rails_in(x, y, a, plus, used[a], first);
  }
  /// The same for a configuration using `rails` rails of the axis.
  uint32_t rails_in(uint32_t x, uint32_t y, Axis a, bool plus, uint32_t rails,
                    uint32_t& first) const {
    const uint32_t edge = plus ? m - 1 : 0;
    if ((a == kX ? x : y) != edge) return 0;
    first = (a == kX ? y : x) * n;
    return first >= rails ? 0 : std::min(n, rails - first);
  }
  /// The chip (x, y) owning a rail port.
  void chip_of(Axis a, RailPort p, uint32_t& x, uint32_t& y) const {
    const uint32_t line = p.rail / n, edge = p.plus ? m - 1 : 0;
    x = a == kX ? edge : line;
    y = a == kX ? line : edge;
  }

  // Chip ports: 0 its endpoint; then mesh +x, -x, +y, -y where present; then each block's +, -
  // rails present on it (X+, X-, Y+, Y- with one configuration), increasing.
  uint32_t mesh_ports(uint32_t x, uint32_t y) const {
    return (x + 1 < m) + (x > 0) + (y + 1 < m) + (y > 0);
  }
  uint32_t num_ports(uint32_t x, uint32_t y) const;
  /// Port of direction dir (0 +x, 1 -x, 2 +y, 3 -y), which must exist.
  uint32_t mesh_port(uint32_t x, uint32_t y, uint32_t dir) const;
  /// The port of rail port p of axis a in this shape's configuration of the axis.
  uint32_t rail_port(uint32_t x, uint32_t y, Axis a, RailPort p) const {
    const uint32_t first = (a == kX ? y : x) * n;
    return first_port_[((y * m + x) * blocks.size() + block[a]) * 2 + (p.plus ? 0 : 1)] +
           (p.rail - first);
  }
  /// Decodes an optical port of chip (x, y) of any block: its axis, rail port, block and the
  /// logical dimension the rail belongs to; false for the endpoint and mesh ports.
  bool port_rail(uint32_t x, uint32_t y, uint32_t port, Axis& a, RailPort& p, uint32_t& b,
                 int16_t& dim) const {
    const uint32_t q = y * m + x;
    if (port >= ports_[q + 1] - ports_[q]) return false;
    const PortRail& entry = port_rails_[ports_[q] + port];
    if (entry.dim == kNotRail) return false;
    a = static_cast<Axis>(entry.axis);
    p = {entry.rail, entry.plus != 0};
    b = entry.block;
    dim = entry.dim;
    return true;
  }
  /// Tabulates the chips' ports (rail_port, port_rail: a hop decodes its port by a look-up);
  /// called whenever blocks change.
  void index_ports();

 private:
  // Per chip position q = y m + x: its ports from ports_[q], each as a rail port or not.
  static constexpr int16_t kNotRail = -2;
  struct PortRail {
    int16_t dim = kNotRail;  // the logical dimension (-1: a rail no dimension uses)
    uint16_t rail = 0;
    uint8_t block = 0, axis = 0, plus = 0;
  };
  std::vector<uint32_t> ports_;  // m^2 + 1 offsets into port_rails_
  std::vector<PortRail> port_rails_;
  std::vector<uint32_t> first_port_;  // (q, block, side): the side's first port on chip q

 public:
  /// The node a rail port's circuit reaches.
  uint32_t far_node(uint32_t node, Axis a, RailPort p) const;
  /// Where the circuit of rail port p of `node` (this shape's configuration) lands: the router
  /// and its port.
  void far_end(uint32_t node, Axis a, RailPort p, uint32_t& router, uint32_t& port) const {
    const RailPort there{p.rail, !p.plus};
    uint32_t px, py;
    chip_of(a, there, px, py);
    router = far_node(node, a, p) * chips_per_node() + py * m + px;
    port = rail_port(px, py, a, there);
  }
  /// Directed link ids (Topology::first_link): node by node; inside one, chip by chip, the
  /// chip's ports, then its endpoint's port 0. The first of router `router`'s.
  uint64_t first_link(uint32_t router) const {
    const uint32_t mm = chips_per_node(), q = router % mm;
    return uint64_t{router / mm} * links_per_node() + ports_[q] + q;
  }
  uint64_t links_per_node() const { return ports_[m * m] + m * m; }
  /// hyperx, dragonfly dimension d: the rail ports of `node` whose circuits reach coordinate v.
  RailLinks links(uint32_t node, uint32_t d, uint32_t v) const {
    const Dim& dim = dims[d];
    return dim.links(axis_pos(node, dim.axis == kX ? kY : kX), coord(node, d), v);
  }
};

}  // namespace hx::net::railx
