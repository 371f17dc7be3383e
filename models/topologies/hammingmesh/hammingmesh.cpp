// HammingMesh topology (shape.h has the numbering and the line networks; routing.cpp the rules).
//
// Partition levels: "board row" (a row of boards with the switches of its X lines, then the
// switches of the Y lines of each board column), "board" (a board's chips, or one switch),
// "router" (a chip with its endpoint, or one switch). Cutting at board rows cuts only Y-line
// links, which are long-reach (switch_latency), so the lookahead is large. Endpoint groups are
// the boards; endpoint coordinates (cx, cy, bx, by), sizes of 1 left out.
//
// Link classes: "endpoint" (a chip's injection link), "board" (the PCB mesh: board_latency,
// board_speed), "xnet" and "ynet" (edge chips to line switches and switch to switch:
// switch_latency, switch_speed).
#include "models/topologies/hammingmesh/hammingmesh.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "models/network/packet.h"
#include "models/topologies/hammingmesh/routing.h"
#include "models/topologies/hammingmesh/shape.h"

namespace hx::net {
namespace {

using hammingmesh::Axis;
using hammingmesh::Chip;
using hammingmesh::Dir;
using hammingmesh::LineNet;
using hammingmesh::LineSwitch;
using hammingmesh::Shape;

constexpr uint16_t kEndpointClass = 0;
constexpr uint16_t kBoardClass = 1;
constexpr uint16_t kXNetClass = 2;
constexpr uint16_t kYNetClass = 3;

std::string net_text(const LineNet& n) {
  if (n.single()) return "1 switch of " + std::to_string(n.ports) + " ports";
  return "2-level fat tree of " + std::to_string(n.leaves) + " leaves and " +
         std::to_string(n.down) + " spines";
}

class HammingMesh final : public Topology {
 public:
  HammingMesh(const Shape& shape, std::vector<LinkClass> classes)
      : s_(shape), classes_(std::move(classes)) {}

  std::string describe() const override {
    return "hammingmesh a=" + std::to_string(s_.a) + " b=" + std::to_string(s_.b) +
           " x=" + std::to_string(s_.x) + " y=" + std::to_string(s_.y) + ": " +
           std::to_string(s_.chips()) + " chips on " + std::to_string(s_.x * s_.y) + " boards, " +
           std::to_string(s_.y * s_.b) + " X lines of " + net_text(s_.xnet) + ", " +
           std::to_string(s_.x * s_.a) + " Y lines of " + net_text(s_.ynet) + ", " +
           std::to_string(s_.x_switches() + s_.y_switches()) + " switches";
  }
  uint32_t num_routers() const override { return s_.routers(); }
  uint32_t num_endpoints() const override { return s_.chips(); }

  Node node(ComponentId id) const override {
    bool endpoint = false;
    const uint32_t r = s_.router_of(id, endpoint);
    return {endpoint ? NodeKind::kEndpoint : NodeKind::kRouter, r};
  }
  ComponentId router_component(uint32_t router) const override {
    return s_.router_component(router);
  }
  ComponentId endpoint_component(uint32_t e) const override { return s_.router_component(e) + 1; }
  uint32_t endpoint_router(uint32_t endpoint) const override { return endpoint; }

  void ports(ComponentId id, std::vector<PortSpec>& out) const override {
    bool endpoint = false;
    const uint32_t r = s_.router_of(id, endpoint);
    const SimTime terminal = classes_[kEndpointClass].latency;
    if (endpoint) {
      out.push_back({id - 1, 0, terminal, kEndpointClass});
      return;
    }
    if (!s_.is_chip(r)) return switch_ports(s_.line_switch(r), out);
    out.push_back({id + 1, 0, terminal, kEndpointClass});
    const Chip c = s_.chip(r);
    for (uint8_t d = 0; d < 4; ++d) {
      const auto dir = static_cast<Dir>(d);
      Axis axis;
      uint32_t line = 0, port = 0;
      if (!s_.line_port(c, dir, axis, line, port)) {  // a neighbour on the board
        Chip n = c;
        if (dir == hammingmesh::kEast) ++n.cx;
        if (dir == hammingmesh::kWest) --n.cx;
        if (dir == hammingmesh::kNorth) ++n.cy;
        if (dir == hammingmesh::kSouth) --n.cy;
        out.push_back({s_.router_component(s_.chip_router(n)),
                       Shape::dir_port(static_cast<Dir>(d ^ 1)), classes_[kBoardClass].latency,
                       kBoardClass});
        continue;
      }
      PortId switch_port = 0;
      const uint32_t sw = Shape::port_switch(s_.net(axis), port, switch_port);
      out.push_back(line_link(axis, s_.switch_router({axis, line, sw}), switch_port));
    }
  }

  uint64_t first_link(ComponentId id) const override { return s_.first_link(id); }
  uint64_t num_links() const override { return s_.links(); }

  std::vector<GroupLevel> group_levels() const override {
    const uint64_t row_groups = uint64_t{s_.y} + s_.x;
    const uint64_t boards = uint64_t{s_.y} * (s_.x + s_.row_switches()) + s_.y_switches();
    return {{"board row", row_groups}, {"board", boards}, {"router", s_.routers()}};
  }
  ComponentRange group_range(std::size_t level, uint64_t group) const override {
    const uint64_t span = s_.row_span(), chip_span = 2 * uint64_t{s_.row_chips()};
    uint64_t begin = 0, size = 1;
    if (level == 0) {
      const uint64_t column_switches = uint64_t{s_.a} * s_.ynet.switches();
      begin = group < s_.y ? group * span : s_.y_base() + (group - s_.y) * column_switches;
      size = group < s_.y ? span : column_switches;
    } else {
      // Per board row: its boards (level 1) or chips (level 2), then its X switches one by one.
      const uint64_t units = level == 1 ? s_.x : s_.row_chips();
      const uint64_t unit_span = level == 1 ? 2 * uint64_t{s_.board_chips()} : 2;
      const uint64_t per_row = units + s_.row_switches();
      if (group >= s_.y * per_row) {
        begin = s_.y_base() + (group - s_.y * per_row);
      } else {
        const uint64_t row = group / per_row, k = group % per_row;
        begin = row * span + (k < units ? k * unit_span : chip_span + (k - units));
        size = k < units ? unit_span : 1;
      }
    }
    return {static_cast<ComponentId>(begin), static_cast<ComponentId>(begin + size)};
  }

  const std::vector<LinkClass>& link_classes() const override { return classes_; }

  uint32_t num_endpoint_groups() const override { return s_.x * s_.y; }
  uint32_t endpoint_group(uint32_t endpoint) const override { return endpoint / s_.board_chips(); }
  EndpointRange endpoint_group_range(uint32_t group) const override {
    return {group * s_.board_chips(), (group + 1) * s_.board_chips()};
  }
  std::vector<uint32_t> endpoint_dims() const override {
    std::vector<uint32_t> dims;
    for (uint32_t d : {s_.a, s_.b, s_.x, s_.y}) {
      if (d > 1) dims.push_back(d);
    }
    return dims;
  }

  uint32_t diameter() const override { return hammingmesh::minimal_diameter(s_); }

 private:
  PortSpec line_link(Axis axis, uint32_t router, PortId peer_port) const {
    const uint16_t link_class = axis == hammingmesh::kX ? kXNetClass : kYNetClass;
    return {s_.router_component(router), peer_port, classes_[link_class].latency, link_class};
  }

  void switch_ports(const LineSwitch& w, std::vector<PortSpec>& out) const {
    const LineNet& n = s_.net(w.axis);
    const auto to_chip = [&](uint32_t line_port) {
      PortId chip_port = 0;
      const Chip c = s_.line_chip(w.axis, w.line, line_port, chip_port);
      out.push_back(line_link(w.axis, s_.chip_router(c), chip_port));
    };
    if (n.single()) {
      for (uint32_t p = 0; p < n.ports; ++p) to_chip(p);
      return;
    }
    if (n.is_leaf(w.s)) {
      for (uint32_t i = 0; i < n.down_ports(w.s); ++i) to_chip(w.s * n.down + i);
      for (uint32_t j = 0; j < n.down; ++j) {
        out.push_back(line_link(w.axis, s_.switch_router({w.axis, w.line, n.leaves + j}),
                                static_cast<PortId>(w.s)));
      }
      return;
    }
    const uint32_t spine = w.s - n.leaves;
    for (uint32_t l = 0; l < n.leaves; ++l) {
      out.push_back(line_link(w.axis, s_.switch_router({w.axis, w.line, l}),
                              static_cast<PortId>(n.down_ports(l) + spine)));
    }
  }

  Shape s_;
  std::vector<LinkClass> classes_;
};

const std::string kSection = "hammingmesh";

Network make_hammingmesh(const ParamSet& p) {
  const auto value = [&](const char* key) { return static_cast<uint32_t>(p.integer(key)); };
  const uint32_t radix = value("switch_radix");
  if (radix % 2 != 0) {
    throw InputError(kSection + ".switch_radix = " + std::to_string(radix) +
                     ": expected an even port count (a fat-tree leaf splits its ports half down, "
                     "half up)");
  }
  // A 2-level fat tree of radix-k switches has at most k leaves of k/2 line ports.
  const uint64_t max_boards = uint64_t{radix} * (radix / 2) / 2;
  for (const char* key : {"x", "y"}) {
    if (value(key) > max_boards) {
      throw InputError(kSection + "." + key + " = " + std::to_string(value(key)) +
                       ": a line of that many boards has " + std::to_string(2 * value(key)) +
                       " line ports (2 per board), more than a 2-level fat tree of radix-" +
                       std::to_string(radix) + " switches serves (radix^2/2 = " +
                       std::to_string(2 * max_boards) + "); expected at most " +
                       std::to_string(max_boards) + " boards (or a larger switch_radix)");
    }
  }
  // Counted in 64 bits before Shape's 32-bit closed forms are trusted.
  const uint64_t a = value("a"), b = value("b"), x = value("x"), y = value("y");
  const uint64_t components = 2 * a * b * x * y + y * b * LineNet(2 * x, radix).switches() +
                              x * a * LineNet(2 * y, radix).switches();
  if (components >= std::min<uint64_t>(std::numeric_limits<ComponentId>::max(), kNoRouter)) {
    throw InputError(kSection + ": a=" + std::to_string(a) + " b=" + std::to_string(b) +
                     " x=" + std::to_string(x) + " y=" + std::to_string(y) + " make " +
                     std::to_string(components) +
                     " components (chips, endpoints, switches), more than the " +
                     std::to_string(kNoRouter - 1) + " a network can have");
  }
  const Shape s(value("a"), value("b"), value("x"), value("y"), radix);
  const auto vcs = static_cast<uint8_t>(p.integer("vcs"));
  if (vcs > hammingmesh::kMinimalClasses) {
    throw InputError(kSection + ".vcs = " + std::to_string(vcs) + ": minimal routing needs only " +
                     std::to_string(hammingmesh::kMinimalClasses) +
                     " VCs; use router.vcs for more buffers per port");
  }
  std::vector<LinkClass> classes = {
      {"endpoint", positive_time(p, kSection, "endpoint_latency"), p.real("endpoint_speed")},
      {"board", positive_time(p, kSection, "board_latency"), p.real("board_speed")},
      {"xnet", positive_time(p, kSection, "switch_latency"), p.real("switch_speed")},
      {"ynet", positive_time(p, kSection, "switch_latency"), p.real("switch_speed")}};
  Network net;
  net.routing = hammingmesh::make_minimal_routing(s, vcs);
  net.topology = std::make_unique<HammingMesh>(s, std::move(classes));
  return net;
}

}  // namespace

TopologyFamily hammingmesh_family() {
  return TopologyFamily{
      kSection,
      "HammingMesh (Hoefler et al., SC'22), HxMesh: boards of a x b chips in a 2D mesh on the "
      "PCB, x boards per board row and y per board column. Every chip has one port per "
      "direction: to its board neighbour, or on the board's edge to a line network. The chips "
      "of each global chip row are joined across the x boards of their board row by a line "
      "network over the boards' west and east edge ports (2x ports: one switch when they fit "
      "switch_radix, else a 2-level fat tree); each global chip column likewise over the y "
      "boards' south and north edges. Endpoint groups are boards",
      {
          ParamSpec::integer("a", 4, "chips per board along x (a board row's chip columns)")
              .range(1, 256),
          ParamSpec::integer("b", 4, "chips per board along y").range(1, 256),
          ParamSpec::integer("x", 4, "boards per board row (the X lines' length)").range(2, 1e6),
          ParamSpec::integer("y", 4, "boards per board column").range(2, 1e6),
          ParamSpec::integer("switch_radix", 64,
                             "ports per line switch (RailX §6.2: 64); a line of n boards needs "
                             "2n ports: one switch up to the radix, else a 2-level fat tree")
              .range(4, 65534),
          ParamSpec::time("board_latency", "1cycles", "latency of on-board (PCB) mesh links"),
          ParamSpec::real("board_speed", 1.0, "bandwidth of on-board mesh links in flits/cycle")
              .range(0.01, 1024),
          ParamSpec::time("switch_latency", "10cycles",
                          "latency of links to and between line switches (cables, long reach)"),
          ParamSpec::real("switch_speed", 1.0,
                          "bandwidth of links to and between line switches in flits/cycle")
              .range(0.01, 1024),
          ParamSpec::time("endpoint_latency", "1cycles", "latency of a chip's injection link"),
          ParamSpec::real("endpoint_speed", 4.0,
                          "injection bandwidth of a chip in flits/cycle (default: its four "
                          "network ports, so injection never limits)")
              .range(0.01, 1024),
          ParamSpec::choice("routing", "minimal", {"minimal"},
                            "minimal: dimension order, X line network first, walks to the board "
                            "edge nearer the chip and from the edge nearer the destination; "
                            "VC class + 1 per line network (3 VCs)"),
          ParamSpec::integer("vcs", 0,
                             "VCs the routing uses; 0: what it needs (3); fewer shares the last "
                             "VC among the top classes (to see `hxsim verify` find a cycle)")
              .range(0, 255),
      },
      make_hammingmesh};
}

}  // namespace hx::net
