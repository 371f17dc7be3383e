// RailX topology (shape.h has the numbering, rails and circuits).
//
// Components: chip router r is component 2r and its endpoint 2r + 1, routers node-major, so
// every chip, node and node row is a contiguous id range (partition levels "row", "node",
// "chip"). Endpoint groups (group shift, hotspot) are the nodes; endpoint coordinates are
// (x, y in the node, then the node's coordinate in each logical dimension, X's first).
//
// Link classes: "endpoint" (the chip's own injection link), "mesh" (intra-node direct links, k
// times the optical bandwidth), "xrail" and "yrail" (optical circuits through the X- and
// Y-OCSes: optical_latency, optical_speed).
//
// Reconfiguration (§5.2): with x_alternatives (y_alternatives) the X-OCSes of each row (Y-OCSes
// of each column) are a reconfigurable element, "x-ocs" with an instance per row ("y-ocs", per
// column), whose configurations are railx.x and its alternatives. Each configuration's rail
// ports are ports of their own (shape.h's blocks); the fault schedule says which is live.
//
// Directed link ids: Shape::first_link (the routing checks links by them under faults).
#include "models/topologies/railx/railx.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/text.h"
#include "models/network/concentrated_topology.h"
#include "models/network/layout.h"
#include "models/topologies/railx/analytic.h"
#include "models/topologies/railx/routing.h"
#include "models/topologies/railx/shape.h"

namespace hx::net {
namespace {

using railx::Axis;
using railx::RailPort;
using railx::Shape;

constexpr uint16_t kEndpointClass = 0;
constexpr uint16_t kMeshClass = 1;
constexpr uint16_t kXRailClass = 2;
constexpr uint16_t kYRailClass = 3;

std::string dims_text(const Shape& s, Axis a) {
  std::string text;
  for (const railx::Dim& d : s.dims) {
    if (d.axis != a) continue;
    text += (text.empty() ? "" : ",") + std::string(railx::kind_name(d.kind)) + ":" +
            std::to_string(d.size) + ":" + std::to_string(d.rails.size());
  }
  return text.empty() ? "none" : text;
}

// The configurations of both axes, as the spec texts name them.
struct Configurations {
  std::vector<std::string> x, y;
  SimTime switching;
};

class RailX final : public ConcentratedTopology {
 public:
  RailX(std::vector<Shape> shapes, Configurations configs, std::vector<LinkClass> classes)
      : ConcentratedTopology(1),
        shapes_(std::move(shapes)),
        s_(shapes_[0]),
        configs_(std::move(configs)),
        classes_(std::move(classes)) {}

  std::string describe() const override {
    return "railx m=" + std::to_string(s_.m) + " n=" + std::to_string(s_.n) +
           " x=" + dims_text(s_, railx::kX) + " y=" + dims_text(s_, railx::kY) + ": " +
           std::to_string(s_.chips()) + " chips, " + std::to_string(s_.nodes()) + " nodes (" +
           std::to_string(s_.sx) + " x " + std::to_string(s_.sy) + "), r=" + std::to_string(s_.r) +
           " rails per axis" +
           (s_.dims[0].kind == railx::Kind::kDragonfly
                ? "; Dragonfly of " + std::to_string(s_.sx) + " groups (columns) of " +
                      std::to_string(s_.sy) + " nodes"
                : "");
  }
  uint32_t num_routers() const override { return static_cast<uint32_t>(s_.chips()); }
  uint32_t num_endpoints() const override { return static_cast<uint32_t>(s_.chips()); }

  void ports(ComponentId id, std::vector<PortSpec>& out) const override {
    const Node me = node(id);
    if (!terminal_ports(id, me, classes_[kEndpointClass].latency, kEndpointClass, out)) return;
    const uint32_t mm = s_.chips_per_node(), node_index = me.index / mm, x = me.index % mm % s_.m,
                   y = me.index % mm / s_.m;
    const SimTime mesh = classes_[kMeshClass].latency;
    // +x, -x, +y, -y; the neighbour sees this link on the opposite direction (dir ^ 1).
    const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
    for (uint32_t dir = 0; dir < 4; ++dir) {
      const int64_t px = int64_t{x} + dx[dir], py = int64_t{y} + dy[dir];
      if (px < 0 || py < 0 || px >= s_.m || py >= s_.m) continue;
      const auto qx = static_cast<uint32_t>(px), qy = static_cast<uint32_t>(py);
      out.push_back({router_component(node_index * mm + qy * s_.m + qx),
                     static_cast<PortId>(s_.mesh_port(qx, qy, dir ^ 1)), mesh, kMeshClass});
    }
    for (uint32_t b = 0; b < s_.blocks.size(); ++b) {
      const Axis a = s_.blocks[b].axis;
      const Shape& s = shape_of(b);
      const uint16_t link_class = a == railx::kX ? kXRailClass : kYRailClass;
      for (const bool plus : {true, false}) {
        uint32_t first = 0;
        for (uint32_t i = 0, count = s.rails_at(x, y, a, plus, first); i < count; ++i) {
          uint32_t far = 0, far_port = 0;
          s.far_end(node_index, a, RailPort{static_cast<uint16_t>(first + i), plus}, far, far_port);
          out.push_back({router_component(far), static_cast<PortId>(far_port),
                         classes_[link_class].latency, link_class});
        }
      }
    }
  }

  std::vector<Reconfigurable> reconfigurables() const override {
    std::vector<Reconfigurable> out;
    if (configs_.x.size() > 1) out.push_back({"x-ocs", s_.sy, configs_.x, configs_.switching});
    if (configs_.y.size() > 1) out.push_back({"y-ocs", s_.sx, configs_.y, configs_.switching});
    return out;
  }
  // A rail port of a reconfigurable axis: the OCSes of the node's row (X) or column (Y).
  bool circuit(ComponentId id, PortId p, Circuit& out) const override {
    const Node me = node(id);
    if (me.kind != NodeKind::kRouter) return false;
    const uint32_t mm = s_.chips_per_node(), q = me.index % mm, node_index = me.index / mm;
    Axis a;
    RailPort rail;
    uint32_t b;
    int16_t dim;
    if (!s_.port_rail(q % s_.m, q / s_.m, p, a, rail, b, dim)) return false;
    const auto xs = static_cast<uint32_t>(configs_.x.size());
    if ((a == railx::kX ? xs : configs_.y.size()) < 2) return false;
    out.element = a == railx::kX || xs < 2 ? 0 : 1;
    out.instance = s_.axis_pos(node_index, a == railx::kX ? railx::kY : railx::kX);
    out.configuration = b < 2 ? 0 : a == railx::kX ? b - 1 : b - xs;
    return true;
  }

  uint64_t first_link(ComponentId id) const override {
    const uint32_t router = id / 2, q = router % s_.chips_per_node();
    return s_.first_link(router) + (id % 2 == 0 ? 0 : s_.num_ports(q % s_.m, q / s_.m));
  }
  uint64_t num_links() const override { return uint64_t{s_.nodes()} * s_.links_per_node(); }

  std::vector<GroupLevel> group_levels() const override {
    return {{"row", s_.sy}, {"node", s_.nodes()}, {"chip", s_.chips()}};
  }
  ComponentRange group_range(std::size_t level, uint64_t group) const override {
    const uint64_t size = 2 * (level == 0   ? uint64_t{s_.sx} * s_.chips_per_node()
                               : level == 1 ? s_.chips_per_node()
                                            : 1);
    return {static_cast<ComponentId>(group * size), static_cast<ComponentId>((group + 1) * size)};
  }

  const std::vector<LinkClass>& link_classes() const override { return classes_; }

  uint32_t num_endpoint_groups() const override { return s_.nodes(); }
  uint32_t endpoint_group(uint32_t endpoint) const override {
    return endpoint / s_.chips_per_node();
  }
  EndpointRange endpoint_group_range(uint32_t group) const override {
    return {group * s_.chips_per_node(), (group + 1) * s_.chips_per_node()};
  }
  std::vector<uint32_t> endpoint_dims() const override {
    std::vector<uint32_t> dims;
    if (s_.m > 1) dims = {s_.m, s_.m};
    for (const railx::Dim& d : s_.dims) dims.push_back(d.size);
    if (dims.empty()) dims.push_back(1);
    return dims;
  }

  // Pictures: the nodes on their sx x sy grid, each node's chip mesh (its edge chips hold the
  // rails), endpoints below their chip.
  std::string picture_group() const override { return "node"; }
  PicturePlace picture_place(ComponentId id) const override {
    const uint32_t chip = id / 2, node = chip / s_.chips_per_node(), q = chip % s_.chips_per_node();
    Point at{static_cast<double>(q % s_.m), static_cast<double>(q / s_.m)};
    if (id % 2 == 1) at = below(at, 0, 1);
    return place_at(node, {static_cast<double>(node % s_.sx), static_cast<double>(node / s_.sx)},
                    at);
  }

  // Optical hops of the longest minimal path (a Dragonfly's local, global, local: 3), plus a
  // walk of at most 2(m-1) mesh hops in each node it visits (§4.1.1 bounds a HyperX's tighter:
  // 2 H_o + (5m - 6) H_i).
  uint32_t diameter() const override {
    const uint32_t optical = railx::minimal_hops(s_);
    return optical + (optical + 1) * 2 * (s_.m - 1);
  }

 private:
  // The shape whose configuration block b holds (Shape::configurations numbering).
  const Shape& shape_of(uint32_t b) const {
    const auto xs = static_cast<uint32_t>(configs_.x.size()),
               ys = static_cast<uint32_t>(configs_.y.size());
    if (b < 2) return s_;
    return b <= xs ? shapes_[(b - 1) * ys] : shapes_[b - xs];
  }

  std::vector<Shape> shapes_;
  const Shape& s_;
  Configurations configs_;
  std::vector<LinkClass> classes_;
};

const std::string kSection = "railx";

// railx.x (or y) and its alternatives, as their texts (the configurations' names).
std::vector<std::string> alternatives(const ParamSet& params, const std::string& axis) {
  std::vector<std::string> out = {trim(params.text(axis))};
  const std::string& text = params.text(axis + "_alternatives");
  for (std::size_t begin = 0; !trim(text).empty() && begin <= text.size();) {
    const std::size_t end = std::min(text.find(';', begin), text.size());
    const std::string spec = trim(text.substr(begin, end - begin));
    if (std::find(out.begin(), out.end(), spec) != out.end()) {
      throw InputError(kSection + "." + axis + "_alternatives = \"" + text + "\": '" + spec +
                       "' is listed twice (with railx." + axis + ")");
    }
    out.push_back(spec);
    begin = end + 1;
  }
  return out;
}

Network make_railx(const ParamSet& params) {
  const auto m = static_cast<uint32_t>(params.integer("m")),
             n = static_cast<uint32_t>(params.integer("n")),
             radix = static_cast<uint32_t>(params.integer("ocs_radix"));
  if (radix % 2 != 0) {
    throw InputError(kSection + ".ocs_radix = " + std::to_string(radix) +
                     ": expected an even port count (each node takes a + and a - port)");
  }
  Configurations configs{alternatives(params, "x"), alternatives(params, "y"),
                         positive_time(params, kSection, "ocs_switching")};
  std::vector<Shape> shapes = Shape::configurations(m, n, radix, configs.x, configs.y);
  const Shape& s = shapes[0];
  if (2 * s.chips() >= kNoRouter) {
    throw InputError(kSection + ": " + std::to_string(s.chips()) + " chips, more than the " +
                     std::to_string((kNoRouter - 1) / 2) + " a network can have");
  }
  std::vector<LinkClass> classes = {
      {"endpoint", positive_time(params, kSection, "endpoint_latency"),
       params.real("endpoint_speed")},
      {"mesh", positive_time(params, kSection, "mesh_latency"), params.real("mesh_speed")},
      {"xrail", positive_time(params, kSection, "optical_latency"), params.real("optical_speed")},
      {"yrail", positive_time(params, kSection, "optical_latency"), params.real("optical_speed")}};
  railx::RoutingOptions options;
  options.adaptive = params.text("routing") == "adaptive";
  options.mesh = params.text("mesh_routing") == "dor" ? railx::MeshRouting::kDor
                                                      : railx::MeshRouting::kNorthLast;
  const std::string rail = params.text("rail_choice");
  options.rail = rail == "nearest"    ? railx::RailChoice::kNearest
                 : rail == "shortest" ? railx::RailChoice::kShortest
                                      : railx::RailChoice::kSpread;
  const auto hops = static_cast<uint32_t>(params.integer("hops"));
  if (shapes.size() > 1 && options.adaptive) {
    throw InputError(kSection +
                     ".routing = 'adaptive' with alternative configurations: "
                     "reconfiguration is built for minimal routing");
  }
  if (options.adaptive) {
    for (const railx::Dim& d : s.dims) {
      if (d.kind != railx::Kind::kHyperX) {
        throw InputError(kSection + ".routing = 'adaptive': misroutes only within hyperx " +
                         "dimensions; this configuration has a " + railx::kind_name(d.kind) +
                         " (use 'minimal')");
      }
    }
    if (hops != 0 && hops < railx::minimal_hops(s)) {
      throw InputError(kSection + ".hops = " + std::to_string(hops) + ": minimal routes take " +
                       std::to_string(railx::minimal_hops(s)) +
                       " inter-node hops here; expected 0 (that plus one) or at least that");
    }
  }
  options.hops = hops;
  options.penalty = static_cast<uint8_t>(params.integer("detour_penalty"));
  options.delivery = params.flag("delivery_vc");
  if (options.delivery && options.adaptive) {
    throw InputError(kSection + ".delivery_vc = true: a delivery class is built for minimal " +
                     "routing; adaptive routing gives every optical hop a class already");
  }
  uint8_t needed = 0;
  for (const Shape& shape : shapes) needed = std::max(needed, railx::needed_vcs(shape, options));
  const auto limit = static_cast<uint32_t>(params.integer("vcs"));
  if (limit > needed) {
    throw InputError(kSection + ".vcs = " + std::to_string(limit) + ": " + params.text("routing") +
                     " routing on this configuration needs only " + std::to_string(needed) +
                     " VCs; use router.vcs for more buffers per port");
  }
  options.vc_limit = static_cast<uint8_t>(limit);
  railx::Elements elements;
  if (configs.x.size() > 1) elements.x = 0;
  if (configs.y.size() > 1) elements.y = configs.x.size() > 1 ? 1 : 0;
  Network net;
  net.routing =
      railx::make_routing(shapes, static_cast<uint32_t>(configs.y.size()), elements, options);
  net.topology = std::make_unique<RailX>(std::move(shapes), std::move(configs), std::move(classes));
  return net;
}

}  // namespace

TopologyFamily railx_family() {
  return TopologyFamily{
      kSection,
      "RailX (Feng et al.): nodes of m x m chips in a 2D mesh; each chip has n optical ports per "
      "node edge it sits on, so a node has r = m n rails per axis, each a (+, -) port pair. Nodes "
      "form a grid of rows and columns (at most R/2 x R/2); the X-rails of a row meet at r "
      "X-OCSes and the Y-rails of a column at r Y-OCSes, whose circuits are configured per axis "
      "into logical dimensions: torus (parallel rail rings), hyperx (all-to-all from "
      "Hamiltonian rail rings, Lemma 3.1) or, on X, dragonfly (Table 2: the columns are the "
      "groups, joined by X-rail rings that differ per row). Endpoint groups are nodes",
      {
          ParamSpec::integer("m", 4, "chips per side of a node's mesh").range(1, 64),
          ParamSpec::integer("n", 2, "optical ports per chip per node edge").range(1, 64),
          ParamSpec::integer("ocs_radix", 128, "ports per optical circuit switch (R)")
              .range(4, 65536),
          ParamSpec::text("x", "hyperx:9",
                          "logical dimensions of the X-rails: \"none\" or kind:size[:rails] "
                          "separated by ',' (kind torus or hyperx; rails default to an even "
                          "share of the r rails), e.g. \"torus:64\", \"hyperx:8:18,hyperx:8:18\"; "
                          "or \"dragonfly:S[:rails]\" alone, with a single hyperx y: each column "
                          "of nodes is a group and rail t of row j carries the (j rails + t) mod "
                          "(S-1)-th Hamiltonian ring of the S groups, so every pair of groups "
                          "must meet in some row (rows x rails >= S-1 suffices)"),
          ParamSpec::text("y", "hyperx:9",
                          "logical dimensions of the Y-rails, as x (dragonfly: x only)"),
          ParamSpec::text("x_alternatives", "",
                          "more configurations of the X-OCSes, separated by ';', each as x with "
                          "the same line sizes (e.g. x = \"torus:8\" for CP and \"hyperx:8\" "
                          "for EP, §5.2): each has rail ports of its own, and a fault-schedule "
                          "action reconfigure of 'x-ocs' (every row) or 'x-ocs J' (row J) "
                          "switches to it (docs/FAULTS.md)"),
          ParamSpec::text("y_alternatives", "",
                          "more configurations of the Y-OCSes, as x_alternatives ('y-ocs', "
                          "'y-ocs I' for column I)"),
          ParamSpec::time("ocs_switching", "1ms",
                          "how long an OCS carries nothing while it switches configurations "
                          "(MEMS OCSes: milliseconds; set it for faster switches)"),
          ParamSpec::time("mesh_latency", "1cycles", "latency of intra-node links (Table 5)"),
          ParamSpec::real("mesh_speed", 4.0,
                          "bandwidth of intra-node links in flits/cycle: k times the optical "
                          "links (Fig. 14b: 1, 2, 4)")
              .range(0.01, 1024),
          ParamSpec::time("optical_latency", "10cycles",
                          "latency of an optical circuit, OCS included (Table 5)"),
          ParamSpec::real("optical_speed", 1.0, "bandwidth of optical links in flits/cycle")
              .range(0.01, 1024),
          ParamSpec::time("endpoint_latency", "1cycles", "latency of a chip's injection link"),
          ParamSpec::real("endpoint_speed", 8.0,
                          "injection bandwidth of a chip in flits/cycle (§6.3: 8, so it never "
                          "limits the network)")
              .range(0.01, 1024),
          ParamSpec::choice("routing", "minimal", {"minimal", "adaptive"},
                            "minimal: Algorithm 1 generalised to torus and hyperx dimensions, "
                            "dimensions in order, the nearest rail port on the mesh (dragonfly: "
                            "local, global, local hop); adaptive "
                            "(hyperx only): minimal, but at a rail chip the packet may detour "
                            "to another node of the line when the direct circuit is congested "
                            "(§4.1.2), a VC per inter-node hop"),
          ParamSpec::integer("hops", 0,
                             "adaptive: inter-node hops a route may take (a in §4.1.2; a + 1 "
                             "VCs); 0: d_o + 1, one detour")
              .range(0, 254),
          ParamSpec::integer("detour_penalty", 4,
                             "adaptive: flits of downstream space a detour must have beyond "
                             "the direct port's before it is taken")
              .range(0, 255),
          ParamSpec::choice("mesh_routing", "dor", {"dor", "north_last"},
                            "walks on a node's mesh: dor (x then y) or north_last (adaptive "
                            "turn model)"),
          ParamSpec::choice("rail_choice", "nearest", {"nearest", "shortest", "spread"},
                            "which port reaching the next node of a hyperx or dragonfly "
                            "dimension a packet walks to: the nearest on the mesh, the one "
                            "with the shortest walk here plus from its circuit's far end to "
                            "the destination chip, or one fixed per (source, destination) "
                            "however far (torus rings always take the nearest)"),
          ParamSpec::integer(
              "vcs", 0,
              "VCs the routing uses; 0: what it needs (d_o + 1 for a HyperX "
              "or Dragonfly, two per torus ring); fewer shares the last VC among the top "
              "classes (to see `hxsim verify` find a cycle)")
              .range(0, 255),
          ParamSpec::flag("delivery_vc", false,
                          "minimal: the last optical hop and the walk in the destination node "
                          "on a VC class of their own (one more VC), so packets being delivered "
                          "never queue behind packets waiting for a rail (head-of-line blocking "
                          "along torus rings)"),
      },
      make_railx,
      {{"", "sizes, all-to-all bounds and cost of the full system", railx::closed_forms},
       {"availability", "Fig. 17's single-job availability under node faults",
        railx::availability_closed_forms}}};
}

}  // namespace hx::net
