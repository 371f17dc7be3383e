// Round-robin partitioner.
#include "partition/round_robin_partitioner.h"

namespace hx {

std::vector<ComponentId> RoundRobinPartition::components_of(int rank) const {
  std::vector<ComponentId> ids;
  for (ComponentId id = static_cast<ComponentId>(rank); id < n_; id += static_cast<ComponentId>(ranks_)) {
    ids.push_back(id);
  }
  return ids;
}

}  // namespace hx
