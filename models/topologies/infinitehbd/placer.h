// Incremental placement for replaying a node fault trace: the Usage that place() (cluster.h)
// gives for one architecture, cluster and TP size, kept up to date as nodes fail and recover one
// at a time. place() rescans every node, so a replay whose changes grow with the cluster grows
// with its square; a Placer pays O(1) per change on domain architectures and O(log n) on
// InfiniteHBD. How each architecture decomposes is in placer.cpp.
#pragma once

#include <cstdint>
#include <vector>

#include "models/topologies/infinitehbd/cluster.h"

namespace hx::net::infinitehbd {

class Placer {
 public:
  /// Every node healthy. InputError as place() gives for the same arguments.
  Placer(const HbdArch& arch, const Cluster& cluster, uint32_t tp);

  /// Marks `node` faulty or healthy; setting the state it has is no change. InputError naming
  /// the node if it is out of range.
  void set_faulty(uint32_t node, bool faulty);

  /// What place(arch, cluster, <the faulty nodes>, tp) returns.
  Usage usage() const;

 private:
  /// One stretch of the K-hop line's nodes, summarised so that two adjacent stretches combine
  /// into the summary of both (a segment tree's element). Components of healthy nodes are split
  /// by runs of at least K faulty nodes (orchestration.cpp); a stretch keeps the healthy nodes of
  /// its first and last components, which may continue into its neighbours, and the groups of
  /// those in between, which cannot.
  struct Stretch {
    uint32_t nodes = 0;
    uint32_t lead = 0;   // faulty nodes at its start
    uint32_t trail = 0;  // faulty nodes at its end
    bool cut = false;    // holds a run of at least K faulty nodes
    uint32_t left = 0;   // healthy nodes before the first such run (all of them if none)
    uint32_t right = 0;  // healthy nodes after the last such run (0 if none)
    uint64_t inner = 0;  // TP groups of the components between the first and the last run
  };

  Stretch combine(const Stretch& a, const Stretch& b) const;
  uint64_t unit_gpus(uint32_t unit) const;  // GPUs a domain unit places at its fault count

  HbdArch arch_;
  Cluster cluster_;
  uint32_t tp_ = 0;
  uint32_t m_ = 0;  // nodes per TP group where groups take whole nodes
  std::vector<uint8_t> bad_;
  uint32_t bad_nodes_ = 0;

  // Domain architectures (NVLink domains, TPUv4 cubes or slices, SiP rings): independent units
  // of consecutive nodes, each placing GPUs by its own fault count.
  static constexpr uint32_t kNoUnit = UINT32_MAX;
  std::vector<uint32_t> unit_of_;     // per node; kNoUnit for nodes in no unit
  std::vector<uint32_t> unit_nodes_;  // per unit
  std::vector<uint32_t> unit_bad_;    // per unit
  uint64_t unit_placed_ = 0;          // sum of unit_gpus over the units

  // InfiniteHBD: a segment tree of Stretches over the nodes, leaves from `leaves_`.
  std::vector<Stretch> tree_;
  uint32_t leaves_ = 0;
};

}  // namespace hx::net::infinitehbd
