// METIS partitioner (`sim.partitioner = "metis"`): lookahead first, then the cut. Links shorter
// than a threshold are never cut: their components are merged into clusters, for the largest
// threshold whose clusters still balance over the ranks (no cluster above 1/ranks of the weight
// plus 10%, at least `ranks` of them). METIS's k-way partitioning then splits the cluster graph,
// vertices weighted by component weight (Model::weight) and edges by the links they stand for,
// so it balances the work and cuts as few of the remaining links as it can. Where it leaves a
// rank empty (few clusters), the next shorter latency is the threshold, down to none; and if
// single components still leave one empty, the fullest ranks give up a component each.
//
// Unlike the group partitioner, every rank holds the component graph while partitioning and two
// integers per component afterwards (12 bytes): about 12 bytes per link end at build time. It suits
// the irregular topologies whose groups cut badly (rail-only, InfiniteHBD with its DCN, uneven
// group counts at high rank counts). METIS is deterministic for a fixed seed, so every rank
// computes the same partition; results are identical to any other partitioner's, as always.
#pragma once

#include "partition/mapped_partition.h"

namespace hx {

class MetisPartition final : public MappedPartition {
 public:
  MetisPartition(const Model& model, int ranks);
};

}  // namespace hx
