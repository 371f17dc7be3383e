// Checks every partitioner's test shares: each component on exactly one rank, ids ascending per
// rank, local indices matching the positions, and no rank without work.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "partition/partitioner.h"

namespace hx::testing {

inline void expect_consistent(const Partition& p, ComponentId n) {
  std::vector<int> owner(n, -1);
  for (int r = 0; r < p.ranks(); ++r) {
    const std::vector<ComponentId> ids = p.components_of(r);
    EXPECT_FALSE(ids.empty()) << "rank " << r << " got no work";
    for (std::size_t i = 0; i < ids.size(); ++i) {
      ASSERT_EQ(owner[ids[i]], -1) << "component " << ids[i] << " on two ranks";
      owner[ids[i]] = r;
      EXPECT_EQ(p.rank_of(ids[i]), r);
      EXPECT_EQ(p.local_index(ids[i]), i);
      if (i > 0) {
        EXPECT_LT(ids[i - 1], ids[i]);
      }
    }
  }
  for (ComponentId id = 0; id < n; ++id)
    EXPECT_NE(owner[id], -1) << "component " << id << " unowned";
}

}  // namespace hx::testing
