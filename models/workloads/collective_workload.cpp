// One collective, repeated, over one or several process groups at once.
#include "models/workloads/collective_workload.h"

#include <algorithm>
#include <stdexcept>

namespace hx::wl {

CollectiveWorkload::CollectiveWorkload(std::vector<CollectiveSpec> specs, uint32_t endpoints,
                                       uint32_t repeat, uint32_t window, double alpha_s,
                                       double bandwidth, double local_bandwidth)
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
