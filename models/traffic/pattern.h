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
  std::string name;             // one of pattern_names()
  uint32_t hotspot_groups = 4;  // hotspot: endpoints of groups [0, hotspot_groups) talk among
                                // themselves
  uint64_t seed = 1;            // run seed, for the random permutation
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

/// InputError naming "traffic.pattern" (and the value and the reason) when the pattern does not
/// fit the topology, e.g. a bit permutation on a non-power-of-two endpoint count, or
/// "traffic.hotspot_groups" when it exceeds the group count.
std::unique_ptr<TrafficPattern> make_pattern(const PatternParams& params, const Topology& topology);

}  // namespace hx::net
