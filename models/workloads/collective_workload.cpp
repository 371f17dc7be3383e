// One collective, repeated, over one or several process groups at once.
#include "models/workloads/collective_workload.h"

#include <algorithm>
#include <stdexcept>

namespace hx::wl {

CollectiveWorkload::CollectiveWorkload(std::vector<CollectiveSpec> specs, uint32_t endpoints,
                                       uint32_t repeat, uint32_t window, double alpha_s,
                                       double bandwidth, double local_bandwidth,
                                       std::optional<RankLayout> layout)
    : specs_(std::move(specs)),
      repeat_(repeat),
      window_(window),
      windows_(1),
      rank_(endpoints, Mapping::kNone),
      spec_(endpoints, 0) {
  if (specs_.empty()) throw std::logic_error("CollectiveWorkload: no group");
  const CollectiveSpec& first = specs_[0];
  if (is_windowed_ring(first)) windows_ = (ring_steps(first) + window - 1) / window;
  for (uint32_t g = 0; g < specs_.size(); ++g) {
    if (specs_[g].members.size() != first.members.size()) {
      throw std::logic_error("CollectiveWorkload: groups of different sizes");
    }
    for (uint32_t r = 0; r < specs_[g].members.size(); ++r) {
      const uint32_t e = specs_[g].members[r];
      if (rank_[e] != Mapping::kNone) {
        throw std::logic_error("CollectiveWorkload: endpoint in two groups");
      }
      rank_[e] = r;
      spec_[e] = g;
    }
  }
  const double analytic = alpha_beta_seconds(first, alpha_s, bandwidth, local_bandwidth);
  std::string name = std::string(collective_name(first.op)) + " " +
                     algorithm_name(first.algorithm) + " over " +
                     std::to_string(first.members.size()) + " endpoints";
  if (specs_.size() > 1) name += " x " + std::to_string(specs_.size()) + " groups";
  for (uint32_t k = 0; k < repeat_; ++k) {
    groups_.push_back(
        {repeat_ == 1 ? name : name + " #" + std::to_string(k), Dim::kNone, analytic});
  }
  if (layout) declare_symmetry(std::move(*layout));
}

// Every group runs the same ops relative to its members, so shifting the group index maps the
// programs onto each other; shifting positions does when the collective is a ring whose chunks
// are all equal (chunk(v, p, i) differs by a byte otherwise), as a shift then rotates the ring,
// and for a direct or pairwise all-to-all of equal blocks, whose k-th send goes k positions on.
// A two-stage all-to-all of equal blocks sends k lanes on inside its node, then k nodes on along
// its lane: shifting the lane (without carry) or the node maps it onto itself.
void CollectiveWorkload::declare_symmetry(RankLayout layout) {
  const uint32_t ranks = layout.mapping.ranks();
  for (uint32_t e = 0; e < ranks; ++e) {
    if (layout.mapping.rank_of(e) == Mapping::kNone) return;  // an endpoint without a rank
  }
  if (rank_.size() != ranks) return;
  const StridedPartition& g = layout.groups;
  const CollectiveSpec& s = specs_[0];
  const uint64_t p = s.members.size();
  std::vector<Digit> digits;
  if (g.stride > 1) digits.push_back({"groups", 1, g.stride});
  const bool ring = (s.algorithm == Algorithm::kRing && s.bytes % p == 0) ||
                    (s.algorithm == Algorithm::kBidirRing && s.bytes % (2 * p) == 0);
  const bool equal_blocks = s.blocks.empty() && s.bytes % p == 0;
  const bool shifts = s.op == Collective::kAllToAll ? (s.algorithm == Algorithm::kDirect ||
                                                       s.algorithm == Algorithm::kPairwise) &&
                                                          equal_blocks && s.rows == 0
                                                    : ring;
  if (shifts && p >= 2) digits.push_back({"ring", g.stride, g.size});
  if (s.op == Collective::kAllToAll && s.algorithm == Algorithm::kHierarchical && equal_blocks) {
    if (s.local >= 2) digits.push_back({"lane", g.stride, s.local});
    if (p / s.local >= 2) digits.push_back({"node", g.stride * s.local, g.size / s.local});
  }
  const uint32_t block = g.stride * g.size;
  if (ranks / block > 1) digits.push_back({"groups", block, ranks / block});
  if (digits.empty()) return;
  layout_ = std::move(layout);
  symmetry_.emplace(std::move(digits), layout_->mapping);
}

std::vector<std::string> CollectiveWorkload::traffic_types() const {
  const CollectiveSpec& s = specs_[0];
  const std::string name = std::string(collective_name(s.op)) + " " + algorithm_name(s.algorithm);
  if (s.algorithm != Algorithm::kHierarchical) return {name};
  return {name + " global", name + " local"};
}

void CollectiveWorkload::generate(uint32_t e, uint32_t phase, Program& out) const {
  // Repetition k is op group k. The spec is referred to, not copied: its members cost O(p).
  const CollectiveSpec& spec = specs_[spec_[e]];
  const std::size_t first = out.size();
  const uint32_t w = phase % windows_;
  if (is_windowed_ring(spec)) {
    append_ring_steps(spec, rank_[e], w * window_, std::min(ring_steps(spec), (w + 1) * window_),
                      out, {});
  } else {
    append_collective(spec, rank_[e], out, {});
  }
  for (std::size_t i = first; i < out.size(); ++i) out.ops[i].group = phase / windows_;
}

}  // namespace hx::wl
