// Switch-less Dragonfly topology (shape.h has the numbering, port labels and wiring).
//
// Components: router r is component 2r and its endpoint 2r + 1, so every chiplet, C-group,
// wafer and W-group is a contiguous id range (partition levels "wgroup", "wafer", "cgroup",
// "chiplet"). Endpoint groups (group shift, hotspot) are the W-groups; endpoint coordinates
// follow the router numbering: (X, Y, C-group, W-group) with one router per chiplet, else
// (x, y in the chiplet, chiplet x, chiplet y, C-group, W-group).
//
// Link classes: "endpoint" (a core to its router: onchip_latency, onchip_speed), "mesh"
// (on-wafer short reach between chiplets: sr_latency, mesh_speed), "local" and "global" (long
// reach: lr_latency plus an SR-LR conversion hop at each end, modelled as 2 * conversion_latency
// of added latency rather than as routers, at lr_speed), "onchip" (between the routers of one
// chiplet: onchip_latency, onchip_speed).
//
// Directed link ids: C-group by C-group; inside one, router by router, the router's ports then
// its endpoint's port 0. Every C-group has the same layout, so one table of M*M offsets serves
// all of them.
#include "models/topologies/switchless_dragonfly/switchless_dragonfly.h"

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.h"
#include "models/network/concentrated_topology.h"
#include "models/network/layout.h"
#include "models/network/packet.h"
#include "models/topologies/switchless_dragonfly/analytic.h"
#include "models/topologies/switchless_dragonfly/routing.h"
#include "models/topologies/switchless_dragonfly/shape.h"
#include "models/topologies/switchless_dragonfly/table3.h"

namespace hx::net {
namespace {

using sldf::Shape;

constexpr uint16_t kEndpointClass = 0;
constexpr uint16_t kMeshClass = 1;
constexpr uint16_t kLocalClass = 2;
constexpr uint16_t kGlobalClass = 3;
constexpr uint16_t kOnChipClass = 4;

class SwitchlessDragonfly final : public ConcentratedTopology {
 public:
  SwitchlessDragonfly(const Shape& shape, std::vector<LinkClass> classes)
      : ConcentratedTopology(1), s_(shape), classes_(std::move(classes)) {
    links_before_.push_back(0);
    for (uint32_t q = 0; q < s_.mesh_size(); ++q) {
      const Shape::Place p = s_.place(q);
      links_before_.push_back(links_before_.back() + s_.router_ports(p.x, p.y) + 1);
    }
  }

  std::string describe() const override {
    return "switchless_dragonfly n=" + std::to_string(s_.n) + " m=" + std::to_string(s_.m) +
           " a=" + std::to_string(s_.a) + " b=" + std::to_string(s_.b) +
           (s_.chip > 1 ? " chip_mesh=" + std::to_string(s_.chip) : std::string()) +
           " (k=" + std::to_string(s_.k) + " h=" + std::to_string(s_.h) +
           " g=" + std::to_string(s_.g) + "): " + std::to_string(s_.chiplets()) + " chiplets, " +
           (s_.chip > 1 ? std::to_string(num_routers()) + " on-chip routers, " : std::string()) +
           std::to_string(uint64_t{s_.g} * s_.ab) + " C-groups";
  }
  uint32_t num_routers() const override { return static_cast<uint32_t>(s_.routers()); }
  uint32_t num_endpoints() const override { return static_cast<uint32_t>(s_.routers()); }

  void ports(ComponentId id, std::vector<PortSpec>& out) const override {
    const Node me = node(id);
    uint32_t count = 1;
    if (me.kind == NodeKind::kRouter) {
      const Shape::Place p = s_.place(me.index);
      count = s_.router_ports(p.x, p.y);
    }
    for (uint32_t port = 0; port < count; ++port) {
      out.push_back(port_of(me, id, static_cast<PortId>(port)));
    }
  }
  // The flow level asks for one port at a time, for every candidate of every state it explores.
  PortSpec port(ComponentId id, PortId port) const override { return port_of(node(id), id, port); }

  uint64_t first_link(ComponentId id) const override {
    const uint32_t router = id / 2, q = router % s_.mesh_size();
    const uint64_t base = uint64_t{router / s_.mesh_size()} * links_per_cgroup() + links_before_[q];
    return id % 2 == 0 ? base : base + (links_before_[q + 1] - links_before_[q] - 1);
  }
  uint64_t num_links() const override { return uint64_t{s_.g} * s_.ab * links_per_cgroup(); }

  std::vector<GroupLevel> group_levels() const override {
    return {{"wgroup", s_.g},
            {"wafer", uint64_t{s_.g} * s_.b},
            {"cgroup", uint64_t{s_.g} * s_.ab},
            {"chiplet", s_.chiplets()}};
  }
  ComponentRange group_range(std::size_t level, uint64_t group) const override {
    const uint64_t routers = level == 3 ? uint64_t{s_.chip} * s_.chip
                                        : (level == 0   ? s_.ab
                                           : level == 1 ? s_.a
                                                        : 1) *
                                              uint64_t{s_.mesh_size()};
    const uint64_t size = routers * 2;
    return {static_cast<ComponentId>(group * size), static_cast<ComponentId>((group + 1) * size)};
  }

  const std::vector<LinkClass>& link_classes() const override { return classes_; }

  uint32_t num_endpoint_groups() const override { return s_.g; }
  uint32_t endpoint_group(uint32_t endpoint) const override { return endpoint / wgroup_size(); }
  EndpointRange endpoint_group_range(uint32_t group) const override {
    return {group * wgroup_size(), (group + 1) * wgroup_size()};
  }
  std::vector<uint32_t> endpoint_dims() const override {
    if (s_.chip == 1) return {s_.m, s_.m, s_.ab, s_.g};
    return {s_.chip, s_.chip, s_.m, s_.m, s_.ab, s_.g};
  }

  // Pictures: the W-groups on a circle; in a W-group its b wafers side by side, each a column of
  // a C-groups, each C-group its M x M router mesh (external ports on the perimeter), cores below
  // their router.
  std::string picture_group() const override { return "wgroup"; }
  PicturePlace picture_place(ComponentId id) const override {
    const Shape::Place p = s_.place(id / 2);
    const double pitch = s_.M + 1.0;  // a C-group and the gap to the next
    Point at{p.c / s_.a * pitch + p.x, p.c % s_.a * pitch + p.y};
    if (id % 2 == 1) at = below(at, 0, 1);
    return place_at(p.w, on_circle(p.w, s_.g), at);
  }

  // Eq. 7 without its SR-LR conversion hops (they are latency here, not routers): one global
  // and two local hops, and at most 2(M-1) mesh hops in each of the four C-groups a minimal
  // path visits. With a*b = 1 there are no local hops and only two C-groups.
  uint32_t diameter() const override {
    const uint32_t mesh = 2 * (s_.M - 1);
    return s_.ab > 1 ? 3 + 4 * mesh : 1 + 2 * mesh;
  }

 private:
  // A router's ports: its endpoint, its mesh neighbours in direction order (+x, -x, +y, -y; those
  // that exist), then the labels of its slots in slot order.
  PortSpec port_of(const Node& me, ComponentId id, PortId port) const {
    const SimTime terminal = classes_[kEndpointClass].latency;
    if (me.kind == NodeKind::kEndpoint) {
      return {router_component(me.index), 0, terminal, kEndpointClass};
    }
    if (port == 0) return {id + 1, 0, terminal, kEndpointClass};
    const Shape::Place p = s_.place(me.index);
    uint32_t left = port - 1u;
    for (const sldf::Direction d : {sldf::kPlusX, sldf::kMinusX, sldf::kPlusY, sldf::kMinusY}) {
      if (!s_.has(p.x, p.y, d)) continue;
      if (left > 0) {
        --left;
        continue;
      }
      Shape::Place q = p;
      if (d == sldf::kPlusX || d == sldf::kMinusX) q.x = d == sldf::kPlusX ? p.x + 1 : p.x - 1;
      if (d == sldf::kPlusY || d == sldf::kMinusY) q.y = d == sldf::kPlusY ? p.y + 1 : p.y - 1;
      const auto back = static_cast<sldf::Direction>(d ^ 1);  // +x <-> -x, +y <-> -y
      const uint16_t link_class = s_.on_chip(p.x, p.y, q.x, q.y) ? kOnChipClass : kMeshClass;
      return {router_component(s_.router(q)), s_.mesh_port(q.x, q.y, back),
              classes_[link_class].latency, link_class};
    }
    std::array<uint32_t, 4> slots{};
    for (uint32_t i = 0, count = s_.slots(p.x, p.y, slots); i < count; ++i) {
      const uint32_t first = s_.first_label(slots[i]);
      const uint32_t labels = s_.first_label(slots[i] + 1) - first;
      if (left >= labels) {
        left -= labels;
        continue;
      }
      const uint32_t label = first + left;
      const Shape::End far = s_.peer(p.w, p.c, label);
      const auto owner = s_.label_router(far.label);
      const uint16_t link_class = s_.is_global(p.c, label) ? kGlobalClass : kLocalClass;
      return {router_component(s_.router({far.w, far.c, owner[0], owner[1]})),
              s_.label_port(far.label), classes_[link_class].latency, link_class};
    }
    throw std::out_of_range("switchless_dragonfly router " + std::to_string(me.index) +
                            " has no port " + std::to_string(port));
  }

  uint64_t links_per_cgroup() const { return links_before_.back(); }
  uint32_t wgroup_size() const { return s_.ab * s_.mesh_size(); }

  Shape s_;
  std::vector<LinkClass> classes_;
  std::vector<uint64_t> links_before_;  // directed links of the routers before q in a C-group
};

const std::string kSection = "switchless_dragonfly";

uint32_t size(const ParamSet& params, const std::string& key) {
  return static_cast<uint32_t>(params.integer(key));
}

sldf::RoutingOptions routing_options(const ParamSet& params) {
  sldf::RoutingOptions o;
  const std::string& routing = params.text("routing");
  o.algorithm = routing == "minimal"   ? sldf::Algorithm::kMinimal
                : routing == "valiant" ? sldf::Algorithm::kValiant
                                       : sldf::Algorithm::kUgal;
  o.intra = params.text("intra") == "dor" ? sldf::Intra::kDor : sldf::Intra::kNegativeFirst;
  o.vc_scheme =
      params.text("vc_scheme") == "baseline" ? sldf::VcScheme::kBaseline : sldf::VcScheme::kUpDown;
  o.lower_only = params.text("misroute") == "lower";
  o.ugal_threshold = static_cast<uint64_t>(params.integer("ugal_threshold"));
  const auto limit = static_cast<uint32_t>(params.integer("vcs"));
  if (limit > sldf::needed_vcs(o)) {
    throw InputError(kSection + ".vcs = " + std::to_string(limit) + ": routing = " + routing +
                     " with vc_scheme = " + params.text("vc_scheme") + " needs only " +
                     std::to_string(sldf::needed_vcs(o)) +
                     " VCs; use router.vcs for more buffers per port");
  }
  o.vc_limit = static_cast<uint8_t>(limit);
  return o;
}

Network make_switchless_dragonfly(const ParamSet& params) {
  const uint32_t n = size(params, "n"), m = size(params, "m"), a = size(params, "a"),
                 b = size(params, "b"), chip = size(params, "chip_mesh");
  if (uint64_t{a} * b > uint64_t{n} * m) {
    throw InputError(kSection + ".a = " + std::to_string(a) + ", " + kSection +
                     ".b = " + std::to_string(b) + ": a*b = " + std::to_string(a * b) +
                     " C-groups per W-group need at most k = n*m = " + std::to_string(n * m) +
                     " external ports per C-group (" + kSection + ".n = " + std::to_string(n) +
                     ", " + kSection + ".m = " + std::to_string(m) +
                     ") to keep h = k - a*b + 1 >= 1 global ports");
  }
  // Component ids are 32-bit and kNoRouter must stay out of the router range.
  const uint64_t ab = uint64_t{a} * b, g = ab * (uint64_t{n} * m - ab + 1) + 1;
  const uint64_t routers = ab * m * m * chip * chip * g;
  if (2 * routers >= kNoRouter) {
    throw InputError(kSection + ".n = " + std::to_string(n) + ", m = " + std::to_string(m) +
                     ", a = " + std::to_string(a) + ", b = " + std::to_string(b) +
                     ", chip_mesh = " + std::to_string(chip) + ": " + std::to_string(routers) +
                     " routers (g = " + std::to_string(g) + " W-groups), more than the " +
                     std::to_string((kNoRouter - 1) / 2) + " a network can have");
  }
  const Shape s(n, m, a, b, chip);
  if (params.time("conversion_latency") < SimTime::zero()) {
    throw InputError(kSection + ".conversion_latency = " +
                     format_time(params.time("conversion_latency")) + ": expected a time >= 0");
  }
  const SimTime lr = positive_time(params, kSection, "lr_latency") +
                     params.time("conversion_latency") + params.time("conversion_latency");
  const SimTime onchip = positive_time(params, kSection, "onchip_latency");
  std::vector<LinkClass> classes = {
      {"endpoint", onchip, params.real("onchip_speed")},
      {"mesh", positive_time(params, kSection, "sr_latency"), params.real("mesh_speed")},
      {"local", lr, params.real("lr_speed")},
      {"global", lr, params.real("lr_speed")},
      {"onchip", onchip, params.real("onchip_speed")}};
  Network net;
  net.topology = std::make_unique<SwitchlessDragonfly>(s, std::move(classes));
  net.routing = sldf::make_routing(s, routing_options(params));
  return net;
}

}  // namespace

TopologyFamily switchless_dragonfly_family() {
  return TopologyFamily{
      kSection,
      "Switch-less Dragonfly on Wafers (Algorithm 1 of the paper): each chiplet has n external "
      "ports and chip_mesh x chip_mesh on-chip routers, each with a core; m x m chiplets form a "
      "C-group (a 2D mesh with k = n*m external ports on its perimeter); a C-groups per wafer "
      "and b wafers per W-group, whose a*b C-groups are fully connected by local links; "
      "g = a*b*h + 1 W-groups (h = k - a*b + 1) fully connected by global links; "
      "N = a*b*m^2*g chiplets. Endpoint groups are W-groups",
      {
          ParamSpec::integer("n", 12, "external ports per chiplet").range(1, 1024),
          ParamSpec::integer("m", 2, "chiplets per side of a C-group's mesh").range(1, 64),
          ParamSpec::integer("a", 2, "C-groups per wafer").range(1, 256),
          ParamSpec::integer("b", 4, "wafers per W-group").range(1, 256),
          ParamSpec::integer("chip_mesh", 1,
                             "on-chip routers per side of a chiplet's mesh, each with a core "
                             "(Fig. 10: 2)")
              .range(1, 64),
          ParamSpec::time("sr_latency", "1cycles", "latency of on-wafer links between chiplets"),
          ParamSpec::real("mesh_speed", 1.0,
                          "bandwidth of on-wafer links in flits/cycle (2, 4: the paper's 2B, 4B)")
              .range(0.01, 1024),
          ParamSpec::time("onchip_latency", "1cycles",
                          "latency of on-chip links and of a core's link to its router"),
          ParamSpec::real("onchip_speed", 1.0,
                          "bandwidth of on-chip links and core injection in flits/cycle")
              .range(0.01, 1024),
          ParamSpec::time("lr_latency", "8cycles",
                          "latency of long-reach (local and global) links (Table IV)"),
          ParamSpec::time("conversion_latency", "1cycles",
                          "SR-LR conversion at each end of a long-reach link, added to its "
                          "latency"),
          ParamSpec::real("lr_speed", 1.0, "bandwidth of long-reach links in flits/cycle")
              .range(0.01, 1024),
          ParamSpec::choice("routing", "minimal", {"minimal", "valiant", "ugal"},
                            "minimal: Algorithm 1; valiant: through a random intermediate "
                            "W-group; ugal: minimal or valiant per packet from the source "
                            "router's port loads times hops"),
          ParamSpec::choice("intra", "dor", {"dor", "negative_first"},
                            "routing inside a C-group: dor (dimension order, X first) or "
                            "negative_first (adaptive turn model)"),
          ParamSpec::choice("vc_scheme", "baseline", {"baseline", "updown"},
                            "baseline: VC = inter-C-group hops (4 VCs minimal, 6 non-minimal); "
                            "updown: section IV-B (3 minimal; non-minimal 3 with misroute = lower, "
                            "else 4; hxsim verify finds it cyclic on the paper's radix-16 "
                            "system: docs/MODELS.md)"),
          ParamSpec::choice("misroute", "any", {"any", "lower"},
                            "intermediate W-groups of valiant/ugal: any, or only valid lower "
                            "ones (section IV-B)"),
          ParamSpec::integer("vcs", 0,
                             "VCs the routing uses; 0: what vc_scheme needs; fewer shares the "
                             "last VC among the top classes (to see `hxsim verify` find a cycle)")
              .range(0, 8),
          ParamSpec::integer("ugal_threshold", 0, "ugal: flits added to the Valiant side")
              .range(0, 1000000),
      },
      make_switchless_dragonfly,
      {{"", "sizes, throughput bounds, diameter and hop energy, with the switch-based equivalent",
        sldf::closed_forms},
       {"table3",
        "Table III: beside fat trees, HammingMesh, PolarFly and the Dragonfly of the same switches",
        sldf::table3_closed_forms}}};
}

}  // namespace hx::net
