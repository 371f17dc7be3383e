// The candidates the routing gave the head of each input VC that could not leave, so that the
// router's later allocation rounds reuse them instead of routing that head again. A head short
// of credits is offered again at every round until it goes (RailX collectives: about ten routes
// per hop, each a search of the node's rail ports), and Routing::route is deterministic and
// idempotent for a waiting packet, so its candidates stay what they were until the head leaves.
// Under faults the router keeps the live candidates, which hold while no link changes: each
// entry carries the fault schedule's epoch (Faults::epoch) it was found in. Derived state: a
// restored router starts empty and routes again.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/network/routing.h"

namespace hx::net {

class RouteCache {
 public:
  /// Fills `out` with the candidates kept for input queue `queue` in `epoch`; false when none
  /// are.
  bool load(uint32_t queue, uint32_t epoch, Candidates& out) const {
    const std::size_t i = find(queue);
    if (i == queues_.size() || entries_[i].epoch != epoch) return false;
    const Entry& e = entries_[i];
    out.assign(e.items.data(), e.size, e.detours);
    return true;
  }
  /// Keeps `candidates` for the head of `queue` in `epoch` (unless there are too many to
  /// keep), in place of what was kept for it in an earlier epoch.
  void store(uint32_t queue, uint32_t epoch, const Candidates& candidates) {
    drop(queue);
    if (candidates.size() > kMax) return;
    Entry e;
    e.epoch = epoch;
    e.size = static_cast<uint8_t>(candidates.size());
    e.detours = candidates.has_detours();
    std::copy(candidates.begin(), candidates.end(), e.items.begin());
    queues_.push_back(queue);
    entries_.push_back(e);
  }
  /// The head of `queue` has left: forget its candidates.
  void drop(uint32_t queue) {
    const std::size_t i = find(queue);
    if (i == queues_.size()) return;
    queues_[i] = queues_.back();
    queues_.pop_back();
    entries_[i] = entries_.back();
    entries_.pop_back();
  }
  bool empty() const { return queues_.empty(); }

 private:
  static constexpr std::size_t kMax = 8;
  struct Entry {
    uint32_t epoch = 0;
    uint8_t size = 0;
    bool detours = false;
    std::array<Candidate, kMax> items;
  };
  // The keys apart from the entries, so that a lookup scans 4 bytes per kept head.
  std::size_t find(uint32_t queue) const {
    std::size_t i = 0;
    while (i < queues_.size() && queues_[i] != queue) ++i;
    return i;
  }
  std::vector<uint32_t> queues_;  // port * vcs + vc, per entry
  std::vector<Entry> entries_;
};

}  // namespace hx::net
