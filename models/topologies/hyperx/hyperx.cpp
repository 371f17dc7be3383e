// HyperX as pure functions of a component id, with dimension-order routing and minimal adaptive
// routing (one candidate per unaligned dimension, VC = hops so far).
#include "models/topologies/hyperx/hyperx.h"

#include <array>
#include <limits>
#include <memory>
#include <string>

#include "core/error.h"
#include "core/text.h"
#include "models/network/grid_topology.h"

namespace hx::net {
namespace {

constexpr uint32_t kMaxDims = 6;
constexpr uint16_t kTerminalClass = 0;
constexpr uint16_t kNetworkClass = 1;

// Routers sit at coordinates x_d = router / stride_d % S_d. Router r is component r*(c+1) and
// its endpoints are the next c ids. Every router has the same ports: 0..c-1 to its endpoints,
// then per dimension d (lowest first) S_d - 1 ports, one to each other coordinate v of that
// dimension in increasing order (port offset_d + v, or offset_d + v - 1 for v above x_d).
struct Shape {
  uint32_t n = 0, c = 0, routers = 0, ports = 0;
  std::array<uint32_t, kMaxDims> size{}, stride{}, offset{};

  uint32_t coord(uint32_t router, uint32_t d) const { return router / stride[d] % size[d]; }
  PortId port(uint32_t router, uint32_t d, uint32_t to) const {
    const uint32_t x = coord(router, d);
    return static_cast<PortId>(offset[d] + (to < x ? to : to - 1));
  }
  uint32_t with_coord(uint32_t router, uint32_t d, uint32_t to) const {
    return router - coord(router, d) * stride[d] + to * stride[d];
  }
};

std::string dims_text(const Shape& s) {
  std::string text;
  for (uint32_t d = 0; d < s.n; ++d) text += (d ? "x" : "") + std::to_string(s.size[d]);
  return text;
}

class HyperXTopology final : public GridTopology {
 public:
  HyperXTopology(const Shape& shape, std::vector<LinkClass> classes)
      : GridTopology(shape.c, {shape.size.begin(), shape.size.begin() + shape.n}),
        s_(shape),
        classes_(std::move(classes)) {}

  std::string describe() const override {
    return "hyperx " + dims_text(s_) + " c=" + std::to_string(s_.c) + ": " +
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
      for (uint32_t v = 0; v < s_.size[d]; ++v) {
        if (v == x) continue;
        const uint32_t peer = s_.with_coord(me.index, d, v);
        out.push_back({router_component(peer), s_.port(peer, d, x), network, kNetworkClass});
      }
    }
  }

  // Each router's ports, then one link per endpoint of it.
  uint64_t first_link(ComponentId id) const override {
    const uint32_t r = id / (s_.c + 1), j = id % (s_.c + 1);
    const uint64_t base = static_cast<uint64_t>(r) * (s_.ports + s_.c);
    return j == 0 ? base : base + s_.ports + j - 1;
  }
  uint64_t num_links() const override {
    return static_cast<uint64_t>(s_.routers) * (s_.ports + s_.c);
  }

  const std::vector<LinkClass>& link_classes() const override { return classes_; }

  uint32_t diameter() const override { return s_.n; }

 private:
  Shape s_;
  std::vector<LinkClass> classes_;
};

// "dor": the lowest unaligned dimension, VC 0; deadlock-free as every dimension-order path
// climbs the dimensions. "minimal_adaptive": every unaligned dimension, lowest first, on VC =
// hops so far; each hop aligns one dimension, so hops < n and the VC rises every hop, which makes
// the channel dependency graph acyclic.
class HyperXRouting final : public Routing {
 public:
  HyperXRouting(const Shape& shape, std::string name, bool adaptive)
      : s_(shape), name_(std::move(name)), adaptive_(adaptive) {}

  std::string name() const override { return name_; }
  uint8_t vcs() const override { return adaptive_ ? static_cast<uint8_t>(s_.n) : 1; }

  void route(uint32_t router, PortId /*in_port*/, Packet& packet, Candidates& out) const override {
    const uint32_t dst_router = packet.dst / s_.c;
    bool aligned = true;
    for (uint32_t d = 0; d < s_.n; ++d) {
      const uint32_t y = s_.coord(dst_router, d);
      if (s_.coord(router, d) == y) continue;
      if (!adaptive_) {
        out.add(s_.port(router, d, y), 0);
        return;
      }
      out.add(s_.port(router, d, y), packet.hops);
      aligned = false;
    }
    if (!aligned) return;
    for (uint8_t vc = 0; vc < vcs(); ++vc) out.add(static_cast<PortId>(packet.dst % s_.c), vc);
  }

 private:
  Shape s_;
  std::string name_;
  bool adaptive_;
};

// "4x4x2" -> {4, 4, 2}: 1..6 sizes >= 2 separated by 'x'.
std::vector<uint32_t> parse_dims(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return InputError("hyperx.dims = \"" + text + "\": " + why +
                      "; expected 1 to 6 sizes >= 2 separated by 'x', e.g. 4x4 or 8x8x4");
  };
  std::vector<uint32_t> sizes;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = text.find_first_of("xX", begin);
    const std::string part = trim(text.substr(begin, end - begin));
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos) {
      throw bad("'" + part + "' is not a whole number");
    }
    if (part.size() > 9 || std::stoul(part) < 2) throw bad("size " + part + " out of range");
    sizes.push_back(static_cast<uint32_t>(std::stoul(part)));
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  if (sizes.size() > kMaxDims) throw bad(std::to_string(sizes.size()) + " dimensions");
  return sizes;
}

Network make_hyperx(const ParamSet& p) {
  const auto bad = [](const std::string& key, const std::string& value,
                      const std::string& expected) {
    return InputError("hyperx." + key + " = " + value + ": " + expected);
  };
  const int64_t c = p.integer("c");
  if (c < 1 || c > 64) throw bad("c", std::to_string(c), "expected 1 <= c <= 64");
  const std::vector<uint32_t> sizes = parse_dims(p.text("dims"));

  Shape s;
  s.n = static_cast<uint32_t>(sizes.size());
  s.c = static_cast<uint32_t>(c);
  uint64_t routers = 1, ports = s.c;
  for (uint32_t d = 0; d < s.n; ++d) {
    s.size[d] = sizes[d];
    s.stride[d] = static_cast<uint32_t>(routers);
    s.offset[d] = static_cast<uint32_t>(ports);
    routers *= sizes[d];
    ports += sizes[d] - 1;
    if (routers * (s.c + 1) > std::numeric_limits<ComponentId>::max()) {
      throw bad(
          "dims", p.text("dims"),
          "with hyperx.c = " + std::to_string(c) + " that is more than 4294967295 components");
    }
  }
  if (ports > kWidePort) {  // events name a router's ports below kWidePort
    throw bad("dims", p.text("dims"),
              "routers would have " + std::to_string(ports) + " ports (with hyperx.c = " +
                  std::to_string(c) + "); at most " + std::to_string(kWidePort));
  }
  s.routers = static_cast<uint32_t>(routers);
  s.ports = static_cast<uint32_t>(ports);

  std::vector<LinkClass> classes = grid_link_classes(p, "hyperx");

  const std::string& routing = p.text("routing");
  if (routing != "dor" && routing != "minimal_adaptive") {
    throw bad("routing", routing, "expected dor or minimal_adaptive");
  }
  return Network{std::make_unique<HyperXTopology>(s, std::move(classes)),
                 std::make_unique<HyperXRouting>(s, routing, routing == "minimal_adaptive")};
}

}  // namespace

TopologyFamily hyperx_family() {
  return TopologyFamily{
      "hyperx",
      "HyperX: routers at the points of an S_0 x ... x S_(n-1) grid, each linked to every router "
      "differing in exactly one coordinate (a clique per dimension line, one link per pair), with "
      "c endpoints each. Router ports: 0..c-1 to its endpoints, then per dimension one port to "
      "each other coordinate in increasing order. One endpoint group per router; endpoint "
      "coordinates (c, S_0, ..., S_(n-1)), c omitted when 1.",
      {
          ParamSpec::text("dims", "4x4",
                          "routers per dimension, 1 to 6 sizes >= 2 separated by 'x' (e.g. 8x8x4)"),
          ParamSpec::integer("c", 1, "concentration: endpoints per router").range(1, 64),
          ParamSpec::time("link_latency", "1cycles", "latency of router-to-router links"),
          ParamSpec::real("link_speed", 1.0, "bandwidth of router-to-router links in flits/cycle")
              .range(0.01, 1024),
          ParamSpec::time("terminal_latency", "1cycles", "latency of endpoint-to-router links"),
          ParamSpec::real("terminal_speed", 1.0,
                          "bandwidth of endpoint-to-router links in flits/cycle")
              .range(0.01, 1024),
          ParamSpec::choice("routing", "dor", {"dor", "minimal_adaptive"},
                            "dor: align dimensions lowest first (1 VC); minimal_adaptive: any "
                            "unaligned dimension, lowest first, the least loaded wins, VC = hops "
                            "so far (n VCs); both deadlock-free"),
      },
      make_hyperx};
}

}  // namespace hx::net
