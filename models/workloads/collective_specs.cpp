// The names of collectives and algorithms as configs spell them, and the checks of a
// CollectiveSpec (collectives.h); the generators are in collectives.cpp.
#include <bit>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/error.h"
#include "models/workloads/collective_stages.h"
#include "models/workloads/collectives.h"

namespace hx::wl {

using detail::size_of;

const char* collective_name(Collective c) {
  switch (c) {
    case Collective::kReduceScatter:
      return "reduce_scatter";
    case Collective::kAllGather:
      return "all_gather";
    case Collective::kAllReduce:
      return "all_reduce";
    default:
      return "all_to_all";
  }
}

const char* algorithm_name(Algorithm a) {
  switch (a) {
    case Algorithm::kRing:
      return "ring";
    case Algorithm::kBidirRing:
      return "bidir_ring";
    case Algorithm::kRing2D:
      return "ring_2d";
    case Algorithm::kHierarchical:
      return "hierarchical";
    case Algorithm::kDirect:
      return "direct";
    case Algorithm::kPairwise:
      return "pairwise";
    default:
      return "binary_exchange";
  }
}

const std::vector<std::string>& collective_names() {
  static const std::vector<std::string> names = {"reduce_scatter", "all_gather", "all_reduce",
                                                 "all_to_all"};
  return names;
}

const std::vector<std::string>& algorithm_names() {
  static const std::vector<std::string> names = {
      "ring", "bidir_ring", "ring_2d", "hierarchical", "direct", "pairwise", "binary_exchange"};
  return names;
}

std::vector<std::string> algorithm_names_for(Collective op, bool with_local) {
  if (op == Collective::kAllToAll) {
    if (with_local) return {"hierarchical", "direct", "pairwise", "binary_exchange"};
    return {"direct", "pairwise", "binary_exchange"};
  }
  if (with_local) return {"ring", "bidir_ring", "ring_2d", "hierarchical", "direct"};
  return {"ring", "bidir_ring", "ring_2d", "direct"};
}

void check_collective(const CollectiveSpec& spec, const std::string& what) {
  auto fail = [&](const std::string& msg) { throw InputError(what + ": " + msg); };
  const uint32_t p = size_of(spec);
  const std::string alg = algorithm_name(spec.algorithm), op = collective_name(spec.op);
  if (p == 0) fail("the process group of the " + op + " is empty");
  std::unordered_set<uint32_t> seen;
  for (uint32_t m : spec.members) {
    if (!seen.insert(m).second)
      fail("endpoint " + std::to_string(m) + " appears twice in the group");
  }
  if (spec.bytes == 0) fail("the " + op + " moves 0 bytes; bytes must be > 0");
  const bool to_all = spec.op == Collective::kAllToAll;
  if (!spec.blocks.empty() && (!to_all || spec.blocks.size() != uint64_t{p} * p)) {
    fail("blocks apply to all_to_all, p x p = " + std::to_string(uint64_t{p} * p) +
         " of them, not " + std::to_string(spec.blocks.size()));
  }
  const bool a2a_only =
      spec.algorithm == Algorithm::kPairwise || spec.algorithm == Algorithm::kBinaryExchange;
  const bool reduce_only = spec.algorithm != Algorithm::kDirect &&
                           spec.algorithm != Algorithm::kHierarchical && !a2a_only;  // rings
  if ((to_all && reduce_only) || (!to_all && a2a_only)) {
    fail("algorithm " + alg + " does not implement " + op);
  }
  if (spec.algorithm == Algorithm::kBinaryExchange && !std::has_single_bit(p)) {
    fail("binary_exchange needs a power-of-two group size, got " + std::to_string(p));
  }
  const bool grid = spec.rows != 0 || spec.cols != 0;
  const bool uses_grid =
      spec.algorithm == Algorithm::kRing2D || (spec.algorithm == Algorithm::kDirect && !to_all);
  if (grid && !uses_grid) fail("rows and cols apply to ring_2d and direct, not " + alg + " " + op);
  if (grid && uint64_t{spec.rows} * spec.cols != p) {
    fail("rows x cols = " + std::to_string(spec.rows) + " x " + std::to_string(spec.cols) + " = " +
         std::to_string(uint64_t{spec.rows} * spec.cols) + " does not match the group size " +
         std::to_string(p));
  }
  const bool global_grid = spec.global_rows != 0 || spec.global_cols != 0;
  const bool halves =
      (grid && uses_grid) || (spec.algorithm == Algorithm::kHierarchical && global_grid && !to_all);
  if (spec.join_halves && !halves) {
    fail(
        "join_halves applies to a ring_2d or direct grid (rows, cols) or a hierarchical one's "
        "grid global step (global_rows, global_cols), not " +
        alg + " " + op);
  }
  if (spec.algorithm != Algorithm::kHierarchical) {
    if (spec.local != 0) fail("local applies to hierarchical, not " + alg);
    return;
  }
  if (spec.local == 0) {
    fail("hierarchical needs local, its members per node (a divisor of the group size " +
         std::to_string(p) + ")");
  }
  if (p % spec.local != 0) {
    fail("local = " + std::to_string(spec.local) + " does not divide the group size " +
         std::to_string(p));
  }
  if (to_all) return;  // both stages exchange directly
  const uint32_t nodes = p / spec.local;
  if (spec.local_algorithm != Algorithm::kRing && spec.local_algorithm != Algorithm::kBidirRing) {
    fail("the local step of hierarchical cannot be " +
         std::string(algorithm_name(spec.local_algorithm)));
  }
  const Algorithm g = spec.global_algorithm;
  if (g != Algorithm::kRing && g != Algorithm::kBidirRing && g != Algorithm::kRing2D &&
      g != Algorithm::kDirect) {
    fail("the global step of hierarchical cannot be " + std::string(algorithm_name(g)));
  }
  if (global_grid && g != Algorithm::kRing2D && g != Algorithm::kDirect) {
    fail("global_rows and global_cols apply to a ring_2d or direct global step, not " +
         std::string(algorithm_name(g)));
  }
  if (global_grid && uint64_t{spec.global_rows} * spec.global_cols != nodes) {
    fail("global_rows x global_cols = " + std::to_string(spec.global_rows) + " x " +
         std::to_string(spec.global_cols) + " = " +
         std::to_string(uint64_t{spec.global_rows} * spec.global_cols) + " does not match the " +
         std::to_string(nodes) + " nodes of " + std::to_string(spec.local) + " members");
  }
}

}  // namespace hx::wl
