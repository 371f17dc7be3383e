#include "models/topologies/infinitehbd/rings.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hx::net::infinitehbd {

Rings::Rings(uint32_t nodes, uint32_t r, const std::vector<std::vector<uint32_t>>& groups)
    : ring_(uint64_t{nodes} * r, ~0u), position_(uint64_t{nodes} * r, 0), start_{0} {
  const uint32_t half = r / 2;
  const auto add = [&](const std::vector<uint32_t>& group) {
    const auto ring = static_cast<uint32_t>(start_.size() - 1);
    const auto push = [&](uint32_t gpu) {
      if (ring_[gpu] != ~0u) {
        throw std::logic_error("infinitehbd: node " + std::to_string(gpu / r) +
                               " is in two TP groups");
      }
      ring_[gpu] = ring;
      position_[gpu] = static_cast<uint32_t>(member_.size()) - start_.back();
      member_.push_back(gpu);
    };
    for (const uint32_t node : group) {
      for (uint32_t i = 0; i < half; ++i) push(node * r + i);  // upper half, forward
    }
    for (auto it = group.rbegin(); it != group.rend(); ++it) {
      for (uint32_t i = half; i < r; ++i) push(*it * r + i);  // lower half, back
    }
    start_.push_back(static_cast<uint32_t>(member_.size()));
    longest_ = std::max(longest_, start_.back() - start_[start_.size() - 2]);
  };
  for (const std::vector<uint32_t>& group : groups) add(group);
  for (uint32_t node = 0; node < nodes; ++node) {
    if (ring_[uint64_t{node} * r] == ~0u) add({node});
  }
}

}  // namespace hx::net::infinitehbd
