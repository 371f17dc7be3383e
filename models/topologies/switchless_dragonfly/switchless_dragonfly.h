// The Switch-less Dragonfly on Wafers (see shape.h for numbering and wiring): m x m meshes of
// chiplets form C-groups, a*b fully connected C-groups (a per wafer, b wafers) form a W-group and
// g = a*b*h + 1 fully connected W-groups form the system. Minimal routing: minimal_routing.h.
#pragma once

#include "models/network/family.h"

namespace hx::net {

/// Section and model "switchless_dragonfly": parameters n, m, a, b, link latencies and speeds,
/// routing (minimal) and intra-C-group routing (dor).
TopologyFamily switchless_dragonfly_family();

}  // namespace hx::net
