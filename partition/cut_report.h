// Cut analysis: how many links a partition cuts, the lookahead those links give (the minimum
// latency of a cut link, DESIGN §3.5), and the load imbalance. Each rank analyses only its own
// components; the engine combines the per-rank results with one reduction, `hxsim validate`
// combines all ranks in one process.
#pragma once

#include <cstdint>
#include <vector>

#include "core/model.h"
#include "partition/partitioner.h"

namespace hx {

struct RankCut {
  uint64_t components = 0;
  uint64_t weight = 0;
  uint64_t ports = 0;      // link ends on this rank
  uint64_t cut_ports = 0;  // link ends whose peer is on another rank
  SimTime min_cut_latency = SimTime::infinity();
  std::vector<int> neighbours;  // ranks owning a peer of a cut port, ascending
};

struct CutReport {
  int ranks = 0;
  uint64_t links = 0;      // all links (each counted once)
  uint64_t links_cut = 0;  // links whose ends are on different ranks
  SimTime lookahead = SimTime::infinity();  // min latency over cut links; infinity if none
  double imbalance = 1.0;                   // max rank weight / mean rank weight
  std::vector<RankCut> per_rank;            // filled by combine(); empty if reduced over MPI
};

RankCut analyse_rank(const Model& model, const Partition& partition, int rank);
CutReport combine(std::vector<RankCut> ranks);

}  // namespace hx
