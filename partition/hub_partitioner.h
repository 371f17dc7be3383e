// Hub partitioner: the group partitioner's choice for a model whose active components all link
// to one hub and nothing else (Model::hub(): the flow level's fabric, whose 1 ps ports are every
// link there is). Grouping means nothing there: every cut link is a link to the hub, with the
// same latency. What decides the speed is that components busy at the same instant sit on
// different ranks and work side by side, and neighbours in id order (the images of one
// collective's members) are busy together. So the components with ports are dealt to the ranks
// in turn, the hub goes to the last rank, and the idle components (no ports) lie in contiguous
// blocks of equal size.
#pragma once

#include <string>
#include <vector>

#include "partition/partitioner.h"

namespace hx {

class HubPartition final : public Partition {
 public:
  /// Precondition: model.hub() is set.
  HubPartition(const Model& model, int ranks);

  int ranks() const override { return ranks_; }
  int rank_of(ComponentId id) const override { return rank_[id]; }
  std::vector<ComponentId> components_of(int rank) const override;
  uint32_t local_index(ComponentId id) const override { return local_[id]; }
  std::string describe() const override { return description_; }

 private:
  int ranks_;
  std::vector<int> rank_;  // per component: a map, as dealt ranks follow no block structure
  std::vector<uint32_t> local_;
  std::string description_;
};

}  // namespace hx
