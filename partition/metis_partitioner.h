// METIS partitioner (`sim.partitioner = "metis"`): lookahead first, then the cut. Links shorter
// than a threshold are never cut: their components are merged into clusters, for the largest
// threshold whose clusters still balance over the ranks (no cluster above 1/ranks of the weight
// plus 10%, at least `ranks` of them). METIS's k-way partitioning then splits the cluster graph,
// vertices weighted by component weight (Model::weight) and edges by the links they stand for,
// so it balances the work and cuts as few of the remaining links as it can.
//
// Unlike the group partitioner, every rank holds the component graph while partitioning and two
// integers per component afterwards (12 bytes): about 12 bytes per link end at build time. It suits
// the irregular topologies whose groups cut badly (rail-only, InfiniteHBD with its DCN, uneven
// group counts at high rank counts). METIS is deterministic for a fixed seed, so every rank
// computes the same partition; results are identical to any other partitioner's, as always.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "partition/partitioner.h"

namespace hx {

class MetisPartition final : public Partition {
 public:
  MetisPartition(const Model& model, int ranks);

  int ranks() const override { return ranks_; }
  int rank_of(ComponentId id) const override { return rank_[id]; }
  std::vector<ComponentId> components_of(int rank) const override;
  uint32_t local_index(ComponentId id) const override { return local_[id]; }
  std::string describe() const override { return description_; }

 private:
  int ranks_;
  std::vector<int32_t> rank_;       // per component
  std::vector<uint32_t> local_;     // per component: its place among its rank's
  std::vector<ComponentId> order_;  // components by rank, then id
  std::vector<std::size_t> begin_;  // rank r owns order_[begin_[r], begin_[r + 1])
  std::string description_;
};

}  // namespace hx
