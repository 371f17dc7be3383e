// The candidates the routing gave the head of each input VC that could not leave, so that the
// router's later allocation rounds reuse them instead of routing that head again. A head short
// of credits is offered again at every round until it goes (RailX collectives: about ten routes
// per hop, each a search of the node's rail ports), and Routing::route is deterministic and
// idempotent for a waiting packet, so its candidates stay what they were until the head leaves.
// Only routers without fault-aware routing use it: under faults the live candidates change
// with the schedule. Derived state: a restored router starts empty and routes again.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/network/routing.h"

namespace hx::net {

class RouteCache {
 public:
  /// Fills `out` with the candidates kept for input queue `queue`; false when none are.
  bool load(uint32_t queue, Candidates& out) const {
    for (const Entry& e : entries_) {
      if (e.queue != queue) continue;
      out.clear();
      for (uint32_t i = 0; i < e.size; ++i) {
        const Candidate& c = e.items[i];
        out.add(c.port, c.vc, c.escape, c.penalty);
      }
      return true;
    }
    return false;
  }
  /// Keeps `candidates` for the head of `queue` (unless there are too many to keep).
  void store(uint32_t queue, const Candidates& candidates) {
    if (candidates.size() > kMax) return;
    Entry e;
    e.queue = queue;
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
    uint8_t size = 0;
    std::array<Candidate, kMax> items;
  };
  std::vector<Entry> entries_;
};

}  // namespace hx::net
