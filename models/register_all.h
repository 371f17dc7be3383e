// The list of every model hxsim ships. Each module contributes a register_models(Registry&);
// this function calls them all, explicitly, so nothing depends on static initialisation order.
#pragma once

#include "core/registry.h"
#include "models/network/workload_config.h"

namespace hx {

/// `files`: how workloads read their input files (the application passes io/'s readers).
void register_all_models(Registry& registry, const net::InputFiles& files = {});

}  // namespace hx
