// `model = "hbd_cluster"`: InfiniteHBD's cluster-level fault simulation (§6.2, Appendix E). Each
// compared HBD architecture (cluster.h) places TP groups after every change of a node fault
// trace (fault_trace.h: a CSV file or a generated trace), and the model reports the GPU waste
// over time, its mean and P99, the largest job, and the time jobs of given sizes wait for
// repairs; optionally the expected waste under Bernoulli node faults (Fig. 14, 22).
#pragma once

#include "core/registry.h"

namespace hx::net::infinitehbd {

void register_cluster_model(Registry& registry);

}  // namespace hx::net::infinitehbd
