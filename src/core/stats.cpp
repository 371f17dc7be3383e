// Column storage for statistics tables.
#include "core/stats.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace hx {

Table::Table(TableSpec spec) : spec_(std::move(spec)) {
  const bool summed = spec_.kind == TableKind::kSummed;
  const std::size_t rows = summed ? spec_.size : 0;
  for (const ColumnSpec& c : spec_.columns) {
    switch (c.type) {
      case ColumnType::kU64:
        data_.emplace_back(std::vector<uint64_t>(rows));
        break;
      case ColumnType::kI64:
        data_.emplace_back(std::vector<int64_t>(rows));
        break;
      case ColumnType::kF64:
        // Floating-point sums depend on the order of addition, so on the partition.
        if (summed) throw std::logic_error("summed table '" + spec_.name + "' has a float column");
        data_.emplace_back(std::vector<double>(rows));
        break;
      case ColumnType::kWide:
        if (c.reduce != Reduce::kSum) {
          throw std::logic_error("table '" + spec_.name + "': wide column '" + c.name +
                                 "' can only be summed");
        }
        data_.emplace_back(std::vector<Wide>(rows));
        break;
    }
  }
  for (uint64_t i = 0; i < rows; ++i) ids_.push_back(i);
  // Start min-like cells at the top and max-like ones at the bottom, so the first offer wins.
  for (std::size_t c = 0; c < spec_.columns.size(); ++c) {
    const Reduce r = spec_.columns[c].reduce;
    std::visit(
        [&](auto& column) {
          using T = typename std::decay_t<decltype(column)>::value_type;
          if (r == Reduce::kMin || r == Reduce::kWinner) {
            std::fill(column.begin(), column.end(), std::numeric_limits<T>::max());
          } else if (r == Reduce::kMax || r == Reduce::kMaxKey) {
            std::fill(column.begin(), column.end(), std::numeric_limits<T>::lowest());
          }
        },
        data_[c]);
  }
  if (spec_.start) spec_.start(*this);
}

Cell Table::cell(std::size_t column, uint64_t row) const {
  return std::visit([&](const auto& v) -> Cell { return v[row]; }, data_[column]);
}

void Table::offer(uint64_t row, std::initializer_list<Cell> cells) {
  if (spec_.kind != TableKind::kSummed || cells.size() != spec_.columns.size()) {
    throw std::logic_error("table '" + spec_.name + "': offer() needs a summed table and " +
                           std::to_string(spec_.columns.size()) + " cells");
  }
  combine_row(row, std::span<const Cell>(cells.begin(), cells.size()));
}

void Table::combine_row(uint64_t row, std::span<const Cell> offered) {
  // Does this offer beat the row's current winner?
  bool wins = true;
  for (std::size_t c = 0; c < spec_.columns.size(); ++c) {
    if (spec_.columns[c].reduce != Reduce::kMaxKey) continue;
    const Cell mine = cell(c, row);
    wins = offered[c] > mine;
    if (offered[c] == mine) {
      for (std::size_t w = 0; w < spec_.columns.size(); ++w) {
        if (spec_.columns[w].reduce == Reduce::kWinner) wins = offered[w] < cell(w, row);
      }
    }
  }
  for (std::size_t c = 0; c < spec_.columns.size(); ++c) {
    std::visit(
        [&](auto& column) {
          using T = typename std::decay_t<decltype(column)>::value_type;
          if (!std::holds_alternative<T>(offered[c])) {
            throw std::logic_error("table '" + spec_.name + "': column '" + spec_.columns[c].name +
                                   "' offered a value of the wrong type");
          }
          const T v = std::get<T>(offered[c]);
          T& mine = column[row];
          switch (spec_.columns[c].reduce) {
            case Reduce::kSum:
              mine += v;
              break;
            case Reduce::kMin:
              mine = std::min(mine, v);
              break;
            case Reduce::kMax:
              mine = std::max(mine, v);
              break;
            default:
              if (wins) mine = v;
          }
        },
        data_[c]);
  }
}

void Table::zero_untouched() {
  for (std::size_t c = 0; c < spec_.columns.size(); ++c) {
    const Reduce r = spec_.columns[c].reduce;
    std::visit(
        [&](auto& column) {
          using T = typename std::decay_t<decltype(column)>::value_type;
          for (T& v : column) {
            if (((r == Reduce::kMin || r == Reduce::kWinner) &&
                 v == std::numeric_limits<T>::max()) ||
                ((r == Reduce::kMax || r == Reduce::kMaxKey) &&
                 v == std::numeric_limits<T>::lowest())) {
              v = T{};
            }
          }
        },
        data_[c]);
  }
}

std::vector<uint64_t>& Table::u64_mutable(std::size_t column) {
  return std::get<std::vector<uint64_t>>(data_.at(column));
}
std::vector<int64_t>& Table::i64_mutable(std::size_t column) {
  return std::get<std::vector<int64_t>>(data_.at(column));
}

std::vector<double>& Table::f64_mutable(std::size_t column) {
  return std::get<std::vector<double>>(data_.at(column));
}
std::vector<Wide>& Table::wide_mutable(std::size_t column) {
  return std::get<std::vector<Wide>>(data_.at(column));
}

void Table::merge(const Table& other) {
  if (other.spec_.name != spec_.name || other.data_.size() != data_.size()) {
    throw std::logic_error("table '" + spec_.name + "' merged with table '" + other.spec_.name +
                           "' of another layout");
  }
  if (spec_.kind == TableKind::kSummed) {
    const uint64_t k = spec_.bin_rows;
    const uint64_t last = rows() - std::min<uint64_t>(k, rows());  // the last bin's first row
    const uint64_t upto = k > 0 && rows() >= k ? other.rows() : std::min(rows(), other.rows());
    std::vector<Cell> row(data_.size());
    for (uint64_t r = 0; r < upto; ++r) {
      for (std::size_t c = 0; c < data_.size(); ++c) row[c] = other.cell(c, r);
      combine_row(r < rows() ? r : last + r % k, row);
    }
    return;
  }
  ids_.insert(ids_.end(), other.ids_.begin(), other.ids_.end());
  for (std::size_t c = 0; c < data_.size(); ++c) {
    std::visit(
        [&](auto& mine) {
          const auto& theirs = std::get<std::decay_t<decltype(mine)>>(other.data_[c]);
          mine.insert(mine.end(), theirs.begin(), theirs.end());
        },
        data_[c]);
  }
}

void Table::clear_rows() {
  ids_.clear();
  for (auto& column : data_) std::visit([](auto& v) { v.clear(); }, column);
}

void Table::add_row(uint64_t id, std::span<const Cell> cells) {
  if (cells.size() != spec_.columns.size()) {
    throw std::logic_error("table '" + spec_.name + "': row has " + std::to_string(cells.size()) +
                           " cells, expected " + std::to_string(spec_.columns.size()));
  }
  std::size_t i = 0;
  for (const Cell& cell : cells) {
    std::visit(
        [&](auto& column) {
          using T = typename std::decay_t<decltype(column)>::value_type;
          if (!std::holds_alternative<T>(cell)) {
            throw std::logic_error("table '" + spec_.name + "': column '" + spec_.columns[i].name +
                                   "' given a value of the wrong type");
          }
          column.push_back(std::get<T>(cell));
        },
        data_[i]);
    ++i;
  }
  ids_.push_back(id);
}

const std::vector<uint64_t>& Table::u64(std::size_t column) const {
  return std::get<std::vector<uint64_t>>(data_.at(column));
}
const std::vector<int64_t>& Table::i64(std::size_t column) const {
  return std::get<std::vector<int64_t>>(data_.at(column));
}
const std::vector<double>& Table::f64(std::size_t column) const {
  return std::get<std::vector<double>>(data_.at(column));
}
const std::vector<Wide>& Table::wide(std::size_t column) const {
  return std::get<std::vector<Wide>>(data_.at(column));
}

Table& StatsRegistry::declare(const TableSpec& spec) {
  auto [it, inserted] = tables_.emplace(spec.name, std::make_unique<Table>(spec));
  if (!inserted) throw std::logic_error("statistics table '" + spec.name + "' declared twice");
  return *it->second;
}

uint64_t StatsRegistry::row_bytes() const {
  uint64_t bytes = 0;
  for (const auto& [name, table] : tables_) {
    if (table->spec().kind == TableKind::kSummed) continue;
    bytes += table->rows() * (table->spec().columns.size() + 1) * sizeof(uint64_t);
  }
  return bytes;
}

const Table& StatsRegistry::table(const std::string& name) const {
  auto it = tables_.find(name);
  if (it == tables_.end()) throw std::logic_error("no statistics table '" + name + "'");
  return *it->second;
}

Table& StatsRegistry::table(const std::string& name) {
  auto it = tables_.find(name);
  if (it == tables_.end()) throw std::logic_error("no statistics table '" + name + "'");
  return *it->second;
}

}  // namespace hx
