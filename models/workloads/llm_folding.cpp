// Which digits of the rank order the LLM iteration folds on (llm.h symmetry(); docs/MODELS.md
// "Folding"): shifts that provably carry every rank's programs onto the shifted rank's.
#include <cstdint>

#include "models/workloads/llm.h"

namespace hx::wl {

// The members per domain of the two-stage DP all-reduces, when there are some and they all
// split alike; 0 otherwise (the DP digit is then offered whole, and folds() refuses it for a
// two-stage row).
uint32_t LlmWorkload::dp_fold_local() const {
  uint32_t L = 0;
  for (const Row r : {kDpVoc, kDpQkv, kDpFfn, kDpFfnDense}) {
    if (row_[r] < 0 || local_[r] == 0) continue;
    if (L != 0 && L != local_[r]) return 0;
    L = local_[r];
  }
  return L;
}

// Whether shifting digit d by one carries every rank's programs onto the shifted rank's. Nothing
// but the process groups (and unequal expert loads) sees the T, C and D_e digits: stage_of, the
// pipeline peers (rank ± TCD), the tags and the compute depend on P and the layer only. A group
// that does not touch d is carried to another group with every member at the same position. A group
// that is exactly d is one ring, which the shift rotates: the CP exchange sends to ring neighbours,
// and a ring or bidirectional-ring collective gives every position the same ops when its chunks (V
// / p, or V / 2p for two half rings) are equal. Anything else touching d (a group spanning d and
// another digit, which the shift does not rotate; an all-to-all; another algorithm) is refused.
bool LlmWorkload::folds(const Digit& d) const {
  // Unequal expert loads are drawn per C and D_e digit: only the TP peers compute alike.
  if (config_.expert_imbalance > 0 && config_.par.ep > 1 && d.stride != 1) return false;
  const auto touches = [&](uint32_t size, uint32_t stride) {
    return size >= 2 && uint64_t{stride} < uint64_t{d.stride} * d.size &&
           uint64_t{d.stride} < uint64_t{stride} * size;
  };
  for (int r = 0; r < kRows; ++r) {
    if (row_[r] < 0) continue;
    const CommVolume& v = volumes_[row_[r]];
    const RankGroup& g = v.group;
    if (!touches(g.size, g.stride) && !touches(g.outer_size, g.outer_stride)) continue;
    if (local_[r] > 0) {
      if (!folds_two_stage(v, local_[r], d)) return false;
      continue;
    }
    // A shift of d rotates the group's ring when d is the ring's digit, its upper part, or its
    // outer digit (members run inner index fastest, so a shift by one of the upper part moves
    // every position by the lower part's size: the DP ring of C x D_e members under a D_e shift).
    // A shift of a lower part alone breaks the ring (C under a DP ring that spans C and D_e).
    const bool upper = g.outer_size == 1 && d.stride % g.stride == 0 &&
                       uint64_t{d.stride} * d.size == uint64_t{g.stride} * g.size;
    const bool rotates = upper || (g.outer_size == d.size && g.outer_stride == d.stride);
    if (!rotates || v.pattern == Pattern::kAllToAll) return false;
    if (v.pattern == Pattern::kPointToPoint) {
      if (r != kCp) return false;
      continue;
    }
    const Algorithm a = algorithm(Row(r));
    if (a != Algorithm::kRing && a != Algorithm::kBidirRing) return false;
    if (v.bytes % (uint64_t{g.members()} * (a == Algorithm::kBidirRing ? 2 : 1)) != 0) {
      return false;  // unequal chunks: positions would send different sizes
    }
  }
  return true;
}

// The two-stage all-reduce (collectives.cpp, hierarchical) of a group of p members, L per
// domain: member q = n * L + l runs a ring of the L members of its domain n at place l, then a
// ring of the p / L members at place l of every domain (along its rail) at place n. A shift of
// l alone (d is exactly the group's lowest L places) rotates every domain's ring and carries
// the ring at place l onto the ring at place l + 1; a shift of n (d within the places above)
// rotates the rails' rings and carries each domain's ring onto the next domain's. Both keep
// every member's ops alike when every chunk is equal: V / L inside the domain, V / p along
// the rail, which V % p == 0 gives.
bool LlmWorkload::folds_two_stage(const CommVolume& v, uint32_t L, const Digit& d) const {
  // The group's places as one digit: its inner one, or its outer one when the inner is 1 (the
  // DP FFN group without CP).
  const RankGroup& g = v.group;
  if (g.outer_size > 1 && g.size > 1) return false;
  const uint32_t stride = g.size > 1 ? g.stride : g.outer_stride;
  if (v.pattern == Pattern::kAllToAll || v.pattern == Pattern::kPointToPoint ||
      v.bytes % g.members() != 0) {
    return false;
  }
  const bool place = d.stride == stride && d.size == L;
  const bool domain = d.stride % (uint64_t{stride} * L) == 0 &&
                      uint64_t{d.stride} * d.size == uint64_t{stride} * g.members();
  return place || domain;
}

}  // namespace hx::wl
