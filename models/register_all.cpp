// Calls each model module's registration function.
#include "models/register_all.h"

#include "models/phold/phold.h"

namespace hx {

void register_all_models(Registry& registry) { phold::register_models(registry); }

}  // namespace hx
