// Collective algorithms as generators of message DAGs (RailX §4.2 and Appendix A.2; InfiniteHBD
// Appendix G.2): the ops one member of a process group runs for a reduce-scatter, all-gather,
// all-reduce or all-to-all, and the α–β model time of each (RailX Eq. 6, 7, 8, 12, 13).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "models/workloads/program.h"

namespace hx::wl {

enum class Collective { kReduceScatter, kAllGather, kAllReduce, kAllToAll };
enum class Algorithm {
  kRing,            // unidirectional ring (RS, AG, AR)
  kBidirRing,       // two half-size rings in opposite directions at once (RS, AG, AR)
  kRing2D,          // rows x cols grid; half the data X-then-Y, half Y-then-X at once (Eq. 7)
  kHierarchical,    // local groups of `local` members: local RS, global AR among equal local
                    // ranks, local AG (Eq. 8); the global step uses `global_algorithm`
  kDirect,          // RS/AG/AR: every member sends its share to every other one at once
                    // (Eq. 12; on a rows x cols grid dimension by dimension, Eq. 13);
                    // all-to-all: all pairs at once
  kPairwise,        // all-to-all: p-1 rounds, round k sends to rank+k and receives from rank-k
  kBinaryExchange,  // all-to-all: log2(p) rounds with partner rank ^ 2^(log2 p - k) (Alg. 6)
};

/// Names as configs spell them: "reduce_scatter", "all_gather", "all_reduce", "all_to_all";
/// "ring", "bidir_ring", "ring_2d", "hierarchical", "direct", "pairwise", "binary_exchange".
const char* collective_name(Collective c);
const char* algorithm_name(Algorithm a);
const std::vector<std::string>& collective_names();
const std::vector<std::string>& algorithm_names();
/// The algorithms that implement `op` without keys of a collective's own (rows, cols; `local`
/// only where `with_local`): the choices of a key that names one algorithm for many
/// collectives (an LLM's TP, EP and DP, a Chakra trace's all-to-alls).
std::vector<std::string> algorithm_names_for(Collective op, bool with_local);

struct CollectiveSpec {
  Collective op = Collective::kAllReduce;
  Algorithm algorithm = Algorithm::kRing;
  /// V, per member. Reduce-scatter and all-reduce: the vector each member contributes; all-gather:
  /// the gathered vector each member ends with; all-to-all: the buffer each member holds, V/p
  /// for each member of the group (its own block stays).
  uint64_t bytes = 0;
  /// All-to-all with unequal blocks (MoE expert imbalance): p x p bytes, blocks[src * p + dst]
  /// from group rank src's buffer to dst's; empty: V/p each (`bytes`).
  std::vector<uint64_t> blocks;
  std::vector<uint32_t> members;  // endpoint indices in group-rank order
  uint32_t rows = 0;              // kRing2D, 2D kDirect: members form a rows x cols grid,
  uint32_t cols = 0;              //   row-major (rank = row * cols + col); 0: one dimension
  bool join_halves = false;       //   the halves keep in step: each stage of either starts at a
                                  //   member once both halves' stage before it is done there
  uint32_t local = 0;             // kHierarchical: members [i*local, (i+1)*local) share a node
  Algorithm local_algorithm = Algorithm::kBidirRing;  // kHierarchical's steps inside a node:
                                                      //   kBidirRing (RailX Eq. 8) or kRing
  Algorithm global_algorithm = Algorithm::kRing2D;    // kHierarchical's global step; for
                                                      //   kRing2D the nodes form global_rows x
  uint32_t global_rows = 0;                           //   global_cols (row-major by node), else
  uint32_t global_cols = 0;                           //   one ring of all nodes
  uint32_t group = 0;                                 // OpGroup of the generated ops
  uint32_t tag_base = 0;  // tags used: [tag_base, tag_base + collective_tags(spec))
};

/// Checks the spec (members distinct and non-empty, sizes that fit the algorithm: binary exchange
/// needs a power of two, rows*cols = p, local divides p, the collective/algorithm pair exists);
/// throws InputError naming what is wrong, prefixed with `what` (e.g. "workload").
void check_collective(const CollectiveSpec& spec, const std::string& what);

/// Number of tags the spec's ops use (so consecutive collectives in one phase do not collide).
uint32_t collective_tags(const CollectiveSpec& spec);

/// Appends the ops of group rank `rank` to `out`. Its first ops depend on `after`; returns the
/// index of a kWait op that is done when this member's part of the collective is.
uint32_t append_collective(const CollectiveSpec& spec, uint32_t rank, Program& out,
                           std::span<const uint32_t> after);

/// One block of all-to-all data: the part of group rank `src`'s buffer destined to rank `dst`.
struct Block {
  uint32_t src = 0;
  uint32_t dst = 0;
  bool operator==(const Block&) const = default;
};

/// Binary exchange all-to-all (InfiniteHBD Alg. 6): of the blocks `held` by group rank `rank`
/// before round `round` (1..log2 p), the ones it sends to its partner rank ^ 2^(log2 p - round):
/// those whose destination has bit (log2 p - round) equal to the partner's. The generator derives
/// each round's message size from this rule (block (s, d) is chunk d of V split into p).
std::vector<Block> binary_exchange_sends(uint32_t p, uint32_t rank, uint32_t round,
                                         std::span<const Block> held);

/// A ring or bidirectional ring (RS, AG or AR; not as a stage of another algorithm) in windows of
/// steps, so a workload can run a long ring as several phases and a member never holds more than
/// one window of its 2(p-1) steps (an AR) at once. Step t of a member: a send to the next member
/// after its receive of step t-1, and a receive after its receive of step t-1 (the bidirectional
/// ring does both directions per step); the first ops of a window depend on `after` only, the
/// window before being complete. Tags: t clockwise, ring_steps + t counter-clockwise.
bool is_windowed_ring(const CollectiveSpec& spec);
uint32_t ring_steps(const CollectiveSpec& spec);
/// Appends steps [begin, end) of group rank `rank`; returns a kWait op done when they are.
uint32_t append_ring_steps(const CollectiveSpec& spec, uint32_t rank, uint32_t begin, uint32_t end,
                           Program& out, std::span<const uint32_t> after);

/// α–β model time in seconds: α the latency of one step (s), B the bandwidth (bytes/s) a member
/// has towards one neighbour in one direction. Formulas (docs/WORKLOADS.md):
///   ring RS or AG:       (p-1)α + (p-1)/p · V/B
///   bidir ring RS or AG: T_R(p,V,B) = (p-1)α + (p-1)/p · V/(2B)          (RailX Eq. 6)
///   2D ring AR:          2[T_R(c, V/2, B) + T_R(r, V/(2c), B)]            (Eq. 7 for r = c)
///   hierarchical AR:     local (bidir-)ring RS+AG at B_local, global AR of V/local (Eq. 8)
///   direct RS or AG:     α + (p-1)/p · V/(2B)                           (Eq. 12)
///   all-to-all direct:   α + (p-1)/p · V/B;  pairwise: (p-1)(α + V/(pB));
///   binary exchange:     log2(p) (α + V/(2B))                     (InfiniteHBD App. G)
/// AR = RS + AG unless stated. `local_bandwidth` is B inside a node (hierarchical only; 0: B).
double alpha_beta_seconds(const CollectiveSpec& spec, double alpha_s, double bandwidth,
                          double local_bandwidth = 0);

/// The rail-only paper's two-stage all-reduce (§2.2, Eq. 1's DP terms), with the latency terms
/// Eq. 1 leaves out: V bytes per member, `local` members in each of `nodes` HB domains. Second
/// stage: a ring reduce-scatter and all-gather inside each domain at B_F (`domain_bandwidth`,
/// a member's bandwidth inside its domain); first stage: a ring all-reduce of each member's
/// V/local share among the members with the same local rank (one per domain, along a rail) at
/// B_S (`network_bandwidth`, a member's bandwidth across domains):
///   2(local-1)α + 2(local-1)/local · V/B_F  +  2(nodes-1)α + 2(nodes-1)/nodes · V/(local B_S)
/// With V = S_T/N_M, local = N_Ds, nodes = N_Df, K = N_M N_Ds and N = K N_Df the bandwidth terms
/// are Eq. 1's 2 S_T (N_Ds-1)/(K B_F) and 2 S_T (N_Df-1)/(N B_S). It is alpha_beta_seconds of
/// kHierarchical with kRing local and global steps, B = B_S and B_local = B_F.
double two_stage_all_reduce_seconds(uint32_t local, uint32_t nodes, double bytes, double alpha_s,
                                    double network_bandwidth, double domain_bandwidth);

}  // namespace hx::wl
