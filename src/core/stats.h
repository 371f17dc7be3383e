// Statistics tables: columnar rows keyed by a dense global id (DESIGN §8). A model declares its
// tables once on every rank (so ranks without rows still take part in the collective write);
// components append their rows in finish(). io/ writes each table as an HDF5 group.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace hx {

/// kWide: an unsigned sum held in 128 bits, for sums that outgrow 64 bits (the latencies of the
/// 10^14 packets of a 131,072-GPU iteration, in ps, add up to about 6 x 10^21). Summed exactly, so
/// in any order; written to HDF5 as float64 (the exact sum rounded once). Reduce::kSum only.
enum class ColumnType { kU64, kI64, kF64, kWide };
__extension__ using Wide = unsigned __int128;  // __extension__: -Wpedantic accepts it

/// How a kSummed table's cell combines the values components offer, on a rank and across ranks.
/// Every combination is exact and order-free, so the result does not depend on the partition.
enum class Reduce : uint8_t {
  kSum,
  kMin,
  kMax,
  kMaxKey,    // with kWinner and kOfWinner: the row keeps the offer with the largest key,
  kWinner,    // ties going to the smallest value here (e.g. an endpoint index), and takes the
  kOfWinner,  // kOfWinner cells from that offer. At most one kMaxKey and one kWinner per table.
};

struct ColumnSpec {
  std::string name;
  ColumnType type = ColumnType::kU64;
  std::string unit;  // "1" for plain counts; "ps", "bytes", ...
  std::string help;
  Reduce reduce = Reduce::kSum;  // kSummed tables only
};

/// How a table's rows are identified across ranks.
enum class TableKind {
  kById,      // each rank adds rows with their global ids; all ranks' ids form [0, total rows)
  kSummed,    // every rank holds the same `size` rows (ids 0..size-1) of integer counters; the
              // engine adds them up across ranks (exact, so order-free) and writes one copy
  kPerOwner,  // rows are added as (owner, seq) with seq = 0, 1, 2, ... per owner < `size`; the
              // engine numbers them by owner then seq, so ids do not depend on the partition
};

class Table;

struct TableSpec {
  std::string name;     // HDF5 group path relative to the root, e.g. "lps" or "links"
  std::string id_name;  // name of the id dimension scale, e.g. "id"
  std::string help;
  std::vector<ColumnSpec> columns;
  TableKind kind = TableKind::kById;
  uint64_t size = 0;  // kSummed: number of rows; kPerOwner: number of owners
  // kSummed: sets cells every rank's table starts from, the same on each (a histogram's bin
  // edges, in kMax columns); nothing when empty.
  std::function<void(Table&)> start = {};
  // kSummed time series: rows per bin, the last bin also taking what comes after it (0: not a
  // time series). A table merged into one of fewer bins (a restart that ends earlier) adds its
  // rows past the last bin to that bin, as recording them there would have.
  uint64_t bin_rows = 0;
};

/// A run-level result a model derives from its reduced tables (written to /summary).
struct SummaryValue {
  std::string name;
  std::variant<int64_t, uint64_t, double, std::string> value;
  std::string unit;
  std::string help;
};

using Cell = std::variant<uint64_t, int64_t, double, Wide>;

/// One rank's rows of a table. Ids must be unique across all ranks and, taken together, form
/// the dense range [0, total rows); rows may be added in any order.
class Table {
 public:
  explicit Table(TableSpec spec);

  const TableSpec& spec() const { return spec_; }
  std::size_t rows() const { return ids_.size(); }
  const std::vector<uint64_t>& ids() const { return ids_; }

  /// Appends a row; `cells` follow spec().columns in order and must match their types.
  void add_row(uint64_t id, std::span<const Cell> cells);
  void add_row(uint64_t id, std::initializer_list<Cell> cells) {
    add_row(id, std::span<const Cell>(cells.begin(), cells.size()));
  }
  /// kPerOwner tables: the `seq`-th row of `owner`.
  void add_owned_row(uint64_t owner, uint64_t seq, std::initializer_list<Cell> cells) {
    add_row(owner << 32 | seq, cells);
  }
  /// kSummed tables: combines one offer (a value per column) into row `row` by each column's
  /// Reduce. Cells never offered to keep their initial value and are written as 0.
  void offer(uint64_t row, std::initializer_list<Cell> cells);
  /// kSummed tables: adds `v` to an integer cell.
  void add_to(uint64_t row, std::size_t column, uint64_t v) { u64_mutable(column)[row] += v; }
  void add_to(uint64_t row, std::size_t column, int64_t v) { i64_mutable(column)[row] += v; }
  void add_to(uint64_t row, std::size_t column, Wide v) { wide_mutable(column)[row] += v; }

  /// Engine only: after reducing or renumbering rows across ranks, and restoring checkpoints.
  std::vector<uint64_t>& u64_mutable(std::size_t column);
  std::vector<int64_t>& i64_mutable(std::size_t column);
  std::vector<double>& f64_mutable(std::size_t column);
  std::vector<Wide>& wide_mutable(std::size_t column);
  /// Engine only: adds `other`'s rows (a table of the same spec, e.g. restored from a
  /// checkpoint). kSummed tables add cell by cell; the others append the rows.
  void merge(const Table& other);
  std::vector<uint64_t>& ids_mutable() { return ids_; }
  void clear_rows();
  /// Engine only, after the cross-rank reduction: cells no offer reached become 0.
  void zero_untouched();

  const std::vector<uint64_t>& u64(std::size_t column) const;
  const std::vector<int64_t>& i64(std::size_t column) const;
  const std::vector<double>& f64(std::size_t column) const;
  const std::vector<Wide>& wide(std::size_t column) const;

 private:
  using ColumnData = std::variant<std::vector<uint64_t>, std::vector<int64_t>, std::vector<double>,
                                  std::vector<Wide>>;
  void combine_row(uint64_t row, std::span<const Cell> offered);
  Cell cell(std::size_t column, uint64_t row) const;
  TableSpec spec_;
  std::vector<uint64_t> ids_;
  std::vector<ColumnData> data_;
};

/// The tables of one simulation, iterated in name order so every rank writes them in the same
/// order.
class StatsRegistry {
 public:
  Table& declare(
      const TableSpec& spec);  // InputError-free: a duplicate name is a programming error
  Table& table(const std::string& name);
  const Table& table(const std::string& name) const;
  const std::map<std::string, std::unique_ptr<Table>>& tables() const { return tables_; }
  /// Bytes of the rows added to the tables other than kSummed ones (those are held whole from
  /// the start), ids included: what a run's output rows take so far.
  uint64_t row_bytes() const;

 private:
  std::map<std::string, std::unique_ptr<Table>> tables_;
};

}  // namespace hx
