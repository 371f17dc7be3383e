// The list of every model hxsim ships. Each module contributes a register_models(Registry&);
// this function calls them all, explicitly, so nothing depends on static initialisation order.
#pragma once

#include "core/registry.h"

namespace hx {

void register_all_models(Registry& registry);

}  // namespace hx
