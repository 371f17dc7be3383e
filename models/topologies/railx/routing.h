// Routing on RailX (paper §4.1): deterministic minimal routing (Algorithm 1, generalised to any
// mix of torus and hyperx dimensions) with dimension-order or north-last routing on the node
// meshes. routing.cpp has the rules and why they are deadlock-free.
#pragma once

#include <cstdint>
#include <memory>

#include "models/network/routing.h"
#include "models/topologies/railx/shape.h"

namespace hx::net::railx {

enum class MeshRouting { kDor, kNorthLast };

struct RoutingOptions {
  MeshRouting mesh = MeshRouting::kDor;
  uint8_t vc_limit = 0;  // 0: the VCs the routing needs; fewer folds the top classes together
};

/// VCs minimal routing needs: one per VC class (routing.cpp), d_o + 1 for a pure HyperX.
uint8_t needed_vcs(const Shape& shape);

std::unique_ptr<Routing> make_routing(const Shape& shape, const RoutingOptions& options);

}  // namespace hx::net::railx
