// Round-robin partitioner: component id modulo the rank count. It cuts nearly every link, which
// makes it the harshest test of cross-rank exchange and of determinism; not for production runs.
#pragma once

#include "partition/partitioner.h"

namespace hx {

class RoundRobinPartition final : public Partition {
 public:
  RoundRobinPartition(const Model& model, int ranks) : n_(model.num_components()), ranks_(ranks) {}

  int ranks() const override { return ranks_; }
  int rank_of(ComponentId id) const override { return static_cast<int>(id % ranks_); }
  std::vector<ComponentId> components_of(int rank) const override;
  uint32_t local_index(ComponentId id) const override { return id / static_cast<uint32_t>(ranks_); }
  std::string describe() const override { return "round_robin: component id modulo ranks"; }

 private:
  ComponentId n_;
  int ranks_;
};

}  // namespace hx
