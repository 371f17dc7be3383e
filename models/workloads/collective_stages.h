// The sub-collectives that composite algorithms (2D ring, 2D direct, hierarchical) are built
// from: a row, a column, a node, the nodes' equal local ranks. Shared by the generator
// (collectives.cpp) and the α–β model (collective_times.cpp), so both see the same stages.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "models/workloads/collectives.h"

namespace hx::wl::detail {

inline uint32_t size_of(const CollectiveSpec& s) { return static_cast<uint32_t>(s.members.size()); }

// Without rows and cols, a 2D ring is one bidirectional ring and direct is one dimension.
inline bool is_grid(const CollectiveSpec& s) {
  return s.rows != 0 && s.op != Collective::kAllToAll &&
         (s.algorithm == Algorithm::kRing2D || s.algorithm == Algorithm::kDirect);
}

// A stage of s: a collective of its own on some of s's members, accounted to s's op group.
inline CollectiveSpec stage(const CollectiveSpec& s, Algorithm a, Collective op, uint64_t v,
                            std::vector<uint32_t> members) {
  CollectiveSpec t;
  t.op = op;
  t.algorithm = a;
  t.bytes = v;
  t.members = std::move(members);
  t.group = s.group;
  return t;
}

// s's global step: its algorithm among the nodes, on their own grid if it has one.
inline CollectiveSpec global_stage(const CollectiveSpec& s, Collective op, uint64_t v,
                                   std::vector<uint32_t> members) {
  CollectiveSpec g = stage(s, s.global_algorithm, op, v, std::move(members));
  g.rows = s.global_rows;
  g.join_halves = s.join_halves;
  g.cols = s.global_cols;
  return g;
}

}  // namespace hx::wl::detail
