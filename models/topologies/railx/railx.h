// RailX (Feng et al.): m x m chip meshes as nodes, whose X- and Y-rails meet at 2D-organised
// optical circuit switches configured into torus and hyperx dimensions (shape.h has the
// numbering and wiring, routing.h the routing).
#pragma once

#include "models/network/family.h"

namespace hx::net {

/// Section and model "railx": m, n, ocs_radix, the logical dimensions of each axis (x, y), link
/// latencies and speeds, routing and mesh routing.
TopologyFamily railx_family();

}  // namespace hx::net
