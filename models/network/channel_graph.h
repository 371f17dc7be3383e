// The channel dependency graph (CDG) of a routing, for `hxsim verify`: a routing is free of
// routing deadlock when the graph of "a packet holding channel A may wait for channel B" has no
// cycle (Dally and Seitz). For adaptive routing only the escape sub-network has to be acyclic
// (Duato), so only dependencies on escape candidates are kept when a routing offers others.
#pragma once

#include <compare>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/network/route_explorer.h"
#include "models/network/routing.h"
#include "models/network/topology.h"

namespace hx::net {

/// A routing that fails before deadlock is a question: a path from `src` to `dst` dead-ends,
/// offers a port or VC that does not exist, reaches the wrong endpoint or exceeds the hop bound.
/// The message names src, dst and the router, as explore_routes()'s do.
class BrokenRouting : public std::runtime_error {
 public:
  BrokenRouting(const std::string& what, uint32_t source, uint32_t destination)
      : std::runtime_error(what), src(source), dst(destination) {}
  uint32_t src;
  uint32_t dst;
};

struct ChannelGraphReport {
  uint64_t channels = 0;      // channels that appear in some dependency
  uint64_t dependencies = 0;  // distinct edges
  uint64_t pairs = 0;         // source-destination pairs explored
  bool acyclic = true;
  std::vector<ChannelId> cycle;  // one cycle when !acyclic, in dependency order
  bool escape_only = false;      // the routing offered non-escape candidates, so the graph holds
                                 // only dependencies on escape candidates
};

/// Builds the CDG of `routing` over every ordered pair of distinct endpoints and finds a cycle if
/// there is one. Follows every path exactly as explore_routes() does (every injection port and
/// VC, every start state, every candidate), with max_hops = channel_graph_max_hops(topology).
///
/// A dependency (from, to) is kept when the routing marked the candidate for `to` as escape.
/// A routing that marks every candidate escape (any non-adaptive one) thus has all of its
/// dependencies checked; an adaptive one has the dependencies on its escape channels checked,
/// whatever channel the waiting packet holds (escape or not). Indirect dependencies (escape
/// channel -> adaptive channels -> escape channel, Duato's extended CDG) are not added: the check
/// is exact for routings whose packets, once on an escape channel, stay on escape channels.
///
/// Dependencies from injection channels (endpoint links) are kept; they never close a cycle.
/// The reported cycle is the shortest one through a channel of the first cycle the depth-first
/// search meets; it is the same on every run and every rank.
///
/// Throws BrokenRouting for the first broken path it meets (sources in increasing order).
ChannelGraphReport check_channel_graph(const Topology& topology, const Routing& routing,
                                       uint8_t vcs);

/// The hop bound check_channel_graph() explores with: 4 * diameter + 8 (room for non-minimal
/// and misrouted paths), at most 255, the largest hop count a Packet holds.
uint32_t channel_graph_max_hops(const Topology& topology);

/// One edge of the graph: a packet holding `from` may wait for `to`.
struct ChannelDependency {
  ChannelId from = 0;
  ChannelId to = 0;
  auto operator<=>(const ChannelDependency&) const = default;
};

/// The building blocks of check_channel_graph(), so the work can be split by source (hxsim verify
/// spreads sources over ranks) and its parts tested on their own.
struct ChannelDependencies {
  std::vector<ChannelDependency> edges;  // kept (escape) dependencies, sorted and distinct
  bool saw_non_escape = false;           // some candidate was not marked escape
  uint64_t pairs = 0;                    // source-destination pairs explored
};

/// The dependencies of the paths from sources first, first + stride, ... (< last) to every other
/// endpoint. Throws BrokenRouting like check_channel_graph(); the first broken source of a slice
/// gives the same message whichever slice it is explored in.
ChannelDependencies collect_channel_dependencies(const Topology& topology, const Routing& routing,
                                                 uint8_t vcs, uint32_t first, uint32_t last,
                                                 uint32_t stride = 1);

/// Merges `more` into `into` (edges stay sorted and distinct).
void merge_channel_dependencies(ChannelDependencies& into, const ChannelDependencies& more);

/// The report for a complete set of dependencies: counts, and a cycle if there is one. Iterative
/// (no recursion), linear in the size of the graph.
ChannelGraphReport analyse_channel_graph(const ChannelDependencies& dependencies);

/// One channel as text: "router 12 port 3 (global) VC 1 -> router 40 port 7", or
/// "endpoint 5 port 0 (terminal) VC 0 -> router 1 port 2" for an injection channel.
/// std::out_of_range if the channel's link does not exist.
std::string describe_channel(const Topology& topology, uint8_t vcs, ChannelId channel);

}  // namespace hx::net
