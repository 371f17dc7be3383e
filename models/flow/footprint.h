// Where a message loads the network at flow level: every path the topology's own routing can give
// it, each taken equally, as link uses for the max-min solver (max_min.h).
//
// The paths are those of `hxsim verify`'s exploration: every start state the routing's source
// decision can produce (a Valiant intermediate, ...) and, at every router, every output port
// among the routing's candidates (the first candidate per port names the VC; detours, candidates
// with a penalty, only where nothing else is offered). Injection starts on every port of the
// source endpoint. A link's count is the number of paths that cross it, so a flow of P paths at
// rate r per path puts count x r on it and moves P x r in all. Counting goes over the routing's
// state graph (hops grow along every edge, so it is acyclic), never path by path.
#pragma once

#include <boost/smart_ptr/local_shared_ptr.hpp>
#include <boost/smart_ptr/make_local_shared.hpp>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/units.h"
#include "models/flow/max_min.h"
#include "models/network/routing.h"
#include "models/network/topology.h"

namespace hx::flow {

struct Footprint {
  std::vector<LinkUse> uses;            // by ascending link id (Topology::first_link + port)
  std::vector<uint16_t> link_classes;   // of each use's link
  uint32_t paths = 0;
  uint64_t hops = 0;  // router-to-router links crossed, summed over the paths
  SimTime latency;    // of the slowest path: its links' latencies plus `router_delay` per router
};

/// A footprint shared by the flows on it, the fabric's cache and the folding's classes. Its
/// count is not atomic: a rank's components run on one thread, and a flow takes a reference at
/// every start, where std::shared_ptr's locked increment cost 3% of a folded iteration (perf).
using FootprintRef = boost::local_shared_ptr<const Footprint>;

/// The most paths a footprint counts exactly, and the shares it splits a flow into beyond that.
constexpr uint32_t kMaxPaths = UINT32_MAX;
constexpr uint32_t kScaledPaths = 1u << 20;

/// The hop limit the flow level routes with: far beyond any path the routings give.
inline uint32_t hop_limit(const net::Topology& topology) { return topology.diameter() * 4 + 8; }

/// Builds footprints (flow_footprint below), keeping its working space from one message to the
/// next: a folding analysis routes hundreds of thousands of pairs, each a graph of a few states,
/// where allocating the graph per pair cost more than routing it.
class FootprintBuilder {
 public:
  FootprintBuilder(const net::Topology& topology, const net::Routing& routing, SimTime router_delay,
                   uint32_t max_hops)
      : topology_(topology), routing_(routing), router_delay_(router_delay), max_hops_(max_hops) {}

  /// As flow_footprint().
  Footprint build(uint32_t src, uint32_t dst, const net::RouterView* view = nullptr);

 private:
  // Path counts multiply along the way: a RailX torus of 16 x 16 nodes, with several equally
  // short rail ports at every hop, gives one pair more than 2^32 paths, one of 64 x 64 nodes
  // some 2^120. They are counted exactly in 128-bit integers, and in long double (a 64-bit
  // mantissa, an exponent far beyond any count) for a pair whose counts these cannot hold.
  __extension__ using u128 = unsigned __int128;
  struct Edge {
    uint32_t to;  // node, or kDelivered
    uint64_t link;
    SimTime latency;
    uint16_t link_class;
  };
  struct Node {  // a packet state at a router
    uint32_t router;
    PortId in_port;
    net::Packet packet;
    uint32_t first_edge = 0, edges = 0;  // its edges in edges_
    bool reaches = false;                // a path from here reaches the destination
    SimTime slowest;                     // latency of the slowest way on, this router included
  };
  struct Root {
    uint64_t link;  // the injection link
    SimTime latency;
    uint16_t link_class;
    uint32_t node;
  };
  template <class Count>
  struct Crossing {
    uint64_t link;
    Count paths;
    uint16_t link_class;
  };
  // count()'s working space for one kind of count.
  template <class Count>
  struct Counts {
    std::vector<Count> to_dst;    // per node: paths from there to the destination
    std::vector<Count> from_src;  // per node: paths from the source to there
    std::vector<Crossing<Count>> crossings;
  };

  void explore(uint32_t src, uint32_t dst, const net::RouterView* view);
  uint32_t node_of(uint32_t router, PortId in_port, const net::Packet& packet);
  void grow_index();
  bool keep_live(ComponentId here, const net::RouterView& view);
  Footprint count_paths();
  std::span<const Edge> edges_of(const Node& n) const;
  template <class Count>
  bool count(Counts<Count>& c, Footprint& f);
  [[noreturn]] void fail(uint32_t src, uint32_t dst, const std::string& what) const;

  const net::Topology& topology_;
  const net::Routing& routing_;
  SimTime router_delay_;
  uint32_t max_hops_;
  // The working space of one build().
  std::vector<Root> roots_;
  std::vector<Node> nodes_;
  std::vector<Edge> edges_;
  std::vector<uint32_t> pending_;  // nodes still to route
  std::vector<uint32_t> order_;    // nodes by hop count
  Counts<u128> exact_;
  Counts<long double> wide_;
  std::vector<PortSpec> src_ports_;
  std::vector<net::Packet> starts_;
  net::Candidates candidates_, live_;
  std::vector<net::Candidate> offered_;
  // Node index of each state: open addressing, slot s in use when stamps_[s] == stamp_, so a
  // new build empties it by moving to the next stamp.
  std::vector<uint32_t> slots_, stamps_;
  uint32_t stamp_ = 0;
};

/// The footprint of a message from endpoint `src` to endpoint `dst` (to itself: out to its
/// router and back, as the packet level routes it). Throws std::runtime_error naming both when
/// a path dead-ends, goes astray or exceeds `max_hops` router-to-router hops.
///
/// More paths than the solver's counts hold (kMaxPaths), or a link crossed more often, are kept
/// as shares: paths becomes kScaledPaths, and each link's count and the hops its share of them,
/// rounded to the nearest (a link with less than half of one share carries none of the flow).
///
/// With a `view` (faults.h), only the links it says are up carry paths, as a router under
/// faults routes: injection ports on failed links are skipped; at each router the candidates on
/// failed links are dropped, and when none is left the routing's route_around() gives the
/// fallback (its packet state is the one that goes on). A state with no live candidate then is
/// a dead end that carries no path, not an error; paths, uses, hops and latency count only the
/// paths that reach `dst`, and a message with none has paths == 0 and no uses.
inline Footprint flow_footprint(const net::Topology& topology, const net::Routing& routing,
                                uint32_t src, uint32_t dst, SimTime router_delay, uint32_t max_hops,
                                const net::RouterView* view = nullptr) {
  return FootprintBuilder(topology, routing, router_delay, max_hops).build(src, dst, view);
}

}  // namespace hx::flow
