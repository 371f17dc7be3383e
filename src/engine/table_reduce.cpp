// Cross-rank reduction and renumbering of statistics tables.
#include "engine/table_reduce.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace hx {
namespace {

void renumber_by_owner(MPI_Comm comm, Table& table) {
  const uint64_t owners = table.spec().size;
  std::vector<uint64_t>& ids = table.ids_mutable();
  std::vector<uint64_t> counts(owners, 0);
  for (uint64_t key : ids) {
    const uint64_t owner = key >> 32;
    if (owner >= owners) {
      throw std::logic_error("table '" + table.spec().name + "': owner " + std::to_string(owner) +
                             " out of range");
    }
    ++counts[owner];
  }
  MPI_Allreduce(MPI_IN_PLACE, counts.data(), static_cast<int>(owners), MPI_UINT64_T, MPI_SUM, comm);
  // counts -> exclusive prefix sums: the id of each owner's first row.
  uint64_t running = 0;
  for (uint64_t& c : counts) {
    const uint64_t n = c;
    c = running;
    running += n;
  }
  for (uint64_t& key : ids) key = counts[key >> 32] + (key & 0xFFFFFFFFULL);
}

}  // namespace

void reduce_summed_tables(MPI_Comm comm, StatsRegistry& stats) {
  for (auto& [name, table] : stats.tables()) {
    if (table->spec().kind != TableKind::kSummed) continue;
    for (std::size_t c = 0; c < table->spec().columns.size(); ++c) {
      const int n = static_cast<int>(table->spec().size);
      if (table->spec().columns[c].type == ColumnType::kU64) {
        MPI_Allreduce(MPI_IN_PLACE, table->u64_mutable(c).data(), n, MPI_UINT64_T, MPI_SUM, comm);
      } else {
        MPI_Allreduce(MPI_IN_PLACE, table->i64_mutable(c).data(), n, MPI_INT64_T, MPI_SUM, comm);
      }
    }
  }
}

void prepare_tables_for_output(MPI_Comm comm, StatsRegistry& stats) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  for (auto& [name, table] : stats.tables()) {
    if (table->spec().kind == TableKind::kSummed && rank != 0) table->clear_rows();
    if (table->spec().kind == TableKind::kPerOwner) renumber_by_owner(comm, *table);
  }
}

}  // namespace hx
