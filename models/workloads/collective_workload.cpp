// One collective, repeated.
#include "models/workloads/collective_workload.h"

#include <algorithm>

namespace hx::wl {

CollectiveWorkload::CollectiveWorkload(CollectiveSpec spec, uint32_t endpoints, uint32_t repeat,
                                       uint32_t window, double alpha_s, double bandwidth,
                                       double local_bandwidth)
    : spec_(std::move(spec)),
      repeat_(repeat),
      window_(window),
      windows_(is_windowed_ring(spec_) ? (ring_steps(spec_) + window - 1) / window : 1),
      rank_(endpoints, Mapping::kNone) {
  for (uint32_t r = 0; r < spec_.members.size(); ++r) rank_[spec_.members[r]] = r;
  const double analytic = alpha_beta_seconds(spec_, alpha_s, bandwidth, local_bandwidth);
  const std::string name = std::string(collective_name(spec_.op)) + " " +
                           algorithm_name(spec_.algorithm) + " over " +
                           std::to_string(spec_.members.size()) + " endpoints";
  for (uint32_t k = 0; k < repeat_; ++k) {
    groups_.push_back(
        {repeat_ == 1 ? name : name + " #" + std::to_string(k), Dim::kNone, analytic});
  }
}

void CollectiveWorkload::generate(uint32_t e, uint32_t phase, Program& out) const {
  // Repetition k is group k; copying the spec (and its member list) per call would cost O(p).
  const std::size_t first = out.size();
  const uint32_t w = phase % windows_;
  if (is_windowed_ring(spec_)) {
    append_ring_steps(spec_, rank_[e], w * window_, std::min(ring_steps(spec_), (w + 1) * window_),
                      out, {});
  } else {
    append_collective(spec_, rank_[e], out, {});
  }
  for (std::size_t i = first; i < out.size(); ++i) out.ops[i].group = phase / windows_;
}

}  // namespace hx::wl
