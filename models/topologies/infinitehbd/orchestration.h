// InfiniteHBD's orchestration of TP groups (§4.2-4.3, Appendix D Algorithms 2-5) and the
// cross-ToR metric of §6.4 (Fig. 17). Nodes are numbered 0..n-1 (the paper counts from 1). A TP
// group of t GPUs takes m = t/r whole nodes of r GPUs; its consecutive nodes are at most K apart on
// the K-hop line, so each hop is a live OCSTrx link and the ring closes through the loopback paths
// of its two end nodes (§4.2). Pure functions: no state, deterministic in their inputs.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/rng.h"

namespace hx::net::infinitehbd {

/// n nodes in HBD order, node i linked to i±1..i±K; on a ring those are taken modulo n.
struct HopLine {
  uint32_t nodes = 0;
  uint32_t hops = 0;  // K >= 1
  bool ring = false;
};

/// A TP group of `tp` GPUs on nodes of `gpus_per_node` GPUs takes m = tp / gpus_per_node nodes.
struct TpShape {
  uint32_t tp = 0;             // t
  uint32_t gpus_per_node = 0;  // r
};

using Group = std::vector<uint32_t>;  // one TP group's node ids, in ring order

struct Placement {
  std::vector<Group> groups;
  uint64_t gpus = 0;  // groups.size() * t
};

/// m = t / r. InputError unless t is a positive multiple of r.
uint32_t nodes_per_group(const TpShape& shape);

/// Algorithm 2 (Orchestration-DCN-Free): the connected components of the healthy nodes, each in
/// HBD order, cut into TP groups of m consecutive nodes; a component's last (< m) nodes stay idle.
/// It places the most groups any placement can. `faulty`: node ids in any order, repeats allowed.
Placement orchestrate_dcn_free(const HopLine& line, const std::vector<uint32_t>& faulty,
                               const TpShape& shape);

/// A two-tier fat tree under the K-hop line: p nodes per ToR (node v under ToR v / p), and
/// aggregation domains of d nodes (node v in domain v / d). d must be a multiple of p and divide n.
struct FatTree {
  uint32_t nodes = 0;          // n
  uint32_t nodes_per_tor = 0;  // p
  uint32_t domain_nodes = 0;   // d
  uint32_t hops = 0;           // K
};

/// Algorithm 3 (Deployment-Strategy): the HBD order of the nodes, sub-line i = {i, i+p, i+2p, ...}
/// for i = 0..p-1, concatenated. A node's main links (±1 on the line) go to nodes ±p, its first
/// backups to ±2p, as in Fig. 7.
std::vector<uint32_t> deployment_order(uint32_t nodes, uint32_t nodes_per_tor);

/// Constraints Algorithm 5 searches over: n/d domains to align plus (n/d) p sub-line segments.
uint32_t max_constraints(const FatTree& tree);

/// Algorithm 4 (Placement-Fat-Tree) with `constraints` applied: the first min(c, (n/d) p)
/// sub-line segments (one sub-line inside one domain, d/p nodes) are orchestrated on their own,
/// the rest of the deployed line as one; when c exceeds (n/d) p, the first c - (n/d) p domains
/// are also aligned (a faulty node fails its whole ToR). Groups come segment by segment.
Placement place_fat_tree(const FatTree& tree, const std::vector<uint32_t>& faulty,
                         const TpShape& shape, uint32_t constraints);

struct FatTreePlan {
  Placement placement;
  uint32_t constraints = 0;  // the largest count whose placement still holds the job
};

/// Algorithm 5 (Orchestration-Fat-Tree): binary search for the most constraints under which
/// place_fat_tree still places `job_gpus` GPUs; nullopt if even none do. The groups come in the
/// rank order of order_ranks with parallel groups of p (CP across the p sub-lines, §D); a job
/// needing fewer GPUs than placed takes the first groups.
std::optional<FatTreePlan> orchestrate_fat_tree(const FatTree& tree,
                                                const std::vector<uint32_t>& faulty,
                                                const TpShape& shape, uint64_t job_gpus);

/// §6.4's baseline: healthy nodes are tried in a random order (from `rng`); each one still free
/// takes the first m free nodes that form a group with it on the deployed line, going forward and
/// then back. Stops once `job_gpus` GPUs are placed; may place fewer. Groups in the order found.
Placement greedy_placement(const FatTree& tree, const std::vector<uint32_t>& faulty,
                           const TpShape& shape, uint64_t job_gpus, Rng& rng);

/// The rank assignment: TP groups sorted by the ToRs of their nodes (lexicographically), then
/// every whole run of `parallel_size` groups on the same ToRs moved ahead of the rest, so that
/// consecutive groups, a parallel group, share ToRs wherever the placement allows (§4.3: "align
/// ranks within each ToR"). Aligned sub-line segments give such runs of p.
void order_ranks(std::vector<Group>& groups, uint32_t nodes_per_tor, uint32_t parallel_size);

/// Ring-neighbour pairs of the parallel (CP/DP) rings, and how many of them cross ToRs.
struct CrossTor {
  uint64_t cross = 0;
  uint64_t pairs = 0;
  double share() const { return pairs == 0 ? 0.0 : static_cast<double>(cross) / pairs; }
};

/// §6.4's cross-ToR traffic of a job on `groups` (in rank order): TP is the inner dimension, so
/// parallel group q is TP groups [q c, q c + c) (c = parallel_size; a last, shorter one counts
/// too). The GPUs with the same TP rank in a parallel group run a ring all-reduce, every ring
/// edge carrying the same bytes; a GPU's TP rank fixes its node's place in the group, so the
/// edges are those between the k-th nodes of consecutive groups of the parallel group (c edges
/// for c >= 3, one for c = 2), counted once per node place k. The share is of edges whose two
/// nodes sit under different ToRs.
CrossTor cross_tor_traffic(std::span<const Group> groups, uint32_t nodes_per_tor,
                           uint32_t parallel_size);

}  // namespace hx::net::infinitehbd
