// The sender-side traffic matrix: a sparse row per endpoint, sorted when it is written.
#include "models/components/traffic_matrix.h"

#include <algorithm>
#include <tuple>

#include "core/state_archive.h"
#include "models/components/state_io.h"

namespace hx::net {
namespace {

struct Row {
  uint32_t dst;
  uint32_t type;
  uint64_t bytes;
  uint64_t messages;
};

}  // namespace

TableSpec traffic_matrix_table(uint32_t endpoints) {
  using T = ColumnType;
  return {"traffic_matrix",
          "pair",
          "one row per (source, destination, traffic type) that carried bytes, ordered by src, "
          "dst, type; types in /traffic_types (workload.traffic_matrix)",
          {{"src", T::kU64, "1", "source endpoint"},
           {"dst", T::kU64, "1", "destination endpoint"},
           {"type", T::kU64, "1", "traffic type: line of /traffic_types"},
           {"bytes", T::kU64, "bytes", "bytes the source's program sent to dst (message sizes)"},
           {"messages", T::kU64, "1", "messages it sent to dst"}},
          TableKind::kPerOwner,
          endpoints};
}

void TrafficTally::write(Table& table, uint32_t src,
                         const std::function<uint32_t(uint32_t)>& image) const {
  std::vector<Row> rows;
  rows.reserve(cells_.size());
  cells_.for_each([&](uint64_t key, const Cell& c) {
    rows.push_back(
        {image(static_cast<uint32_t>(key >> 32)), static_cast<uint32_t>(key), c.bytes, c.messages});
  });
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::tie(a.dst, a.type) < std::tie(b.dst, b.type);
  });
  for (uint64_t seq = 0; seq < rows.size(); ++seq) {
    const Row& r = rows[seq];
    table.add_owned_row(src, seq,
                        {uint64_t{src}, uint64_t{r.dst}, uint64_t{r.type}, r.bytes, r.messages});
  }
}

// As sorted records, so equal states give equal bytes.
void TrafficTally::serialize(StateArchive& ar) {
  struct Saved {
    uint64_t key;
    uint64_t bytes;
    uint64_t messages;
  };
  std::vector<Saved> saved;
  cells_.for_each([&](uint64_t key, const Cell& c) {
    saved.push_back({key, c.bytes, c.messages});
  });
  std::sort(saved.begin(), saved.end(),
            [](const Saved& a, const Saved& b) { return a.key < b.key; });
  serialize_items(ar, saved);
  if (!ar.loading()) return;
  cells_.clear();
  for (const Saved& s : saved) cells_[s.key] = Cell{s.bytes, s.messages};
}

}  // namespace hx::net
