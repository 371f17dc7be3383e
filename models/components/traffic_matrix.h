// The traffic matrix of a workload run (/traffic_matrix, docs/OUTPUT.md): bytes and messages
// each endpoint's program sent to each (destination, traffic type), counted by the sender and
// written by it as its own rows, so the table is split by source over the ranks and its ids do
// not depend on the partition.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/stats.h"
#include "models/network/flat_map.h"

namespace hx {
class StateArchive;  // core/state_archive.h
}  // namespace hx

namespace hx::net {

/// The /traffic_matrix table: one row per (src, dst, type) with bytes > 0, by src, dst, type.
TableSpec traffic_matrix_table(uint32_t endpoints);

/// One source endpoint's row of the matrix, sparse: a slot per (destination, type) it sent to.
class TrafficTally {
 public:
  /// A message of `bytes` to `dst` of traffic type `type` left the endpoint.
  void add(uint32_t dst, uint32_t type, uint64_t bytes) {
    Cell& c = cells_[uint64_t{dst} << 32 | type];
    c.bytes += bytes;
    ++c.messages;
  }
  /// Adds the rows of source `src` to `table` (traffic_matrix_table), every destination d
  /// written as image(d): a folded endpoint writes each member of its orbit's image of its rows.
  void write(Table& table, uint32_t src, const std::function<uint32_t(uint32_t)>& image) const;
  void serialize(StateArchive& ar);

 private:
  struct Cell {
    uint64_t bytes = 0;
    uint64_t messages = 0;
  };
  FlatMap<Cell> cells_;  // key: dst << 32 | type
};

}  // namespace hx::net
