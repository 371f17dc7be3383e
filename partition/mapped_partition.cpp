#include "partition/mapped_partition.h"

#include <algorithm>

namespace hx {

bool MappedPartition::assign(std::vector<int32_t> rank, std::string description) {
  const auto n = static_cast<ComponentId>(rank.size());
  std::vector<uint32_t> count(static_cast<std::size_t>(ranks_), 0);
  std::vector<uint32_t> local(n);
  for (ComponentId id = 0; id < n; ++id) local[id] = count[static_cast<std::size_t>(rank[id])]++;
  if (std::find(count.begin(), count.end(), 0u) != count.end()) return false;
  begin_.assign(static_cast<std::size_t>(ranks_) + 1, 0);
  for (std::size_t r = 0; r < count.size(); ++r) begin_[r + 1] = begin_[r] + count[r];
  order_.resize(n);
  for (ComponentId id = 0; id < n; ++id) {
    order_[begin_[static_cast<std::size_t>(rank[id])] + local[id]] = id;
  }
  rank_ = std::move(rank);
  local_ = std::move(local);
  description_ = std::move(description);
  return true;
}

std::vector<ComponentId> MappedPartition::components_of(int rank) const {
  const auto r = static_cast<std::size_t>(rank);
  return {order_.begin() + static_cast<std::ptrdiff_t>(begin_[r]),
          order_.begin() + static_cast<std::ptrdiff_t>(begin_[r + 1])};
}

}  // namespace hx
