// InfiniteHBD as a network model (Shou et al., SIGCOMM '25; docs/models/infinitehbd.md): nodes
// of R GPUs whose OCS transceivers link each node to the nodes 1..K away (§4.2); the active
// configuration cuts the line of healthy nodes into TP rings (rings.h), and a data-centre network
// carries everything between rings: a fat tree of the GPUs' NICs (§6.1), or one ideal switch.
//
// With bypass_nodes the OCSTrx have a second configuration, "bypass": the rings Algorithm 2 (or
// bypass_groups) forms around those nodes too, wired on ports of their own and switched to at run
// time by the fault schedule (docs/FAULTS.md "Reconfiguration"), as §4.3's backup paths re-form
// a ring around a failed node.
//
// Components: GPU g's router is component 2g and its endpoint 2g + 1 (GPU g is GPU g % R of node
// g / R); DCN switch s (models/network/clos.h, terminal g = GPU g) is router G + s, component
// 2G + s (G = nodes R). A GPU router's ports: 0 its endpoint, 1 the next GPU of its ring, 2 the
// previous one (3 and 4 the same in the bypass configuration), then its NIC. Link classes:
// "endpoint", "intra" (ring hops inside a node, loopbacks included), "optical" (ring hops between
// nodes, over an OCSTrx path), "dcn" (NICs and the links between DCN switches). Directed links
// per GPU: its router's ports, then its endpoint's; then the DCN switches' in their order.
#include "models/topologies/infinitehbd/infinitehbd.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "models/network/clos.h"
#include "models/network/concentrated_topology.h"
#include "models/network/layout.h"
#include "models/topologies/infinitehbd/analytic.h"
#include "models/topologies/infinitehbd/binary_wiring.h"
#include "models/topologies/infinitehbd/orchestration.h"
#include "models/topologies/infinitehbd/rings.h"

namespace hx::net {
namespace {

using infinitehbd::Rings;

const std::string kSection = "infinitehbd";

constexpr uint16_t kEndpointClass = 0, kIntraClass = 1, kOpticalClass = 2, kDcnClass = 3;

// A GPU router's ring ports in OCSTrx configuration c.
PortId next_port(uint32_t c) { return static_cast<PortId>(1 + 2 * c); }
PortId prev_port(uint32_t c) { return static_cast<PortId>(2 + 2 * c); }

struct Sizes {
  uint32_t nodes = 0, r = 0, k = 0, tp = 0;
  bool dcn = true;       // without it, rings only
  uint32_t configs = 1;  // OCSTrx configurations: "placed", and "bypass" with bypass_nodes
  SimTime switching;     // an OCSTrx's switching time
  Clos fabric;           // the DCN, terminal g = GPU g
  uint32_t gpus() const { return nodes * r; }
  ComponentId dcn_base() const { return 2 * ComponentId{gpus()}; }
  PortId dcn_port() const { return static_cast<PortId>(1 + 2 * configs); }
  // A GPU router's ports and its endpoint's.
  uint32_t gpu_links() const { return 2 + 2 * configs + (dcn ? 1 : 0); }
};

using RingSet = std::vector<std::shared_ptr<const Rings>>;  // per OCSTrx configuration

class InfiniteHbd final : public ConcentratedTopology {
 public:
  InfiniteHbd(Sizes s, RingSet rings, std::vector<LinkClass> classes)
      : ConcentratedTopology(1), s_(s), rings_(std::move(rings)), classes_(std::move(classes)) {}

  std::string describe() const override {
    std::string out = "infinitehbd nodes=" + std::to_string(s_.nodes) +
                      " R=" + std::to_string(s_.r) + " K=" + std::to_string(s_.k) +
                      " tp=" + std::to_string(s_.tp) + ": " + std::to_string(s_.gpus()) +
                      " GPUs, " + std::to_string(rings_[0]->count()) + " rings";
    if (s_.configs > 1) out += " (" + std::to_string(rings_[1]->count()) + " when bypassing)";
    return out;
  }
  uint32_t num_routers() const override { return s_.gpus() + s_.fabric.switches(); }
  uint32_t num_endpoints() const override { return s_.gpus(); }

  Node node(ComponentId id) const override {
    if (id >= s_.dcn_base()) {
      return {NodeKind::kRouter, s_.gpus() + static_cast<uint32_t>(id - s_.dcn_base())};
    }
    return ConcentratedTopology::node(id);
  }
  ComponentId router_component(uint32_t router) const override {
    if (router >= s_.gpus()) return s_.dcn_base() + router - s_.gpus();
    return ConcentratedTopology::router_component(router);
  }

  void ports(ComponentId id, std::vector<PortSpec>& out) const override {
    const Node me = node(id);
    if (me.index >= s_.gpus()) {  // a DCN switch
      const uint32_t count = s_.fabric.ports(me.index - s_.gpus());
      for (uint32_t p = 0; p < count; ++p) out.push_back(port(id, static_cast<PortId>(p)));
      return;
    }
    if (!terminal_ports(id, me, classes_[kEndpointClass].latency, kEndpointClass, out)) return;
    for (uint32_t c = 0; c < s_.configs; ++c) {
      for (const PortId p : {next_port(c), prev_port(c)}) out.push_back(port(id, p));
    }
    if (s_.dcn) out.push_back(port(id, s_.dcn_port()));
  }
  // In closed form: an ideal DCN switch has a port per GPU, which a list per call would rebuild.
  PortSpec port(ComponentId id, PortId p) const override {
    const SimTime dcn = classes_[kDcnClass].latency;
    if (id >= s_.dcn_base()) {
      const Clos::Peer peer = s_.fabric.peer(static_cast<uint32_t>(id - s_.dcn_base()), p);
      if (peer.terminal) return {2 * ComponentId{peer.index}, s_.dcn_port(), dcn, kDcnClass};
      return {s_.dcn_base() + peer.index, static_cast<PortId>(peer.port), dcn, kDcnClass};
    }
    const uint32_t r = id / 2;
    if (id % 2 == 1) return {2 * r, 0, classes_[kEndpointClass].latency, kEndpointClass};
    if (p == 0) return {id + 1, 0, classes_[kEndpointClass].latency, kEndpointClass};
    if (p == s_.dcn_port()) {
      return {s_.dcn_base() + s_.fabric.leaf_of(r), static_cast<PortId>(r % s_.fabric.per_leaf),
              dcn, kDcnClass};
    }
    const uint32_t config = (p - 1) / 2;
    const bool next = p == next_port(config);
    const Rings& rings = *rings_[config];
    const uint32_t peer = next ? rings.next(r) : rings.prev(r);
    const uint16_t c = peer / s_.r == r / s_.r ? kIntraClass : kOpticalClass;
    return {2 * peer, next ? prev_port(config) : next_port(config), classes_[c].latency, c};
  }

  // One OCSTrx element for the whole line: the schedule switches every GPU's paths at once.
  std::vector<Reconfigurable> reconfigurables() const override {
    if (s_.configs < 2) return {};
    return {{"ocstrx", 1, {"placed", "bypass"}, s_.switching}};
  }
  bool circuit(ComponentId id, PortId p, Circuit& out) const override {
    if (s_.configs < 2 || id >= s_.dcn_base() || id % 2 == 1 || p == 0 || p >= s_.dcn_port()) {
      return false;
    }
    out = {0, 0, static_cast<uint32_t>((p - 1) / 2)};
    return true;
  }

  uint64_t first_link(ComponentId id) const override {
    const uint64_t per = s_.gpu_links(), gpu_links = per * s_.gpus();
    if (id >= s_.dcn_base()) {
      return gpu_links + s_.fabric.first_link(static_cast<uint32_t>(id - s_.dcn_base()));
    }
    const uint64_t r = id / 2;
    return per * r + (id % 2 == 0 ? 0 : per - 1);
  }
  uint64_t num_links() const override {
    return uint64_t{s_.gpu_links()} * s_.gpus() + s_.fabric.switch_links();
  }

  // Nodes, then each DCN switch; GPUs, then each DCN switch.
  std::vector<GroupLevel> group_levels() const override {
    return {{"node", s_.nodes + s_.fabric.switches()}, {"gpu", num_routers()}};
  }
  ComponentRange group_range(std::size_t level, uint64_t group) const override {
    const uint64_t size = level == 0 ? 2 * s_.r : 2;
    const uint64_t count = level == 0 ? s_.nodes : s_.gpus();
    if (group >= count) {
      const auto first = static_cast<ComponentId>(s_.dcn_base() + group - count);
      return {first, first + 1};
    }
    return {static_cast<ComponentId>(group * size), static_cast<ComponentId>((group + 1) * size)};
  }

  const std::vector<LinkClass>& link_classes() const override { return classes_; }

  uint32_t num_endpoint_groups() const override { return s_.nodes; }
  uint32_t endpoint_group(uint32_t endpoint) const override { return endpoint / s_.r; }
  EndpointRange endpoint_group_range(uint32_t group) const override {
    return {group * s_.r, (group + 1) * s_.r};
  }
  std::vector<uint32_t> endpoint_dims() const override { return {s_.r, s_.nodes}; }

  // The placed configuration's rings.
  std::vector<uint32_t> ring_order() const override {
    const Rings& rings = *rings_[0];
    std::vector<uint32_t> order;
    for (uint32_t ring = 0; ring < rings.count(); ++ring) {
      for (uint32_t i = 0; i < rings.size(ring); ++i) order.push_back(rings.at(ring, i));
    }
    return order;
  }

  // Pictures: each TP ring of the placed configuration (a node in no group: its own ring) on a
  // grid, its GPUs on a circle in ring order; the DCN one more group below, leaves over spines.
  std::string picture_group() const override { return "ring"; }
  PicturePlace picture_place(ComponentId id) const override {
    const Rings& rings = *rings_[0];
    const uint32_t count = rings.count();
    if (id >= s_.dcn_base()) {
      const double side = std::ceil(std::sqrt(static_cast<double>(count)));
      return place_at(count, {(side - 1) / 2, -side - 1},
                      clos_switch(s_.fabric, static_cast<uint32_t>(id - s_.dcn_base()), 0));
    }
    const uint32_t gpu = static_cast<uint32_t>(id / 2), ring = rings.ring(gpu);
    const uint32_t i = rings.position(gpu), n = rings.size(ring);
    return place_at(ring, on_grid(ring, count),
                    id % 2 == 0 ? on_circle(i, n) : outside(i, n, 1.0, 0, 1));
  }

  // Half the longest ring of any configuration, or through the DCN: GPU, leaf (spine, leaf), GPU.
  uint32_t diameter() const override {
    uint32_t longest = 0;
    for (const auto& rings : rings_) longest = std::max(longest, rings->longest());
    return std::max(longest / 2, s_.fabric.spines > 0 ? 4u : 2u);
  }

 private:
  Sizes s_;
  RingSet rings_;
  std::vector<LinkClass> classes_;
};

// Within a ring the shorter way round (halfway: a way fixed per flow), with a dateline: a packet
// moves from VC 0 to VC 1 when it wraps from the ring's last position to its first (or back), so
// each ring's channel graph is acyclic. Between rings through the DCN, on VC 0: the switch
// delivers to the destination's router, which ejects; no channel leads from the DCN onto a ring.
// With the bypass configuration a packet keeps the rings live (or being switched to) at its first
// router, in route_aux, as RailX's reconfigured rails do (docs/FAULTS.md): one still heading for
// circuits that went dark is lost there. Each configuration's rings are on ports of their own, so
// the union of their channel graphs stays acyclic.
class RingRouting final : public Routing {
 public:
  RingRouting(RingSet rings, bool dcn, Clos fabric, PortId dcn_port)
      : rings_(std::move(rings)), dcn_(dcn), fabric_(fabric), dcn_port_(dcn_port) {}

  std::string name() const override { return "ring"; }
  uint8_t vcs() const override { return 2; }

  void start(uint32_t /*router*/, const RouterView& view, Rng& /*rng*/,
             Packet& packet) const override {
    if (rings_.size() > 1) packet.route_aux = static_cast<uint8_t>(view.configuration(0, 0));
  }
  void start_states(uint32_t /*router*/, const RouterView* view, const Packet& packet,
                    std::vector<Packet>& out) const override {
    for (uint32_t c = 0; c < rings_.size(); ++c) {
      if (view != nullptr && rings_.size() > 1 && c != view->configuration(0, 0)) continue;
      out.push_back(packet);
      out.back().route_aux = static_cast<uint8_t>(c);
    }
  }

  void route(uint32_t router, PortId in_port, Packet& packet, Candidates& out) const override {
    const Rings& rings = *rings_[packet.route_aux];
    if (router >= rings.gpus()) {
      return out.add(static_cast<PortId>(fabric_.route(router - rings.gpus(), packet.dst)), 0);
    }
    if (packet.dst == router) {
      for (uint8_t vc = 0; vc < vcs(); ++vc) out.add(0, vc);
      return;
    }
    if (rings.ring(packet.dst) != rings.ring(router)) {
      if (!dcn_) {
        throw InputError(kSection + ".dcn = \"none\": endpoints " + std::to_string(packet.src) +
                         " and " + std::to_string(packet.dst) +
                         " are on different rings and no "
                         "DCN joins them (set it to \"switch\", or keep traffic within rings)");
      }
      return out.add(dcn_port_, 0);
    }
    const uint32_t n = rings.size(rings.ring(router)), here = rings.position(router);
    const uint32_t ahead = (rings.position(packet.dst) + n - here) % n;
    const bool forward =
        2 * ahead < n || (2 * ahead == n && ((packet.src * 2654435761u ^ packet.dst) >> 16 & 1));
    const bool wraps = forward ? here == n - 1 : here == 0;
    const uint8_t cls = in_port == 0 ? 0 : packet.vc;
    out.add(forward ? next_port(packet.route_aux) : prev_port(packet.route_aux),
            static_cast<uint8_t>(cls == 1 || wraps ? 1 : 0));
  }

 private:
  RingSet rings_;
  bool dcn_;
  Clos fabric_;
  PortId dcn_port_;
};

// "3, 17" or "0-3, 6" -> the nodes in the order given; InputError naming `key` on anything that
// is not a node.
std::vector<uint32_t> node_list(const std::string& key, const std::string& list,
                                const std::string& text, uint32_t nodes) {
  const auto number = [&](const std::string& n) {
    if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos || n.size() > 9 ||
        std::stoul(n) >= nodes) {
      throw InputError(kSection + "." + key + " = \"" + list + "\": '" + n +
                       "' is not a node (0 to " + std::to_string(nodes - 1) + ")");
    }
    return static_cast<uint32_t>(std::stoul(n));
  };
  std::vector<uint32_t> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    const auto begin = item.find_first_not_of(' '), end = item.find_last_not_of(' ');
    if (begin == std::string::npos) continue;
    item = item.substr(begin, end - begin + 1);
    const auto dash = item.find('-');
    const uint32_t first = number(item.substr(0, dash));
    const uint32_t last = dash == std::string::npos ? first : number(item.substr(dash + 1));
    for (uint32_t n = first; n <= last; ++n) out.push_back(n);
  }
  return out;
}

// infinitehbd.groups: the active configuration as given, each group checked against the OCSTrx
// paths that exist (nodes at most K apart) and the failed nodes.
std::vector<std::vector<uint32_t>> given_groups(const std::string& key, const std::string& text,
                                                const Sizes& s,
                                                const std::vector<uint32_t>& failed) {
  std::vector<std::vector<uint32_t>> groups;
  std::vector<bool> used(s.nodes, false);
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ';')) {
    std::vector<uint32_t> group = node_list(key, text, item, s.nodes);
    if (group.empty()) continue;
    const auto bad = [&](const std::string& why) {
      return InputError(kSection + "." + key + " = \"" + text + "\": group '" + item + "' " + why);
    };
    if (group.size() != s.tp / s.r) {
      throw bad("has " + std::to_string(group.size()) + " nodes; tp = " + std::to_string(s.tp) +
                " takes " + std::to_string(s.tp / s.r));
    }
    for (std::size_t i = 0; i < group.size(); ++i) {
      const uint32_t n = group[i];
      if (std::binary_search(failed.begin(), failed.end(), n)) {
        throw bad("uses failed node " + std::to_string(n) +
                  (key == "groups" ? "" : " (failed_nodes and bypass_nodes)"));
      }
      if (used[n]) throw bad("uses node " + std::to_string(n) + " a second time");
      used[n] = true;
      const uint32_t prev = i == 0 ? n : group[i - 1];
      if ((n > prev ? n - prev : prev - n) > s.k) {
        throw bad("joins nodes " + std::to_string(prev) + " and " + std::to_string(n) +
                  ", which no OCSTrx path links (k = " + std::to_string(s.k) + ")");
      }
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

std::vector<LinkClass> link_classes_of(const ParamSet& params) {
  return {{"endpoint", positive_time(params, kSection, "endpoint_latency"),
           params.real("endpoint_speed")},
          {"intra", positive_time(params, kSection, "intra_latency"), params.real("intra_speed")},
          {"optical", positive_time(params, kSection, "optical_latency"), params.real("hbd_speed")},
          {"dcn", positive_time(params, kSection, "dcn_latency"), params.real("dcn_speed")}};
}

// wiring = "binary" (binary_wiring.h): no rings, so none of the ring keys, and no DCN.
Network make_binary(const ParamSet& params, const Sizes& s) {
  for (const char* key : {"failed_nodes", "groups", "bypass_nodes", "bypass_groups"}) {
    if (!params.text(key).empty()) {
      throw InputError(kSection + "." + key +
                       ": applies to wiring = \"k_hop\"; the binary "
                       "wiring (Appendix G) forms no rings");
    }
  }
  if (params.text("dcn") != "none") {
    throw InputError(kSection + ".dcn = \"" + params.text("dcn") +
                     "\": the binary wiring builds no DCN (every pair is reachable along the "
                     "line); set it to \"none\"");
  }
  if (s.k > 31 || (1u << (s.k - 1)) >= s.nodes) {
    throw InputError(kSection + ".k = " + std::to_string(s.k) +
                     ": the binary wiring's longest "
                     "path, 2^(k-1) nodes, must be shorter than the line of " +
                     std::to_string(s.nodes) + " nodes");
  }
  std::vector<LinkClass> classes = link_classes_of(params);
  classes.pop_back();  // no DCN
  return infinitehbd::make_binary_wiring({s.nodes, s.r, s.k}, std::move(classes));
}

Network make_infinitehbd(const ParamSet& params) {
  Sizes s;
  s.nodes = static_cast<uint32_t>(params.integer("nodes"));
  s.r = static_cast<uint32_t>(params.integer("gpus_per_node"));
  s.k = static_cast<uint32_t>(params.integer("k"));
  s.tp = static_cast<uint32_t>(params.integer("tp"));
  if (s.r % 2 != 0) {
    throw InputError(kSection + ".gpus_per_node = " + std::to_string(s.r) +
                     ": expected an even count (a ring runs out on one half of a node's GPUs "
                     "and back on the other)");
  }
  if (s.k > s.r) {
    throw InputError(kSection + ".k = " + std::to_string(s.k) + ": a node reaches at most R = " +
                     std::to_string(s.r) + " nodes each way (K <= R, Sec. 4.2)");
  }
  if (params.text("wiring") == "binary") return make_binary(params, s);
  if (s.tp % s.r != 0 || s.tp / s.r > s.nodes) {
    throw InputError(kSection + ".tp = " + std::to_string(s.tp) +
                     ": a TP ring takes whole nodes: expected a multiple of gpus_per_node = " +
                     std::to_string(s.r) +
                     " of at most nodes x gpus_per_node = " + std::to_string(s.gpus()));
  }
  const std::string& dcn = params.text("dcn");
  s.dcn = dcn != "none";
  if (dcn == "switch" && s.gpus() > kWidePort) {
    throw InputError(kSection + ": " + std::to_string(s.gpus()) +
                     " GPUs; the DCN switch has a "
                     "port per GPU and at most " +
                     std::to_string(kWidePort) +
                     " ports "
                     "(infinitehbd.dcn = \"fat_tree\" or \"none\")");
  }
  if (dcn == "switch") s.fabric = Clos::single(s.gpus());
  if (dcn == "fat_tree") {
    const auto radix = static_cast<uint32_t>(params.integer("dcn_radix"));
    s.fabric = sized_clos(s.gpus(), radix, true, kSection + ".dcn_radix", "a DCN");
  }
  const auto nodes_of = [&](const std::string& key) {
    std::vector<uint32_t> out = node_list(key, params.text(key), params.text(key), s.nodes);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  };
  // Configuration "placed" around failed_nodes, "bypass" around bypass_nodes as well.
  const std::vector<uint32_t> failed = nodes_of("failed_nodes"), bypass = nodes_of("bypass_nodes");
  const auto rings_around = [&](const std::vector<uint32_t>& out, const std::string& key) {
    const std::string& given = params.text(key);
    return std::make_shared<const Rings>(
        s.nodes, s.r,
        given.empty()
            ? infinitehbd::orchestrate_dcn_free({s.nodes, s.k, false}, out, {s.tp, s.r}).groups
            : given_groups(key, given, s, out));
  };
  RingSet rings = {rings_around(failed, "groups")};
  if (!params.text("bypass_groups").empty() && bypass.empty()) {
    throw InputError(kSection +
                     ".bypass_groups: applies with bypass_nodes (the nodes the bypass "
                     "configuration routes around)");
  }
  if (!bypass.empty()) {
    std::vector<uint32_t> both;
    std::set_union(failed.begin(), failed.end(), bypass.begin(), bypass.end(),
                   std::back_inserter(both));
    if (both.size() == failed.size()) {
      throw InputError(kSection + ".bypass_nodes = \"" + params.text("bypass_nodes") +
                       "\": every one is in failed_nodes already, so the bypass configuration "
                       "would be the placed one");
    }
    rings.push_back(rings_around(both, "bypass_groups"));
    s.configs = 2;
    s.switching = positive_time(params, kSection, "ocstrx_switching");
  }
  std::vector<LinkClass> classes = link_classes_of(params);
  Network net;
  net.routing = std::make_unique<RingRouting>(rings, s.dcn, s.fabric, s.dcn_port());
  net.topology = std::make_unique<InfiniteHbd>(s, std::move(rings), std::move(classes));
  return net;
}

ClosedForms closed_forms(const ParamSet& p) {
  infinitehbd::Inputs in;
  in.gpus_per_node = static_cast<uint32_t>(p.integer("gpus_per_node"));
  in.k = static_cast<uint32_t>(p.integer("k"));
  in.tp = static_cast<uint32_t>(p.integer("tp"));
  in.nodes = static_cast<uint64_t>(p.integer("nodes"));
  if (p.real("node_fault") == 0 && in.gpus_per_node != 4 && in.gpus_per_node != 8) {
    throw InputError(kSection +
                     ".node_fault = 0: Table 7's P_s is for R = 4 and 8 GPUs per "
                     "node; set it for R = " +
                     std::to_string(in.gpus_per_node));
  }
  in.node_fault = p.real("node_fault") > 0 ? p.real("node_fault")
                                           : infinitehbd::table7_node_fault(in.gpus_per_node);
  return infinitehbd::report(in);
}

}  // namespace

TopologyFamily infinitehbd_family() {
  return TopologyFamily{
      kSection,
      "InfiniteHBD (Shou et al.): nodes of R GPUs whose OCS transceivers link each node to the "
      "nodes 1..K away in a line; the active configuration cuts the healthy nodes into TP rings "
      "of tp GPUs (Algorithm 2: runs of healthy nodes, groups of tp/R nodes in order), each "
      "folded through its nodes and closed by the end nodes' loopbacks; a node in no ring loops "
      "back on itself. Traffic between rings crosses the data-centre network, a fat tree of "
      "400G NICs (or an ideal switch). Endpoint groups are nodes",
      {
          ParamSpec::integer("nodes", 16, "nodes in the HBD line").range(1, 1 << 20),
          ParamSpec::integer("gpus_per_node", 4, "GPUs per node, R (Sec. 6.1: 4 or 8)")
              .range(2, 64),
          ParamSpec::integer("k", 2,
                             "OCSTrx bundles: each node reaches the nodes 1..K away "
                             "(Sec. 4.2, K <= R; the paper evaluates 2 and 3)")
              .range(1, 64),
          ParamSpec::integer("tp", 16, "GPUs per TP ring, a multiple of R").range(2, 1 << 20),
          ParamSpec::choice("wiring", "k_hop", {"k_hop", "binary"},
                            "k_hop: each node's OCSTrx reach the nodes 1..K away, configured "
                            "into TP rings (Sec. 4.2); binary: the nodes 1, 2, 4, .., 2^(K-1) "
                            "away, every path wired, for the Binary Exchange all-to-all "
                            "(Appendix G.3; routing binary, no rings, dcn = \"none\")"),
          ParamSpec::text("failed_nodes", "",
                          "nodes left out of the rings, e.g. \"3, 17\" (they loop back on "
                          "themselves); a TP group skips up to K-1 failed nodes in a row"),
          ParamSpec::text("groups", "",
                          "the active configuration: TP groups separated by ';', each its tp/R "
                          "nodes in ring order, e.g. \"0-3; 4, 6-8\" (consecutive nodes at most "
                          "k apart, none failed); \"\": Algorithm 2 places them"),
          ParamSpec::text("bypass_nodes", "",
                          "nodes a second OCSTrx configuration, \"bypass\", re-forms the rings "
                          "around (Sec. 4.3's backup paths), e.g. \"5\"; the fault schedule "
                          "switches element \"ocstrx\" to it at run time (docs/FAULTS.md); \"\": "
                          "one configuration"),
          ParamSpec::text("bypass_groups", "",
                          "the bypass configuration's TP groups, as groups (none of failed_nodes "
                          "or bypass_nodes); \"\": Algorithm 2 places them"),
          ParamSpec::time("ocstrx_switching", "70us",
                          "how long the OCSTrx carry nothing while switching configurations "
                          "(Sec. 5.1: 60-80 us)"),
          ParamSpec::choice("dcn", "fat_tree", {"fat_tree", "switch", "none"},
                            "the data-centre network between rings: a fat tree of the GPUs' NICs "
                            "(Sec. 6.1; models/network/clos.h, radix dcn_radix), an ideal "
                            "switch (a port per GPU, at most 65,534 GPUs), or none (traffic "
                            "between rings is an input error)"),
          ParamSpec::integer("dcn_radix", 64,
                             "dcn = fat_tree: switch radix; up to radix GPUs on one switch, "
                             "else leaves of radix/2 GPUs (a ToR: radix/2/R nodes) and radix/2 "
                             "up links, spines of radix ports, or radix/2 wider spines beyond "
                             "radix^2/2 GPUs")
              .range(4, 65534),
          ParamSpec::choice("routing", "ring", {"ring"},
                            "ring: the shorter way round a TP ring (a dateline VC), to another "
                            "ring through the DCN (wiring = binary routes its own way: "
                            "binary_wiring.cpp)"),
          ParamSpec::real("hbd_speed", 1.0,
                          "bandwidth of a ring hop between nodes per direction, flits/cycle "
                          "(the unit: a GPU's HBD bandwidth per ring direction)")
              .range(0.01, 1024),
          ParamSpec::real("intra_speed", 1.0,
                          "bandwidth of a ring hop inside a node (loopbacks included), "
                          "flits/cycle; the paper gives none, so as fast as the ring")
              .range(0.01, 1024),
          ParamSpec::real("dcn_speed", 0.125,
                          "bandwidth of a GPU's DCN NIC, flits/cycle (Sec. 6.1: 400 Gbps "
                          "against 3.2 Tbps per ring direction)")
              .range(0.001, 1024),
          ParamSpec::time("optical_latency", "10cycles", "latency of an OCSTrx path"),
          ParamSpec::time("intra_latency", "1cycles", "latency of a ring hop inside a node"),
          ParamSpec::time("dcn_latency", "20cycles",
                          "latency of a NIC link to the ideal DCN switch (each way)"),
          ParamSpec::time("endpoint_latency", "1cycles", "latency of a GPU's injection link"),
          ParamSpec::real("endpoint_speed", 4.0, "injection bandwidth, flits/cycle")
              .range(0.01, 1024),
          ParamSpec::real("node_fault", 0,
                          "hxsim topo: the node fault probability P_s of Eq. (1)'s waste bound; "
                          "0: Table 7's (3.67% for R = 4, 7.22% for R = 8)")
              .range(0, 1),
      },
      make_infinitehbd,
      {{"", "Eq. (1)'s waste bound and Table 7, Table 6's cost and power (from Table 8)",
        closed_forms}}};
}

}  // namespace hx::net
