// Family "hyperx": routers at the points of an S_0 x ... x S_{n-1} grid, each linked to every
// router that differs from it in exactly one coordinate (a clique along every line), with
// dimension-order and minimal adaptive routing.
#pragma once

#include "models/network/family.h"

namespace hx::net {

/// HyperX (trunking 1), section [hyperx]: routing "dor" (1 VC) or "minimal_adaptive" (n VCs).
TopologyFamily hyperx_family();

}  // namespace hx::net
