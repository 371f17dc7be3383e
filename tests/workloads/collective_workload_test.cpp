// The collective workload over several process groups at once (workload.groups): every member
// talks only to its own group, in that group's ring order, exactly as the collective over that
// group alone would, and endpoints outside every group have no program.
#include "models/workloads/collective_workload.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace hx::wl {
namespace {

// 12 ranks on endpoints 0..11 of 14 as Table 4's CP groups of C = 4 members T = 3 apart:
// {0, 3, 6, 9}, {1, 4, 7, 10}, {2, 5, 8, 11}.
std::vector<CollectiveSpec> cp_groups(const CollectiveSpec& base) {
  std::vector<CollectiveSpec> specs;
  const StridedPartition p{4, 3};
  for (uint32_t first : p.firsts(12)) {
    specs.push_back(base);
    specs.back().members = strided_group(first, p.size, p.stride);
  }
  return specs;
}

std::vector<Program> programs(const CollectiveWorkload& w, uint32_t endpoints) {
  std::vector<Program> out(endpoints);
  for (uint32_t e = 0; e < endpoints; ++e) {
    for (uint32_t phase = 0; phase < w.phases(e); ++phase) w.generate(e, phase, out[e]);
  }
  return out;
}

TEST(CollectiveWorkload, EveryGroupRunsTheCollectiveOnItsOwn) {
  CollectiveSpec base;
  base.op = Collective::kAllGather;
  base.algorithm = Algorithm::kBidirRing;
  base.bytes = 4096;
  const std::vector<CollectiveSpec> specs = cp_groups(base);
  ASSERT_EQ(specs.size(), 3u);
  const CollectiveWorkload all(specs, 14, 1, 64, 1e-6, 1e9, 0);
  ASSERT_EQ(all.groups().size(), 1u);
  EXPECT_EQ(all.groups()[0].name, "all_gather bidir_ring over 4 endpoints x 3 groups");
  const std::vector<Program> got = programs(all, 14);
  for (const CollectiveSpec& spec : specs) {
    const CollectiveWorkload alone({spec}, 14, 1, 64, 1e-6, 1e9, 0);
    const std::vector<Program> want = programs(alone, 14);
    const std::set<uint32_t> members(spec.members.begin(), spec.members.end());
    for (uint32_t e : spec.members) {
      SCOPED_TRACE(e);
      ASSERT_EQ(got[e].size(), want[e].size());
      ASSERT_GT(got[e].size(), 0u);
      for (std::size_t i = 0; i < got[e].size(); ++i) {
        const Op& a = got[e].ops[i];
        const Op& b = want[e].ops[i];
        EXPECT_EQ(a.kind, b.kind);
        EXPECT_EQ(a.peer, b.peer);
        EXPECT_EQ(a.bytes, b.bytes);
        EXPECT_EQ(a.tag, b.tag);
        if (a.kind == OpKind::kSend || a.kind == OpKind::kRecv) {
          EXPECT_TRUE(members.count(a.peer)) << "peer " << a.peer << " outside the group";
        }
      }
    }
  }
  EXPECT_EQ(all.phases(12), 0u);
  EXPECT_EQ(all.phases(13), 0u);
}

// The groups' ring neighbours: in {1, 4, 7, 10} rank 7 sends to 10 (clockwise) and 4.
TEST(CollectiveWorkload, RingNeighboursAreTheGroupsOwn) {
  CollectiveSpec base;
  base.op = Collective::kAllReduce;
  base.algorithm = Algorithm::kBidirRing;
  base.bytes = 1 << 20;
  const CollectiveWorkload w(cp_groups(base), 12, 1, 64, 1e-6, 1e9, 0);
  Program p;
  w.generate(7, 0, p);
  std::set<uint32_t> peers;
  for (const Op& op : p.ops) {
    if (op.kind == OpKind::kSend) peers.insert(op.peer);
  }
  EXPECT_EQ(peers, (std::set<uint32_t>{4, 10}));
}

// Traffic types: one per collective whatever the repetitions; a hierarchical one's sends are
// typed by their stage.
TEST(CollectiveWorkload, TrafficTypesAreTheCollectiveAndItsStages) {
  CollectiveSpec ring;
  ring.algorithm = Algorithm::kRing;
  ring.bytes = 4096;
  ring.members = {0, 1, 2, 3, 4, 5};
  const CollectiveWorkload repeated({ring}, 6, 3, 64, 1e-6, 1e9, 0);
  EXPECT_EQ(repeated.traffic_types(), std::vector<std::string>{"all_reduce ring"});
  CollectiveSpec h = ring;
  h.algorithm = Algorithm::kHierarchical;
  h.local = 3;
  const CollectiveWorkload two({h}, 6, 2, 64, 1e-6, 1e9, 0);
  EXPECT_EQ(two.traffic_types(), (std::vector<std::string>{"all_reduce hierarchical global",
                                                           "all_reduce hierarchical local"}));
  const std::vector<Program> sent = programs(two, 6);
  for (uint32_t e = 0; e < 6; ++e) {
    for (const Op& op : sent[e].ops) {
      if (op.kind != OpKind::kSend) continue;
      // Nodes {0, 1, 2} and {3, 4, 5}: a local send stays in its node, a global one leaves it.
      EXPECT_EQ(two.traffic_type(op) == 1, op.peer / 3 == e / 3);
      EXPECT_EQ(repeated.traffic_type(op), 0u);
    }
  }
}

}  // namespace
}  // namespace hx::wl
