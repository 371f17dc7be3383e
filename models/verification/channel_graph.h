// The channel dependency graph (CDG) of a routing, for `hxsim verify`: a routing is free of
// routing deadlock when the graph of "a packet holding channel A may wait for channel B" has no
// cycle (Dally and Seitz). For adaptive routing only the escape sub-network has to be acyclic
// (Duato), so only dependencies on escape candidates are kept when a routing offers others.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/network/routing.h"
#include "models/network/topology.h"
#include "models/verification/route_explorer.h"

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
  uint64_t states_without_escape = 0;  // packet states (per pair) offered no escape candidate

  /// Deadlock-free by the channel graph: acyclic, and (Duato) the escape channels serve every
  /// packet state, so a packet blocked on adaptive channels always has an escape to wait for.
  bool deadlock_free() const { return acyclic && states_without_escape == 0; }
};

/// Builds the CDG of `routing` over every ordered pair of distinct endpoints and finds a cycle if
/// there is one. Follows every path exactly as explore_routes() does (every injection port and
/// VC, every start state, every candidate), with max_hops = channel_graph_max_hops(topology).
///
/// A dependency (from, to) is kept when the routing marked the candidate for `to` as escape.
/// A routing that marks every candidate escape (any non-adaptive one) thus has all of its
/// dependencies checked; an adaptive one has the dependencies on its escape channels checked,
/// whatever channel the waiting packet holds (escape or not). That is Duato's condition for
/// virtual cut-through (which hxsim's routers use): the escape channels' direct dependencies are
/// acyclic and every packet state is offered an escape candidate (states_without_escape == 0).
/// Indirect dependencies through adaptive channels (his extended graph for wormhole switching)
/// are not added.
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

/// A set of dependencies with the figures the report needs besides.
struct ChannelDependencies {
  std::vector<ChannelDependency> edges;  // kept (escape) dependencies, sorted and distinct
  bool saw_non_escape = false;           // some candidate was not marked escape
  uint64_t pairs = 0;                    // source-destination pairs explored
  uint64_t states_without_escape = 0;    // packet states whose candidates were all non-escape
};

class ChannelExplorer;

/// The exploring half of check_channel_graph(), public so the sources can be split up (hxsim
/// verify deals them out over ranks) and the parts combined. Holds the topology's port tables and
/// one bit per possible dependency, (ports * vcs)^2 bits a router: a few hundred KB for a
/// 1,056-endpoint Dragonfly.
class DependencyCollector {
 public:
  DependencyCollector(const Topology& topology, const Routing& routing, uint8_t vcs);
  ~DependencyCollector();
  DependencyCollector(const DependencyCollector&) = delete;
  DependencyCollector& operator=(const DependencyCollector&) = delete;

  /// Explores the paths from sources first, first + stride, ... (< last) to every other
  /// endpoint. Throws BrokenRouting like check_channel_graph(); the first broken source of a
  /// slice gives the same message whichever slice it is explored in. `after_source`, if
  /// given, is called after each source (hxsim verify's progress line).
  void explore(uint32_t first, uint32_t last, uint32_t stride = 1,
               const std::function<void()>& after_source = {});
  /// Explores from now on over the links `view` has up (nullptr: all, the default): as the
  /// routers do under faults (docs/FAULTS.md), candidates on failed links are left out, the
  /// routing's route_around is asked where none is left, and a state with no live way on is a
  /// dead end (the packet is lost), not a broken routing. `view` must outlive the exploring.
  void set_view(const RouterView* view);

  /// The dependencies found so far, as bits in a layout that depends only on the topology and
  /// vcs: collectors of one network combine by OR-ing these words (hxsim verify: MPI_BOR).
  std::vector<uint64_t>& bits();
  bool saw_non_escape() const;
  uint64_t pairs() const;
  uint64_t states_without_escape() const;

  /// The dependencies as edges (sorted), with this collector's counts.
  ChannelDependencies dependencies() const;

 private:
  std::unique_ptr<ChannelExplorer> explorer_;
};

/// DependencyCollector for one slice of sources, as edges.
ChannelDependencies collect_channel_dependencies(const Topology& topology, const Routing& routing,
                                                 uint8_t vcs, uint32_t first, uint32_t last,
                                                 uint32_t stride = 1);

/// The report for a complete set of dependencies: counts, and a cycle if there is one. Iterative
/// (no recursion), linear in the size of the graph.
ChannelGraphReport analyse_channel_graph(const ChannelDependencies& dependencies);

/// One channel as text: "router 12 port 3 (global) VC 1 -> router 40 port 7", or
/// "endpoint 5 port 0 (terminal) VC 0 -> router 1 port 2" for an injection channel.
/// std::out_of_range if the channel's link does not exist.
std::string describe_channel(const Topology& topology, uint8_t vcs, ChannelId channel);

}  // namespace hx::net
