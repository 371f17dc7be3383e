// The active configuration of an InfiniteHBD (paper §4.2): which GPUs form each ring. A TP group
// of m nodes (consecutive in HBD order up to failed nodes, at most K apart, so every hop is an
// active OCSTrx path) is one GPU ring, folded through the nodes: forward along the group on the
// GPUs of each node's upper SerDes half, through the cross-lane loopback of the last node, and
// back on the lower half, through the loopback of the first node (§4.2 "the two GPU pairs at each
// end can interconnect with the OCSTrx internal loopback path, forming a GPU-level ring"). Every
// ring hop is inside a node or between two nodes of the group adjacent in it. A node in no group
// (failed, or left over) loops back on itself: a ring of its own R GPUs.
//
// The table is the configuration, one entry per GPU (the orchestrator's output has that size).
#pragma once

#include <cstdint>
#include <vector>

namespace hx::net::infinitehbd {

class Rings {
 public:
  /// GPU g is GPU g % r of node g / r; `groups` lists each TP group's nodes in ring order.
  Rings(uint32_t nodes, uint32_t r, const std::vector<std::vector<uint32_t>>& groups);

  uint32_t gpus() const { return static_cast<uint32_t>(ring_.size()); }
  uint32_t count() const { return static_cast<uint32_t>(start_.size()) - 1; }
  uint32_t ring(uint32_t gpu) const { return ring_[gpu]; }
  uint32_t position(uint32_t gpu) const { return position_[gpu]; }
  uint32_t size(uint32_t ring) const { return start_[ring + 1] - start_[ring]; }
  uint32_t at(uint32_t ring, uint32_t position) const { return member_[start_[ring] + position]; }
  uint32_t next(uint32_t gpu) const {
    return at(ring_[gpu], (position_[gpu] + 1) % size(ring_[gpu]));
  }
  uint32_t prev(uint32_t gpu) const {
    const uint32_t n = size(ring_[gpu]);
    return at(ring_[gpu], (position_[gpu] + n - 1) % n);
  }
  uint32_t longest() const { return longest_; }

 private:
  std::vector<uint32_t> ring_, position_;  // per GPU
  std::vector<uint32_t> start_, member_;   // ring i's GPUs: member_[start_[i] .. start_[i+1])
  uint32_t longest_ = 0;
};

}  // namespace hx::net::infinitehbd
