// Bit-permutation patterns over n endpoints, and their fits to counts that are not powers of two.
//
// exact (the default): x is a b = log2(n)-bit address (Dally & Towles ch. 3): complement ~x,
//   reverse, shuffle (rotate left by one bit), transpose (swap the halves: n = 4^k).
// general: the permutation of [0, n) that each name denotes for any count and that is the exact
//   one when n is a power of two (4^k for transpose):
//   - bit_complement: n - 1 - x;
//   - bit_reverse: digit reversal (as in mixed-radix FFTs) of x = q 2^k + c with n = m 2^k, m
//     odd: k binary digits under one digit of radix m; x goes to rev_k(c) m + q (n even);
//   - bit_shuffle: the perfect shuffle of n cards, x -> 2x mod (n - 1), n - 1 fixed (n even);
//   - transpose: the transpose of an R x C matrix stored by rows, x = r C + c -> c R + r, with
//     R the smallest divisor of n not below sqrt(n) and C = n / R >= 2 (n not prime). For
//     n = 2^(2j+1) this is d_i = s_((i + j) mod b), Dally & Towles' formula with b/2 rounded
//     down, as the paper's simulator CNSim has it.
// truncate: CNSim's reading (chiplet-network-sim, traffic_manager.cpp): the low b = floor(log2 n)
//   bits of x take the exact pattern (transpose rotating by floor(b/2)); not a permutation when
//   n is not a power of two: endpoints x and x + 2^b send to the same place and [2^b, n)
//   receives nothing.
#include "models/traffic/bit_permutation.h"

#include <bit>

#include "core/error.h"

namespace hx::net {
namespace {

enum class Fit { kExact, kGeneral, kTruncate };

uint32_t mask(uint32_t bits) { return static_cast<uint32_t>((uint64_t{1} << bits) - 1); }

uint32_t reverse_bits(uint32_t x, uint32_t bits) {
  uint32_t r = 0;
  for (uint32_t i = 0; i < bits; ++i) r |= ((x >> i) & 1u) << (bits - 1 - i);
  return r;
}

/// The exact pattern on a `bits`-bit address x < 2^bits. Transpose rotates right by
/// floor(bits / 2): for even bits that swaps the halves.
uint32_t on_bits(BitOp op, uint32_t x, uint32_t bits) {
  if (bits == 0) return x;
  switch (op) {
    case BitOp::kComplement:
      return ~x & mask(bits);
    case BitOp::kReverse:
      return reverse_bits(x, bits);
    case BitOp::kShuffle:  // rotate left by one bit
      return ((x << 1) | (x >> (bits - 1))) & mask(bits);
    case BitOp::kTranspose: {
      const uint32_t half = bits / 2;
      return (x >> half) | ((x & mask(half)) << (bits - half));
    }
  }
  return x;
}

/// The general transpose's matrix: R the smallest divisor of n with R^2 >= n, and C = n / R.
struct Shape {
  uint32_t rows;
  uint32_t cols;
};
Shape transpose_shape(uint32_t n) {
  // C is the largest divisor of n not above sqrt(n): at most 65,536 trials.
  uint64_t c = 1;
  while ((c + 1) * (c + 1) <= n) ++c;
  while (n % c != 0) --c;
  return {static_cast<uint32_t>(n / c), static_cast<uint32_t>(c)};
}

class BitPattern final : public TrafficPattern {
 public:
  BitPattern(BitOp op, Fit fit, uint32_t n) : op_(op), fit_(fit), n_(n) {
    if (fit == Fit::kGeneral) {
      bits_ = static_cast<uint32_t>(std::countr_zero(n));  // binary digits under the odd one
      odd_ = n >> bits_;
      const Shape shape = transpose_shape(n);
      rows_ = shape.rows;
      cols_ = shape.cols;
    } else {
      bits_ = static_cast<uint32_t>(std::bit_width(n)) - 1;  // floor(log2 n); exact: log2 n
    }
  }
  bool sends(uint32_t src) const override { return map(src) != src; }
  uint32_t destination(uint32_t src, Rng& /*rng*/) const override { return map(src); }

 private:
  uint32_t map(uint32_t x) const {
    if (fit_ != Fit::kGeneral) return on_bits(op_, x & mask(bits_), bits_);
    switch (op_) {
      case BitOp::kComplement:
        return n_ - 1 - x;
      case BitOp::kReverse:
        return reverse_bits(x & mask(bits_), bits_) * odd_ + (x >> bits_);
      case BitOp::kShuffle:
        return x == n_ - 1 ? x : static_cast<uint32_t>(uint64_t{2} * x % (n_ - 1));
      case BitOp::kTranspose:
        return x % cols_ * rows_ + x / cols_;
    }
    return x;
  }

  BitOp op_;
  Fit fit_;
  uint32_t n_;
  uint32_t bits_ = 0;
  uint32_t odd_ = 1;   // general: n = odd_ 2^bits_
  uint32_t rows_ = 1;  // general transpose: n = rows_ x cols_
  uint32_t cols_ = 1;
};

[[noreturn]] void reject(const std::string& pattern, const std::string& reason) {
  throw InputError("traffic.pattern = '" + pattern + "': " + reason);
}

}  // namespace

const std::vector<std::string>& bit_fit_names() {
  static const std::vector<std::string> names = {"exact", "general", "truncate"};
  return names;
}

std::unique_ptr<TrafficPattern> make_bit_pattern(BitOp op, uint32_t n, const std::string& fit,
                                                 const std::string& pattern,
                                                 const std::string& count) {
  if (fit == "truncate") return std::make_unique<BitPattern>(op, Fit::kTruncate, n);
  const std::string other = "; traffic.bit_fit = 'general' or 'truncate' fits other counts";
  if (fit == "exact") {
    if (!std::has_single_bit(n)) {
      reject(pattern, "needs a power-of-two number of endpoints; " + count + other);
    }
    const auto bits = static_cast<uint32_t>(std::countr_zero(n));
    if (op == BitOp::kTranspose && bits % 2 != 0) {
      reject(pattern, "needs an even number of address bits (4^k endpoints); " + count + " (" +
                          std::to_string(bits) + " bits)" + other);
    }
    return std::make_unique<BitPattern>(op, Fit::kExact, n);
  }
  if (fit != "general") {
    throw InputError("traffic.bit_fit = '" + fit + "': expected exact, general or truncate");
  }
  const bool odd = n % 2 != 0;
  if (op == BitOp::kReverse && odd) {
    reject(pattern,
           "with traffic.bit_fit = 'general' needs an even number of endpoints (the "
           "digit reversal of an odd count is the identity); " +
               count);
  }
  if (op == BitOp::kShuffle && odd) {
    reject(pattern,
           "with traffic.bit_fit = 'general' needs an even number of endpoints (a "
           "perfect shuffle of an odd count is not a permutation); " +
               count);
  }
  if (op == BitOp::kTranspose && transpose_shape(n).cols < 2) {
    reject(pattern,
           "with traffic.bit_fit = 'general' needs an endpoint count with a divisor "
           "from 2 to its square root (the transpose of a 1 x n matrix is the "
           "identity); " +
               count);
  }
  return std::make_unique<BitPattern>(op, Fit::kGeneral, n);
}

}  // namespace hx::net
