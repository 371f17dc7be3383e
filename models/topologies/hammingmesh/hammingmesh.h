// Family "hammingmesh": HammingMesh (Hoefler et al., SC'22), the RailX paper's packet-switched
// baseline (its §3: RailX is "a circuit-switched HammingMesh"; Fig. 14(a)).
#pragma once

#include "models/network/family.h"

namespace hx::net {

/// HxMesh, section [hammingmesh]: a x b chip boards on an x-by-y grid, every chip row and chip
/// column of boards joined by a switch (or 2-level fat tree) line network; minimal routing.
TopologyFamily hammingmesh_family();

}  // namespace hx::net
