// The rail-only cluster (Wang et al., "Optimized Network Architectures for Large Language Model
// Training with Billions of Parameters"; docs/models/rail_only.md): HB domains of K GPUs on a
// non-blocking fabric, and a scale-out network of NICs that joins only the GPUs of one rail
// (one Clos per rail, no spine across rails, §3.1). Traffic between different rails of different
// domains is forwarded through an HB domain. The same family builds the rail-optimized any-to-any
// baseline (rail leaves under one spine layer, Fig. 2) and HB domains alone (K = N: the ideal
// any-to-any network of Fig. 5 and 7). Numbering: layout.h; the Clos blocks: clos.h.
#include "models/topologies/rail_only/rail_only.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "models/network/layout.h"
#include "models/topologies/rail_only/analytic.h"
#include "models/topologies/rail_only/layout.h"

namespace hx::net {
namespace {

using rail_only::Forwarding;
using rail_only::kEndpointPort;
using rail_only::kHbPort;
using rail_only::kNicPort;
using rail_only::Layout;
using rail_only::ScaleOut;

const std::string kSection = "rail_only";
constexpr uint16_t kEndpointClass = 0, kHbClass = 1, kNicClass = 2, kRailClass = 3;

// What a router index is: GPU `index` (a global GPU index), switch `index` of HB domain
// `group`, or switch `index` of scale-out plane `group`.
struct Place {
  enum Kind : uint8_t { kGpu, kHb, kRail } kind = kGpu;
  uint32_t group = 0;
  uint32_t index = 0;
};

Place place(const Layout& l, uint32_t router) {
  if (router >= l.net_router_base()) {
    const uint32_t r = router - l.net_router_base();
    return {Place::kRail, r / l.rail.switches(), r % l.rail.switches()};
  }
  const uint32_t d = router / l.domain_routers(), local = router % l.domain_routers();
  if (local < l.k) return {Place::kGpu, d, d * l.k + local};
  return {Place::kHb, d, local - l.k};
}

class RailOnlyTopology final : public Topology {
 public:
  RailOnlyTopology(const Layout& l, std::vector<LinkClass> classes)
      : l_(l), classes_(std::move(classes)) {}

  std::string describe() const override {
    static const char* kNames[] = {"rail_only", "rail_optimized", "none"};
    return "rail_only gpus=" + std::to_string(l_.gpus) + " hb_size=" + std::to_string(l_.k) +
           " network=" + kNames[static_cast<int>(l_.network)] + ": " + std::to_string(l_.gpus) +
           " GPUs in " + std::to_string(l_.domains()) + " HB domains of " +
           std::to_string(l_.hb.switches()) + " switches, " +
           std::to_string(l_.planes * l_.rail.switches()) + " network switches";
  }
  uint32_t num_routers() const override { return l_.routers(); }
  uint32_t num_endpoints() const override { return l_.gpus; }

  Node node(ComponentId id) const override {
    if (id >= l_.net_base()) {
      return {NodeKind::kRouter, l_.net_router_base() + static_cast<uint32_t>(id - l_.net_base())};
    }
    const auto d = static_cast<uint32_t>(id / l_.domain_span());
    const auto local = static_cast<uint32_t>(id % l_.domain_span());
    if (local >= 2 * l_.k) return {NodeKind::kRouter, d * l_.domain_routers() + local - l_.k};
    const uint32_t gpu = d * l_.k + local / 2;
    return local % 2 == 0 ? Node{NodeKind::kRouter, l_.gpu_router(gpu)}
                          : Node{NodeKind::kEndpoint, gpu};
  }
  ComponentId router_component(uint32_t router) const override {
    const Place p = place(l_, router);
    switch (p.kind) {
      case Place::kGpu:
        return l_.gpu_component(p.index);
      case Place::kHb:
        return l_.hb_component(p.group, p.index);
      default:
        return l_.rail_component(p.group, p.index);
    }
  }
  ComponentId endpoint_component(uint32_t e) const override { return l_.gpu_component(e) + 1; }
  uint32_t endpoint_router(uint32_t e) const override { return l_.gpu_router(e); }

  void ports(ComponentId id, std::vector<PortSpec>& out) const override {
    const Node n = node(id);
    uint32_t count = 1;
    if (n.kind == NodeKind::kRouter) {
      const Place p = place(l_, n.index);
      count = p.kind == Place::kGpu  ? l_.gpu_ports()
              : p.kind == Place::kHb ? l_.hb.ports(p.index)
                                     : l_.rail.ports(p.index);
    }
    for (uint32_t q = 0; q < count; ++q) out.push_back(port(id, static_cast<PortId>(q)));
  }
  // In closed form: a spine of the rail-optimized baseline has a port per leaf.
  PortSpec port(ComponentId id, PortId q) const override {
    const Node n = node(id);
    if (n.kind == NodeKind::kEndpoint) {
      return {id - 1, kEndpointPort, latency(kEndpointClass), kEndpointClass};
    }
    const Place p = place(l_, n.index);
    if (p.kind == Place::kGpu) {
      if (q == kEndpointPort) return {id + 1, 0, latency(kEndpointClass), kEndpointClass};
      const uint32_t j = l_.rail_of(p.index);
      if (q == kHbPort) {
        return {l_.hb_component(p.group, l_.hb.leaf_of(j)), static_cast<PortId>(j % l_.hb.per_leaf),
                latency(kHbClass), kHbClass};
      }
      const uint32_t t = l_.terminal_of(p.index);
      return {l_.rail_component(l_.plane_of(p.index), l_.rail.leaf_of(t)),
              static_cast<PortId>(t % l_.rail.per_leaf), latency(kNicClass), kNicClass};
    }
    if (p.kind == Place::kHb) {
      const Clos::Peer peer = l_.hb.peer(p.index, q);
      if (peer.terminal) {
        return {l_.gpu_component(p.group * l_.k + peer.index), kHbPort, latency(kHbClass),
                kHbClass};
      }
      return {l_.hb_component(p.group, peer.index), static_cast<PortId>(peer.port),
              latency(kHbClass), kHbClass};
    }
    const Clos::Peer peer = l_.rail.peer(p.index, q);
    if (peer.terminal) {
      return {l_.gpu_component(l_.gpu_at(p.group, peer.index)), kNicPort, latency(kNicClass),
              kNicClass};
    }
    return {l_.rail_component(p.group, peer.index), static_cast<PortId>(peer.port),
            latency(kRailClass), kRailClass};
  }

  uint64_t first_link(ComponentId id) const override {
    if (id >= l_.net_base()) {
      const auto r = static_cast<uint32_t>(id - l_.net_base());
      const uint32_t plane = r / l_.rail.switches(), sw = r % l_.rail.switches();
      return l_.net_link_base() + plane * l_.rail.switch_links() + l_.rail.first_link(sw);
    }
    const uint64_t d = id / l_.domain_span(), local = id % l_.domain_span();
    const uint64_t base = d * l_.domain_links();
    if (local >= 2 * l_.k) {
      return base + uint64_t{l_.k} * (l_.gpu_ports() + 1) +
             l_.hb.first_link(static_cast<uint32_t>(local - 2 * l_.k));
    }
    return base + local / 2 * (l_.gpu_ports() + 1) + (local % 2 == 0 ? 0 : l_.gpu_ports());
  }
  uint64_t num_links() const override { return l_.links(); }

  // Level 0: each HB domain (its GPUs and fabric), then each scale-out plane; level 1: each GPU
  // (router and endpoint) and each switch, i.e. one group per router.
  std::vector<GroupLevel> group_levels() const override {
    return {{"domain", l_.domains() + l_.planes}, {"router", l_.routers()}};
  }
  ComponentRange group_range(std::size_t level, uint64_t group) const override {
    if (level == 0) {
      if (group < l_.domains()) {
        const auto first = static_cast<ComponentId>(group * l_.domain_span());
        return {first, first + l_.domain_span()};
      }
      const auto plane = static_cast<uint32_t>(group - l_.domains());
      return {l_.rail_component(plane, 0), l_.rail_component(plane + 1, 0)};
    }
    const ComponentId first = router_component(static_cast<uint32_t>(group));
    return {first, first + (place(l_, static_cast<uint32_t>(group)).kind == Place::kGpu ? 2 : 1)};
  }

  const std::vector<LinkClass>& link_classes() const override { return classes_; }

  // Endpoint groups: the HB domains.
  uint32_t num_endpoint_groups() const override { return l_.domains(); }
  uint32_t endpoint_group(uint32_t e) const override { return l_.domain_of(e); }
  EndpointRange endpoint_group_range(uint32_t d) const override {
    return {d * l_.k, (d + 1) * l_.k};
  }
  std::vector<uint32_t> endpoint_dims() const override { return {l_.k, l_.domains()}; }
  // §2.2: "The MP traffic happens within GPUs that participate in a model parallel group, which
  // always fits in an HB domain"; across domains the rail-only network joins one rail only.
  bool confines_model_parallel() const override { return l_.network == ScaleOut::kRailOnly; }

  // Pictures: the HB domains in a row, the scale-out planes (a rail each, rail-only) in a row
  // below across the same width; in a domain its GPUs in rail order, the HB fabric above them,
  // in a plane its leaves over its terminals and the spines above.
  std::string picture_group() const override { return "domain or plane"; }
  PicturePlace picture_place(ComponentId id) const override {
    const Node n = node(id);
    const uint32_t domains = l_.domains();
    const Point size = in_rows_size(domains);
    // The domains' rows from y = 0 down, the planes' row below them.
    const auto domain_at = [&](uint32_t d) { return in_rows(d, domains); };
    if (n.kind == NodeKind::kEndpoint) {
      const uint32_t d = l_.domain_of(n.index);
      return place_at(d, domain_at(d), below({1.0 * l_.rail_of(n.index), 0}, 0, 1));
    }
    const Place p = place(l_, n.index);
    if (p.kind == Place::kRail) {
      // Spread across the domains' width; many planes wrap onto a grid of that width.
      const Point planes = in_rows_size(l_.planes), at = in_rows(p.group, l_.planes);
      const double x = (at.x + 0.5) * size.x / planes.x - 0.5;
      return place_at(domains + p.group, {x, 1 - size.y - tier_height(size.x) + at.y},
                      clos_switch(l_.rail, p.index, 0));
    }
    const Point at = p.kind == Place::kGpu ? Point{1.0 * l_.rail_of(p.index), 0}
                                           : clos_switch(l_.hb, p.index, tier_height(l_.k));
    return place_at(p.group, domain_at(p.group), at);
  }

  // Within a domain GPU, leaf (spine, leaf), GPU; across domains the network the same way, and a
  // forwarded message both in turn.
  uint32_t diameter() const override {
    const uint32_t hb = l_.hb.spines > 0 ? 4 : 2;
    const uint32_t net = l_.network == ScaleOut::kNone ? 0 : l_.rail.spines > 0 ? 4 : 2;
    return l_.network == ScaleOut::kRailOnly && l_.domains() > 1 ? hb + net : std::max(hb, net);
  }

 private:
  SimTime latency(uint16_t c) const { return classes_[c].latency; }

  Layout l_;
  std::vector<LinkClass> classes_;
};

// Up/down in each Clos (clos.h, destination-based). A GPU sends a message for its own domain
// into the HB fabric and one for its own rail into the network (rail-optimized: every message
// for another domain). Otherwise, rail-only, the message is forwarded by one GPU: hb_first via
// the GPU of the destination's rail in the source domain, rail_first via the GPU of the source's
// rail in the destination domain, alternate either by a hash of (source, destination). Switches
// need no state: an HB switch always heads for the GPU on the destination's rail, a rail switch
// for the GPU in the destination's domain. The forwarding GPU moves the message from VC 0 to VC 1,
// so each VC's channels form up/down paths of one Clos and no dependency leads from VC 1 back.
class RailOnlyRouting final : public Routing {
 public:
  RailOnlyRouting(const Layout& l, Forwarding f) : l_(l), forwarding_(f) {}

  std::string name() const override { return "updown"; }
  uint8_t vcs() const override { return 2; }

  void route(uint32_t router, PortId in_port, Packet& packet, Candidates& out) const override {
    const Place p = place(l_, router);
    const uint32_t dst_domain = l_.domain_of(packet.dst), dst_rail = l_.rail_of(packet.dst);
    if (p.kind == Place::kHb)
      return out.add(static_cast<PortId>(l_.hb.route(p.index, dst_rail)), packet.vc);
    if (p.kind == Place::kRail) {
      const uint32_t t =
          l_.network == ScaleOut::kRailOnly ? dst_domain : l_.terminal_of(packet.dst);
      return out.add(static_cast<PortId>(l_.rail.route(p.index, t)), packet.vc);
    }
    if (packet.dst == p.index) {
      for (uint8_t vc = 0; vc < vcs(); ++vc) out.add(kEndpointPort, vc);
      return;
    }
    const auto vc = static_cast<uint8_t>(in_port == kEndpointPort ? 0 : 1);
    if (dst_domain == p.group) return out.add(kHbPort, vc);
    if (l_.network == ScaleOut::kNone) {
      throw InputError(kSection + ".network = \"none\": endpoints " + std::to_string(packet.src) +
                       " and " + std::to_string(packet.dst) +
                       " are in different HB domains and no network joins them");
    }
    if (l_.network == ScaleOut::kRailOptimized || dst_rail == l_.rail_of(p.index)) {
      return out.add(kNicPort, vc);
    }
    out.add(hb_first(packet) ? kHbPort : kNicPort, 0);
  }

 private:
  bool hb_first(const Packet& packet) const {
    if (forwarding_ != Forwarding::kAlternate) return forwarding_ == Forwarding::kHbFirst;
    return ((packet.src * 2654435761u ^ packet.dst) >> 16 & 1) == 0;
  }

  Layout l_;
  Forwarding forwarding_;
};

// ---- sizing ----

Clos hb_fabric(const ParamSet& params, uint32_t k) {
  if (params.text("hb") == "switch") return Clos::single(k);
  const auto g = static_cast<uint32_t>(params.integer("hb_leaf_gpus"));
  const auto s = static_cast<uint32_t>(params.integer("hb_spines"));
  if (k % g != 0 || g % s != 0) {
    throw InputError(kSection + ".hb_leaf_gpus = " + std::to_string(g) +
                     ", hb_spines = " + std::to_string(s) +
                     ": expected hb_leaf_gpus to divide hb_size = " + std::to_string(k) +
                     " and hb_spines to divide hb_leaf_gpus (each leaf's " +
                     "up links split evenly over the spines)");
  }
  if (k == g) return Clos::single(k);
  return {k, g, s, g / s};
}

Network make_rail_only(const ParamSet& params) {
  Layout l;
  l.gpus = static_cast<uint32_t>(params.integer("gpus"));
  l.k = static_cast<uint32_t>(params.integer("hb_size"));
  if (l.gpus % l.k != 0) {
    throw InputError(kSection + ".hb_size = " + std::to_string(l.k) + ": expected a divisor of " +
                     kSection + ".gpus = " + std::to_string(l.gpus));
  }
  const std::string& network = params.text("network");
  l.network = network == "rail_only"        ? ScaleOut::kRailOnly
              : network == "rail_optimized" ? ScaleOut::kRailOptimized
                                            : ScaleOut::kNone;
  l.hb = hb_fabric(params, l.k);
  const auto radix = static_cast<uint32_t>(params.integer("radix"));
  const uint32_t terminals = l.network == ScaleOut::kRailOnly ? l.domains() : l.gpus;
  if (l.network != ScaleOut::kNone) {
    l.planes = l.network == ScaleOut::kRailOnly ? l.k : 1;
    l.rail =
        sized_clos(terminals, radix, l.network == ScaleOut::kRailOptimized, kSection + ".radix",
                   l.network == ScaleOut::kRailOnly ? "a rail" : "a network");
  }
  if (uint64_t{l.gpus} + l.routers() >= (uint64_t{1} << 32)) {
    throw InputError(kSection + ".gpus = " + std::to_string(l.gpus) + ": too many components");
  }
  const std::string& fw = params.text("forwarding");
  const Forwarding forwarding = fw == "hb_first"     ? Forwarding::kHbFirst
                                : fw == "rail_first" ? Forwarding::kRailFirst
                                                     : Forwarding::kAlternate;
  std::vector<LinkClass> classes = {
      {"endpoint", positive_time(params, kSection, "endpoint_latency"),
       params.real("endpoint_speed")},
      {"hb", positive_time(params, kSection, "hb_latency"), params.real("hb_speed")},
      {"nic", positive_time(params, kSection, "nic_latency"), params.real("nic_speed")},
      {"rail", positive_time(params, kSection, "rail_latency"), params.real("rail_speed")}};
  Network net;
  net.routing = std::make_unique<RailOnlyRouting>(l, forwarding);
  net.topology = std::make_unique<RailOnlyTopology>(l, std::move(classes));
  return net;
}

ClosedForms closed_forms(const ParamSet& p) {
  rail_only::Inputs in;
  in.gpus = static_cast<uint64_t>(p.integer("gpus"));
  in.hb_size = static_cast<uint64_t>(p.integer("hb_size"));
  in.radix = static_cast<uint32_t>(p.integer("radix"));
  in.model = p.text("llm");
  in.batch_tokens = p.real("batch_tokens");
  in.hw.hb = p.bandwidth("hb_bandwidth");
  in.hw.network = p.bandwidth("network_bandwidth");
  in.hw.chip_flops = p.real("chip_flops");
  return rail_only::report(in);
}

}  // namespace

TopologyFamily rail_only_family() {
  return TopologyFamily{
      kSection,
      "Rail-only (Wang et al.): HB domains of hb_size GPUs on a non-blocking fabric (one ideal "
      "switch, or two-level NVSwitch leaves and spines); GPU j of every domain has a NIC on rail "
      "j. network = rail_only: one Clos per rail, no spine across rails, cross-rail traffic "
      "forwarded through an HB domain; rail_optimized: all rails under one spine layer (the "
      "any-to-any baseline); none: HB domains alone (hb_size = gpus: the ideal any-to-any "
      "network). Endpoint groups are HB domains. Up/down routing, 2 VCs",
      {
          ParamSpec::integer("gpus", 64, "GPUs N, a multiple of hb_size").range(1, 1 << 24),
          ParamSpec::integer("hb_size", 8, "GPUs per HB domain K (= rails)").range(1, 1 << 24),
          ParamSpec::choice("hb", "switch", {"switch", "nvswitch"},
                            "the HB fabric: one ideal switch of K ports, or two-level NVSwitch "
                            "(leaves of hb_leaf_gpus GPUs under hb_spines spines)"),
          ParamSpec::integer("hb_leaf_gpus", 8, "hb = nvswitch: GPUs per leaf NVSwitch")
              .range(1, 4096),
          ParamSpec::integer("hb_spines", 8,
                             "hb = nvswitch: spine NVSwitches; each leaf has hb_leaf_gpus / "
                             "hb_spines links to each (non-blocking)")
              .range(1, 4096),
          ParamSpec::choice("network", "rail_only", {"rail_only", "rail_optimized", "none"},
                            "the scale-out network of the NICs"),
          ParamSpec::integer("radix", 64,
                             "network switch radix: a rail (rail_only) or all GPUs "
                             "(rail_optimized) up to radix on one switch, else leaves of "
                             "radix/2 GPUs and radix/2 up links")
              .range(4, 65534),
          ParamSpec::choice("forwarding", "hb_first", {"hb_first", "rail_first", "alternate"},
                            "rail_only, a message between different rails of different "
                            "domains: hb_first (to the destination's rail inside the source "
                            "domain, then that rail), rail_first (the source's rail to the "
                            "destination domain, then its HB fabric), alternate (either, by a "
                            "hash of source and destination)"),
          ParamSpec::choice("routing", "updown", {"updown"},
                            "updown: destination-based up/down in each Clos (d-mod-k)"),
          ParamSpec::real("hb_speed", 18.0,
                          "HB bandwidth per GPU B_F, flits/cycle (7.2 Tbps against a 400 Gbps "
                          "NIC of 1 flit/cycle: 18)")
              .range(0.001, 4096),
          ParamSpec::real("nic_speed", 1.0, "NIC bandwidth B_S, flits/cycle").range(0.001, 4096),
          ParamSpec::real("rail_speed", 1.0, "bandwidth of a network leaf-spine link, flits/cycle")
              .range(0.001, 4096),
          ParamSpec::real("endpoint_speed", 19.0,
                          "injection bandwidth, flits/cycle (default: HB plus NIC)")
              .range(0.001, 4096),
          ParamSpec::time("endpoint_latency", "1cycles", "latency of a GPU's injection link"),
          ParamSpec::time("hb_latency", "5cycles", "latency of an HB fabric link"),
          ParamSpec::time("nic_latency", "10cycles", "latency of a NIC to its leaf"),
          ParamSpec::time("rail_latency", "10cycles", "latency of a network leaf-spine link"),
          ParamSpec::choice("llm", "gpt3-175b", rail_only::paper_models(),
                            "hxsim topo: the LLM of Eq. 1-3 (a model Table 1 gives M_cc for)"),
          ParamSpec::real("batch_tokens", 0,
                          "hxsim topo: tokens per iteration b; 0: the paper's batch for the "
                          "model (GPT-3 3.2M, OPT-175B 2M, PaLM-540B 512 x 2,048)")
              .range(0, 1e12),
          ParamSpec::bandwidth("hb_bandwidth", "7.2Tbps", "hxsim topo: B_F, HB bandwidth per GPU"),
          ParamSpec::bandwidth("network_bandwidth", "400Gbps",
                               "hxsim topo: B_S, NIC bandwidth per GPU"),
          ParamSpec::real("chip_flops", 989e12, "hxsim topo: C, FLOP/s per GPU").range(1, 1e18),
      },
      make_rail_only,
      {{"", "Table 2 (switches, transceivers, cost), Eq. 1-3 and the curves of Fig. 5, 7, 8",
        closed_forms}}};
}

}  // namespace hx::net
