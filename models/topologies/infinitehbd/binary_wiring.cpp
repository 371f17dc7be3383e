// Components: GPU q = i R + g (GPU g of node i) is router 2q and endpoint 2q + 1. Node i's OCSTrx
// bundle on GPU g < K reaches nodes i + 2^g and i - 2^g, around the line's ends (a bundle's two
// external paths, Sec. 4.2); GPUs g >= K have none. A GPU router's ports: 0 its endpoint;
// p = 1 .. R-1 the node's GPU (g + p) % R (its port R - p back); for g < K, port R to GPU g of
// node i + 2^g and R + 1 to node i - 2^g, each the other's peer port. Directed links: the
// router's ports, then its endpoint's, GPU by GPU.
//
// Routing "binary": along the line the shorter way round (ties forward), each step by the largest
// 2^j (j < K) that does not pass the destination, over GPU j's bundle: a mesh hop to GPU j of
// the node first when the packet is on another GPU (the forwarding through GPUs Appendix G.3
// names as this wiring's cost), and a mesh hop to the destination GPU at the end. A Binary
// Exchange round between nodes 2^k apart, started on GPU k, is one optical hop.
//
// VCs: forward packets use VCs 0-1, backward ones 2-3, the second of each pair once the packet has
// crossed the wrap between node N-1 and node 0. A forward packet's node index only grows within
// its VC (mesh hops stay in a node), so no cycle closes in VCs 0 and 1, nor in 2 and 3 for
// backward ones; the mesh links at a node carry both directions, which is why each direction
// needs its own VCs. The channel graph is acyclic (`hxsim verify`, `InfiniteHbd.*`).
#include "models/topologies/infinitehbd/binary_wiring.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "models/network/concentrated_topology.h"

namespace hx::net::infinitehbd {
namespace {

constexpr uint16_t kEndpointClass = 0, kIntraClass = 1, kOpticalClass = 2;

// The hop from node `at` towards node `to` on a line of n nodes with chords 2^j, j < k: the
// direction (forward: +) and the chord's j.
struct Hop {
  bool forward;
  uint32_t j;
};
Hop next_hop(uint32_t at, uint32_t to, uint32_t n, uint32_t k) {
  const uint32_t ahead = (to + n - at) % n;
  const bool forward = 2 * ahead <= n;
  const uint32_t left = forward ? ahead : n - ahead;
  uint32_t j = k - 1;
  while ((1u << j) > left) --j;
  return {forward, j};
}

class BinaryTopology final : public ConcentratedTopology {
 public:
  BinaryTopology(BinaryWiring w, std::vector<LinkClass> classes)
      : ConcentratedTopology(1), w_(w), classes_(std::move(classes)) {
    for (uint32_t d = 1; d <= w_.nodes / 2; ++d) {
      uint32_t hops = 0;
      for (uint32_t at = 0; at != d;) {
        at += 1u << next_hop(at, d, w_.nodes, w_.k).j;
        ++hops;
      }
      diameter_ = std::max(diameter_, 2 * hops + 1);  // a mesh hop before each, one after
    }
  }

  std::string describe() const override {
    return "infinitehbd wiring=binary nodes=" + std::to_string(w_.nodes) +
           " R=" + std::to_string(w_.r) + " K=" + std::to_string(w_.k) + ": " +
           std::to_string(gpus()) + " GPUs, nodes linked at +-1..+-" +
           std::to_string(1u << (w_.k - 1));
  }
  uint32_t num_routers() const override { return gpus(); }
  uint32_t num_endpoints() const override { return gpus(); }

  void ports(ComponentId id, std::vector<PortSpec>& out) const override {
    const Node me = node(id);
    if (!terminal_ports(id, me, classes_[kEndpointClass].latency, kEndpointClass, out)) return;
    for (PortId p = 1; p < router_ports(me.index % w_.r); ++p) out.push_back(port(id, p));
  }
  PortSpec port(ComponentId id, PortId p) const override {
    const uint32_t q = static_cast<uint32_t>(id / 2), i = q / w_.r, g = q % w_.r;
    if (id % 2 == 1 || p == 0) {
      return {id % 2 == 1 ? id - 1 : id + 1, 0, classes_[kEndpointClass].latency, kEndpointClass};
    }
    if (p < w_.r) {
      const uint32_t peer = i * w_.r + (g + p) % w_.r;
      return {2 * ComponentId{peer}, static_cast<PortId>(w_.r - p), classes_[kIntraClass].latency,
              kIntraClass};
    }
    const uint32_t step = (1u << g) % w_.nodes;
    const bool forward = p == w_.r;
    const uint32_t to = forward ? (i + step) % w_.nodes : (i + w_.nodes - step) % w_.nodes;
    return {2 * ComponentId{to * w_.r + g}, static_cast<PortId>(forward ? p + 1 : p - 1),
            classes_[kOpticalClass].latency, kOpticalClass};
  }

  // GPU g's links: its router's ports, then its endpoint's; a node's, GPU by GPU.
  uint64_t first_link(ComponentId id) const override {
    const uint32_t q = static_cast<uint32_t>(id / 2), g = q % w_.r;
    const uint64_t before =
        uint64_t{q / w_.r} * node_links() + uint64_t{g} * (w_.r + 1) + 2 * std::min(g, w_.k);
    return id % 2 == 0 ? before : before + router_ports(g);
  }
  uint64_t num_links() const override { return uint64_t{w_.nodes} * node_links(); }

  std::vector<GroupLevel> group_levels() const override {
    return {{"node", w_.nodes}, {"gpu", gpus()}};
  }
  ComponentRange group_range(std::size_t level, uint64_t group) const override {
    const uint64_t size = level == 0 ? 2 * w_.r : 2;
    return {static_cast<ComponentId>(group * size), static_cast<ComponentId>((group + 1) * size)};
  }
  const std::vector<LinkClass>& link_classes() const override { return classes_; }
  uint32_t num_endpoint_groups() const override { return w_.nodes; }
  uint32_t endpoint_group(uint32_t endpoint) const override { return endpoint / w_.r; }
  EndpointRange endpoint_group_range(uint32_t group) const override {
    return {group * w_.r, (group + 1) * w_.r};
  }
  std::vector<uint32_t> endpoint_dims() const override { return {w_.r, w_.nodes}; }
  uint32_t diameter() const override { return diameter_; }

 private:
  uint32_t gpus() const { return w_.nodes * w_.r; }
  uint32_t router_ports(uint32_t g) const { return w_.r + (g < w_.k ? 2 : 0); }
  uint64_t node_links() const { return uint64_t{w_.r} * (w_.r + 1) + 2 * w_.k; }

  BinaryWiring w_;
  std::vector<LinkClass> classes_;
  uint32_t diameter_ = 1;
};

class BinaryRouting final : public Routing {
 public:
  explicit BinaryRouting(BinaryWiring w) : w_(w) {}

  std::string name() const override { return "binary"; }
  uint8_t vcs() const override { return 4; }

  void route(uint32_t router, PortId in_port, Packet& packet, Candidates& out) const override {
    if (packet.dst == router) {
      for (uint8_t vc = 0; vc < vcs(); ++vc) out.add(0, vc);
      return;
    }
    const uint32_t i = router / w_.r, g = router % w_.r;
    const uint32_t to = packet.dst / w_.r, h = packet.dst % w_.r;
    const auto mesh_to = [&](uint32_t gpu) { return static_cast<PortId>((gpu + w_.r - g) % w_.r); };
    if (i == to) return out.add(mesh_to(h), in_port == 0 ? 0 : packet.vc);
    const Hop hop = next_hop(i, to, w_.nodes, w_.k);
    const uint8_t base = hop.forward ? 0 : 2;
    const uint8_t vc = in_port == 0 ? base : packet.vc;
    if (g != hop.j) return out.add(mesh_to(hop.j), vc);
    const uint32_t step = 1u << hop.j;
    const bool wraps = hop.forward ? i + step >= w_.nodes : i < step;
    out.add(static_cast<PortId>(w_.r + (hop.forward ? 0 : 1)),
            static_cast<uint8_t>(wraps ? base + 1 : vc));
  }

 private:
  BinaryWiring w_;
};

}  // namespace

Network make_binary_wiring(const BinaryWiring& w, std::vector<LinkClass> classes) {
  Network net;
  net.routing = std::make_unique<BinaryRouting>(w);
  net.topology = std::make_unique<BinaryTopology>(w, std::move(classes));
  return net;
}

}  // namespace hx::net::infinitehbd
