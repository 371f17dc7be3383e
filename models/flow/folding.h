// Folding (docs/MODELS.md "Folding"): when a workload's programs map onto each other under a
// group of endpoint relabellings (wl::Symmetry), the flow level runs one endpoint per orbit and
// moves each of its flows as a class standing for the flow's images under every relabelling.
//
// This is exact only if the network treats the images alike. Nothing is assumed about the
// topology; it is checked, for every pair of endpoints the programs send between:
//  1. every pair is routed (footprint.h) and counted per link and class (the pair's orbit);
//  2. links with the same link class and the same count of every class form one link group:
//     whatever the rates, all links of a group carry the same load, so they run full together;
//  3. every pair of a class must cross the same number of links of each group, as often, on as
//     many paths, with as many hops and the same slowest-path latency.
// Then max-min sharing on the groups (a class's count on a group being its members per link)
// gives every member the rate it would get alone (max_min.h: links of one share fix together),
// and each group's links the bytes they would carry.
//
// The workload offers its symmetry; a network is often symmetric under part of it only (a ring
// of nodes that spans several leaf switches: shifting it by one node moves a pair from inside a
// leaf to across the spine). So each of its digits is tried alone with shifts by k positions for
// every k dividing its size, smallest first (a coarser digit: the subgroup of shifts by k), the
// finest that passes is kept, and the kept digits are checked together, the last dropped until
// they pass. If none passes, the model runs unfolded and the report says why.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/team.h"
#include "core/units.h"
#include "models/flow/footprint.h"
#include "models/network/flat_map.h"
#include "models/network/routing.h"
#include "models/network/topology.h"
#include "models/workloads/program.h"
#include "models/workloads/symmetry.h"

namespace hx::flow {

class Folding {
 public:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  /// Every pair the programs use is routed and its crossings held while the digits are tried:
  /// an all-to-all of p endpoints uses p^2 pairs, some 2-3 GB at this bound (and 86 GB at 16K
  /// endpoints). Beyond it the run is not folded, and says why.
  static constexpr uint64_t kMaxAnalysedPairs = uint64_t{1} << 24;

  /// The folding of `workload` on this network, or nullptr with `why_not` set when there is
  /// none or it would not be exact. std::runtime_error naming the endpoints when a pair the
  /// programs use has no route. The members of `team` each scan and route a share of the pairs
  /// and all get the same folding. More than `max_pairs` pairs to route: nullptr.
  static std::unique_ptr<const Folding> build(const net::Topology& topology,
                                              const net::Routing& routing,
                                              const wl::Workload& workload, SimTime router_delay,
                                              uint32_t max_hops, const Team& team,
                                              std::string& why_not,
                                              uint64_t max_pairs = kMaxAnalysedPairs);

  /// The relabellings folded: part of the workload's.
  const wl::Symmetry& symmetry() const { return *symmetry_; }
  /// Endpoints each simulated endpoint (and each flow) stands for.
  uint32_t members() const;
  /// The simulated endpoints, increasing; an endpoint's fabric port is its position here.
  const std::vector<uint32_t>& representatives() const { return representatives_; }
  uint32_t port_of(uint32_t representative) const;
  /// The class of flows (g(src), g(dst)) for every g: uses over link groups, each count the
  /// class's members per link of the group; paths, hops and latency those of one member.
  /// std::logic_error for a pair the programs never send between.
  FootprintRef footprint(uint32_t src, uint32_t dst) const;
  uint32_t groups() const { return static_cast<uint32_t>(group_size_.size()); }
  /// The network links of group g.
  uint32_t group_size(uint32_t g) const { return group_size_[g]; }
  /// The group of a network link, or kNone for a link no class crosses.
  uint32_t group_of(uint64_t link) const { return group_of_[link]; }
  /// "TP x DP: 1024 endpoints per orbit, 16 simulated, 40 classes of flows on 3,072 link groups".
  std::string describe() const;

 private:
  std::unique_ptr<const wl::Symmetry> symmetry_;
  std::vector<uint32_t> representatives_;
  std::vector<uint32_t> port_;      // endpoint -> port or kNone
  std::vector<uint32_t> group_of_;  // link -> group or kNone
  std::vector<uint32_t> group_size_;
  // The class footprints, and each one's index by (src << 32 | dst): looked up at every flow's
  // start, where a node-based map missed the cache (perf: 6.8% of a folded InfiniteHBD run).
  std::vector<FootprintRef> classes_;
  net::FlatMap<uint32_t> class_of_;
};

}  // namespace hx::flow
