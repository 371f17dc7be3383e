// Cross-rank reduction and renumbering of statistics tables.
#include "engine/table_reduce.h"

#include <limits>
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

// A wide column's sums across ranks, exact: each value cut into three limbs of 43 bits, whose
// sums over fewer than 2^21 ranks fit 64 bits, and put together again.
void allreduce_wide(MPI_Comm comm, std::vector<Wide>& values) {
  constexpr int kBits = 43;
  constexpr uint64_t kMask = (uint64_t{1} << kBits) - 1;
  std::vector<uint64_t> limbs(3 * values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    limbs[3 * i] = static_cast<uint64_t>(values[i]) & kMask;
    limbs[3 * i + 1] = static_cast<uint64_t>(values[i] >> kBits) & kMask;
    limbs[3 * i + 2] = static_cast<uint64_t>(values[i] >> (2 * kBits));
  }
  MPI_Allreduce(MPI_IN_PLACE, limbs.data(), static_cast<int>(limbs.size()), MPI_UINT64_T, MPI_SUM,
                comm);
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = Wide{limbs[3 * i]} + (Wide{limbs[3 * i + 1]} << kBits) +
                (Wide{limbs[3 * i + 2]} << (2 * kBits));
  }
}

void allreduce(MPI_Comm comm, Table& table, std::size_t c, MPI_Op op) {
  const int n = static_cast<int>(table.spec().size);
  if (table.spec().columns[c].type == ColumnType::kWide) {
    allreduce_wide(comm, table.wide_mutable(c));  // sums only (the table refuses the others)
  } else if (table.spec().columns[c].type == ColumnType::kU64) {
    MPI_Allreduce(MPI_IN_PLACE, table.u64_mutable(c).data(), n, MPI_UINT64_T, op, comm);
  } else {
    MPI_Allreduce(MPI_IN_PLACE, table.i64_mutable(c).data(), n, MPI_INT64_T, op, comm);
  }
}

// The row winner across ranks: the largest key, ties to the smallest winner value.
template <typename K, typename W>
void reduce_winner(MPI_Comm comm, Table& table, std::vector<K>& key, MPI_Datatype key_type,
                   std::vector<W>& winner, MPI_Datatype winner_type) {
  const std::size_t rows = key.size();
  std::vector<K> best = key;
  MPI_Allreduce(MPI_IN_PLACE, best.data(), static_cast<int>(rows), key_type, MPI_MAX, comm);
  std::vector<W> chosen(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    chosen[r] = key[r] == best[r] ? winner[r] : std::numeric_limits<W>::max();
  }
  MPI_Allreduce(MPI_IN_PLACE, chosen.data(), static_cast<int>(rows), winner_type, MPI_MIN, comm);
  // The winning rank contributes its kOfWinner cells, every other rank zeros.
  const auto& columns = table.spec().columns;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (columns[c].reduce != Reduce::kOfWinner) continue;
    auto keep = [&](auto& values) {
      for (std::size_t r = 0; r < rows; ++r) {
        if (key[r] != best[r] || winner[r] != chosen[r]) values[r] = 0;
      }
    };
    if (columns[c].type == ColumnType::kU64) {
      keep(table.u64_mutable(c));
    } else {
      keep(table.i64_mutable(c));
    }
    allreduce(comm, table, c, MPI_SUM);
  }
  key = best;
  winner = chosen;
}

template <typename K>
void reduce_winner_for_key(MPI_Comm comm, Table& table, std::vector<K>& key, MPI_Datatype kt,
                           std::size_t winner_column) {
  if (table.spec().columns[winner_column].type == ColumnType::kU64) {
    reduce_winner(comm, table, key, kt, table.u64_mutable(winner_column), MPI_UINT64_T);
  } else {
    reduce_winner(comm, table, key, kt, table.i64_mutable(winner_column), MPI_INT64_T);
  }
}

void reduce_summed(MPI_Comm comm, Table& table) {
  const auto& columns = table.spec().columns;
  std::size_t key = columns.size();
  std::size_t winner = columns.size();
  for (std::size_t c = 0; c < columns.size(); ++c) {
    switch (columns[c].reduce) {
      case Reduce::kSum:
        allreduce(comm, table, c, MPI_SUM);
        break;
      case Reduce::kMin:
        allreduce(comm, table, c, MPI_MIN);
        break;
      case Reduce::kMax:
        allreduce(comm, table, c, MPI_MAX);
        break;
      case Reduce::kMaxKey:
        key = c;
        break;
      case Reduce::kWinner:
        winner = c;
        break;
      case Reduce::kOfWinner:
        break;
    }
  }
  if (key < columns.size()) {
    if (winner == columns.size()) {
      throw std::logic_error("table '" + table.spec().name + "': a kMaxKey column needs a kWinner");
    }
    if (columns[key].type == ColumnType::kU64) {
      reduce_winner_for_key(comm, table, table.u64_mutable(key), MPI_UINT64_T, winner);
    } else {
      reduce_winner_for_key(comm, table, table.i64_mutable(key), MPI_INT64_T, winner);
    }
  }
  table.zero_untouched();
}
}  // namespace

void reduce_summed_tables(MPI_Comm comm, StatsRegistry& stats) {
  for (auto& [name, table] : stats.tables()) {
    if (table->spec().kind == TableKind::kSummed) reduce_summed(comm, *table);
  }
}

StatsRegistry reduced_summed_copy(MPI_Comm comm, const StatsRegistry& stats,
                                  const std::vector<std::string>& names) {
  StatsRegistry copy;
  for (const std::string& name : names) {
    const Table& table = stats.table(name);
    if (table.spec().kind != TableKind::kSummed) {
      throw std::logic_error("table '" + name + "' is not a summed table");
    }
    copy.declare(table.spec()).merge(table);
  }
  reduce_summed_tables(comm, copy);
  return copy;
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
