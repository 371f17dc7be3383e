// The rail-optimized two-tier Clos of GPU clusters (the NVIDIA DGX SuperPOD layout) with up/down
// routing, as closed forms; nothing is tabulated.
//
// Nodes are cut into blocks of M = nodes_per_leaf consecutive nodes. Each block has one leaf
// switch per rail r in [0, R) (R = gpus_per_node); GPU r of each node of the block attaches to
// leaf (block, r). Every leaf has L = spine_links parallel links to each of the S spines. There is
// no link between the GPUs of one node (no NVLink in this baseline): traffic between rails crosses
// a spine, traffic between nodes on one rail leaf stays on that leaf.
//
// Endpoints: GPU r of node d is endpoint d * R + r, so a node's GPUs are a contiguous endpoint
// group. Leaf l = block * R + r is router l and component l * (M + 1), followed by its M GPUs
// (node block * M + m on component l * (M + 1) + 1 + m); spine s is router B * R + s (B blocks)
// and follows all leaves.
//
// Ports: leaf port m in [0, M) to the GPU of node block * M + m; leaf port M + x * S + s is its
// x-th link to spine s; spine port l * L + x is the x-th link to leaf l. Directed link ids follow
// component order (each component's ports in turn).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "models/network/layout.h"
#include "models/topologies/fat_tree/fat_tree.h"

namespace hx::net {
namespace {

constexpr uint16_t kTerminalClass = 0;
constexpr uint16_t kSpineClass = 1;

// Sizes and the closed forms the topology and the routing share.
struct Rails {
  uint32_t nodes = 0, rails = 0, per_leaf = 0, spines = 0, links = 0;

  uint32_t blocks() const { return nodes / per_leaf; }
  uint32_t leaves() const { return blocks() * rails; }
  uint32_t up_ports() const { return spines * links; }
  uint32_t leaf_component_span() const { return per_leaf + 1; }
  ComponentId spine_base() const { return leaves() * leaf_component_span(); }
  // Directed links of a leaf with its GPUs: the leaf's ports plus one per GPU.
  uint64_t leaf_links() const { return 2 * uint64_t{per_leaf} + up_ports(); }
  uint64_t spine_links() const { return uint64_t{leaves()} * links; }

  uint32_t leaf_of(uint32_t endpoint) const {
    return endpoint / rails / per_leaf * rails + endpoint % rails;
  }
  uint32_t position_of(uint32_t endpoint) const { return endpoint / rails % per_leaf; }
  // The leaf up port d-mod-k would take towards `endpoint`: destinations on the up_ports()
  // positions of a leaf get distinct (spine, link) pairs.
  uint32_t up_choice(uint32_t endpoint) const { return position_of(endpoint) % up_ports(); }
};

class RailTopology final : public Topology {
 public:
  RailTopology(const Rails& rails, std::vector<LinkClass> classes)
      : r_(rails), classes_(std::move(classes)) {}

  std::string describe() const override {
    return "rail_optimized nodes=" + std::to_string(r_.nodes) +
           " gpus_per_node=" + std::to_string(r_.rails) +
           " nodes_per_leaf=" + std::to_string(r_.per_leaf) +
           " spines=" + std::to_string(r_.spines) + ": " + std::to_string(num_endpoints()) +
           " endpoints, " + std::to_string(r_.leaves()) + " leaves, " + std::to_string(r_.spines) +
           " spines";
  }
  uint32_t num_routers() const override { return r_.leaves() + r_.spines; }
  uint32_t num_endpoints() const override { return r_.nodes * r_.rails; }

  Node node(ComponentId id) const override {
    if (id >= r_.spine_base()) return {NodeKind::kRouter, r_.leaves() + id - r_.spine_base()};
    const uint32_t leaf = id / r_.leaf_component_span(), slot = id % r_.leaf_component_span();
    if (slot == 0) return {NodeKind::kRouter, leaf};
    const uint32_t block = leaf / r_.rails, rail = leaf % r_.rails;
    return {NodeKind::kEndpoint, (block * r_.per_leaf + slot - 1) * r_.rails + rail};
  }
  ComponentId router_component(uint32_t router) const override {
    if (router >= r_.leaves()) return r_.spine_base() + router - r_.leaves();
    return router * r_.leaf_component_span();
  }
  ComponentId endpoint_component(uint32_t e) const override {
    return r_.leaf_of(e) * r_.leaf_component_span() + 1 + r_.position_of(e);
  }

  void ports(ComponentId id, std::vector<PortSpec>& out) const override {
    const Node node = this->node(id);
    const uint64_t count = node.kind == NodeKind::kEndpoint ? 1
                           : node.index < r_.leaves()      ? r_.per_leaf + r_.up_ports()
                                                           : uint64_t{r_.leaves()} * r_.links;
    for (uint64_t p = 0; p < count; ++p) out.push_back(port_of(node, id, static_cast<PortId>(p)));
  }
  // A spine has a port per leaf and link: the flow level asks for one at a time.
  PortSpec port(ComponentId id, PortId p) const override { return port_of(node(id), id, p); }

  uint64_t first_link(ComponentId id) const override {
    if (id >= r_.spine_base()) {
      return r_.leaves() * r_.leaf_links() + (id - r_.spine_base()) * r_.spine_links();
    }
    const uint32_t leaf = id / r_.leaf_component_span(), slot = id % r_.leaf_component_span();
    const uint64_t base = leaf * r_.leaf_links();
    return slot == 0 ? base : base + r_.per_leaf + r_.up_ports() + slot - 1;
  }
  uint64_t num_links() const override {
    return r_.leaves() * r_.leaf_links() + r_.spines * r_.spine_links();
  }

  // Level 0: each block (its R leaves with their GPUs), then each spine; level 1: every switch.
  std::vector<GroupLevel> group_levels() const override {
    return {{"block", r_.blocks() + r_.spines}, {"switch", num_routers()}};
  }
  ComponentRange group_range(std::size_t level, uint64_t group) const override {
    const uint32_t leaves_per_group = level == 0 ? r_.rails : 1;
    const uint32_t leaf_groups = r_.leaves() / leaves_per_group;
    if (group >= leaf_groups) {
      const auto first = static_cast<ComponentId>(r_.spine_base() + group - leaf_groups);
      return {first, first + 1};
    }
    const ComponentId span = leaves_per_group * r_.leaf_component_span();
    const auto first = static_cast<ComponentId>(group * span);
    return {first, first + span};
  }

  const std::vector<LinkClass>& link_classes() const override { return classes_; }

  // Endpoint groups: the GPUs of one node.
  uint32_t num_endpoint_groups() const override { return r_.nodes; }
  uint32_t endpoint_group(uint32_t endpoint) const override { return endpoint / r_.rails; }
  EndpointRange endpoint_group_range(uint32_t group) const override {
    return {group * r_.rails, (group + 1) * r_.rails};
  }
  std::vector<uint32_t> endpoint_dims() const override {
    return {r_.rails, r_.per_leaf, r_.blocks()};
  }
  uint32_t endpoint_router(uint32_t endpoint) const override { return r_.leaf_of(endpoint); }
  uint32_t diameter() const override { return r_.leaves() > 1 ? 2 : 0; }

  // Pictures: the blocks in a row, the spines one group above them; in a block its rail leaves
  // side by side, each over its GPUs.
  std::string picture_group() const override { return "block"; }
  PicturePlace picture_place(ComponentId id) const override {
    const Node n = node(id);
    if (n.kind == NodeKind::kRouter && n.index >= r_.leaves()) {
      const double width = in_rows_size(r_.blocks()).x;
      return place_at(r_.blocks(), {(width - 1) / 2, tier_height(width)},
                      {1.0 * (n.index - r_.leaves()), 0});
    }
    const uint32_t leaf = n.kind == NodeKind::kRouter ? n.index : r_.leaf_of(n.index);
    const uint32_t block = leaf / r_.rails, rail = leaf % r_.rails;
    const Point at =
        n.kind == NodeKind::kRouter
            ? Point{(rail + 0.5) * r_.per_leaf - 0.5, tier_height(r_.rails * r_.per_leaf)}
            : Point{1.0 * (rail * r_.per_leaf + r_.position_of(n.index)), 0};
    return place_at(block, in_rows(block, r_.blocks()), at);
  }

 private:
  PortSpec port_of(const Node& node, ComponentId id, PortId p) const {
    const SimTime terminal = classes_[kTerminalClass].latency;
    const SimTime spine = classes_[kSpineClass].latency;
    if (node.kind == NodeKind::kEndpoint) {
      return {router_component(r_.leaf_of(node.index)),
              static_cast<PortId>(r_.position_of(node.index)), terminal, kTerminalClass};
    }
    if (node.index < r_.leaves()) {
      const uint32_t leaf = node.index;
      if (p < r_.per_leaf) return {id + 1 + p, 0, terminal, kTerminalClass};
      const uint32_t u = p - r_.per_leaf, s = u % r_.spines, x = u / r_.spines;
      return {r_.spine_base() + s, static_cast<PortId>(leaf * r_.links + x), spine, kSpineClass};
    }
    const uint32_t s = node.index - r_.leaves();
    const uint32_t leaf = p / r_.links, x = p % r_.links;
    return {router_component(leaf), static_cast<PortId>(r_.per_leaf + x * r_.spines + s), spine,
            kSpineClass};
  }

  Rails r_;
  std::vector<LinkClass> classes_;
};

// Up/down through one spine. The deterministic choice depends on the destination only
// (up_choice: d-mod-k by the destination's position on its leaf, and the matching parallel link
// down). The adaptive variant offers every up port (at most Candidates::kCapacity, starting at
// the deterministic one) and, at the spine, every parallel link to the destination leaf. One VC:
// no path turns from down to up.
class RailRouting final : public Routing {
 public:
  RailRouting(const Rails& rails, bool adaptive) : r_(rails), adaptive_(adaptive) {}

  std::string name() const override { return adaptive_ ? "updown_adaptive" : "updown"; }
  uint8_t vcs() const override { return 1; }

  void route(uint32_t router, PortId /*in_port*/, Packet& packet, Candidates& out) const override {
    const uint32_t dst_leaf = r_.leaf_of(packet.dst);
    const uint32_t up = r_.up_choice(packet.dst);
    if (router >= r_.leaves()) {  // a spine: down to the destination leaf
      const uint32_t link = up / r_.spines;
      const uint32_t choices = adaptive_ ? r_.links : 1;
      for (uint32_t i = 0; i < choices; ++i) {
        out.add(static_cast<PortId>(dst_leaf * r_.links + (link + i) % r_.links), 0);
      }
      return;
    }
    if (router == dst_leaf) {
      out.add(static_cast<PortId>(r_.position_of(packet.dst)), 0);
      return;
    }
    const uint32_t choices =
        adaptive_ ? std::min<uint32_t>(r_.up_ports(), Candidates::kCapacity) : 1;
    for (uint32_t i = 0; i < choices; ++i) {
      out.add(static_cast<PortId>(r_.per_leaf + (up + i) % r_.up_ports()), 0);
    }
  }

  // Around a failed link (docs/FAULTS.md): every spine reaches every leaf, so a leaf may take
  // any live up port (the first Candidates::kCapacity from its d-mod-k choice) and a spine any
  // live link to the destination leaf; the last hop, leaf to GPU, has no alternative.
  void route_around(uint32_t router, PortId /*in_port*/, Packet& packet, const RouterView&,
                    Candidates& out) const override {
    const uint32_t dst_leaf = r_.leaf_of(packet.dst);
    const uint32_t up = r_.up_choice(packet.dst);
    if (router >= r_.leaves()) {
      for (uint32_t i = 0; i < r_.links; ++i) {
        out.add(static_cast<PortId>(dst_leaf * r_.links + (up / r_.spines + i) % r_.links), 0);
      }
      return;
    }
    if (router == dst_leaf) return;
    const uint32_t choices = std::min<uint32_t>(r_.up_ports(), Candidates::kCapacity);
    for (uint32_t i = 0; i < choices; ++i) {
      out.add(static_cast<PortId>(r_.per_leaf + (up + i) % r_.up_ports()), 0);
    }
  }

 private:
  Rails r_;
  bool adaptive_;
};

Network make_rail_optimized(const ParamSet& params) {
  Rails r;
  r.nodes = static_cast<uint32_t>(params.integer("nodes"));
  r.rails = static_cast<uint32_t>(params.integer("gpus_per_node"));
  r.per_leaf = static_cast<uint32_t>(params.integer("nodes_per_leaf"));
  r.spines = static_cast<uint32_t>(params.integer("spines"));
  r.links = static_cast<uint32_t>(params.integer("spine_links"));
  if (r.nodes % r.per_leaf != 0) {
    throw InputError(
        "rail_optimized.nodes = " + std::to_string(r.nodes) +
        " is not a multiple of rail_optimized.nodes_per_leaf = " + std::to_string(r.per_leaf));
  }
  // A router's events name their ports (below kWidePort).
  constexpr uint64_t kMaxPorts = kWidePort;
  const uint64_t leaf_ports = uint64_t{r.per_leaf} + uint64_t{r.spines} * r.links;
  if (leaf_ports > kMaxPorts) {
    throw InputError("rail_optimized.spines = " + std::to_string(r.spines) +
                     ": a leaf would have " + std::to_string(leaf_ports) +
                     " ports (nodes_per_leaf + spines * spine_links), " + "at most " +
                     std::to_string(kMaxPorts));
  }
  const uint64_t spine_ports = uint64_t{r.leaves()} * r.links;
  if (spine_ports > kMaxPorts) {
    throw InputError("rail_optimized.nodes = " + std::to_string(r.nodes) + ": a spine would have " +
                     std::to_string(spine_ports) +
                     " ports (nodes / nodes_per_leaf * gpus_per_node * spine_links), at most " +
                     std::to_string(kMaxPorts));
  }
  std::vector<LinkClass> classes = {
      {"terminal", positive_time(params, "rail_optimized", "terminal_latency"),
       params.real("terminal_speed")},
      {"spine", positive_time(params, "rail_optimized", "spine_latency"),
       params.real("spine_speed")}};
  Network net;
  net.topology = std::make_unique<RailTopology>(r, std::move(classes));
  net.routing = std::make_unique<RailRouting>(r, params.text("routing") == "updown_adaptive");
  return net;
}

}  // namespace

TopologyFamily rail_optimized_family() {
  return TopologyFamily{
      "rail_optimized",
      "Rail-optimized two-tier Clos (DGX SuperPOD style): GPU i of every node attaches to the "
      "rail-i leaf switch of its block of nodes_per_leaf nodes; every leaf has spine_links links "
      "to each spine. GPUs of one node are not linked to each other (no NVLink in this "
      "baseline): cross-rail traffic goes through a spine. Up/down routing, 1 VC",
      {
          ParamSpec::integer("nodes", 128, "servers; a multiple of nodes_per_leaf").range(1, 1e6),
          ParamSpec::integer("gpus_per_node", 8, "GPUs per server = rails").range(1, 64),
          ParamSpec::integer("nodes_per_leaf", 32, "servers under one rail leaf switch")
              .range(1, 65535),
          ParamSpec::integer("spines", 16, "spine switches; every leaf links to every spine")
              .range(1, 65535),
          ParamSpec::integer("spine_links", 2, "parallel links between a leaf and a spine")
              .range(1, 64),
          ParamSpec::time("terminal_latency", "1cycle", "latency of GPU-leaf links"),
          ParamSpec::time("spine_latency", "10cycles", "latency of leaf-spine links"),
          ParamSpec::real("terminal_speed", 1.0, "bandwidth of GPU-leaf links in flits/cycle")
              .range(0.01, 1024),
          ParamSpec::real("spine_speed", 1.0, "bandwidth of leaf-spine links in flits/cycle")
              .range(0.01, 1024),
          ParamSpec::choice("routing", "updown", {"updown", "updown_adaptive"},
                            "updown: spine and link chosen by the destination's position on its "
                            "leaf (d-mod-k); updown_adaptive: any spine link, the least loaded"),
      },
      make_rail_optimized};
}

}  // namespace hx::net
