// The bit-permutation traffic patterns (bit_complement, bit_reverse, bit_shuffle, transpose) and
// how they fit an endpoint count that is not a power of two (traffic.bit_fit): exactly as
// defined (powers of two only, 4^k for transpose), generalised to permutations of any suitable
// count, or truncated as the switch-less Dragonfly paper's simulator (CNSim) does.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/traffic/pattern.h"

namespace hx::net {

enum class BitOp { kComplement, kReverse, kShuffle, kTranspose };

/// Values of traffic.bit_fit, the default first.
const std::vector<std::string>& bit_fit_names();

/// The pattern `op` on n endpoints under `fit` ("exact", "general" or "truncate"). InputError
/// naming traffic.pattern (`pattern` is its value) when the fit does not accept n; `count`
/// says where n comes from ("the topology has 48 endpoints", "traffic.block = 24").
std::unique_ptr<TrafficPattern> make_bit_pattern(BitOp op, uint32_t n, const std::string& fit,
                                                 const std::string& pattern,
                                                 const std::string& count);

}  // namespace hx::net
