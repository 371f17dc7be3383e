// PHOLD's topology: links are symmetric (the contract every model must keep), groups tile the
// id space, and inconsistent parameters are input errors.
#include "models/phold/phold.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace hx {
namespace {

phold::PholdConfig base() {
  phold::PholdConfig c;
  c.lps = 60;
  c.group_size = 6;
  c.neighbors = 3;
  c.remote_probability = 0.1;
  c.mean_delay = SimTime::ns(1);
  c.link_latency = SimTime::ns(10);
  return c;
}

TEST(Phold, EveryLinkIsSymmetric) {
  for (uint32_t neighbors : {1u, 3u, 9u}) {
    phold::PholdConfig c = base();
    c.neighbors = neighbors;
    const auto model = phold::make_model(c);
    std::vector<PortSpec> mine, theirs;
    for (ComponentId id = 0; id < model->num_components(); ++id) {
      mine.clear();
      model->ports(id, mine);
      ASSERT_EQ(mine.size(), 2u * neighbors);
      for (PortId p = 0; p < mine.size(); ++p) {
        theirs.clear();
        model->ports(mine[p].peer, theirs);
        ASSERT_LT(mine[p].peer_port, theirs.size());
        EXPECT_EQ(theirs[mine[p].peer_port].peer, id);
        EXPECT_EQ(theirs[mine[p].peer_port].peer_port, p);
        EXPECT_EQ(theirs[mine[p].peer_port].latency, mine[p].latency);
        EXPECT_NE(mine[p].peer / c.group_size, id / c.group_size) << "links leave the group";
      }
    }
  }
}

TEST(Phold, GroupsTileTheIdSpace) {
  const auto model = phold::make_model(base());
  const auto levels = model->group_levels();
  ASSERT_EQ(levels.size(), 1u);
  ASSERT_EQ(levels[0].count, 10u);
  ComponentId next = 0;
  for (uint64_t g = 0; g < levels[0].count; ++g) {
    const ComponentRange r = model->group_range(0, g);
    EXPECT_EQ(r.begin, next);
    next = r.end;
  }
  EXPECT_EQ(next, model->num_components());
}

TEST(Phold, InconsistentParametersAreInputErrors) {
  phold::PholdConfig c = base();
  c.lps = 61;
  EXPECT_THROW(phold::make_model(c), InputError);
  c = base();
  c.neighbors = 10;  // 10 groups: neighbour 10 would be the LP itself
  EXPECT_THROW(phold::make_model(c), InputError);
  c = base();
  c.neighbors = 0;
  EXPECT_THROW(phold::make_model(c), InputError);  // remote events with no links
  c.remote_probability = 0;
  EXPECT_NO_THROW(phold::make_model(c));
}

}  // namespace
}  // namespace hx
