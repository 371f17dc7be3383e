// Factory for the partitioners.
#include "partition/partitioner.h"

#include <stdexcept>

#include "core/error.h"
#include "partition/group_partitioner.h"
#include "partition/hub_partitioner.h"
#include "partition/metis_partitioner.h"
#include "partition/round_robin_partitioner.h"

namespace hx {

std::vector<std::string> partitioner_names() { return {"group", "round_robin", "metis"}; }

std::unique_ptr<Partition> make_partition(const std::string& name, const Model& model, int ranks) {
  if (ranks < 1) throw std::logic_error("make_partition: ranks must be >= 1");
  if (static_cast<uint64_t>(ranks) > model.num_components()) {
    throw InputError("cannot split " + std::to_string(model.num_components()) +
                     " components over " + std::to_string(ranks) +
                     " ranks: every rank needs at least one component");
  }
  if (name == "group") {
    if (model.hub()) return std::make_unique<HubPartition>(model, ranks);
    return std::make_unique<GroupPartition>(model, ranks);
  }
  if (name == "round_robin") return std::make_unique<RoundRobinPartition>(model, ranks);
  if (name == "metis") return std::make_unique<MetisPartition>(model, ranks);
  throw InputError("sim.partitioner: unknown partitioner '" + name +
                   "'; expected group, round_robin or metis");
}

}  // namespace hx
