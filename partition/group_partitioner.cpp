// Group partitioner: level choice and weight-balanced contiguous blocks.
#include "partition/group_partitioner.h"

#include <algorithm>
#include <cstdlib>

namespace hx {

std::vector<std::size_t> balanced_blocks(const std::vector<uint64_t>& weights, int parts) {
  const std::size_t n = weights.size();
  std::vector<uint64_t> prefix(n + 1, 0);
  for (std::size_t g = 0; g < n; ++g) prefix[g + 1] = prefix[g] + weights[g];
  const long double total = static_cast<long double>(prefix[n]);

  std::vector<std::size_t> cut(static_cast<std::size_t>(parts) + 1, 0);
  cut[static_cast<std::size_t>(parts)] = n;
  for (int r = 1; r < parts; ++r) {
    const long double target = total * r / parts;
    // Leave at least one group for each earlier and each later block.
    const std::size_t lo = cut[static_cast<std::size_t>(r) - 1] + 1;
    const std::size_t hi = n - static_cast<std::size_t>(parts - r);
    auto it = std::lower_bound(prefix.begin() + static_cast<long>(lo),
                               prefix.begin() + static_cast<long>(hi) + 1,
                               static_cast<uint64_t>(target));
    std::size_t best = std::min<std::size_t>(static_cast<std::size_t>(it - prefix.begin()), hi);
    if (best > lo && std::abs(static_cast<long double>(prefix[best - 1]) - target) <=
                         std::abs(static_cast<long double>(prefix[best]) - target)) {
      --best;
    }
    cut[static_cast<std::size_t>(r)] = best;
  }
  return cut;
}

GroupPartition::GroupPartition(const Model& model, int ranks) {
  const std::vector<GroupLevel> levels = model.group_levels();
  std::size_t level = levels.size();  // levels.size(): no level has enough groups; use components
  for (std::size_t l = 0; l < levels.size(); ++l) {
    if (levels[l].count >= static_cast<uint64_t>(ranks)) {
      level = l;
      break;
    }
  }

  std::vector<uint64_t> weights;
  std::vector<ComponentId> group_begin;
  if (level < levels.size()) {
    weights.reserve(levels[level].count);
    for (uint64_t g = 0; g < levels[level].count; ++g) {
      const ComponentRange range = model.group_range(level, g);
      uint64_t w = 0;
      for (ComponentId id = range.begin; id < range.end; ++id) w += model.weight(id);
      weights.push_back(w);
      group_begin.push_back(range.begin);
    }
    description_ = "group: whole " + levels[level].name + "s (" +
                   std::to_string(levels[level].count) + "), weight-balanced contiguous blocks";
  } else {
    for (ComponentId id = 0; id < model.num_components(); ++id) {
      weights.push_back(model.weight(id));
      group_begin.push_back(id);
    }
    description_ = "group: single components (no grouping level has " + std::to_string(ranks) +
                   " groups), weight-balanced contiguous blocks";
  }

  const std::vector<std::size_t> cut = balanced_blocks(weights, ranks);
  begin_.reserve(static_cast<std::size_t>(ranks) + 1);
  for (int r = 0; r < ranks; ++r) begin_.push_back(group_begin[cut[static_cast<std::size_t>(r)]]);
  begin_.push_back(model.num_components());
}

int GroupPartition::rank_of(ComponentId id) const {
  auto it = std::upper_bound(begin_.begin(), begin_.end(), id);
  return static_cast<int>(it - begin_.begin()) - 1;
}

std::vector<ComponentId> GroupPartition::components_of(int rank) const {
  std::vector<ComponentId> ids;
  const auto r = static_cast<std::size_t>(rank);
  ids.reserve(begin_[r + 1] - begin_[r]);
  for (ComponentId id = begin_[r]; id < begin_[r + 1]; ++id) ids.push_back(id);
  return ids;
}

uint32_t GroupPartition::local_index(ComponentId id) const {
  return id - begin_[static_cast<std::size_t>(rank_of(id))];
}

}  // namespace hx
