// Collective generators: every algorithm's programs, run together by an abstract interpreter,
// complete with matched messages and the known byte totals and round counts; binary exchange
// delivers every block; α–β times. collectives_stages_test.cpp has the composite algorithms'
// stages, the spec checks and the all-to-all variants.
#include "models/workloads/collectives.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "core/error.h"
#include "workloads/collectives_test_support.h"

namespace hx::wl {
namespace {

using namespace hx::wl::testing;  // NOLINT: the shared interpreter and spec maker
using hx::wl::testing::make;  // beside the Case overload below

struct Case {
  Collective op;
  Algorithm a;
  uint32_t p, rows = 0, cols = 0, local = 0;
  Algorithm global = Algorithm::kRing2D;
  uint32_t grows = 0, gcols = 0;
  Algorithm local_algorithm = Algorithm::kBidirRing;
};

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  const Collective reducing[] = {Collective::kReduceScatter, Collective::kAllGather,
                                 Collective::kAllReduce};
  for (Collective op : reducing) {
    for (uint32_t p : {1u, 2u, 3u, 5u, 8u}) {
      cases.push_back({op, Algorithm::kRing, p});
      cases.push_back({op, Algorithm::kBidirRing, p});
      cases.push_back({op, Algorithm::kDirect, p});
      cases.push_back({op, Algorithm::kRing2D, p});  // no grid: one bidirectional ring
    }
    for (auto [r, c] : {std::pair{2u, 3u}, {4u, 4u}, {3u, 2u}, {1u, 4u}}) {
      cases.push_back({op, Algorithm::kRing2D, r * c, r, c});
      cases.push_back({op, Algorithm::kDirect, r * c, r, c});
    }
    cases.push_back({op, Algorithm::kHierarchical, 16, 0, 0, 4, Algorithm::kRing2D, 2, 2});
    cases.push_back({op, Algorithm::kHierarchical, 24, 0, 0, 4, Algorithm::kRing2D, 2, 3});
    cases.push_back({op, Algorithm::kHierarchical, 12, 0, 0, 4, Algorithm::kRing2D});
    cases.push_back({op, Algorithm::kHierarchical, 12, 0, 0, 4, Algorithm::kRing});
    cases.push_back({op, Algorithm::kHierarchical, 20, 0, 0, 4, Algorithm::kBidirRing});
    cases.push_back({op, Algorithm::kHierarchical, 12, 0, 0, 4, Algorithm::kDirect});
    cases.push_back({op, Algorithm::kHierarchical, 24, 0, 0, 4, Algorithm::kDirect, 3, 2});
    cases.push_back({op, Algorithm::kHierarchical, 4, 0, 0, 4, Algorithm::kRing2D});
    // The rail-only two-stage all-reduce: rings inside the nodes and among them.
    for (uint32_t local : {1u, 3u, 4u, 12u}) {
      cases.push_back({op, Algorithm::kHierarchical, 12, 0, 0, local, Algorithm::kRing, 0, 0,
                       Algorithm::kRing});
    }
  }
  for (uint32_t p : {1u, 2u, 3u, 6u, 8u}) {
    cases.push_back({Collective::kAllToAll, Algorithm::kDirect, p});
    cases.push_back({Collective::kAllToAll, Algorithm::kPairwise, p});
  }
  for (uint32_t p : {1u, 2u, 4u, 8u, 16u}) {
    cases.push_back({Collective::kAllToAll, Algorithm::kBinaryExchange, p});
  }
  return cases;
}

CollectiveSpec make(const Case& c, uint64_t bytes) {
  CollectiveSpec s = make(c.op, c.a, c.p, bytes);
  s.rows = c.rows;
  s.cols = c.cols;
  s.local = c.local;
  s.global_algorithm = c.global;
  s.global_rows = c.grows;
  s.global_cols = c.gcols;
  s.local_algorithm = c.local_algorithm;
  return s;
}

TEST(Collectives, EveryAlgorithmCompletesWithMatchedMessages) {
  for (const Case& c : all_cases()) {
    // 1 and 7 bytes exercise the 1-byte rounding; 1 MiB + 1 the uneven split.
    for (uint64_t bytes : {uint64_t{1}, uint64_t{7}, uint64_t{(1 << 20) + 1}}) {
      const CollectiveSpec s = make(c, bytes);
      SCOPED_TRACE(describe(s));
      execute(s);
    }
  }
}

// Without rows and cols a 2D ring is one dimension: the bidirectional ring's ops and time.
// A ring run in windows of steps sends exactly the messages of the whole ring: same peers,
// tags and sizes, each window ending in a wait that joins its last ops.
TEST(Collectives, WindowedRingsSendTheSameMessages) {
  for (Algorithm a : {Algorithm::kRing, Algorithm::kBidirRing}) {
    for (Collective op :
         {Collective::kReduceScatter, Collective::kAllGather, Collective::kAllReduce}) {
      for (uint32_t p : {2u, 5u, 8u}) {
        CollectiveSpec s = make(op, a, p, 1000003);
        s.tag_base = 0;
        ASSERT_TRUE(is_windowed_ring(s));
        for (uint32_t window : {1u, 3u, 100u}) {
          for (uint32_t r = 0; r < p; ++r) {
            Program whole, windows;
            append_collective(s, r, whole, {});
            for (uint32_t b = 0; b < ring_steps(s); b += window) {
              const uint32_t w =
                  append_ring_steps(s, r, b, std::min(ring_steps(s), b + window), windows, {});
              EXPECT_EQ(windows.ops[w].kind, OpKind::kWait);
              EXPECT_FALSE(windows.deps_of(w).empty());
            }
            auto messages = [](const Program& prog) {
              std::multiset<std::tuple<int, uint32_t, uint32_t, uint64_t>> m;
              for (const Op& o : prog.ops) {
                if (o.kind == OpKind::kSend || o.kind == OpKind::kRecv) {
                  m.insert({static_cast<int>(o.kind), o.peer, o.tag, o.bytes});
                }
              }
              return m;
            };
            EXPECT_EQ(messages(whole), messages(windows))
                << describe(s) << " window " << window << " rank " << r;
          }
        }
      }
    }
  }
  CollectiveSpec direct = make(Collective::kAllReduce, Algorithm::kDirect, 4, 100);
  EXPECT_FALSE(is_windowed_ring(direct));
}

TEST(Collectives, Ring2DWithoutGridIsABidirectionalRing) {
  const CollectiveSpec flat = make(Collective::kAllReduce, Algorithm::kRing2D, 5, 1001);
  const CollectiveSpec bidir = make(Collective::kAllReduce, Algorithm::kBidirRing, 5, 1001);
  EXPECT_EQ(collective_tags(flat), collective_tags(bidir));
  EXPECT_EQ(alpha_beta_seconds(flat, 1e-6, 1e9), alpha_beta_seconds(bidir, 1e-6, 1e9));
  for (uint32_t r = 0; r < 5; ++r) {
    Program a, b;
    append_collective(flat, r, a, {});
    append_collective(bidir, r, b, {});
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(a.deps, b.deps);
    for (uint32_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a.ops[i].kind, b.ops[i].kind);
      EXPECT_EQ(a.ops[i].peer, b.ops[i].peer);
      EXPECT_EQ(a.ops[i].tag, b.ops[i].tag);
      EXPECT_EQ(a.ops[i].bytes, b.ops[i].bytes);
    }
  }
}

uint64_t max_sent(const Outcome& run) {
  uint64_t m = 0;
  for (auto& [e, b] : run.sent) m = std::max(m, b);
  return m;
}
uint64_t min_sent(const Outcome& run) {
  uint64_t m = UINT64_MAX;
  for (auto& [e, b] : run.sent) m = std::min(m, b);
  return m;
}

// Per-member bytes sent, with V a multiple of 2p so every split is exact.
TEST(Collectives, BytesSentPerMember) {
  const uint64_t v = 2 * 3 * 4 * 5 * 7 * 1024;
  auto expect_all = [&](const CollectiveSpec& s, uint64_t want) {
    SCOPED_TRACE(describe(s));
    const Outcome run = execute(s);
    EXPECT_EQ(min_sent(run), want);
    EXPECT_EQ(max_sent(run), want);
  };
  for (uint32_t p : {3u, 4u, 5u, 7u}) {
    for (Algorithm a : {Algorithm::kRing, Algorithm::kBidirRing, Algorithm::kDirect}) {
      expect_all(make(Collective::kAllReduce, a, p, v), 2 * (p - 1) * v / p);
      expect_all(make(Collective::kReduceScatter, a, p, v), (p - 1) * v / p);
      expect_all(make(Collective::kAllGather, a, p, v), (p - 1) * v / p);
    }
    expect_all(make(Collective::kAllToAll, Algorithm::kDirect, p, v), (p - 1) * v / p);
    expect_all(make(Collective::kAllToAll, Algorithm::kPairwise, p, v), (p - 1) * v / p);
  }
  for (uint32_t p : {2u, 4u, 8u, 16u}) {
    const uint64_t log2p = std::countr_zero(p);
    expect_all(make(Collective::kAllToAll, Algorithm::kBinaryExchange, p, v), log2p * v / 2);
  }
  // 2D ring on r x c: each half moves (c-1)/c · V/2 along rows and (r-1)/r · V/(2c) along
  // columns per pass; both halves together: (c-1)/c · V + (r-1)/r · V/c per pass
  // = (rc-1)/(rc) · V, the same as a ring of rc members.
  for (auto [r, c] : {std::pair{2u, 3u}, {4u, 4u}}) {
    for (Algorithm a : {Algorithm::kRing2D, Algorithm::kDirect}) {
      CollectiveSpec s = make(Collective::kAllReduce, a, r * c, v * 4);
      s.rows = r;
      s.cols = c;
      expect_all(s, 2 * (r * c - 1) * (v * 4) / (r * c));
    }
  }
  // Hierarchical 16 = 4 nodes x 4 on a 2x2 node grid: local 3/4 V + global 3/4 V/4, twice.
  CollectiveSpec h = make(Collective::kAllReduce, Algorithm::kHierarchical, 16, v * 16);
  h.local = 4;
  h.global_rows = 2;
  h.global_cols = 2;
  expect_all(h, 2 * (3 * (v * 16) / 4 + 3 * (v * 16) / 16));
}

// Uneven volumes: totals within rounding of the exact values, and all bytes accounted.
TEST(Collectives, UnevenSplitsSumToTheVolume) {
  const uint64_t v = 1000003;
  for (uint32_t p : {3u, 6u, 7u}) {
    const Outcome ring = execute(make(Collective::kAllReduce, Algorithm::kRing, p, v));
    const double exact = 2.0 * (p - 1) * v / p;
    EXPECT_LE(std::abs(static_cast<double>(max_sent(ring)) - exact), 2.0 * (p - 1));
    EXPECT_LE(std::abs(static_cast<double>(min_sent(ring)) - exact), 2.0 * (p - 1));
    // A reduce-scatter sends every chunk but the one each member keeps: V in total per chunk
    // index over the group, so the group sends (p-1) V bytes exactly.
    const Outcome rs = execute(make(Collective::kReduceScatter, Algorithm::kBidirRing, p, v));
    uint64_t total = 0;
    for (auto& [e, b] : rs.sent) total += b;
    EXPECT_EQ(total, (p - 1) * v);
  }
}

TEST(Collectives, RoundsAreTheLongestMessageChain) {
  for (uint32_t p : {2u, 3u, 5u, 8u}) {
    EXPECT_EQ(execute(make(Collective::kAllReduce, Algorithm::kRing, p, 4096)).rounds, 2 * (p - 1));
    EXPECT_EQ(execute(make(Collective::kAllReduce, Algorithm::kBidirRing, p, 4096)).rounds,
              2 * (p - 1));
    EXPECT_EQ(execute(make(Collective::kReduceScatter, Algorithm::kRing, p, 4096)).rounds, p - 1);
    EXPECT_EQ(execute(make(Collective::kAllReduce, Algorithm::kDirect, p, 4096)).rounds, 2u);
    EXPECT_EQ(execute(make(Collective::kAllToAll, Algorithm::kDirect, p, 4096)).rounds, 1u);
    EXPECT_EQ(execute(make(Collective::kAllToAll, Algorithm::kPairwise, p, 4096)).rounds, p - 1);
  }
  for (uint32_t p : {2u, 4u, 8u, 16u, 32u}) {
    EXPECT_EQ(execute(make(Collective::kAllToAll, Algorithm::kBinaryExchange, p, 4096)).rounds,
              static_cast<uint32_t>(std::countr_zero(p)));
  }
  // 2D ring AR on 2x3: the longer half runs RS 2 + AR 2·1 + AG 2 = 6... per half: row (c-1),
  // column 2(r-1), row (c-1) for half A = 2 + 2 + 2 = 6; half B: 1 + 4 + 1 = 6.
  CollectiveSpec g = make(Collective::kAllReduce, Algorithm::kRing2D, 6, 4096);
  g.rows = 2;
  g.cols = 3;
  EXPECT_EQ(execute(g).rounds, 6u);
  // Hierarchical, local 4, 2x2 nodes: local RS 3 + global 2D AR (1 + 2 + 1) + local AG 3.
  CollectiveSpec h = make(Collective::kAllReduce, Algorithm::kHierarchical, 16, 4096);
  h.local = 4;
  h.global_rows = 2;
  h.global_cols = 2;
  EXPECT_EQ(execute(h).rounds, 10u);
}

// Data-movement bookkeeping with the send rule alone: block (s, d) starts at node s and must end
// at node d, each round moving p/2 blocks per node, never duplicating one.
TEST(Collectives, BinaryExchangeDeliversEveryBlockOnce) {
  for (uint32_t p : {2u, 4u, 8u, 16u, 32u}) {
    SCOPED_TRACE("p=" + std::to_string(p));
    const uint32_t rounds = std::countr_zero(p);
    const uint64_t v = 64 * p;  // blocks of 64 bytes
    const Outcome run = execute(make(Collective::kAllToAll, Algorithm::kBinaryExchange, p, v));
    std::vector<std::vector<Block>> held(p);
    for (uint32_t s = 0; s < p; ++s) {
      for (uint32_t d = 0; d < p; ++d) held[s].push_back({s, d});
    }
    for (uint32_t k = 1; k <= rounds; ++k) {
      std::vector<std::vector<Block>> next(p);
      for (uint32_t i = 0; i < p; ++i) {
        const std::vector<Block> out = binary_exchange_sends(p, i, k, held[i]);
        EXPECT_EQ(out.size(), p / 2);
        // The generator's message of round k carries exactly these blocks.
        const Program& prog = run.programs.at(3 + 5 * i);
        const Op& send = prog.ops[1 + 2 * (k - 1)];
        ASSERT_EQ(send.kind, OpKind::kSend);
        EXPECT_EQ(send.bytes, out.size() * 64);
        EXPECT_EQ(send.peer, 3 + 5 * (i ^ (1u << (rounds - k))));
        const uint32_t partner = i ^ (1u << (rounds - k));
        for (const Block& b : held[i]) {
          const bool moves = std::find(out.begin(), out.end(), b) != out.end();
          next[moves ? partner : i].push_back(b);
        }
      }
      held = std::move(next);
    }
    std::set<std::pair<uint32_t, uint32_t>> seen;
    for (uint32_t i = 0; i < p; ++i) {
      EXPECT_EQ(held[i].size(), p);
      for (const Block& b : held[i]) {
        EXPECT_EQ(b.dst, i) << "block " << b.src << "->" << b.dst << " ends at " << i;
        EXPECT_TRUE(seen.insert({b.src, b.dst}).second);
      }
    }
    EXPECT_EQ(seen.size(), size_t{p} * p);
  }
}

TEST(Collectives, AlphaBetaMatchesHandComputedTimes) {
  const double a = 1e-6, b = 1e9;  // 1 µs per step, 1 GB/s
  const uint64_t v = 8'000'000;    // 8 MB
  auto t = [&](CollectiveSpec s, double bl = 0) { return alpha_beta_seconds(s, a, b, bl); };
  // Ring AR, p = 4: 2[3 µs + 3/4 · 8 ms] = 2 · 6.003 ms.
  EXPECT_DOUBLE_EQ(t(make(Collective::kAllReduce, Algorithm::kRing, 4, v)), 12.006e-3);
  // Bidir ring RS, p = 4: 3 µs + 3/4 · 8e6 / 2e9 = 3 µs + 3 ms.
  EXPECT_DOUBLE_EQ(t(make(Collective::kReduceScatter, Algorithm::kBidirRing, 4, v)), 3.003e-3);
  // 2D ring AR on 2 x 4: 2[T_R(4, 4e6) + T_R(2, 1e6)]
  //   T_R(4, 4e6) = 3 µs + 3/4 · 4e6/2e9 = 3 µs + 1.5 ms;  T_R(2, 1e6) = 1 µs + 0.25 ms.
  CollectiveSpec g = make(Collective::kAllReduce, Algorithm::kRing2D, 8, v);
  g.rows = 2;
  g.cols = 4;
  EXPECT_DOUBLE_EQ(t(g), 2 * (1.503e-3 + 0.251e-3));
  // Direct AR, p = 5: 2[1 µs + 4/5 · 4 ms] = 2 · 3.201 ms.
  EXPECT_DOUBLE_EQ(t(make(Collective::kAllReduce, Algorithm::kDirect, 5, v)), 6.402e-3);
  // 2D direct AG on 2 x 4: T_AR(4, 4e6) + T_AR(2, 1e6) = (1 µs + 1.5 ms) + (1 µs + 0.25 ms).
  g.algorithm = Algorithm::kDirect;
  g.op = Collective::kAllGather;
  EXPECT_DOUBLE_EQ(t(g), 1.752e-3);
  // Hierarchical AR, 16 = 4 x 4, local B 4 GB/s, global bidir ring of 4 nodes on 2e6 bytes:
  //   local 2 T_R(4, 8e6, 4e9) = 2(3 µs + 3/4 · 1 ms) = 2 · 0.753 ms
  //   global 2 T_R(4, 2e6, 1e9) = 2(3 µs + 3/4 · 1 ms) = 2 · 0.753 ms.
  CollectiveSpec h = make(Collective::kAllReduce, Algorithm::kHierarchical, 16, v);
  h.local = 4;
  h.global_algorithm = Algorithm::kBidirRing;
  EXPECT_DOUBLE_EQ(t(h, 4e9), 4 * 0.753e-3);
  // Same with the default global step (2D ring) on 2 x 2 nodes: 2[T_R(2, 1e6) + T_R(2, 0.5e6)]
  //   = 2[(1 µs + 0.25 ms) + (1 µs + 0.125 ms)] = 0.754 ms.
  h.global_algorithm = Algorithm::kRing2D;
  h.global_rows = 2;
  h.global_cols = 2;
  EXPECT_DOUBLE_EQ(t(h, 4e9), 2 * 0.753e-3 + 0.754e-3);
  // All-to-all, p = 8: direct 1 µs + 7/8 · 8 ms = 7.001 ms; pairwise 7(1 µs + 1 ms) = 7.007 ms;
  // binary exchange 3(1 µs + 4 ms) = 12.003 ms.
  EXPECT_DOUBLE_EQ(t(make(Collective::kAllToAll, Algorithm::kDirect, 8, v)), 7.001e-3);
  EXPECT_DOUBLE_EQ(t(make(Collective::kAllToAll, Algorithm::kPairwise, 8, v)), 7.007e-3);
  EXPECT_DOUBLE_EQ(t(make(Collective::kAllToAll, Algorithm::kBinaryExchange, 8, v)), 12.003e-3);
  // One member: nothing to do.
  EXPECT_EQ(t(make(Collective::kAllReduce, Algorithm::kDirect, 1, v)), 0);
}

}  // namespace
}  // namespace hx::wl
