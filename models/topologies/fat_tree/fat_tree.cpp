// The k-ary n-tree (Petrini & Vanneschi, HPCA 1997) with up/down routing, as closed forms of
// (k, n); nothing is tabulated.
//
// Switches: n levels (0 = leaves, n - 1 = top) of k^(n-1) switches. Level-l switch w = B * k^l + c
// sits above the block B of k^(l+1) endpoints [B * k^(l+1), (B + 1) * k^(l+1)), as the c-th of
// the block's k^l switches at that level. Ports [0, k) go down: leaf w's port i to endpoint
// w * k + i; port i of (l >= 1, w) to level-(l-1) switch (B * k + i) * k^(l-1) + c % k^(l-1), whose
// up port k + c / k^(l-1) comes back. Ports [k, 2k) go up (none at the top): up port k + u of
// (l, w) leads to level l+1 switch (B / k) * k^(l+1) + u * k^l + c, landing on its down port B % k.
//
// Components: a pod is one of the k subtrees below the top level. Pod P holds its k^(n-2) leaves
// (labels [P * k^(n-2), (P + 1) * k^(n-2))), each followed by its k endpoints, then its switches
// at levels 1..n-2 (the same labels, level by level). The k^(n-1) top switches follow the last
// pod. Routers are numbered in component order; n = 1 is a single switch (one pod, no top).
// Directed link ids follow component order too (each component's ports in turn).
//
// Sizes: k <= 64 and n <= 5 keep k^n + n * k^(n-1) components within 32 bits.
#include "models/topologies/fat_tree/fat_tree.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "models/network/layout.h"

namespace hx::net {
namespace {

struct Switch {
  uint32_t level = 0;
  uint32_t w = 0;
};

// Sizes and the closed forms the topology and the routing share.
struct Tree {
  Tree(uint32_t k_in, uint32_t n_in) : k(k_in), n(n_in) {
    pow[0] = 1;
    for (uint32_t i = 1; i < pow.size(); ++i) pow[i] = pow[i - 1] * k;
    pods = n == 1 ? 1 : k;
    pod_leaves = n == 1 ? 1 : static_cast<uint32_t>(pow[n - 2]);
    pod_levels = n == 1 ? 1 : n - 1;
    tops = n == 1 ? 0 : static_cast<uint32_t>(pow[n - 1]);
    pod_routers = pod_levels * pod_leaves;
    pod_components = pod_leaves * (k + 1) + (pod_levels - 1) * pod_leaves;
    leaf_ports = n == 1 ? k : 2 * k;
    pod_links =
        uint64_t{pod_leaves} * (leaf_ports + k) + uint64_t{pod_levels - 1} * pod_leaves * 2 * k;
  }

  uint32_t k, n;
  std::array<uint64_t, 7> pow{};  // k^0 .. k^6
  uint32_t pods, pod_leaves, pod_levels, tops;
  uint32_t pod_routers, pod_components, leaf_ports;
  uint64_t pod_links;

  uint32_t routers() const { return pods * pod_routers + tops; }
  uint32_t endpoints() const { return static_cast<uint32_t>(pow[n]); }

  Switch switch_of(uint32_t router) const {
    if (router >= pods * pod_routers) return {n - 1, router - pods * pod_routers};
    const uint32_t pod = router / pod_routers, q = router % pod_routers;
    return {q / pod_leaves, pod * pod_leaves + q % pod_leaves};
  }
  uint32_t router_of(Switch s) const {
    if (s.level >= pod_levels) return pods * pod_routers + s.w;
    return s.w / pod_leaves * pod_routers + s.level * pod_leaves + s.w % pod_leaves;
  }
  ComponentId router_component(uint32_t router) const {
    if (router >= pods * pod_routers) return pods * pod_components + router - pods * pod_routers;
    const uint32_t pod = router / pod_routers, q = router % pod_routers;
    const uint32_t offset = q < pod_leaves ? q * (k + 1) : pod_leaves * k + q;
    return pod * pod_components + offset;
  }
  ComponentId endpoint_component(uint32_t e) const {
    return router_component(router_of({0, e / k})) + 1 + e % k;
  }
  Node node(ComponentId id) const {
    if (id >= pods * pod_components) {
      return {NodeKind::kRouter, pods * pod_routers + id - pods * pod_components};
    }
    const uint32_t pod = id / pod_components, q = id % pod_components;
    if (q >= pod_leaves * (k + 1)) {
      return {NodeKind::kRouter, pod * pod_routers + q - pod_leaves * k};
    }
    const uint32_t leaf = q / (k + 1), slot = q % (k + 1);
    if (slot == 0) return {NodeKind::kRouter, pod * pod_routers + leaf};
    return {NodeKind::kEndpoint, (pod * pod_leaves + leaf) * k + slot - 1};
  }
  uint64_t first_link(ComponentId id) const {
    if (id >= pods * pod_components) {
      return pods * pod_links + uint64_t{id - pods * pod_components} * k;
    }
    const uint32_t pod = id / pod_components, q = id % pod_components;
    const uint64_t base = pod * pod_links;
    const uint64_t leaf_links = uint64_t{pod_leaves} * (leaf_ports + k);
    if (q >= pod_leaves * (k + 1)) {
      return base + leaf_links + uint64_t{q - pod_leaves * (k + 1)} * 2 * k;
    }
    const uint32_t leaf = q / (k + 1), slot = q % (k + 1);
    return base + uint64_t{leaf} * (leaf_ports + k) + (slot == 0 ? 0 : leaf_ports + slot - 1);
  }
  uint64_t num_links() const { return pods * pod_links + uint64_t{tops} * k; }
};

class FatTreeTopology final : public Topology {
 public:
  FatTreeTopology(const Tree& tree, std::vector<LinkClass> classes)
      : t_(tree), classes_(std::move(classes)) {}

  std::string describe() const override {
    return "fat_tree k=" + std::to_string(t_.k) + " n=" + std::to_string(t_.n) + ": " +
           std::to_string(num_endpoints()) + " endpoints, " + std::to_string(num_routers()) +
           " switches";
  }
  uint32_t num_routers() const override { return t_.routers(); }
  uint32_t num_endpoints() const override { return t_.endpoints(); }
  Node node(ComponentId id) const override { return t_.node(id); }
  ComponentId router_component(uint32_t router) const override {
    return t_.router_component(router);
  }
  ComponentId endpoint_component(uint32_t e) const override { return t_.endpoint_component(e); }

  void ports(ComponentId id, std::vector<PortSpec>& out) const override {
    const uint32_t k = t_.k;
    const Node node = t_.node(id);
    if (node.kind == NodeKind::kEndpoint) {
      out.push_back(
          {id - 1 - node.index % k, static_cast<PortId>(node.index % k), classes_[0].latency, 0});
      return;
    }
    const Switch s = t_.switch_of(node.index);
    const uint64_t below = t_.pow[s.level];  // k^l
    const uint64_t block = s.w / below, c = s.w % below;
    for (uint32_t i = 0; i < k; ++i) {
      if (s.level == 0) {
        out.push_back({id + 1 + i, 0, classes_[0].latency, 0});
        continue;
      }
      const uint64_t child_span = t_.pow[s.level - 1];
      const auto child = static_cast<uint32_t>((block * k + i) * child_span + c % child_span);
      out.push_back({t_.router_component(t_.router_of({s.level - 1, child})),
                     static_cast<PortId>(k + c / child_span), classes_[s.level].latency,
                     static_cast<uint16_t>(s.level)});
    }
    if (s.level + 1 == t_.n) return;
    for (uint32_t u = 0; u < k; ++u) {
      const auto parent = static_cast<uint32_t>(block / k * below * k + u * below + c);
      out.push_back({t_.router_component(t_.router_of({s.level + 1, parent})),
                     static_cast<PortId>(block % k), classes_[s.level + 1].latency,
                     static_cast<uint16_t>(s.level + 1)});
    }
  }

  uint64_t first_link(ComponentId id) const override { return t_.first_link(id); }
  uint64_t num_links() const override { return t_.num_links(); }

  // Level 0: the pods, then the top switches in k groups of k^(n-2); level 1: every switch
  // (a leaf with its endpoints).
  std::vector<GroupLevel> group_levels() const override {
    const uint64_t top_groups = t_.n == 1 ? 0 : t_.k;
    return {{"pod", t_.pods + top_groups}, {"switch", t_.routers()}};
  }
  ComponentRange group_range(std::size_t level, uint64_t group) const override {
    if (level == 1) {
      const auto router = static_cast<uint32_t>(group);
      const ComponentId first = t_.router_component(router);
      return {first, first + (t_.switch_of(router).level == 0 ? t_.k + 1 : 1)};
    }
    if (group < t_.pods) {
      const auto first = static_cast<ComponentId>(group * t_.pod_components);
      return {first, first + t_.pod_components};
    }
    const auto first =
        static_cast<ComponentId>(t_.pods * t_.pod_components + (group - t_.pods) * t_.pod_leaves);
    return {first, first + t_.pod_leaves};
  }

  const std::vector<LinkClass>& link_classes() const override { return classes_; }

  // Endpoint groups: the k endpoints of one leaf.
  uint32_t num_endpoint_groups() const override { return t_.endpoints() / t_.k; }
  uint32_t endpoint_group(uint32_t endpoint) const override { return endpoint / t_.k; }
  EndpointRange endpoint_group_range(uint32_t group) const override {
    return {group * t_.k, (group + 1) * t_.k};
  }
  std::vector<uint32_t> endpoint_dims() const override { return std::vector<uint32_t>(t_.n, t_.k); }
  uint32_t endpoint_router(uint32_t endpoint) const override {
    return t_.router_of({0, endpoint / t_.k});
  }
  uint32_t diameter() const override { return 2 * (t_.n - 1); }

  // Pictures: the pods in a row and the top level one more group above them; in a pod its
  // endpoints along the bottom and each level's switches above the blocks they serve.
  std::string picture_group() const override { return "pod"; }
  PicturePlace picture_place(ComponentId id) const override {
    const Node n = t_.node(id);
    if (n.kind == NodeKind::kEndpoint) {
      const uint32_t pod_endpoints = t_.pod_leaves * t_.k;
      const uint32_t pod = n.index / pod_endpoints;
      return place_at(pod, in_rows(pod, t_.pods), {1.0 * (n.index % pod_endpoints), 0});
    }
    const Switch s = t_.switch_of(n.index);
    if (s.level >= t_.pod_levels) {
      const double width = in_rows_size(t_.pods).x;
      return place_at(t_.pods, {(width - 1) / 2, tier_height(width)}, {1.0 * s.w, 0});
    }
    const uint32_t pod = s.w / t_.pod_leaves;
    const double rise = tier_height(t_.pod_leaves * t_.k);
    const Point at{(s.w % t_.pod_leaves + 0.5) * t_.k - 0.5, (s.level + 1.0) * rise};
    return place_at(pod, in_rows(pod, t_.pods), at);
  }

 private:
  Tree t_;
  std::vector<LinkClass> classes_;
};

// Up/down: up to the lowest level whose block holds the destination, then down the unique path.
// The deterministic up port at level l is digit l of the destination (d-mod-k): every packet for
// one destination climbs to the same switches, those for the k destinations of a leaf leave on
// different up links. The adaptive variant offers every up port, that one first. One VC: no
// path turns from down to up, so the channel dependency graph is acyclic (route_around keeps
// to up/down paths, so it stays so).
class UpDownRouting final : public Routing {
 public:
  UpDownRouting(const Tree& tree, bool adaptive) : t_(tree), adaptive_(adaptive) {}

  std::string name() const override { return adaptive_ ? "updown_adaptive" : "updown"; }
  uint8_t vcs() const override { return 1; }

  void route(uint32_t router, PortId /*in_port*/, Packet& packet, Candidates& out) const override {
    const Switch s = t_.switch_of(router);
    const uint32_t digit = static_cast<uint32_t>(packet.dst / t_.pow[s.level] % t_.k);
    if (packet.dst / t_.pow[s.level + 1] == s.w / t_.pow[s.level]) {
      out.add(static_cast<PortId>(digit), 0);
      return;
    }
    const uint32_t choices = adaptive_ ? t_.k : 1;
    for (uint32_t i = 0; i < choices; ++i) {
      out.add(static_cast<PortId>(t_.k + (digit + i) % t_.k), 0);
    }
  }

  // Around a failed link (docs/FAULTS.md): on the way up any up port will do, every switch
  // above reaches the destination; the way down is unique, so there is no fallback there.
  void route_around(uint32_t router, PortId /*in_port*/, Packet& packet, const RouterView&,
                    Candidates& out) const override {
    const Switch s = t_.switch_of(router);
    if (packet.dst / t_.pow[s.level + 1] == s.w / t_.pow[s.level]) return;
    const auto digit = static_cast<uint32_t>(packet.dst / t_.pow[s.level] % t_.k);
    for (uint32_t i = 0; i < t_.k; ++i) out.add(static_cast<PortId>(t_.k + (digit + i) % t_.k), 0);
  }

 private:
  Tree t_;
  bool adaptive_;
};

Network make_fat_tree(const ParamSet& params) {
  const Tree tree(static_cast<uint32_t>(params.integer("k")),
                  static_cast<uint32_t>(params.integer("n")));
  const SimTime terminal = positive_time(params, "fat_tree", "terminal_latency");
  const SimTime link = positive_time(params, "fat_tree", "link_latency");
  std::vector<LinkClass> classes = {{"terminal", terminal, params.real("terminal_speed")}};
  for (uint32_t l = 1; l < tree.n; ++l) {
    classes.push_back({"level" + std::to_string(l), link, params.real("link_speed")});
  }
  Network net;
  net.topology = std::make_unique<FatTreeTopology>(tree, std::move(classes));
  net.routing = std::make_unique<UpDownRouting>(tree, params.text("routing") == "updown_adaptive");
  return net;
}

}  // namespace

TopologyFamily fat_tree_family() {
  return TopologyFamily{
      "fat_tree",
      "k-ary n-tree fat tree (Petrini & Vanneschi, HPCA 1997): k^n endpoints, n levels of "
      "k^(n-1) switches with k down and k up ports (the top level only down), up/down routing "
      "(1 VC). Link classes: terminal, then levelL between switch levels L-1 and L",
      {
          ParamSpec::integer("k", 8, "switch arity: down ports (and up ports) per switch")
              .range(2, 64),
          ParamSpec::integer("n", 3, "switch levels").range(1, 5),
          ParamSpec::time("terminal_latency", "1cycle", "latency of switch-endpoint links"),
          ParamSpec::time("link_latency", "10cycles", "latency of switch-to-switch links"),
          ParamSpec::real("terminal_speed", 1.0, "bandwidth of terminal links in flits/cycle")
              .range(0.01, 1024),
          ParamSpec::real("link_speed", 1.0, "bandwidth of switch-to-switch links in flits/cycle")
              .range(0.01, 1024),
          ParamSpec::choice("routing", "updown", {"updown", "updown_adaptive"},
                            "updown: up port chosen by destination digit (d-mod-k); "
                            "updown_adaptive: any up port, the least loaded"),
      },
      make_fat_tree};
}

}  // namespace hx::net
