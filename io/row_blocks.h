// How a table's rows, spread over the ranks in any order, reach the rank that writes them: the
// file is cut into one block of consecutive ids per rank, and every row travels to its block's
// owner in one all-to-all per column (DESIGN §8: statistics are written in global-id order).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/stats.h"

namespace hx {

/// Rank r owns the rows with ids [first[r], first[r+1]). Blocks are whole chunks, balanced in
/// chunks, so each compressed chunk is written by exactly one rank and HDF5 need not merge
/// pieces of a chunk from several ranks.
struct RowBlocks {
  uint64_t rows = 0;
  uint64_t chunk = 0;  // 0 for an empty table: its datasets are contiguous
  std::vector<uint64_t> first;

  /// With `one_writer`, rank 0 owns every row: a table only rank 0 holds (TableKind::kSummed
  /// after the reduction) is written where it lies, without an exchange.
  RowBlocks(uint64_t total_rows, int ranks, uint64_t chunk_rows, bool one_writer = false);
  int owner(uint64_t id) const;
  uint64_t begin(int rank) const { return first[rank]; }
  uint64_t size(int rank) const { return first[rank + 1] - first[rank]; }
};

/// How this rank's rows travel to their block owners, and where received rows go.
struct RowRouting {
  std::vector<int> send_counts, send_offsets, recv_counts, recv_offsets;
  std::vector<std::size_t> order;  // local row indices grouped by destination rank
  std::vector<std::size_t> slot;   // slot[k]: receive-buffer index of the row with id begin+k
  bool in_place = false;  // every rank holds exactly its block, in id order: nothing travels
};

/// Collective: checks that the ids of all ranks form [0, rows) and plans the exchange (none if
/// every rank holds its block in order). Returns the agreed error message, "" if the ids are
/// fine.
std::string plan_row_routing(MPI_Comm comm, const Table& table, const RowBlocks& blocks,
                             RowRouting& routing);

template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, uint64_t>) return MPI_UINT64_T;
  if constexpr (std::is_same_v<T, int64_t>) return MPI_INT64_T;
  return MPI_DOUBLE;
}

/// Collective: this rank's block of `local` (a column, or the ids), sorted by id.
template <class T>
std::vector<T> redistribute_rows(MPI_Comm comm, const RowRouting& routing,
                                 const std::vector<T>& local) {
  std::vector<T> send(local.size());
  for (std::size_t k = 0; k < routing.order.size(); ++k) send[k] = local[routing.order[k]];
  const std::size_t arriving =
      routing.recv_counts.empty() ? 0 : routing.recv_offsets.back() + routing.recv_counts.back();
  std::vector<T> received(arriving);
  MPI_Alltoallv(send.data(), routing.send_counts.data(), routing.send_offsets.data(), mpi_type<T>(),
                received.data(), routing.recv_counts.data(), routing.recv_offsets.data(),
                mpi_type<T>(), comm);
  if (routing.slot.empty()) return received;
  std::vector<T> block(routing.slot.size());
  for (std::size_t k = 0; k < block.size(); ++k) block[k] = received[routing.slot[k]];
  return block;
}

}  // namespace hx
