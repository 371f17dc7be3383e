// Process groups and their placement (RailX Table 4, §5): a job's ranks 0..n-1 are placed on
// endpoints by a mapping policy, and a process group is a list of ranks, written out or as a
// strided pattern (G_T,i = {i, i+1, ..., i+T-1}, G_C,i = {i, i+T, ..., i+(C-1)T}, ...).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hx::wl {

/// A strided set of ranks: {start + k*stride : k < count}.
struct Strided {
  uint32_t start = 0;
  uint32_t stride = 1;
  uint32_t count = 0;
};

/// Parses a rank list "0,4,8,12" or "0-15" or a strided pattern "start:stride:count"
/// (e.g. "0:4:8"); "all" is every rank [0, ranks). InputError naming `key` on bad syntax or a
/// rank >= ranks or a repeated rank.
std::vector<uint32_t> parse_group(const std::string& text, uint32_t ranks, const std::string& key);

/// The members of the group that contains `rank` when ranks are split into groups of `size`
/// with member stride `stride` (RailX Table 4: TP: stride 1, CP: stride T, EP: stride T*C, ...):
/// the group is {base + k*stride : k < size} where base is `rank` with its digit of radix
/// `size` at position `stride` cleared.
std::vector<uint32_t> strided_group(uint32_t rank, uint32_t size, uint32_t stride);
/// Position of `rank` within its strided_group.
uint32_t strided_rank(uint32_t rank, uint32_t size, uint32_t stride);

/// A partition of ranks [0, ranks) into Table 4's strided groups of `size` members `stride`
/// apart, written "size:stride" (CP: "C:T", DP: "D:TC"; "4:1" = consecutive quadruples).
struct StridedPartition {
  uint32_t size = 0;
  uint32_t stride = 0;
  /// The first rank of every group (the rank whose strided_rank is 0), increasing.
  std::vector<uint32_t> firsts(uint32_t ranks) const;
};

/// Parses "size:stride"; InputError naming `key` unless both are whole numbers >= 1 and
/// size * stride divides `ranks` (otherwise some group would run past the last rank).
StridedPartition parse_partition(const std::string& text, uint32_t ranks, const std::string& key);

/// Where a job's ranks run. Endpoint = map(rank).
class Mapping {
 public:
  /// "linear": rank r on endpoint r. "node_major": the endpoints form the grid `grid`
  /// (least significant first, e.g. the topology's endpoint_dims()) and ranks fill one
  /// block of shape `block` (same rank as grid, each dividing it) before the next block, blocks
  /// in row-major order: a node's chips get consecutive ranks. "list": `list[r]`.
  static Mapping linear(uint32_t ranks, uint32_t endpoints);
  static Mapping node_major(const std::vector<uint32_t>& grid, const std::vector<uint32_t>& block);
  static Mapping list(std::vector<uint32_t> endpoints, uint32_t num_endpoints);
  /// InputError (naming `key`) on a bad policy description.
  static Mapping parse(const std::string& policy, const std::string& block_or_list, uint32_t ranks,
                       const std::vector<uint32_t>& grid, const std::string& key);

  uint32_t ranks() const { return static_cast<uint32_t>(endpoint_.size()); }
  uint32_t endpoint(uint32_t rank) const { return endpoint_[rank]; }
  /// The rank on endpoint e, or kNone.
  uint32_t rank_of(uint32_t e) const;
  static constexpr uint32_t kNone = 0xFFFFFFFFu;

 private:
  std::vector<uint32_t> endpoint_;  // rank -> endpoint
  std::vector<uint32_t> rank_;      // endpoint -> rank or kNone
};

}  // namespace hx::wl
