#include "partition/hub_partitioner.h"

namespace hx {

HubPartition::HubPartition(const Model& model, int ranks) : ranks_(ranks) {
  const ComponentId n = model.num_components();
  const ComponentId hub = *model.hub();
  const auto r64 = static_cast<uint64_t>(ranks);
  rank_.resize(n);
  std::vector<PortSpec> ports;
  uint64_t dealt = 0;
  for (ComponentId id = 0; id < n; ++id) {
    ports.clear();
    if (id != hub) model.ports(id, ports);
    if (id == hub) {
      rank_[id] = ranks - 1;
    } else if (!ports.empty()) {
      rank_[id] = static_cast<int>(dealt++ % r64);
    } else {
      rank_[id] = static_cast<int>(uint64_t{id} * r64 / n);
    }
  }
  local_.resize(n);
  std::vector<uint32_t> next(static_cast<std::size_t>(ranks), 0);
  for (ComponentId id = 0; id < n; ++id) local_[id] = next[static_cast<std::size_t>(rank_[id])]++;
  description_ = "group: " + std::to_string(dealt) +
                 " components linked to a hub dealt to the ranks in turn, the hub on the last";
}

std::vector<ComponentId> HubPartition::components_of(int rank) const {
  std::vector<ComponentId> ids;
  for (ComponentId id = 0; id < rank_.size(); ++id) {
    if (rank_[id] == rank) ids.push_back(id);
  }
  return ids;
}

}  // namespace hx
