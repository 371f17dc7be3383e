// Synthetic traffic patterns (Dally & Towles ch. 3, BookSim): who an endpoint sends to. A pattern
// is a pure function of the endpoint index and the topology's few integers, shared read-only by
// every endpoint on a rank; random patterns draw only from the caller's per-endpoint stream, so a
// run is deterministic and independent of the rank count. No pattern holds per-endpoint tables.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/rng.h"
#include "models/network/topology.h"

namespace hx::net {

/// Names accepted by traffic.pattern, in the order `hxsim list` shows them.
const std::vector<std::string>& pattern_names();

struct PatternParams {
  std::string name;               // one of pattern_names()
  uint32_t hotspot_groups = 4;    // hotspot: endpoints of groups [0, hotspot_groups) talk among
                                  // themselves
  uint64_t seed = 1;              // run seed, for the random permutation
  uint32_t block = 0;             // 0: the whole system; B: the pattern acts inside each run of B
                                  // consecutive endpoints (intra-C-group / intra-W-group runs)
  std::string bit_fit = "exact";  // the bit permutations on counts that are not powers of two:
                                  // "exact" (refused), "general", "truncate" (bit_permutation.h)
  uint32_t ring_unit = 1;         // rings: step between units of this many endpoints
  std::string ring_order = "linear";  // rings: units in index ("linear") or Gray-code order
};

class TrafficPattern {
 public:
  virtual ~TrafficPattern() = default;
  /// False when `src` sends nothing under this pattern (outside the hotspot groups, or a
  /// permutation that maps it to itself).
  virtual bool sends(uint32_t src) const = 0;
  /// Destination of the next message from `src` (never src itself). Precondition: sends(src).
  /// Deterministic patterns ignore rng; random ones draw from it (the caller's per-endpoint
  /// stream).
  virtual uint32_t destination(uint32_t src, Rng& rng) const = 0;
};

/// Names that accept traffic.block > 0: the patterns defined by the endpoint count alone.
const std::vector<std::string>& blockable_pattern_names();

/// InputError naming "traffic.pattern" (and the value and the reason) when the pattern does not
/// fit the topology, e.g. a bit permutation on a non-power-of-two endpoint count (or block size)
/// with bit_fit = "exact",
/// "traffic.hotspot_groups" when it exceeds the group count, or "traffic.block" when the block
/// is 1, does not divide the endpoint count, or is given for a pattern that needs the topology's
/// shape (tornado, neighbor, hotspot, group_shift).
std::unique_ptr<TrafficPattern> make_pattern(const PatternParams& params, const Topology& topology);

}  // namespace hx::net
