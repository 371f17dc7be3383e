// Fat-tree topology families with up/down routing: the k-ary n-tree (Petrini & Vanneschi) in
// fat_tree.cpp and the rail-optimized two-tier Clos of GPU clusters in rail_optimized.cpp.
#pragma once

#include "models/network/family.h"

namespace hx::net {

/// Section and model "fat_tree": a k-ary n-tree, k^n endpoints and n levels of k^(n-1)
/// switches; routing updown (destination-based up ports, d-mod-k) or updown_adaptive.
TopologyFamily fat_tree_family();

/// Section and model "rail_optimized": GPU i of every node attaches to the rail-i leaf switch of
/// its block of nodes; every leaf links to every spine; routing updown or updown_adaptive.
TopologyFamily rail_optimized_family();

}  // namespace hx::net
