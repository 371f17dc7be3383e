// Minimal dimension-order routing on a HammingMesh (routing.cpp has the rules and why they are
// deadlock-free).
#pragma once

#include <cstdint>
#include <memory>

#include "models/network/routing.h"
#include "models/topologies/hammingmesh/shape.h"

namespace hx::net::hammingmesh {

/// VC classes minimal routing needs: one, plus one per line network crossed (X, then Y).
inline constexpr uint8_t kMinimalClasses = 3;

/// vc_limit 0: the classes it needs; fewer folds the top classes into the last VC.
std::unique_ptr<Routing> make_minimal_routing(const Shape& shape, uint8_t vc_limit);

/// Router-to-router hops of the longest minimal route: on each axis a walk to the nearer board
/// edge, the line network, a walk from the edge nearer the destination.
uint32_t minimal_diameter(const Shape& shape);

}  // namespace hx::net::hammingmesh
