// Unequal expert loads of an MoE layer (InfiniteHBD §2.3, Table 4): the share of the routed
// tokens each expert receives, with the paper's imbalance coefficient (max - min) / max.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/rng.h"

namespace hx::wl {

/// The shares of `experts` experts, summing to 1, whose (max - min) / max is `imbalance`
/// exactly: uniform draws from `rng` mapped affinely so the smallest becomes 1 - imbalance and
/// the largest 1, then normalised. imbalance 0 (or one expert): all equal, no draws.
std::vector<double> expert_shares(uint32_t experts, double imbalance, Rng& rng);

/// `total` split in proportion to `shares` (summing to 1) by largest remainder: whole numbers
/// that sum to `total` exactly, each within one of total · share. Ties go to the lower index.
std::vector<uint64_t> apportion(uint64_t total, std::span<const double> shares);

}  // namespace hx::wl
