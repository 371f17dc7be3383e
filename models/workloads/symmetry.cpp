// Digit shifts of the rank index carried to endpoints (symmetry.h). The constructor checks
// everything once so apply() and friends are a division and a remainder per digit.
#include "models/workloads/symmetry.h"

#include <stdexcept>
#include <utility>

namespace hx::wl {
namespace {

[[noreturn]] void fail(const std::string& what) {
  throw std::invalid_argument("Symmetry: " + what);
}

std::string text(const Digit& d) {
  return d.name + " (stride " + std::to_string(d.stride) + ", size " + std::to_string(d.size) + ")";
}

uint32_t digit_of(uint32_t rank, const Digit& d) { return rank / d.stride % d.size; }

}  // namespace

Symmetry::Symmetry(std::vector<Digit> digits, const Mapping& mapping)
    : digits_(std::move(digits)), mapping_(&mapping) {
  const uint32_t ranks = mapping.ranks();
  uint64_t order = 1;
  for (const Digit& d : digits_) {
    const uint64_t block = uint64_t{d.stride} * d.size;
    if (d.stride == 0 || d.size < 2) fail(text(d) + ": needs stride >= 1 and size >= 2");
    // A shift stays inside the block of stride * size ranks around the rank, so blocks must
    // tile [0, ranks) for every shifted rank to exist.
    if (block > ranks || ranks % block != 0) {
      fail(text(d) + " does not divide the " + std::to_string(ranks) + " ranks");
    }
    order *= d.size;
  }
  // Digits are independent when the higher one's stride is a multiple of the lower one's block:
  // shifting one then never carries into another.
  for (const Digit& a : digits_) {
    for (const Digit& b : digits_) {
      if (&a == &b || a.stride > b.stride) continue;
      if (b.stride % (uint64_t{a.stride} * a.size) != 0) {
        fail(text(a) + " and " + text(b) + " overlap");
      }
    }
  }
  for (uint32_t e = 0; e < ranks; ++e) {
    if (mapping.rank_of(e) == Mapping::kNone) {
      fail("endpoint " + std::to_string(e) + " of [0, " + std::to_string(ranks) + ") has no rank");
    }
  }
  order_ = static_cast<uint32_t>(order);
}

uint32_t Symmetry::apply(uint32_t g, uint32_t endpoint) const {
  uint32_t rank = mapping_->rank_of(endpoint);
  for (const Digit& d : digits_) {
    const uint32_t from = digit_of(rank, d), shift = g % d.size;
    g /= d.size;
    const uint32_t to = from + shift < d.size ? from + shift : from + shift - d.size;
    rank = rank - from * d.stride + to * d.stride;
  }
  return mapping_->endpoint(rank);
}

uint32_t Symmetry::inverse(uint32_t g) const {
  uint32_t h = 0, place = 1;
  for (const Digit& d : digits_) {
    h += (d.size - g % d.size) % d.size * place;
    g /= d.size;
    place *= d.size;
  }
  return h;
}

uint32_t Symmetry::representative(uint32_t endpoint) const {
  uint32_t rank = mapping_->rank_of(endpoint);
  for (const Digit& d : digits_) rank -= digit_of(rank, d) * d.stride;
  return mapping_->endpoint(rank);
}

uint32_t Symmetry::element_of(uint32_t endpoint) const {
  const uint32_t rank = mapping_->rank_of(endpoint);
  uint32_t g = 0, place = 1;
  for (const Digit& d : digits_) {
    g += digit_of(rank, d) * place;
    place *= d.size;
  }
  return g;
}

std::string Symmetry::describe() const {
  std::string names;
  for (const Digit& d : digits_) names += (names.empty() ? "" : " x ") + d.name;
  return (names.empty() ? "none" : names) + ": " + std::to_string(order_) +
         (order_ == 1 ? " endpoint" : " endpoints") + " per orbit";
}

}  // namespace hx::wl
