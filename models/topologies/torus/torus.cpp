// k-ary n-mesh and k-ary n-torus as pure functions of a component id, and dimension-order
// routing on them. The mesh is the torus without its wrap-around links, so both share one shape
// with a wrap flag.
#include "models/topologies/torus/torus.h"

#include <array>
#include <limits>
#include <memory>
#include <string>

#include "core/error.h"
#include "models/network/grid_topology.h"

namespace hx::net {
namespace {

constexpr uint32_t kMaxDims = 6;
constexpr int64_t kMaxRadix = 65536;
constexpr uint16_t kTerminalClass = 0;
constexpr uint16_t kNetworkClass = 1;

// Routers sit at coordinates x_d = router / k^d % k. Router r is component r*(c+1) and its
// endpoints are the next c ids. Router ports: 0..c-1 lead to its endpoints, then per dimension
// (lowest first) the port to the +1 neighbour and the port to the -1 neighbour. A mesh router on
// an edge has no port towards the missing neighbour and its later ports move down, so numbering
// stays compact and is computed from the coordinates alone, in O(n).
struct Shape {
  bool wrap = false;
  uint32_t k = 0, n = 0, c = 0, routers = 0;
  std::array<uint32_t, kMaxDims> stride{};  // k^d

  uint32_t coord(uint32_t router, uint32_t d) const { return router / stride[d] % k; }
  bool has_plus(uint32_t x) const { return wrap || x + 1 < k; }
  bool has_minus(uint32_t x) const { return wrap || x > 0; }
  uint32_t dim_ports(uint32_t x) const { return (has_plus(x) ? 1 : 0) + (has_minus(x) ? 1 : 0); }

  uint32_t network_ports(uint32_t router) const {
    if (wrap) return 2 * n;
    uint32_t p = 0;
    for (uint32_t d = 0; d < n; ++d) p += dim_ports(coord(router, d));
    return p;
  }
  PortId port(uint32_t router, uint32_t d, bool minus) const {
    uint32_t p = c;
    if (wrap) {
      p += 2 * d;
    } else {
      for (uint32_t e = 0; e < d; ++e) p += dim_ports(coord(router, e));
    }
    if (minus && has_plus(coord(router, d))) ++p;
    return static_cast<PortId>(p);
  }
  uint32_t neighbor(uint32_t router, uint32_t d, bool minus) const {
    const uint32_t x = coord(router, d);
    const uint32_t to = minus ? (x + k - 1) % k : (x + 1) % k;
    return router - x * stride[d] + to * stride[d];
  }
  // Network ports of all routers below `router` (for dense link ids): 2n each, less one for each
  // mesh coordinate at an edge; per dimension, count the numbers below `router` whose digit d is
  // 0 or k-1, digit by digit.
  uint64_t network_ports_before(uint64_t router) const {
    uint64_t total = 2ull * n * router;
    if (wrap) return total;
    for (uint32_t d = 0; d < n; ++d) {
      const uint64_t block = stride[d];
      const uint64_t high = router / (block * k), digit = router / block % k, low = router % block;
      for (const uint64_t v : {uint64_t{0}, uint64_t{k - 1}}) {
        total -= high * block + (v < digit ? block : 0) + (v == digit ? low : 0);
      }
    }
    return total;
  }
};

class CubeTopology final : public GridTopology {
 public:
  CubeTopology(const Shape& shape, std::vector<LinkClass> classes)
      : GridTopology(shape.c, std::vector<uint32_t>(shape.n, shape.k)),
        s_(shape),
        classes_(std::move(classes)) {}

  std::string describe() const override {
    return std::string(s_.wrap ? "torus" : "mesh") + " k=" + std::to_string(s_.k) +
           " n=" + std::to_string(s_.n) + " c=" + std::to_string(s_.c) + ": " +
           std::to_string(num_endpoints()) + " endpoints, " + std::to_string(s_.routers) +
           " routers";
  }
  uint32_t num_routers() const override { return s_.routers; }
  uint32_t num_endpoints() const override { return s_.routers * s_.c; }

  void ports(ComponentId id, std::vector<PortSpec>& out) const override {
    const Node me = node(id);
    if (!terminal_ports(id, me, classes_[kTerminalClass].latency, kTerminalClass, out)) return;
    const SimTime network = classes_[kNetworkClass].latency;
    for (uint32_t d = 0; d < s_.n; ++d) {
      const uint32_t x = s_.coord(me.index, d);
      for (const bool minus : {false, true}) {
        if (!(minus ? s_.has_minus(x) : s_.has_plus(x))) continue;
        const uint32_t peer = s_.neighbor(me.index, d, minus);
        out.push_back({router_component(peer), s_.port(peer, d, !minus), network, kNetworkClass});
      }
    }
  }

  // A router's ports, then one per endpoint of it: router r's links start after 2c terminal
  // links and the network ports of every router below r.
  uint64_t first_link(ComponentId id) const override {
    const uint32_t r = id / (s_.c + 1), j = id % (s_.c + 1);
    const uint64_t base = 2ull * s_.c * r + s_.network_ports_before(r);
    return j == 0 ? base : base + s_.c + s_.network_ports(r) + j - 1;
  }
  uint64_t num_links() const override {
    return 2ull * s_.c * s_.routers + s_.network_ports_before(s_.routers);
  }

  const std::vector<LinkClass>& link_classes() const override { return classes_; }

  uint32_t diameter() const override { return s_.n * (s_.wrap ? s_.k / 2 : s_.k - 1); }

 private:
  Shape s_;
  std::vector<LinkClass> classes_;
};

// Dimension-order routing: correct the lowest differing dimension first; on a torus take the
// shorter way round (a tie goes +). With `dateline`, a packet uses VC 0 in each dimension and
// VC 1 from the wrap-around link of that dimension on (the dateline), which breaks the ring's
// channel cycle; it is back on VC 0 when it turns into the next dimension.
class DimensionOrder final : public Routing {
 public:
  DimensionOrder(const Shape& shape, std::string name, bool dateline)
      : s_(shape), name_(std::move(name)), dateline_(dateline) {}

  std::string name() const override { return name_; }
  uint8_t vcs() const override { return dateline_ ? 2 : 1; }

  void route(uint32_t router, PortId in_port, Packet& packet, Candidates& out) const override {
    const uint32_t dst_router = packet.dst / s_.c;
    for (uint32_t d = 0; d < s_.n; ++d) {
      const uint32_t x = s_.coord(router, d), y = s_.coord(dst_router, d);
      if (x == y) continue;
      bool minus = y < x;
      if (s_.wrap) {
        const uint32_t ahead = (y + s_.k - x) % s_.k;
        minus = ahead > s_.k - ahead;
      }
      uint8_t vc = 0;
      if (dateline_) {
        // Torus ports: c + 2d (+1 neighbour), c + 2d + 1 (-1 neighbour). Arriving from a terminal
        // or from another dimension resets the VC, whatever VC the packet came in on.
        const bool same_dim = in_port >= s_.c && (in_port - s_.c) / 2 == d;
        const bool crossing = minus ? x == 0 : x + 1 == s_.k;
        vc = (same_dim && packet.vc != 0) || crossing ? 1 : 0;
      }
      out.add(s_.port(router, d, minus), vc);
      return;
    }
    for (uint8_t vc = 0; vc < vcs(); ++vc) out.add(static_cast<PortId>(packet.dst % s_.c), vc);
  }

 private:
  Shape s_;
  std::string name_;
  bool dateline_;
};

std::vector<ParamSpec> cube_params(bool wrap) {
  std::vector<ParamSpec> params = {
      ParamSpec::integer("k", 4,
                         wrap ? "routers per dimension (ring size, >= 3)" : "routers per dimension")
          .range(2, kMaxRadix),
      ParamSpec::integer("n", 2, "number of dimensions").range(1, kMaxDims),
      ParamSpec::integer("c", 1, "concentration: endpoints per router").range(1, 64),
      ParamSpec::time("link_latency", "1cycles", "latency of router-to-router links"),
      ParamSpec::real("link_speed", 1.0, "bandwidth of router-to-router links in flits/cycle")
          .range(0.01, 1024),
      ParamSpec::time("terminal_latency", "1cycles", "latency of endpoint-to-router links"),
      ParamSpec::real("terminal_speed", 1.0, "bandwidth of endpoint-to-router links in flits/cycle")
          .range(0.01, 1024),
  };
  if (wrap) {
    params.push_back(ParamSpec::choice(
        "routing", "dor", {"dor", "dor_no_dateline"},
        "dor: dimension order, lowest dimension first, shorter way round (ties: +), dateline "
        "VCs (2 VCs, deadlock-free); dor_no_dateline: the same paths on 1 VC, NOT deadlock-free "
        "for k >= 4 (cyclic channel dependencies; for deadlock experiments)"));
  } else {
    params.push_back(ParamSpec::choice("routing", "dor", {"dor"},
                                       "dor: dimension order, lowest dimension first (1 VC)"));
  }
  return params;
}

Network make_cube(const ParamSet& p, bool wrap) {
  const std::string family = wrap ? "torus" : "mesh";
  const auto bad = [&](const std::string& key, const std::string& value,
                       const std::string& expected) {
    return InputError(family + "." + key + " = " + value + ": " + expected);
  };
  const int64_t k = p.integer("k"), n = p.integer("n"), c = p.integer("c");
  const int64_t k_min = wrap ? 3 : 2;
  if (k < k_min || k > kMaxRadix) {
    throw bad("k", std::to_string(k),
              "expected " + std::to_string(k_min) + " <= k <= " + std::to_string(kMaxRadix) +
                  (wrap ? " (with k = 2 both ring neighbours are the same router; use [mesh] "
                          "for a 2-ary n-cube)"
                        : ""));
  }
  if (n < 1 || n > kMaxDims) throw bad("n", std::to_string(n), "expected 1 <= n <= 6");
  if (c < 1 || c > 64) throw bad("c", std::to_string(c), "expected 1 <= c <= 64");

  Shape s;
  s.wrap = wrap;
  s.k = static_cast<uint32_t>(k);
  s.n = static_cast<uint32_t>(n);
  s.c = static_cast<uint32_t>(c);
  uint64_t routers = 1;
  for (uint32_t d = 0; d < s.n; ++d) {
    s.stride[d] = static_cast<uint32_t>(routers);
    routers *= s.k;
    if (routers * (s.c + 1) > std::numeric_limits<ComponentId>::max()) {
      throw bad("k", std::to_string(k),
                "k^n * (c + 1) with " + family + ".n = " + std::to_string(n) + " and " + family +
                    ".c = " + std::to_string(c) + " exceeds 4294967295 components");
    }
  }
  s.routers = static_cast<uint32_t>(routers);

  std::vector<LinkClass> classes = grid_link_classes(p, family);

  const std::string& routing = p.text("routing");
  bool dateline = false;
  if (routing == "dor") {
    dateline = wrap;
  } else if (!(wrap && routing == "dor_no_dateline")) {
    throw bad("routing", routing, wrap ? "expected dor or dor_no_dateline" : "expected dor");
  }
  return Network{std::make_unique<CubeTopology>(s, std::move(classes)),
                 std::make_unique<DimensionOrder>(s, routing, dateline)};
}

}  // namespace

TopologyFamily mesh_family() {
  return TopologyFamily{
      "mesh",
      "k-ary n-mesh: k^n routers on a grid without wrap-around links, each with c endpoints. "
      "Router ports: 0..c-1 to its endpoints, then per dimension the +1 and the -1 neighbour "
      "where they exist (edge routers have fewer ports). One endpoint group per router; "
      "endpoint coordinates (c, k, ..., k), c omitted when 1.",
      cube_params(false), [](const ParamSet& p) { return make_cube(p, false); }};
}

TopologyFamily torus_family() {
  return TopologyFamily{
      "torus",
      "k-ary n-torus: k^n routers, each linked to its +1 and -1 neighbour (mod k) in every "
      "dimension, with c endpoints each. Router ports: 0..c-1 to its endpoints, then c + 2d to "
      "the +1 and c + 2d + 1 to the -1 neighbour in dimension d. One endpoint group per router; "
      "endpoint coordinates (c, k, ..., k), c omitted when 1. Routing dor_no_dateline is NOT "
      "deadlock-free (for k >= 4): use it only to provoke deadlocks.",
      cube_params(true), [](const ParamSet& p) { return make_cube(p, true); }};
}

}  // namespace hx::net
