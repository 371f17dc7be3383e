// Follows every path a routing can give one packet, from its source endpoint to its destination,
// without simulating: every start state and every candidate at every router. The routing tests
// use it to check that all paths arrive within the diameter; `hxsim verify` uses it to build the
// channel dependency graph.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "models/network/routing.h"
#include "models/network/topology.h"

namespace hx::net {

/// A directed link and one of its virtual channels: link id (Topology::first_link + port) * vcs
/// + vc. Injection links of endpoints are channels too.
using ChannelId = uint64_t;

struct ExploreVisitor {
  /// A packet holding channel `from` may wait for channel `to` (both router-side choices;
  /// `escape` as the routing marked the candidate for `to`).
  std::function<void(ChannelId from, ChannelId to, bool escape)> on_dependency;
  /// A path reached the destination endpoint after `hops` router-to-router links.
  std::function<void(uint32_t hops)> on_delivered;
};

/// Explores every path from endpoint `src` to endpoint `dst` (injecting on every port of the
/// source and every VC in [0, vcs)). Throws std::runtime_error naming src, dst and the router if a
/// path dead-ends (no candidates), reaches the wrong endpoint, or exceeds `max_hops`.
void explore_routes(const Topology& topology, const Routing& routing, uint8_t vcs, uint32_t src,
                    uint32_t dst, uint32_t max_hops, const ExploreVisitor& visitor);

}  // namespace hx::net
