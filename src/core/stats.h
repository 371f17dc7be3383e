// Statistics tables: columnar rows keyed by a dense global id (DESIGN §8). A model declares its
// tables once on every rank (so ranks without rows still take part in the collective write);
// components append their rows in finish(). io/ writes each table as an HDF5 group.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace hx {

enum class ColumnType { kU64, kI64, kF64 };

struct ColumnSpec {
  std::string name;
  ColumnType type = ColumnType::kU64;
  std::string unit;  // "1" for plain counts; "ps", "bytes", ...
  std::string help;
};

struct TableSpec {
  std::string name;     // HDF5 group path relative to the root, e.g. "lps" or "links"
  std::string id_name;  // name of the id dimension scale, e.g. "id"
  std::string help;
  std::vector<ColumnSpec> columns;
};

using Cell = std::variant<uint64_t, int64_t, double>;

/// One rank's rows of a table. Ids must be unique across all ranks and, taken together, form
/// the dense range [0, total rows); rows may be added in any order.
class Table {
 public:
  explicit Table(TableSpec spec);

  const TableSpec& spec() const { return spec_; }
  std::size_t rows() const { return ids_.size(); }
  const std::vector<uint64_t>& ids() const { return ids_; }

  /// Appends a row; `cells` follow spec().columns in order and must match their types.
  void add_row(uint64_t id, std::initializer_list<Cell> cells);

  const std::vector<uint64_t>& u64(std::size_t column) const;
  const std::vector<int64_t>& i64(std::size_t column) const;
  const std::vector<double>& f64(std::size_t column) const;

 private:
  using ColumnData = std::variant<std::vector<uint64_t>, std::vector<int64_t>, std::vector<double>>;
  TableSpec spec_;
  std::vector<uint64_t> ids_;
  std::vector<ColumnData> data_;
};

/// The tables of one simulation, iterated in name order so every rank writes them in the same order.
class StatsRegistry {
 public:
  Table& declare(const TableSpec& spec);  // InputError-free: a duplicate name is a programming error
  Table& table(const std::string& name);
  const std::map<std::string, std::unique_ptr<Table>>& tables() const { return tables_; }

 private:
  std::map<std::string, std::unique_ptr<Table>> tables_;
};

}  // namespace hx
