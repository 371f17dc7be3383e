// Family "crossbar": one ideal switch with every endpoint on its own port, the upper bound any
// real topology is compared against (no network hops, no path contention).
#pragma once

#include "models/network/family.h"

namespace hx::net {

/// The big switch, section [crossbar]: routing "direct" (1 VC).
TopologyFamily crossbar_family();

}  // namespace hx::net
