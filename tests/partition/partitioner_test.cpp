// Partitioners: every component on exactly one rank, groups kept whole, blocks balanced, and the
// cut analysis counting what a ring really cuts.
#include "partition/partitioner.h"

#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>

#include "core/error.h"
#include "partition/cut_report.h"
#include "partition/group_partitioner.h"
#include "partition_checks.h"
#include "support/ring_model.h"

namespace hx {
namespace {

using testing::expect_consistent;
using testing::RingModel;

TEST(GroupPartition, UsesCoarsestLevelWithAGroupPerRank) {
  const RingModel model(120, 4, 5, SimTime::ns(10));  // 4 outer groups of 30, 20 inner of 6
  for (int ranks : {1, 2, 3, 4, 5, 7, 20, 21, 120}) {
    SCOPED_TRACE(ranks);
    const auto p = make_partition("group", model, ranks);
    expect_consistent(*p, 120);
    const std::size_t size = ranks <= 4 ? 30 : ranks <= 20 ? 6 : 1;
    for (ComponentId g = 0; g < 120; g += static_cast<ComponentId>(size)) {
      for (ComponentId id = g; id < g + size; ++id) EXPECT_EQ(p->rank_of(id), p->rank_of(g));
    }
  }
}

TEST(GroupPartition, MoreRanksThanComponentsIsAnInputError) {
  const RingModel model(12, 2, 2, SimTime::ns(10));
  EXPECT_THROW(make_partition("group", model, 13), InputError);
  EXPECT_THROW(make_partition("round_robin", model, 13), InputError);
  EXPECT_THROW(make_partition("metis", model, 13), InputError);
  EXPECT_THROW(make_partition("scotch", model, 2), InputError);
}

TEST(BalancedBlocks, EvenWeightsSplitEvenly) {
  const std::vector<uint64_t> w(12, 5);
  EXPECT_EQ(balanced_blocks(w, 4), (std::vector<std::size_t>{0, 3, 6, 9, 12}));
  EXPECT_EQ(balanced_blocks(w, 1), (std::vector<std::size_t>{0, 12}));
  EXPECT_EQ(balanced_blocks(w, 12).size(), 13u);
}

TEST(BalancedBlocks, SkewedWeightsStayWithinOneGroupOfTheMean) {
  std::vector<uint64_t> w;
  for (int i = 0; i < 100; ++i) w.push_back(1 + (i * 37) % 11);
  uint64_t total = 0, heaviest = 0;
  for (uint64_t x : w) total += x, heaviest = std::max(heaviest, x);
  for (int parts : {2, 3, 7, 10, 33}) {
    const auto cut = balanced_blocks(w, parts);
    for (int r = 0; r < parts; ++r) {
      uint64_t sum = 0;
      for (std::size_t g = cut[r]; g < cut[r + 1]; ++g) sum += w[g];
      EXPECT_GT(cut[r + 1], cut[r]);
      // Nearest-prefix boundaries are each within half the heaviest group of the ideal one.
      EXPECT_LE(static_cast<double>(sum), static_cast<double>(total) / parts + heaviest);
    }
  }
}

// A hub (the last component) linked to the components whose id is not a multiple of 3; the
// others have no ports, as the flow level's idle routers and folded endpoints.
class StarModel final : public Model {
 public:
  explicit StarModel(ComponentId n) : n_(n) {}
  ComponentId num_components() const override { return n_; }
  std::vector<GroupLevel> group_levels() const override { return {{"half", 2}}; }
  ComponentRange group_range(std::size_t, uint64_t g) const override {
    return {static_cast<ComponentId>(g * n_ / 2), static_cast<ComponentId>((g + 1) * n_ / 2)};
  }
  std::optional<ComponentId> hub() const override { return n_ - 1; }
  static bool linked(ComponentId id) { return id % 3 != 0; }
  void ports(ComponentId id, std::vector<PortSpec>& out) const override {
    if (id == n_ - 1) {
      for (ComponentId c = 0; c + 1 < n_; ++c) {
        if (linked(c)) out.push_back({c, 0, SimTime::ps(1), 0});
      }
      return;
    }
    if (linked(id)) out.push_back({n_ - 1, 0, SimTime::ps(1), 0});
  }
  std::vector<TableSpec> tables() const override { return {}; }
  std::unique_ptr<Component> create(ComponentId id, const BuildContext&) const override {
    return std::make_unique<testing::IdleComponent>(id);
  }

 private:
  ComponentId n_;
};

TEST(HubPartition, DealsTheHubsComponentsInTurnAndPutsTheHubLast) {
  const StarModel model(61);
  for (int ranks : {1, 2, 3, 4, 7}) {
    SCOPED_TRACE(ranks);
    const auto p = make_partition("group", model, ranks);
    expect_consistent(*p, 61);
    EXPECT_NE(p->describe().find("hub"), std::string::npos) << p->describe();
    EXPECT_EQ(p->rank_of(60), ranks - 1);
    int dealt = 0;
    for (ComponentId id = 0; id < 60; ++id) {
      if (StarModel::linked(id)) {
        EXPECT_EQ(p->rank_of(id), dealt++ % ranks) << "component " << id;
      } else {
        EXPECT_EQ(p->rank_of(id), static_cast<int>(uint64_t{id} * ranks / 61)) << id;
      }
    }
  }
  // The other partitioners ignore the hub.
  EXPECT_EQ(make_partition("round_robin", model, 2)->rank_of(1), 1);
  // 0 idle, 1 and 2 dealt to ranks 0 and 1, the hub on rank 3: rank 2 would get nothing.
  EXPECT_THROW(make_partition("group", StarModel(4), 4), InputError);
}

TEST(RoundRobinPartition, DealsComponentsInTurn) {
  const RingModel model(10, 1, 1, SimTime::ns(10));
  const auto p = make_partition("round_robin", model, 3);
  expect_consistent(*p, 10);
  EXPECT_EQ(p->components_of(1), (std::vector<ComponentId>{1, 4, 7}));
}

TEST(CutReport, RingCutAtGroupBoundaries) {
  const RingModel model(120, 4, 5, SimTime::ns(10));
  for (int ranks : {1, 2, 3, 4}) {
    const auto p = make_partition("group", model, ranks);
    std::vector<RankCut> cuts;
    for (int r = 0; r < ranks; ++r) cuts.push_back(analyse_rank(model, *p, r));
    const CutReport c = combine(cuts);
    EXPECT_EQ(c.links, 120u);
    EXPECT_EQ(c.links_cut, ranks == 1 ? 0u : static_cast<uint64_t>(ranks));
    EXPECT_EQ(c.lookahead, ranks == 1 ? SimTime::infinity() : SimTime::ns(10));
    EXPECT_EQ(c.per_rank[0].neighbours.size(), ranks == 1 ? 0u : ranks == 2 ? 1u : 2u);
  }
}

TEST(CutReport, ImbalanceIsMaxOverMeanWeight) {
  RingModel model(120, 4, 5, SimTime::ns(10));
  model.use_uneven_weights();
  const auto p = make_partition("group", model, 3);
  std::vector<RankCut> cuts;
  uint64_t max_w = 0, total = 0;
  for (int r = 0; r < 3; ++r) {
    cuts.push_back(analyse_rank(model, *p, r));
    max_w = std::max(max_w, cuts.back().weight);
    total += cuts.back().weight;
  }
  EXPECT_EQ(total, 240u);  // weights 1,2,3 repeating: mean 2
  EXPECT_DOUBLE_EQ(combine(cuts).imbalance, static_cast<double>(max_w) * 3 / 240.0);
}

}  // namespace
}  // namespace hx
