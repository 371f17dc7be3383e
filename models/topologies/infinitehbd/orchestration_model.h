// `model = "hbd_orchestration"`: §6.4's orchestration study (Fig. 17a-c). For every cluster size,
// job scale and node fault ratio, Algorithm 5 (orchestration.h) and the greedy baseline place a
// TP job on a K-hop line deployed over a two-tier fat tree, under seeded Bernoulli node faults,
// and the model reports the share of the parallel (CP) ring edges that cross ToRs.
#pragma once

#include "core/registry.h"

namespace hx::net::infinitehbd {

void register_orchestration_model(Registry& registry);

}  // namespace hx::net::infinitehbd
