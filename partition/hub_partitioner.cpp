#include "partition/hub_partitioner.h"

#include <string>
#include <vector>

#include "core/error.h"

namespace hx {

HubPartition::HubPartition(const Model& model, int ranks) : MappedPartition(ranks) {
  const ComponentId n = model.num_components();
  const ComponentId hub = *model.hub();
  const auto r64 = static_cast<uint64_t>(ranks);
  std::vector<int32_t> rank(n);
  std::vector<PortSpec> ports;
  uint64_t dealt = 0;
  for (ComponentId id = 0; id < n; ++id) {
    ports.clear();
    if (id != hub) model.ports(id, ports);
    if (id == hub) {
      rank[id] = ranks - 1;
    } else if (!ports.empty()) {
      rank[id] = static_cast<int32_t>(dealt++ % r64);
    } else {
      rank[id] = static_cast<int32_t>(uint64_t{id} * r64 / n);
    }
  }
  if (!assign(std::move(rank), "group: " + std::to_string(dealt) +
                                   " components linked to a hub dealt to the ranks in turn, "
                                   "the hub on the last rank")) {
    throw InputError("cannot split " + std::to_string(n) + " components, " + std::to_string(dealt) +
                     " of them linked to the flow level's fabric, over " + std::to_string(ranks) +
                     " ranks: every rank needs at least one component");
  }
}

}  // namespace hx
