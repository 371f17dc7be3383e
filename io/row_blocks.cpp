// Row blocks and the all-to-all plan that brings rows to their block's owner.
#include "io/row_blocks.h"

#include <algorithm>
#include <climits>

#include "io/collective.h"

namespace hx {

RowBlocks::RowBlocks(uint64_t total_rows, int ranks, uint64_t chunk_rows, bool one_writer)
    : rows(total_rows), chunk(std::min(total_rows, chunk_rows)) {
  const uint64_t chunks = chunk == 0 ? 0 : (rows + chunk - 1) / chunk;
  const auto n = static_cast<uint64_t>(ranks);
  for (uint64_t r = 0; r <= n; ++r) {
    first.push_back(one_writer
                        ? (r == 0 ? 0 : rows)
                        : std::min(rows, ((chunks / n) * r + std::min(r, chunks % n)) * chunk));
  }
}

int RowBlocks::owner(uint64_t id) const {
  return static_cast<int>(std::upper_bound(first.begin(), first.end(), id) - first.begin()) - 1;
}

namespace {

std::vector<int> offsets_of(const std::vector<int>& counts) {
  std::vector<int> offsets(counts.size(), 0);
  for (std::size_t r = 1; r < counts.size(); ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  return offsets;
}

}  // namespace

std::string plan_row_routing(MPI_Comm comm, const Table& table, const RowBlocks& blocks,
                             RowRouting& routing) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const std::string name = "table '" + table.spec().name + "': ";
  const std::vector<uint64_t>& ids = table.ids();
  std::string error;
  if (ids.size() > INT_MAX || blocks.size(0) > INT_MAX) {
    error = name + "too many rows per rank for one MPI message";
  }
  for (const uint64_t id : ids) {
    if (!error.empty()) break;
    if (id >= blocks.rows) {
      error = name + "row id " + std::to_string(id) + " is out of range: the table has " +
              std::to_string(blocks.rows) + " rows over all ranks, so ids must be below that " +
              "and each occur once";
    }
  }
  if (error = agree(comm, error); !error.empty()) return error;

  // Rows already where they are written, in order, are unique and complete: no plan needed.
  const uint64_t begin = blocks.begin(rank), size = blocks.size(rank);
  int in_place = ids.size() == size ? 1 : 0;
  for (std::size_t i = 0; i < ids.size() && in_place; ++i) in_place = ids[i] == begin + i;
  MPI_Allreduce(MPI_IN_PLACE, &in_place, 1, MPI_INT, MPI_MIN, comm);
  routing.in_place = in_place == 1;
  if (routing.in_place) return "";

  std::vector<int> destination(ids.size());
  routing.send_counts.assign(ranks, 0);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    destination[i] = blocks.owner(ids[i]);
    ++routing.send_counts[destination[i]];
  }
  routing.send_offsets = offsets_of(routing.send_counts);
  routing.order.resize(ids.size());
  std::vector<int> next = routing.send_offsets;
  for (std::size_t i = 0; i < ids.size(); ++i) routing.order[next[destination[i]]++] = i;

  routing.recv_counts.assign(ranks, 0);
  MPI_Alltoall(routing.send_counts.data(), 1, MPI_INT, routing.recv_counts.data(), 1, MPI_INT,
               comm);
  uint64_t arriving = 0;
  for (const int count : routing.recv_counts) arriving += static_cast<uint64_t>(count);
  // Checked before the exchange so that duplicated ids cannot overflow the receive buffer.
  if (arriving != size) {
    error = name + std::to_string(arriving) + " rows have ids in [" + std::to_string(begin) + ", " +
            std::to_string(begin + size) + "), expected " + std::to_string(size) +
            ": some row ids occur more than once";
  }
  if (error = agree(comm, error); !error.empty()) return error;

  routing.recv_offsets = offsets_of(routing.recv_counts);
  routing.slot
      .clear();  // identity while the ids arrive, so redistribute_rows() returns them as sent
  const std::vector<uint64_t> arrived = redistribute_rows(comm, routing, ids);
  const std::size_t unset = arrived.size();
  routing.slot.assign(arrived.size(), unset);
  for (std::size_t k = 0; k < arrived.size() && error.empty(); ++k) {
    std::size_t& slot = routing.slot[arrived[k] - begin];
    if (slot != unset) {
      error = name + "row id " + std::to_string(arrived[k]) + " occurs more than once";
    }
    slot = k;
  }
  return agree(comm, error);
}

}  // namespace hx
