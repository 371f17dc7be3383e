// Collectives for agreeing on errors.
#include "io/collective.h"

#include <cstdint>

namespace hx {

std::string broadcast(MPI_Comm comm, std::string text, int root) {
  uint64_t size = text.size();
  MPI_Bcast(&size, 1, MPI_UINT64_T, root, comm);
  text.resize(size);
  MPI_Bcast(text.data(), static_cast<int>(size), MPI_CHAR, root, comm);
  return text;
}

std::string agree(MPI_Comm comm, const std::string& local_error) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const int mine = local_error.empty() ? ranks : rank;
  int first = ranks;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  return first == ranks ? std::string() : broadcast(comm, local_error, first);
}

}  // namespace hx
