// Hub partitioner: the group partitioner's choice for a model whose active components all link
// to one hub and nothing else (Model::hub(): the flow level's fabric, whose 1 ps ports are every
// link there is). Grouping means nothing there: every cut link is a link to the hub, with the
// same latency. What decides the speed is that components busy at the same instant sit on
// different ranks and work side by side, and neighbours in id order (the images of one
// collective's members) are busy together. So the components with ports are dealt to the ranks
// in turn, the hub goes to the last rank, and the idle components (no ports) lie in contiguous
// blocks of equal size.
#pragma once

#include "partition/mapped_partition.h"

namespace hx {

class HubPartition final : public MappedPartition {
 public:
  /// Precondition: model.hub() is set.
  HubPartition(const Model& model, int ranks);
};

}  // namespace hx
