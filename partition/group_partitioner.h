// The default partitioner: keeps the model's groups whole and gives each rank a contiguous,
// weight-balanced block of them, at the coarsest grouping level that has a group for every rank.
// Groups are contiguous id ranges, so a rank's share is one id range and rank_of is a binary search
// over ranks+1 boundaries.
#pragma once

#include <vector>

#include "partition/partitioner.h"

namespace hx {

class GroupPartition final : public Partition {
 public:
  GroupPartition(const Model& model, int ranks);

  int ranks() const override { return static_cast<int>(begin_.size()) - 1; }
  int rank_of(ComponentId id) const override;
  std::vector<ComponentId> components_of(int rank) const override;
  uint32_t local_index(ComponentId id) const override;
  std::string describe() const override { return description_; }

  /// First component of each rank, plus num_components at the end.
  const std::vector<ComponentId>& boundaries() const { return begin_; }

 private:
  std::vector<ComponentId> begin_;
  std::string description_;
};

/// Splits `weights` (one per group, in order) into `parts` contiguous non-empty blocks whose
/// sums are as close as possible to total/parts: block r ends at the group where the prefix sum
/// is nearest to (r+1)*total/parts. Returns parts+1 group indices. Requires weights.size() >= parts.
std::vector<std::size_t> balanced_blocks(const std::vector<uint64_t>& weights, int parts);

}  // namespace hx
