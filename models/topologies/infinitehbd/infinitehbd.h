// InfiniteHBD (Shou et al., SIGCOMM '25): nodes of R GPUs linked by OCS transceivers into a
// K-hop line, configured into TP rings (rings.h), with a data-centre network between rings.
#pragma once

#include "models/network/family.h"

namespace hx::net {

/// Section and model "infinitehbd": nodes, gpus_per_node (R), k (K), tp, failed_nodes, link
/// latencies and speeds.
TopologyFamily infinitehbd_family();

}  // namespace hx::net
