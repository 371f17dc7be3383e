// Collective generators, the composite algorithms' stages (grid halves kept in step,
// hierarchical stages, rail-only's two-stage all-reduce and all-to-all), collectives sharing a
// phase, unequal all-to-all blocks, the spec checks and the names.
#include <gtest/gtest.h>

#include <initializer_list>
#include <map>
#include <string>

#include "core/error.h"
#include "models/workloads/collectives.h"
#include "workloads/collectives_test_support.h"

namespace hx::wl {
namespace {

using namespace hx::wl::testing;  // NOLINT: the shared interpreter and spec maker

// join_halves keeps a grid's halves in step: the same messages, but a stage of either half
// starts only after both halves' stage before it, so on a 2 x 4 grid the longest chain is
// max per stage, 3 + 6 + 3 = 12 messages for an all-reduce (half A: row RS 3, column AR 2,
// row AG 3 = 8; half B: 1 + 6 + 1 = 8), while on a square grid both halves are equally long
// and nothing changes.
TEST(Collectives, JoinedHalvesKeepTheGridsHalvesInStep) {
  struct Expect {
    Collective op;
    Algorithm a;
    uint32_t rows, cols, apart, joined;
  };
  for (const Expect& e : {Expect{Collective::kAllReduce, Algorithm::kRing2D, 2, 4, 8, 12},
                          Expect{Collective::kReduceScatter, Algorithm::kRing2D, 2, 4, 4, 6},
                          Expect{Collective::kAllGather, Algorithm::kRing2D, 2, 4, 4, 6},
                          Expect{Collective::kAllReduce, Algorithm::kRing2D, 3, 3, 8, 8},
                          Expect{Collective::kAllReduce, Algorithm::kDirect, 2, 4, 4, 4}}) {
    CollectiveSpec s = make(e.op, e.a, e.rows * e.cols, 1 << 20);
    s.rows = e.rows;
    s.cols = e.cols;
    SCOPED_TRACE(describe(s));
    const Outcome apart = execute(s);
    s.join_halves = true;
    const Outcome joined = execute(s);
    EXPECT_EQ(apart.rounds, e.apart);
    EXPECT_EQ(joined.rounds, e.joined);
    EXPECT_EQ(apart.sent, joined.sent);
  }
  // A hierarchical all-reduce's grid global step joins its halves too; elsewhere it is refused.
  CollectiveSpec h = make(Collective::kAllReduce, Algorithm::kHierarchical, 32, 1 << 20);
  h.local = 4;
  h.global_rows = 2;
  h.global_cols = 4;
  h.join_halves = true;
  execute(h);
  CollectiveSpec ring = make(Collective::kAllReduce, Algorithm::kBidirRing, 8, 1 << 20);
  ring.join_halves = true;
  EXPECT_THROW(check_collective(ring, "w"), InputError);
}

// Two collectives back to back in one program with consecutive tag ranges do not collide.
TEST(Collectives, ConsecutiveCollectivesShareAPhase) {
  CollectiveSpec a = make(Collective::kAllReduce, Algorithm::kRing2D, 6, 600);
  a.rows = 2;
  a.cols = 3;
  CollectiveSpec b = make(Collective::kAllReduce, Algorithm::kBidirRing, 6, 600);
  b.tag_base = a.tag_base + collective_tags(a);
  std::map<Key, int> keys;
  for (uint32_t r = 0; r < 6; ++r) {
    Program prog;
    const uint32_t first = append_collective(a, r, prog, {});
    append_collective(b, r, prog, std::vector<uint32_t>{first});
    for (const Op& op : prog.ops) {
      if (op.kind == OpKind::kSend) {
        const Key key(a.members[r], op.peer, op.tag);
        EXPECT_EQ(++keys[key], 1);
      }
    }
  }
}

void expect_rejected(const CollectiveSpec& s, std::initializer_list<const char*> facts) {
  try {
    check_collective(s, "workload.dp");
    ADD_FAILURE() << "accepted " << describe(s);
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("workload.dp: ", 0), 0u) << msg;
    for (const char* f : facts) EXPECT_NE(msg.find(f), std::string::npos) << msg << " / " << f;
  }
}

TEST(Collectives, CheckRejectsBadSpecs) {
  const auto ar = Collective::kAllReduce;
  expect_rejected(make(ar, Algorithm::kRing, 0, 8), {"empty"});
  CollectiveSpec dup = make(ar, Algorithm::kRing, 3, 8);
  dup.members[2] = dup.members[0];
  expect_rejected(dup, {"endpoint 3", "twice"});
  expect_rejected(make(ar, Algorithm::kRing, 3, 0), {"0 bytes"});
  expect_rejected(make(Collective::kAllToAll, Algorithm::kBinaryExchange, 6, 8),
                  {"binary_exchange", "power-of-two", "6"});
  expect_rejected(make(ar, Algorithm::kPairwise, 4, 8), {"pairwise", "all_reduce"});
  expect_rejected(make(Collective::kAllToAll, Algorithm::kRing, 4, 8), {"ring", "all_to_all"});
  CollectiveSpec grid = make(ar, Algorithm::kRing2D, 8, 8);
  grid.rows = 2;
  expect_rejected(grid, {"2 x 0", "8"});
  grid.cols = 3;
  expect_rejected(grid, {"2 x 3", "6", "8"});
  CollectiveSpec ring_grid = make(ar, Algorithm::kRing, 6, 8);
  ring_grid.rows = 2;
  ring_grid.cols = 3;
  expect_rejected(ring_grid, {"rows", "ring"});
  CollectiveSpec h = make(ar, Algorithm::kHierarchical, 12, 8);
  h.local = 5;
  expect_rejected(h, {"local = 5", "12"});
  h.local = 0;
  expect_rejected(h, {"needs local", "12"});
  h.local = 4;
  h.global_rows = 2;
  h.global_cols = 2;
  expect_rejected(h, {"2 x 2", "3 nodes"});
  h.global_algorithm = Algorithm::kPairwise;
  expect_rejected(h, {"global", "pairwise"});
  h.global_algorithm = Algorithm::kRing;
  h.global_rows = h.global_cols = 0;
  h.local_algorithm = Algorithm::kDirect;
  expect_rejected(h, {"local step", "direct"});
  CollectiveSpec ok = make(ar, Algorithm::kHierarchical, 12, 8);
  ok.local = 4;
  EXPECT_NO_THROW(check_collective(ok, "workload.dp"));
}

// The hierarchical algorithm's ops carry their stage: the local steps stay inside the member's
// node, the global step goes to the same local rank of other nodes; with rings at both levels
// each member sends 2(l-1)/l V inside its node and 2(n-1)/n V/l across (rail-only §2.2).
TEST(Collectives, HierarchicalStagesAreLabelled) {
  const uint32_t local = 4, nodes = 3, p = local * nodes;
  const uint64_t v = 4 * 3 * 1024;
  for (Algorithm in_node : {Algorithm::kRing, Algorithm::kBidirRing}) {
    CollectiveSpec s = make(Collective::kAllReduce, Algorithm::kHierarchical, p, v);
    s.local = local;
    s.local_algorithm = in_node;
    s.global_algorithm = Algorithm::kRing;
    SCOPED_TRACE(describe(s));
    const Outcome run = execute(s);
    for (uint32_t q = 0; q < p; ++q) {
      std::map<Stage, uint64_t> bytes;
      for (const Op& op : run.programs.at(s.members[q]).ops) {
        if (op.kind != OpKind::kSend && op.kind != OpKind::kRecv) {
          EXPECT_EQ(op.stage, Stage::kWhole);
          continue;
        }
        const auto peer = static_cast<uint32_t>(
            std::find(s.members.begin(), s.members.end(), op.peer) - s.members.begin());
        ASSERT_NE(op.stage, Stage::kWhole);
        if (op.stage == Stage::kLocal) {
          EXPECT_EQ(peer / local, q / local) << "a local step leaves the node";
        } else {
          EXPECT_NE(peer / local, q / local) << "a global step stays in the node";
          EXPECT_EQ(peer % local, q % local) << "a global step changes rail";
        }
        if (op.kind == OpKind::kSend) bytes[op.stage] += op.bytes;
      }
      EXPECT_EQ(bytes[Stage::kLocal], 2 * (local - 1) * v / local);
      EXPECT_EQ(bytes[Stage::kGlobal], 2 * (nodes - 1) * (v / local) / nodes);
    }
  }
}

// The rail-only paper's Eq. 1 DP terms, by hand: S_T = 96 MB per block, N_M = 8, so V = 12 MB
// per GPU; N_Ds = 4 GPUs of a DP group per HB domain (K = 32), N_Df = 16 domains (N = 512);
// B_F = 900 GB/s, B_S = 50 GB/s, α = 2 µs.
//   second stage 2 S_T (N_Ds - 1)/(K B_F) = 2 · 96e6 · 3 / (32 · 900e9) = 20 µs,  + 6α
//   first stage  2 S_T (N_Df - 1)/(N B_S) = 2 · 96e6 · 15 / (512 · 50e9) = 112.5 µs, + 30α
TEST(Collectives, TwoStageAllReduceIsRailOnlyEq1) {
  const double alpha = 2e-6, b_s = 50e9, b_f = 900e9, v = 12e6;
  EXPECT_NEAR(two_stage_all_reduce_seconds(4, 16, v, 0, b_s, b_f), 20e-6 + 112.5e-6, 1e-15);
  EXPECT_NEAR(two_stage_all_reduce_seconds(4, 16, v, alpha, b_s, b_f),
              20e-6 + 112.5e-6 + 36 * alpha, 1e-15);
  // The hierarchical algorithm with rings at both levels, B = B_S and B_local = B_F.
  CollectiveSpec s = make(Collective::kAllReduce, Algorithm::kHierarchical, 64, 12'000'000);
  s.local = 4;
  s.local_algorithm = Algorithm::kRing;
  s.global_algorithm = Algorithm::kRing;
  EXPECT_NEAR(alpha_beta_seconds(s, alpha, b_s, b_f),
              two_stage_all_reduce_seconds(4, 16, v, alpha, b_s, b_f), 1e-15);
  // One domain: the second stage alone; one member per domain: a ring all-reduce at B_S.
  EXPECT_DOUBLE_EQ(two_stage_all_reduce_seconds(4, 1, v, alpha, b_s, b_f),
                   2 * (3 * alpha + 0.75 * v / b_f));
  EXPECT_DOUBLE_EQ(two_stage_all_reduce_seconds(1, 16, v, alpha, b_s, b_f),
                   alpha_beta_seconds(
                       make(Collective::kAllReduce, Algorithm::kRing, 16, 12'000'000), alpha, b_s));
}

TEST(Collectives, NamesRoundTrip) {
  ASSERT_EQ(collective_names().size(), 4u);
  for (int c = 0; c < 4; ++c) {
    EXPECT_EQ(collective_names()[c], collective_name(static_cast<Collective>(c)));
  }
  ASSERT_EQ(algorithm_names().size(), 7u);
  for (int a = 0; a < 7; ++a) {
    EXPECT_EQ(algorithm_names()[a], algorithm_name(static_cast<Algorithm>(a)));
  }
}

// The two-stage all-to-all (rail-only §3.1's forwarding as a collective): 3 nodes of 4 members,
// V = 12 blocks of 10 bytes. Inside its node a member sends each of the 3 others the blocks of
// every node's member of that lane, 3 x 10 bytes; then each of the 2 other nodes the 4 blocks
// its node holds for it, 4 x 10 bytes: 90 + 80 bytes sent, local pairs in the node, global pairs
// on one lane in another node. α–β: a + 3 x 3 x 10 / B_local + a + 2 x 4 x 10 / B.
// Unequal blocks (MoE expert imbalance): every member ends with what the others' blocks for
// it hold and gives away what its own blocks for them hold; forwarders (binary exchange, the
// two-stage all-to-all) pass on exactly what they take in.
TEST(Collectives, UnequalAllToAllBlocksArriveWhole) {
  const uint32_t p = 8;
  for (const Algorithm a : {Algorithm::kDirect, Algorithm::kPairwise, Algorithm::kBinaryExchange,
                            Algorithm::kHierarchical}) {
    SCOPED_TRACE(algorithm_name(a));
    CollectiveSpec s = make(Collective::kAllToAll, a, p, 1000);
    if (a == Algorithm::kHierarchical) s.local = 4;
    for (uint32_t src = 0; src < p; ++src) {
      for (uint32_t dst = 0; dst < p; ++dst) s.blocks.push_back(10 + 7 * src + 3 * dst * dst);
    }
    const Outcome run = execute(s);
    for (uint32_t r = 0; r < p; ++r) {
      int64_t in = 0, out = 0, expected = 0;
      for (const Op& op : run.programs.at(3 + 5 * r).ops) {
        if (op.kind == OpKind::kRecv) in += static_cast<int64_t>(op.bytes);
        if (op.kind == OpKind::kSend) out += static_cast<int64_t>(op.bytes);
      }
      for (uint32_t q = 0; q < p; ++q) {
        if (q == r) continue;
        expected += static_cast<int64_t>(s.blocks[q * p + r] - s.blocks[r * p + q]);
      }
      EXPECT_EQ(in - out, expected) << "member " << r;
    }
  }
  CollectiveSpec bad = make(Collective::kAllToAll, Algorithm::kDirect, 4, 100);
  bad.blocks.assign(15, 1);
  expect_rejected(bad, {"blocks", "16"});
}

TEST(Collectives, TwoStageAllToAllForwardsInsideTheNode) {
  CollectiveSpec s = make(Collective::kAllToAll, Algorithm::kHierarchical, 12, 120);
  s.local = 4;
  const Outcome run = execute(s);
  for (uint32_t r = 0; r < 12; ++r) {
    const uint32_t e = 3 + 5 * r;
    EXPECT_EQ(run.sent.at(e), 3u * 30 + 2u * 40) << "member " << r;
    for (const Op& op : run.programs.at(e).ops) {
      if (op.kind != OpKind::kSend) continue;
      const uint32_t peer = (op.peer - 3) / 5;
      if (op.stage == Stage::kLocal) {
        EXPECT_EQ(peer / 4, r / 4);
        EXPECT_EQ(op.bytes, 30u);
      } else {
        EXPECT_EQ(op.stage, Stage::kGlobal);
        EXPECT_EQ(peer % 4, r % 4);
        EXPECT_NE(peer / 4, r / 4);
        EXPECT_EQ(op.bytes, 40u);
      }
    }
  }
  EXPECT_EQ(run.rounds, 2u);
  EXPECT_DOUBLE_EQ(alpha_beta_seconds(s, 1e-6, 10.0, 100.0), 2e-6 + 90.0 / 100 + 80.0 / 10);
  s.local = 5;
  EXPECT_THROW(check_collective(s, "test"), InputError);
}

}  // namespace
}  // namespace hx::wl
