// The switch-based Dragonfly (Kim, Dally, Scott, Abts, ISCA 2008) as a topology family: g groups
// of a fully connected routers, p terminals and h global links per router, with minimal, Valiant
// and UGAL-L routing. Numbering, link arrangement and VC rules are described in dragonfly.cpp.
#pragma once

#include "models/network/family.h"

namespace hx::net {

/// Section and model "dragonfly": parameters p, a, h, g, per-class latencies and speeds,
/// routing (minimal, valiant, ugal_l) and ugal_threshold.
TopologyFamily dragonfly_family();

}  // namespace hx::net
