// Making per-rank statistics tables partition-independent before they are written (DESIGN §3.3):
// summed tables are added up across ranks, per-owner tables are numbered by (owner, seq).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "core/stats.h"

namespace hx {

/// Collective. Every rank ends with the global sums in each kSummed table.
void reduce_summed_tables(MPI_Comm comm, StatsRegistry& stats);

/// Collective. The kSummed tables `names` of `stats` added up across ranks, as a copy: `stats`
/// goes on collecting. For decisions during a run (Model::end_early).
StatsRegistry reduced_summed_copy(MPI_Comm comm, const StatsRegistry& stats,
                                  const std::vector<std::string>& names);

/// Collective. Keeps the summed tables' rows on rank 0 only (so they are written once) and
/// replaces the (owner, seq) keys of kPerOwner tables by dense global ids.
void prepare_tables_for_output(MPI_Comm comm, StatsRegistry& stats);

}  // namespace hx
