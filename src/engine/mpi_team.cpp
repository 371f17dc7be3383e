#include "engine/mpi_team.h"

#include <algorithm>
#include <limits>

namespace hx {

MpiTeam::MpiTeam(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
}

std::vector<std::byte> MpiTeam::all_gather(std::span<const std::byte> mine) const {
  const auto n = static_cast<std::size_t>(size_);
  std::vector<uint64_t> sizes(n);
  const uint64_t own = mine.size();
  MPI_Allgather(&own, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, comm_);
  // MPI counts and displacements are ints: larger analyses go in pieces whose sum fits one.
  const uint64_t piece_bytes = static_cast<uint64_t>(std::numeric_limits<int>::max()) / n;
  std::vector<uint64_t> offset(n + 1, 0);
  uint64_t longest = 0;
  for (std::size_t r = 0; r < n; ++r) {
    offset[r + 1] = offset[r] + sizes[r];
    longest = std::max(longest, sizes[r]);
  }
  std::vector<std::byte> all(offset[n]);
  std::vector<int> counts(n), displs(n);
  std::vector<std::byte> piece;
  for (uint64_t start = 0; start < longest; start += piece_bytes) {
    int total = 0;
    for (std::size_t r = 0; r < n; ++r) {
      counts[r] = static_cast<int>(sizes[r] > start ? std::min(piece_bytes, sizes[r] - start) : 0);
      displs[r] = total;
      total += counts[r];
    }
    piece.resize(static_cast<std::size_t>(total));
    const int own_count = counts[static_cast<std::size_t>(rank_)];
    MPI_Allgatherv(mine.data() + std::min<uint64_t>(start, mine.size()), own_count, MPI_BYTE,
                   piece.data(), counts.data(), displs.data(), MPI_BYTE, comm_);
    for (std::size_t r = 0; r < n; ++r) {
      std::copy(piece.begin() + displs[r], piece.begin() + displs[r] + counts[r],
                all.begin() + static_cast<std::ptrdiff_t>(offset[r] + start));
    }
  }
  return all;
}

}  // namespace hx
