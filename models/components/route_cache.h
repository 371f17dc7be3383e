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
    for (const Entry& e : entries_) {
      if (e.queue != queue) continue;
      if (e.epoch != epoch) return false;
      out.clear();
      for (uint32_t i = 0; i < e.size; ++i) {
        const Candidate& c = e.items[i];
        out.add(c.port, c.vc, c.escape, c.penalty);
      }
      return true;
    }
    return false;
  }
  /// Keeps `candidates` for the head of `queue` in `epoch` (unless there are too many to
  /// keep), in place of what was kept for it in an earlier epoch.
  void store(uint32_t queue, uint32_t epoch, const Candidates& candidates) {
    drop(queue);
    if (candidates.size() > kMax) return;
    Entry e;
    e.queue = queue;
    e.epoch = epoch;
    e.size = static_cast<uint8_t>(candidates.size());
    for (uint32_t i = 0; i < e.size; ++i) e.items[i] = candidates[i];
    entries_.push_back(e);
  }
  /// The head of `queue` has left: forget its candidates.
  void drop(uint32_t queue) {
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].queue != queue) continue;
      entries_[i] = entries_.back();
      entries_.pop_back();
      return;
    }
  }
  bool empty() const { return entries_.empty(); }

 private:
  static constexpr std::size_t kMax = 8;
  struct Entry {
    uint32_t queue = 0;  // port * vcs + vc
    uint32_t epoch = 0;
    uint8_t size = 0;
    std::array<Candidate, kMax> items;
  };
  std::vector<Entry> entries_;
};

}  // namespace hx::net
