// Collective generators: every algorithm's programs, run together by an abstract interpreter,
// complete with matched messages and the known byte totals and round counts; binary exchange
// delivers every block; α–β times and spec checks.
#include "models/workloads/collectives.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "core/error.h"

namespace hx::wl {
namespace {

using Key = std::tuple<uint32_t, uint32_t, uint32_t>;  // (src, dst, tag)

struct Outcome {
  std::map<uint32_t, Program> programs;  // by endpoint
  std::map<uint32_t, uint32_t> done_op;  // endpoint -> the op append_collective returned
  std::map<uint32_t, uint64_t> sent;     // endpoint -> bytes sent
  uint32_t rounds = 0;                   // longest chain of dependent messages
};

// Endpoints are spread out (3 + 5 * rank) so that group ranks and endpoints differ.
CollectiveSpec make(Collective op, Algorithm a, uint32_t p, uint64_t bytes) {
  CollectiveSpec s;
  s.op = op;
  s.algorithm = a;
  s.bytes = bytes;
  for (uint32_t r = 0; r < p; ++r) s.members.push_back(3 + 5 * r);
  s.group = 7;
  s.tag_base = 100;
  return s;
}

// Builds every member's program behind one earlier op, then executes them all together: an op
// runs once its dependencies are done; a send is done when issued; a recv once the matching send
// has been issued. Checks completion, one recv per send with equal bytes, unique tags in range.
Outcome execute(const CollectiveSpec& spec) {
  check_collective(spec, "test");
  Outcome run;
  for (uint32_t r = 0; r < spec.members.size(); ++r) {
    Program& prog = run.programs[spec.members[r]];
    const uint32_t before = prog.compute(1, 0);
    const uint32_t done = append_collective(spec, r, prog, std::vector<uint32_t>{before});
    EXPECT_EQ(done, prog.size() - 1);
    EXPECT_EQ(prog.ops[done].kind, OpKind::kWait);
    run.done_op[spec.members[r]] = done;
    // Every collective op waits (transitively) for `before`, and the wait for every op.
    std::vector<bool> needed(prog.size(), false);
    needed[done] = true;
    for (uint32_t i = done + 1; i-- > 1;) {
      EXPECT_FALSE(prog.deps_of(i).empty() && i != done) << "op " << i << " ignores `after`";
      if (!needed[i]) continue;
      for (uint32_t d : prog.deps_of(i)) needed[d] = true;
    }
    for (uint32_t i = 1; i < prog.size(); ++i) EXPECT_TRUE(needed[i]) << "op " << i;
  }
  std::map<Key, uint64_t> sends, recvs;
  const uint32_t tag_end = spec.tag_base + collective_tags(spec);
  for (auto& [e, prog] : run.programs) {
    for (const Op& op : prog.ops) {
      if (op.kind != OpKind::kSend && op.kind != OpKind::kRecv) continue;
      EXPECT_EQ(op.group, spec.group);
      EXPECT_GE(op.tag, spec.tag_base);
      EXPECT_LT(op.tag, tag_end);
      const bool is_send = op.kind == OpKind::kSend;
      const Key key = is_send ? Key{e, op.peer, op.tag} : Key{op.peer, e, op.tag};
      auto& table = is_send ? sends : recvs;
      EXPECT_TRUE(table.emplace(key, op.bytes).second)
          << "tag " << op.tag << " used twice from " << std::get<0>(key) << " to "
          << std::get<1>(key);
      if (is_send) run.sent[e] += op.bytes;
    }
  }
  EXPECT_EQ(sends, recvs);  // same keys, same byte counts

  // Execution. hops[op] = messages on the longest dependent chain ending at op.
  std::map<uint32_t, std::vector<int>> hops;  // -1: not done
  for (auto& [e, prog] : run.programs) hops[e].assign(prog.size(), -1);
  std::map<Key, int> issued;
  for (bool progress = true; progress;) {
    progress = false;
    for (auto& [e, prog] : run.programs) {
      for (uint32_t i = 0; i < prog.size(); ++i) {
        if (hops[e][i] >= 0) continue;
        int h = 0;
        bool ready = true;
        for (uint32_t d : prog.deps_of(i)) {
          ready = ready && hops[e][d] >= 0;
          h = std::max(h, hops[e][d]);
        }
        if (!ready) continue;
        const Op& op = prog.ops[i];
        if (op.kind == OpKind::kSend) {
          issued[{e, op.peer, op.tag}] = ++h;
        } else if (op.kind == OpKind::kRecv) {
          const auto it = issued.find({op.peer, e, op.tag});
          if (it == issued.end()) continue;
          h = std::max(h, it->second);
        }
        hops[e][i] = h;
        run.rounds = std::max<uint32_t>(run.rounds, h);
        progress = true;
      }
    }
  }
  for (auto& [e, prog] : run.programs) {
    for (uint32_t i = 0; i < prog.size(); ++i) {
      EXPECT_GE(hops[e][i], 0) << "endpoint " << e << " op " << i << " never completes";
    }
  }
  return run;
}

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

std::string describe(const CollectiveSpec& s) {
  return std::string(collective_name(s.op)) + " " + algorithm_name(s.algorithm) +
         " p=" + std::to_string(s.members.size()) + " " + std::to_string(s.rows) + "x" +
         std::to_string(s.cols) + " local=" + std::to_string(s.local) + " " +
         algorithm_name(s.local_algorithm) + " global=" + algorithm_name(s.global_algorithm) +
         " V=" + std::to_string(s.bytes);
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
  expect_rejected(h, {"local = 0"});
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

}  // namespace
}  // namespace hx::wl

namespace hx::wl {
namespace {

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
