// Routing on RailX (paper §4.1): deterministic minimal routing (Algorithm 1, generalised to any
// mix of torus and hyperx dimensions) and non-minimal adaptive routing on hyperx dimensions
// (§4.1.2), with dimension-order or north-last routing on the node meshes. routing.cpp has the
// rules and why they are deadlock-free.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/network/routing.h"
#include "models/topologies/railx/shape.h"

namespace hx::net::railx {

enum class MeshRouting { kDor, kNorthLast };

/// Which of the ports reaching the next node of a hyperx or dragonfly dimension a packet walks
/// to (routing.cpp): the nearest on the mesh, the one with the shortest walk here plus from
/// where its circuit lands to the destination chip, or one fixed per flow whatever the walk.
enum class RailChoice { kNearest, kShortest, kSpread };

struct RoutingOptions {
  bool adaptive = false;  // may misroute within a hyperx dimension (§4.1.2)
  uint32_t hops = 0;      // adaptive: inter-node hops a route may take (a); 0: d_o + 1
  uint8_t penalty = 4;    // adaptive: flits of free space a detour must win by
  MeshRouting mesh = MeshRouting::kDor;
  RailChoice rail = RailChoice::kNearest;
  uint8_t vc_limit = 0;   // 0: the VCs the routing needs; fewer folds the top classes together
  bool delivery = false;  // minimal: the last optical hop and the walk in the destination node
                          // on a VC class of their own, the top one (routing.cpp)
};

/// Inter-node hops of the longest minimal route: d_o.
uint32_t minimal_hops(const Shape& shape);

/// VCs the routing needs: one per VC class (routing.cpp); minimal: d_o + 1 for a pure HyperX,
/// one more with `delivery`; adaptive: a + 1.
uint8_t needed_vcs(const Shape& shape, const RoutingOptions& options);

/// The reconfigurable elements (Topology::reconfigurables indices) of the X- and Y-OCSes;
/// -1 for an axis with one configuration.
struct Elements {
  int x = -1, y = -1;
};

/// Routing on `shapes` (Shape::configurations; one shape: no alternatives), `ys` Y
/// configurations.
std::unique_ptr<Routing> make_routing(const std::vector<Shape>& shapes, uint32_t ys,
                                      const Elements& elements, const RoutingOptions& options);

}  // namespace hx::net::railx
