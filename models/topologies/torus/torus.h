// Families "mesh" and "torus": k-ary n-meshes and k-ary n-tori with dimension-order routing, the
// classic direct-network baselines. One implementation serves both; the torus adds the
// wrap-around links and dateline virtual channels.
#pragma once

#include "models/network/family.h"

namespace hx::net {

/// k-ary n-mesh, section [mesh]: routing "dor" (1 VC).
TopologyFamily mesh_family();
/// k-ary n-torus, section [torus]: routing "dor" (dateline, 2 VCs) or "dor_no_dateline" (1 VC,
/// not deadlock-free, for deadlock experiments).
TopologyFamily torus_family();

}  // namespace hx::net
