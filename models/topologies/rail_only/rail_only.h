// The rail-only family (rail_only.cpp): HB domains joined by a per-rail network, the
// rail-optimized any-to-any baseline, or HB domains alone.
#pragma once

#include "models/network/family.h"

namespace hx::net {

/// Section and model "rail_only": N GPUs in HB domains of K, a scale-out network per rail
/// (rail_only), across rails (rail_optimized) or none; routing updown with 2 VCs.
TopologyFamily rail_only_family();

}  // namespace hx::net
