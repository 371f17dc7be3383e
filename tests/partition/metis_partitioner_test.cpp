// The METIS partitioner: every component on exactly one rank, the same partition every time,
// links too short to cut kept whole while the work still balances, and the cut it reports.
#include <gtest/gtest.h>

#include <algorithm>

#include "partition/cut_report.h"
#include "partition/partitioner.h"
#include "partition_checks.h"
#include "support/ring_model.h"

namespace hx {
namespace {

using testing::expect_consistent;
using testing::RingModel;

CutReport analyse(const Model& model, const Partition& p) {
  std::vector<RankCut> ranks;
  for (int r = 0; r < p.ranks(); ++r) ranks.push_back(analyse_rank(model, p, r));
  return combine(std::move(ranks));
}

// 12 segments of 5 components on 1 ns links, joined by 10 ns links: on up to 12 ranks the
// segments stay whole, so only 10 ns links are cut, and 12 segments over 2, 3, 4, 6 or 12
// ranks balance exactly.
TEST(MetisPartition, KeepsShortLinksWholeWhileTheWorkBalances) {
  RingModel model(60, 1, 1, SimTime::ns(1));
  model.use_long_links(5, SimTime::ns(10));
  for (int ranks : {2, 3, 4, 6, 12}) {
    SCOPED_TRACE(ranks);
    const auto p = make_partition("metis", model, ranks);
    expect_consistent(*p, 60);
    const CutReport cut = analyse(model, *p);
    EXPECT_EQ(cut.lookahead, SimTime::ns(10));
    EXPECT_DOUBLE_EQ(cut.imbalance, 1.0);
    EXPECT_NE(p->describe().find("links under 10ns kept whole"), std::string::npos)
        << p->describe();
    // A ring of whole segments cut into `ranks` arcs: at least one link per rank.
    EXPECT_GE(cut.links_cut, static_cast<uint64_t>(ranks));
    EXPECT_LE(cut.links_cut, static_cast<uint64_t>(2 * ranks));
  }
}

// Segments of 30 cannot balance over 4 ranks (room 16.5 each): every link may be cut.
TEST(MetisPartition, CutsShortLinksWhenWholeSegmentsCannotBalance) {
  RingModel model(60, 1, 1, SimTime::ns(1));
  model.use_long_links(30, SimTime::ns(10));
  const auto p = make_partition("metis", model, 4);
  expect_consistent(*p, 60);
  const CutReport cut = analyse(model, *p);
  EXPECT_EQ(cut.lookahead, SimTime::ns(1));
  EXPECT_LE(cut.imbalance, 1.1);
  EXPECT_EQ(p->describe().find("kept whole"), std::string::npos) << p->describe();
}

// Segments of 4 fit the ranks' room, but on so few of them METIS k-way leaves a part empty (it
// did so for each of these, and for 4 RailX nodes over 3 ranks): then no link is kept whole,
// and every rank gets components.
TEST(MetisPartition, CutsTheClustersWhenMetisLeavesARankEmpty) {
  for (const auto& [segments, ranks] : {std::pair{2, 2}, {4, 3}, {4, 4}, {7, 6}}) {
    SCOPED_TRACE(std::to_string(segments) + " segments over " + std::to_string(ranks));
    RingModel model(4 * segments, 1, 1, SimTime::ns(1));
    model.use_long_links(4, SimTime::ns(10));
    const auto p = make_partition("metis", model, ranks);
    expect_consistent(*p, 4 * segments);
    EXPECT_EQ(p->describe().find("kept whole"), std::string::npos) << p->describe();
  }
}

// A ring of 3 or 4 single components over as many ranks: METIS k-way puts them in fewer parts,
// and the fullest ranks then give up a component each to the empty ones.
TEST(MetisPartition, MovesComponentsToRanksThatMetisLeftEmpty) {
  for (const int n : {3, 4}) {
    SCOPED_TRACE(n);
    RingModel model(n, 1, 1, SimTime::ns(1));
    const auto p = make_partition("metis", model, n);
    expect_consistent(*p, n);
    EXPECT_NE(p->describe().find("moved to empty ranks"), std::string::npos) << p->describe();
  }
}

TEST(MetisPartition, IsTheSameEveryTimeAndOnOneRankKeepsEverything) {
  RingModel model(120, 4, 5, SimTime::ns(10));
  model.use_uneven_weights();
  const auto a = make_partition("metis", model, 7);
  const auto b = make_partition("metis", model, 7);
  for (ComponentId id = 0; id < 120; ++id) ASSERT_EQ(a->rank_of(id), b->rank_of(id)) << id;
  expect_consistent(*a, 120);
  EXPECT_LE(analyse(model, *a).imbalance, 1.1);
  const auto one = make_partition("metis", model, 1);
  expect_consistent(*one, 120);
}

}  // namespace
}  // namespace hx
