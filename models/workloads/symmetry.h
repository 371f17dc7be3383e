// Relabellings of endpoints under which a workload's programs map onto each other (the flow
// level folds each orbit of equal endpoints into one, docs/MODELS.md "Folding").
//
// The group is a product of cyclic shifts of digits of the rank index: rank r has digit
// (r / stride) % size for every Digit, and element g shifts each digit by its own amount, mod
// size. The mapping carries the shift to endpoints: g(e) = endpoint(g(rank_of(e))). Element g is
// a mixed-radix number, the first digit least significant.
//
// Only endpoints [0, mapping.ranks()) belong to the group (every one of them runs a rank); the
// other endpoints run no program and must not be passed in. Elements are < order().
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/workloads/mapping.h"

namespace hx::wl {

/// One digit of the rank index: (rank / stride) % size.
struct Digit {
  std::string name;  // as reports show it, e.g. "TP"
  uint32_t stride = 1;
  uint32_t size = 1;
};

class Symmetry {
 public:
  /// Shifts of `digits` (distinct digits of the ranks [0, mapping.ranks()), each size >= 2),
  /// carried to endpoints by `mapping`, which must place a rank on every endpoint of
  /// [0, mapping.ranks()). `mapping` must outlive this object. std::invalid_argument (a caller's
  /// bug, not user input) when a digit has size < 2, stride * size does not divide the ranks,
  /// two digits overlap (the higher stride must be a multiple of the lower stride * size) or an
  /// endpoint of [0, mapping.ranks()) has no rank.
  Symmetry(std::vector<Digit> digits, const Mapping& mapping);

  /// Elements of the group: the product of the digit sizes.
  uint32_t order() const { return order_; }
  /// The endpoints it relabels: [0, endpoints()). Others are not in its domain.
  uint32_t endpoints() const { return mapping_->ranks(); }
  /// g(e): a few integer operations per digit and two lookups in the mapping (hot path).
  uint32_t apply(uint32_t g, uint32_t endpoint) const;
  /// The element h with apply(h, apply(g, e)) == e.
  uint32_t inverse(uint32_t g) const;
  /// The endpoint of e's orbit whose folded digits are all 0.
  uint32_t representative(uint32_t endpoint) const;
  /// The element g with apply(g, representative(e)) == e.
  uint32_t element_of(uint32_t endpoint) const;
  bool is_representative(uint32_t endpoint) const { return representative(endpoint) == endpoint; }
  const std::vector<Digit>& digits() const { return digits_; }
  /// The same mapping with other digits: a subgroup (some of the digits, or a digit shifted k
  /// positions at a time, which is the digit of stride * k and size / k).
  Symmetry with_digits(std::vector<Digit> digits) const {
    return Symmetry(std::move(digits), *mapping_);
  }
  /// "TP x DP: 1024 endpoints per orbit".
  std::string describe() const;

 private:
  std::vector<Digit> digits_;
  const Mapping* mapping_;
  uint32_t order_ = 1;
};

}  // namespace hx::wl
