// The crossbar ("big switch"): router 0 is component 0, endpoint e is component e + 1, and its
// k injection/ejection channels (ports 0..k-1) are router ports e*k .. e*k+k-1. Every packet goes
// straight to one of its destination's ports.
#include "models/topologies/crossbar/crossbar.h"

#include <memory>
#include <string>

#include "core/error.h"

namespace hx::net {
namespace {

constexpr int64_t kMaxEndpoints = kWidePort;  // events name a router's ports below kWidePort

class CrossbarTopology final : public Topology {
 public:
  CrossbarTopology(uint32_t endpoints, uint32_t group_size, uint32_t channels, LinkClass terminal)
      : endpoints_(endpoints),
        group_size_(group_size),
        k_(channels),
        classes_{std::move(terminal)} {}

  std::string describe() const override {
    return "crossbar endpoints=" + std::to_string(endpoints_) + ": " + std::to_string(endpoints_) +
           " endpoints, 1 router";
  }
  uint32_t num_routers() const override { return 1; }
  uint32_t num_endpoints() const override { return endpoints_; }

  Node node(ComponentId id) const override {
    if (id == 0) return {NodeKind::kRouter, 0};
    return {NodeKind::kEndpoint, id - 1};
  }
  ComponentId router_component(uint32_t /*router*/) const override { return 0; }
  ComponentId endpoint_component(uint32_t endpoint) const override { return endpoint + 1; }
  uint32_t endpoint_router(uint32_t /*endpoint*/) const override { return 0; }

  void ports(ComponentId id, std::vector<PortSpec>& out) const override {
    const SimTime latency = classes_[0].latency;
    if (id != 0) {
      for (uint32_t j = 0; j < k_; ++j) {
        out.push_back({0, static_cast<PortId>((id - 1) * k_ + j), latency, 0});
      }
      return;
    }
    for (uint32_t e = 0; e < endpoints_; ++e) {
      for (uint32_t j = 0; j < k_; ++j) out.push_back({e + 1, static_cast<PortId>(j), latency, 0});
    }
  }

  // The router's ports 0..N*k-1 are links 0..N*k-1; endpoint e's ports follow, k each.
  uint64_t first_link(ComponentId id) const override {
    return id == 0 ? 0 : uint64_t{endpoints_} * k_ + uint64_t{id - 1} * k_;
  }
  uint64_t num_links() const override { return 2ull * endpoints_ * k_; }

  // A single switch cannot be split: one group holding everything.
  std::vector<GroupLevel> group_levels() const override { return {{"router", 1}}; }
  ComponentRange group_range(std::size_t /*level*/, uint64_t /*group*/) const override {
    return {0, endpoints_ + 1};
  }

  const std::vector<LinkClass>& link_classes() const override { return classes_; }

  uint32_t num_endpoint_groups() const override { return endpoints_ / group_size_; }
  uint32_t endpoint_group(uint32_t endpoint) const override { return endpoint / group_size_; }
  EndpointRange endpoint_group_range(uint32_t group) const override {
    return {group * group_size_, (group + 1) * group_size_};
  }

  uint32_t diameter() const override { return 0; }

 private:
  uint32_t endpoints_;
  uint32_t group_size_;
  uint32_t k_;  // channels per endpoint
  std::vector<LinkClass> classes_;
};

class DirectRouting final : public Routing {
 public:
  explicit DirectRouting(uint32_t channels) : k_(channels) {}
  std::string name() const override { return "direct"; }
  uint8_t vcs() const override { return 1; }
  void route(uint32_t /*router*/, PortId /*in_port*/, Packet& packet,
             Candidates& out) const override {
    for (uint32_t j = 0; j < k_; ++j) out.add(static_cast<PortId>(packet.dst * k_ + j), 0);
  }

 private:
  uint32_t k_;
};

Network make_crossbar(const ParamSet& p) {
  const int64_t endpoints = p.integer("endpoints"), group_size = p.integer("group_size");
  const int64_t channels = p.integer("channels");
  if (endpoints < 2 || endpoints > kMaxEndpoints) {
    throw InputError("crossbar.endpoints = " + std::to_string(endpoints) +
                     ": expected 2 <= endpoints <= " + std::to_string(kMaxEndpoints));
  }
  if (channels < 1 || channels > static_cast<int64_t>(Candidates::kCapacity) ||
      endpoints * channels > kMaxEndpoints) {
    throw InputError("crossbar.channels = " + std::to_string(channels) + ": expected 1 to " +
                     std::to_string(Candidates::kCapacity) + ", with endpoints * channels <= " +
                     std::to_string(kMaxEndpoints) + " switch ports");
  }
  if (group_size < 1 || endpoints % group_size != 0) {
    throw InputError("crossbar.group_size = " + std::to_string(group_size) +
                     ": expected a divisor of crossbar.endpoints = " + std::to_string(endpoints));
  }
  const SimTime latency = p.time("terminal_latency");
  if (latency <= SimTime::zero()) {
    throw InputError("crossbar.terminal_latency = " + format_time(latency) +
                     ": expected a time > 0");
  }
  if (!(p.real("terminal_speed") > 0)) {
    throw InputError("crossbar.terminal_speed = " + std::to_string(p.real("terminal_speed")) +
                     ": expected > 0");
  }
  if (p.text("routing") != "direct") {
    throw InputError("crossbar.routing = " + p.text("routing") + ": expected direct");
  }
  const auto k = static_cast<uint32_t>(channels);
  return Network{std::make_unique<CrossbarTopology>(
                     static_cast<uint32_t>(endpoints), static_cast<uint32_t>(group_size), k,
                     LinkClass{"terminal", latency, p.real("terminal_speed")}),
                 std::make_unique<DirectRouting>(k)};
}

}  // namespace

TopologyFamily crossbar_family() {
  return TopologyFamily{
      "crossbar",
      "Crossbar: one ideal switch with every endpoint on its own port(s) (router ports e*k .. "
      "e*k+k-1 lead to endpoint e's k channels), the contention-free upper bound for "
      "comparisons; diameter 0. Endpoint groups: consecutive blocks of group_size endpoints.",
      {
          ParamSpec::integer("endpoints", 64, "number of endpoints (switch ports)")
              .range(2, kMaxEndpoints),
          ParamSpec::integer("group_size", 1,
                             "endpoints per endpoint group for the group-based traffic patterns "
                             "(must divide endpoints); set it to another topology's group size "
                             "to use the crossbar as that topology's ideal reference")
              .range(1, kMaxEndpoints),
          ParamSpec::integer("channels", 1,
                             "injection/ejection channels (links) per endpoint; the endpoint "
                             "injects on whichever is free, the switch ejects on any")
              .range(1, 64),
          ParamSpec::time("terminal_latency", "1cycles", "latency of endpoint-to-switch links"),
          ParamSpec::real("terminal_speed", 1.0,
                          "bandwidth of endpoint-to-switch links in flits/cycle")
              .range(0.01, 1024),
          ParamSpec::choice("routing", "direct", {"direct"},
                            "direct: straight to the destination's port (1 VC)"),
      },
      make_crossbar};
}

}  // namespace hx::net
