// Division by a number known ahead, as a product by its reciprocal: a loop that divides by the
// same number again and again pays one division up front instead of one per quotient (a 64-bit
// division takes tens of cycles). Exact for every dividend.
#pragma once

#include <cstdint>
#include <limits>

namespace hx {

class Divisor {
 public:
  /// d >= 1.
  explicit Divisor(uint64_t d) : d_(d), reciprocal_(std::numeric_limits<uint64_t>::max() / d) {}

  uint64_t divisor() const { return d_; }

  /// floor(x / d). With m = floor((2^64 - 1) / d), x m / 2^64 lies in (x / d - 1, x / d], so
  /// the product's high half is the quotient or one short of it.
  uint64_t divide(uint64_t x) const {
    __extension__ using U128 = unsigned __int128;  // __extension__: -Wpedantic accepts it
    auto q = static_cast<uint64_t>((U128{x} * reciprocal_) >> 64);
    if (x - q * d_ >= d_) ++q;
    return q;
  }

 private:
  uint64_t d_;
  uint64_t reciprocal_;
};

}  // namespace hx
