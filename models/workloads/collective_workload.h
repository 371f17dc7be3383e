// A workload of one collective, run `repeat` times back to back (each repetition an operation
// group of its own), over one process group or over several disjoint groups at once (the same
// collective in every CP group, say: RailX Table 4's strided groups, workload.groups). A ring or
// bidirectional ring runs as phases of `window` steps, so a member of a p-member ring holds
// O(window) ops instead of O(p); other algorithms are one phase per repetition.
#pragma once

#include <string>
#include <vector>

#include "models/workloads/collectives.h"
#include "models/workloads/mapping.h"
#include "models/workloads/program.h"

namespace hx::wl {

class CollectiveWorkload final : public Workload {
 public:
  /// `specs` are the groups, each with its own `members` (endpoints; disjoint across groups)
  /// and otherwise alike; α (s) and B (bytes/s) give each repetition's analytic time, that of
  /// the first group (all of them run at once).
  CollectiveWorkload(std::vector<CollectiveSpec> specs, uint32_t endpoints, uint32_t repeat,
                     uint32_t window, double alpha_s, double bandwidth, double local_bandwidth);

  uint32_t phases(uint32_t e) const override {
    return rank_[e] == Mapping::kNone ? 0 : repeat_ * windows_;
  }
  void generate(uint32_t e, uint32_t phase, Program& out) const override;
  const std::vector<OpGroup>& groups() const override { return groups_; }

 private:
  std::vector<CollectiveSpec> specs_;
  uint32_t repeat_;
  uint32_t window_;             // ring steps per phase (windowed rings)
  uint32_t windows_;            // phases per repetition
  std::vector<uint32_t> rank_;  // endpoint -> group rank, or Mapping::kNone
  std::vector<uint32_t> spec_;  // endpoint -> its group's index in specs_
  std::vector<OpGroup> groups_;
};

}  // namespace hx::wl
