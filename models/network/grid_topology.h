// What grid-shaped direct topologies (mesh, torus, HyperX) share besides the concentrated
// numbering: routers at mixed-radix coordinates (dimension 0 least significant), partition
// groups of routers sharing their higher coordinates ("row", "plane", ... then "router"), one
// endpoint group per router, and endpoint coordinates (c, radix_0, ..., radix_n-1).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/params.h"
#include "core/units.h"
#include "models/network/concentrated_topology.h"
#include "models/network/layout.h"

namespace hx::net {

class GridTopology : public ConcentratedTopology {
 public:
  GridTopology(uint32_t concentration, std::vector<uint32_t> radices)
      : ConcentratedTopology(concentration), radices_(std::move(radices)) {
    uint32_t stride = 1;
    for (uint32_t r : radices_) {
      strides_.push_back(stride);
      stride *= r;
    }
    routers_ = stride;
  }

  std::vector<GroupLevel> group_levels() const override {
    std::vector<GroupLevel> levels;
    for (std::size_t d = radices_.size() - 1; d >= 1; --d) {
      levels.push_back({block_name(d), routers_ / strides_[d]});
    }
    levels.push_back({"router", routers_});
    return levels;
  }
  ComponentRange group_range(std::size_t level, uint64_t group) const override {
    const std::size_t n = radices_.size();
    const uint64_t routers = level + 1 < n ? strides_[n - 1 - level] : 1;
    const uint64_t size = routers * (concentration() + 1);
    return {static_cast<ComponentId>(group * size), static_cast<ComponentId>((group + 1) * size)};
  }

  uint32_t num_endpoint_groups() const override { return routers_; }
  uint32_t endpoint_group(uint32_t endpoint) const override { return endpoint / concentration(); }
  EndpointRange endpoint_group_range(uint32_t group) const override {
    return {group * concentration(), (group + 1) * concentration()};
  }
  // Pictures: the plane of dimensions 0 and 1 (a row in one dimension), planes side by side.
  std::string picture_group() const override { return radices_.size() > 2 ? "plane" : "network"; }
  PicturePlace picture_place(ComponentId id) const override {
    const Node n = node(id);
    const uint32_t router = n.kind == NodeKind::kRouter ? n.index : n.index / concentration();
    const uint32_t per_plane = radices_.size() > 2 ? strides_[2] : routers_;
    const uint32_t plane = radices_.size() > 2 ? router / per_plane : 0;
    const uint32_t in = router % per_plane;
    Point at{static_cast<double>(in % radices_[0]), static_cast<double>(in / radices_[0])};
    if (n.kind == NodeKind::kEndpoint) at = below(at, n.index % concentration(), concentration());
    const uint32_t planes = routers_ / per_plane;
    return place_at(plane, planes <= 64 ? on_circle(plane, planes) : on_grid(plane, planes), at);
  }
  std::vector<uint32_t> endpoint_dims() const override {
    std::vector<uint32_t> dims;
    if (concentration() > 1) dims.push_back(concentration());
    dims.insert(dims.end(), radices_.begin(), radices_.end());
    return dims;
  }

 private:
  // The level of routers sharing coordinates d..n-1.
  static std::string block_name(std::size_t d) {
    switch (d) {
      case 1:
        return "row";
      case 2:
        return "plane";
      case 3:
        return "cube";
      default:
        return std::to_string(d) + "d-block";
    }
  }

  std::vector<uint32_t> radices_;
  std::vector<uint32_t> strides_;
  uint32_t routers_ = 1;
};

// A grid family's two link classes, "terminal" and "network", from its section's
// terminal_/link_ latency and speed, each checked positive ("torus.link_speed = 0: ...").
inline std::vector<LinkClass> grid_link_classes(const ParamSet& p, const std::string& family) {
  for (const char* key : {"link_latency", "terminal_latency"}) {
    if (p.time(key) <= SimTime::zero()) {
      throw InputError(family + "." + key + " = " + format_time(p.time(key)) +
                       ": expected a time > 0");
    }
  }
  for (const char* key : {"link_speed", "terminal_speed"}) {
    if (!(p.real(key) > 0)) {
      throw InputError(family + "." + key + " = " + std::to_string(p.real(key)) + ": expected > 0");
    }
  }
  return {{"terminal", p.time("terminal_latency"), p.real("terminal_speed")},
          {"network", p.time("link_latency"), p.real("link_speed")}};
}

}  // namespace hx::net
