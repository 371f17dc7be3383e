// A partition given as each component's rank (the METIS and hub partitioners, whose ranks
// follow no block structure): it numbers each rank's components in id order and lists them.
// Every rank holds two integers per component, plus the components by rank.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "partition/partitioner.h"

namespace hx {

class MappedPartition : public Partition {
 public:
  int ranks() const override { return ranks_; }
  int rank_of(ComponentId id) const override { return rank_[id]; }
  std::vector<ComponentId> components_of(int rank) const override;
  uint32_t local_index(ComponentId id) const override { return local_[id]; }
  std::string describe() const override { return description_; }

 protected:
  explicit MappedPartition(int ranks) : ranks_(ranks) {}
  /// Takes each component's rank. Returns false, keeping nothing, when a rank got none (the
  /// engine needs a component on every rank): the caller says why in an InputError.
  bool assign(std::vector<int32_t> rank, std::string description);

 private:
  int ranks_;
  std::vector<int32_t> rank_;       // per component
  std::vector<uint32_t> local_;     // per component: its place among its rank's
  std::vector<ComponentId> order_;  // components by rank, then id
  std::vector<std::size_t> begin_;  // rank r owns order_[begin_[r], begin_[r + 1])
  std::string description_;
};

}  // namespace hx
