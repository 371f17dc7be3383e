// A workload of one collective, run `repeat` times back to back (each repetition an operation
// group of its own), over one process group or over several disjoint groups at once (the same
// collective in every CP group, say: RailX Table 4's strided groups, workload.groups). A ring or
// bidirectional ring runs as phases of `window` steps, so a member of a p-member ring holds
// O(window) ops instead of O(p); other algorithms are one phase per repetition.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/workloads/collectives.h"
#include "models/workloads/mapping.h"
#include "models/workloads/program.h"
#include "models/workloads/symmetry.h"

namespace hx::wl {

/// How the groups were made from ranks: every strided group of `groups` (one group of every rank
/// in order: {ranks, 1}), ranks placed by `mapping`. It lets the workload declare its symmetry.
struct RankLayout {
  Mapping mapping;
  StridedPartition groups;
};

class CollectiveWorkload final : public Workload {
 public:
  /// `specs` are the groups, each with its own `members` (endpoints; disjoint across groups)
  /// and otherwise alike; α (s) and B (bytes/s) give each repetition's analytic time, that of
  /// the first group (all of them run at once). With `layout`, the specs must be its groups.
  CollectiveWorkload(std::vector<CollectiveSpec> specs, uint32_t endpoints, uint32_t repeat,
                     uint32_t window, double alpha_s, double bandwidth, double local_bandwidth,
                     std::optional<RankLayout> layout = std::nullopt);
  // The symmetry points at layout_'s mapping: a copy would point at the original's.
  CollectiveWorkload(const CollectiveWorkload&) = delete;
  CollectiveWorkload& operator=(const CollectiveWorkload&) = delete;

  uint32_t phases(uint32_t e) const override {
    return rank_[e] == Mapping::kNone ? 0 : repeat_ * windows_;
  }
  void generate(uint32_t e, uint32_t phase, Program& out) const override;
  const std::vector<OpGroup>& groups() const override { return groups_; }
  /// One type for every repetition, "<collective> <algorithm>" ("all_reduce ring"); a
  /// hierarchical collective has two, its global step's ("... global", across nodes) and its
  /// steps inside a node ("... local").
  std::vector<std::string> traffic_types() const override;
  uint32_t traffic_type(const Op& send) const override {
    return specs_[0].algorithm == Algorithm::kHierarchical && send.stage == Stage::kLocal ? 1 : 0;
  }
  /// With a layout: shifts of the group index (every group runs the same collective), and of
  /// the position in the group when the collective is a ring or bidirectional ring over equal
  /// chunks (a shift is then a rotation of every ring).
  const Symmetry* symmetry() const override { return symmetry_ ? &*symmetry_ : nullptr; }

 private:
  std::vector<CollectiveSpec> specs_;
  uint32_t repeat_;
  uint32_t window_;             // ring steps per phase (windowed rings)
  uint32_t windows_;            // phases per repetition
  std::vector<uint32_t> rank_;  // endpoint -> group rank, or Mapping::kNone
  std::vector<uint32_t> spec_;  // endpoint -> its group's index in specs_
  std::vector<OpGroup> groups_;
  void declare_symmetry(RankLayout layout);

  std::optional<RankLayout> layout_;
  std::optional<Symmetry> symmetry_;  // refers to layout_'s mapping
};

}  // namespace hx::wl
