// Symmetry's group arithmetic on real mappings, and LlmWorkload's symmetry checked exhaustively:
// every program of every endpoint of small configurations against its relabelled image under
// every element, plus the cases where folding must be refused.
#include "models/workloads/symmetry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <set>
#include <stdexcept>

#include "models/workloads/collective_workload.h"
#include "models/workloads/llm.h"

namespace hx::wl {
namespace {

// --- The group ---------------------------------------------------------------------------

// Every identity the header promises, on every endpoint and element.
void expect_group_laws(const Symmetry& s, uint32_t endpoints) {
  for (uint32_t e = 0; e < endpoints; ++e) {
    const uint32_t rep = s.representative(e);
    EXPECT_TRUE(s.is_representative(rep));
    EXPECT_EQ(s.element_of(rep), 0u);
    EXPECT_EQ(s.apply(s.element_of(e), rep), e);
    std::set<uint32_t> orbit;
    for (uint32_t g = 0; g < s.order(); ++g) {
      const uint32_t ge = s.apply(g, e);
      ASSERT_LT(ge, endpoints);
      EXPECT_EQ(s.apply(s.inverse(g), ge), e) << "g " << g << " e " << e;
      EXPECT_EQ(s.representative(ge), rep);
      orbit.insert(ge);
    }
    EXPECT_EQ(orbit.size(), s.order());  // the group acts freely: no element fixes e but 0
  }
  EXPECT_EQ(s.inverse(0), 0u);
}

TEST(Symmetry, LinearMappingShiftsDigits) {
  const Mapping m = Mapping::linear(12, 12);  // digits t (1 x 3), u (3 x 2), d (6 x 2)
  const Symmetry s({{"T", 1, 3}, {"D", 6, 2}}, m);
  EXPECT_EQ(s.order(), 6u);
  EXPECT_EQ(s.describe(), "T x D: 6 endpoints per orbit");
  // Rank 4 = t 1, u 1, d 0; element 5 = shift t by 2, d by 1: t 0, u 1, d 1 = rank 9.
  EXPECT_EQ(s.apply(5, 4), 9u);
  EXPECT_EQ(s.element_of(4), 1u);
  EXPECT_EQ(s.representative(4), 3u);
  EXPECT_EQ(s.inverse(5), 1u + 3 * 1);  // t by 1, d by 1
  expect_group_laws(s, 12);
}

TEST(Symmetry, NodeMajorMappingCarriesShiftsToEndpoints) {
  const Mapping m = Mapping::node_major({8, 4}, {2, 2});  // ranks 0-3 on a 2x2 node
  const Symmetry s({{"TP", 1, 2}, {"CP", 2, 2}, {"DP", 8, 4}}, m);
  EXPECT_EQ(s.order(), 16u);
  expect_group_laws(s, 32);
  // Rank 1 sits on endpoint 1; the TP shift takes rank 0 there.
  EXPECT_EQ(s.apply(1, m.endpoint(0)), m.endpoint(1));
  // The CP shift takes rank 0 to rank 2, on the node's second row (endpoint 8).
  EXPECT_EQ(s.apply(2, m.endpoint(0)), 8u);
}

TEST(Symmetry, RejectsBadDigitsAndMappings) {
  const Mapping m = Mapping::linear(12, 12);
  const auto make = [&](std::vector<Digit> d) { Symmetry s(std::move(d), m); };
  EXPECT_THROW(make({{"A", 1, 1}}), std::invalid_argument);               // size 1
  EXPECT_THROW(make({{"A", 0, 2}}), std::invalid_argument);               // stride 0
  EXPECT_THROW(make({{"A", 1, 5}}), std::invalid_argument);               // 5 does not divide 12
  EXPECT_THROW(make({{"A", 1, 24}}), std::invalid_argument);              // beyond the ranks
  EXPECT_THROW(make({{"A", 1, 4}, {"B", 2, 2}}), std::invalid_argument);  // overlapping
  EXPECT_THROW(make({{"A", 1, 2}, {"B", 1, 2}}), std::invalid_argument);  // the same digit
  EXPECT_THROW(make({{"A", 1, 2}, {"B", 3, 2}}), std::invalid_argument);  // 3 not a multiple of 2
  EXPECT_NO_THROW(make({{"A", 1, 2}, {"B", 6, 2}}));                      // with a digit between
  const Mapping gap = Mapping::list({0, 2}, 4);  // endpoint 1 of [0, 2) has no rank
  EXPECT_THROW(Symmetry({{"A", 1, 2}}, gap), std::invalid_argument);
}

// --- Equivariance of the LLM programs ------------------------------------------------------

// The first difference between `want` with every send's and recv's peer relabelled and `got`;
// empty when there is none.
std::string difference(const Program& want, const Program& got,
                       const std::function<uint32_t(uint32_t)>& relabel) {
  if (want.size() != got.size()) {
    return std::to_string(want.size()) + " ops against " + std::to_string(got.size());
  }
  for (uint32_t i = 0; i < want.size(); ++i) {
    const Op &a = want.ops[i], &b = got.ops[i];
    const bool message = a.kind == OpKind::kSend || a.kind == OpKind::kRecv;
    const uint32_t peer = message ? relabel(a.peer) : a.peer;
    if (a.kind != b.kind || a.stage != b.stage || peer != b.peer || a.tag != b.tag ||
        a.group != b.group || a.bytes != b.bytes || a.compute_ps != b.compute_ps ||
        !std::ranges::equal(want.deps_of(i), got.deps_of(i))) {
      return "op " + std::to_string(i) + " differs";
    }
  }
  return "";
}

// Every phase of every endpoint e of `endpoints` against g(e)'s, relabelled by g (or not at all:
// the identity, to show the comparison can fail). Empty when all match.
std::string equivariance_failure(const Workload& w, const Symmetry& s, uint32_t g,
                                 const std::vector<uint32_t>& endpoints, bool relabel = true) {
  Program want, got;
  const auto by_g = [&](uint32_t p) { return relabel ? s.apply(g, p) : p; };
  for (uint32_t e : endpoints) {
    const uint32_t ge = s.apply(g, e);
    const std::string where = "g " + std::to_string(g) + ", endpoint " + std::to_string(e);
    if (w.phases(ge) != w.phases(e)) return where + ": phase counts differ";
    for (uint32_t k = 0; k < w.phases(e); ++k) {
      want.clear();
      got.clear();
      w.generate(e, k, want);
      w.generate(ge, k, got);
      const std::string d = difference(want, got, by_g);
      if (!d.empty()) return where + ", phase " + std::to_string(k) + ": " + d;
    }
  }
  return "";
}

std::vector<uint32_t> all_endpoints(uint32_t n) {
  std::vector<uint32_t> v(n);
  for (uint32_t e = 0; e < n; ++e) v[e] = e;
  return v;
}

std::string names(const Symmetry* s) {
  std::string out;
  if (s == nullptr) return out;
  for (const Digit& d : s->digits()) out += (out.empty() ? "" : " x ") + d.name;
  return out;
}

// L=4 H=64 I=256 h_A=8 h_KV=2 V=1000 S=32, dense, SwiGLU, bf16: every volume splits evenly
// into up to 8 (T) or 16 (D) chunks.
LlmModel small_dense() { return {"small", 4, 64, 256, 8, 2, 1000, 32, 1, 1, 1, 3, 2}; }
// L=2 H=6 I=12 h_A=2 V=11 S=3, 1 byte per element: TP moves 18 bytes (2 ring chunks but not 2x2
// bidirectional ones), DP VOC 66 bytes (2 chunks, not 4).
LlmModel tiny_dense() { return {"tiny", 2, 6, 12, 2, 2, 11, 3, 1, 1, 1, 3, 1}; }
// llm_test.cpp's small MoE model: 4 experts top-2 on every layer.
LlmModel small_moe() { return {"small", 4, 64, 256, 8, 2, 1000, 32, 4, 2, 1, 3, 2}; }

LlmConfig config(LlmModel m, Parallelism par, Algorithm tp, Algorithm dp) {
  LlmConfig c;
  c.model = std::move(m);
  c.par = par;
  c.tp_algorithm = tp;
  c.dp_algorithm = dp;
  return c;
}

struct Case {
  LlmConfig config;
  Mapping mapping;
  std::string digits;  // expected
};

std::vector<Case> cases() {
  const Algorithm ring = Algorithm::kRing, bidir = Algorithm::kBidirRing;
  std::vector<Case> v;
  // {tp, cp, ep, dp, pp, micro_batch, micro_batches}
  v.push_back(
      {config(small_dense(), {2, 1, 1, 2, 2, 1, 2}, ring, ring), Mapping::linear(8, 8), "TP x DP"});
  v.push_back({config(small_dense(), {4, 1, 1, 4, 2, 1, 3}, bidir, bidir),
               Mapping::node_major({8, 4}, {2, 2}), "TP x DP"});
  // D_e = 1: the DP groups are the C digit, a ring of their own.
  v.push_back({config(small_dense(), {2, 2, 1, 1, 2, 1, 2}, bidir, ring),
               Mapping::node_major({4, 2}, {2, 2}), "TP x CP"});
  v.push_back({config(small_dense(), {4, 2, 1, 1, 2, 1, 2}, bidir, bidir),
               Mapping::node_major({4, 4}, {2, 2}), "TP x CP"});
  // C and D_e share the DP QKV and FFN rings, C inner: a D_e shift rotates them by C, a C shift
  // alone does not.
  Case gpipe{config(small_dense(), {2, 2, 1, 2, 2, 1, 3}, ring, bidir), Mapping::linear(16, 16),
             "TP x DP"};
  gpipe.config.schedule = Schedule::kGPipe;
  v.push_back(std::move(gpipe));
  v.push_back({config(small_dense(), {2, 2, 1, 4, 2, 1, 2}, bidir, ring),
               Mapping::node_major({8, 4}, {2, 2}), "TP x DP"});
  v.push_back({config(small_dense(), {2, 1, 1, 4, 4, 1, 3}, bidir, ring),
               Mapping::node_major({8, 4}, {4, 2}), "TP x DP"});
  v.push_back(
      {config(tiny_dense(), {2, 1, 1, 2, 2, 1, 2}, ring, ring), Mapping::linear(8, 8), "TP x DP"});
  // MoE: T and D_e fold (the EP all-to-all keeps its group and positions under either; a D_e
  // shift rotates the DP rings of E x D_e members by E).
  v.push_back({config(small_moe(), {2, 1, 2, 2, 2, 1, 2}, bidir, ring), Mapping::linear(16, 16),
               "TP x DP"});
  v.push_back({config(small_moe(), {2, 2, 2, 2, 1, 1, 2}, ring, bidir),
               Mapping::node_major({4, 4}, {2, 2}), "TP x DP"});
  // The two-stage DP all-reduce (nodes of 2 DP members): T folds, its stages carried along;
  // D splits into the place in the node (DP2) and the node (DP1), each a rotation of one
  // stage's rings.
  Case two_stage{config(small_dense(), {2, 1, 1, 4, 2, 1, 2}, bidir, Algorithm::kHierarchical),
                 Mapping::linear(16, 16), "TP x DP2 x DP1"};
  two_stage.config.dp_local = 2;
  v.push_back(std::move(two_stage));
  Case nodes_of_four{config(small_dense(), {2, 1, 1, 8, 1, 1, 2}, ring, Algorithm::kHierarchical),
                     Mapping::node_major({4, 4}, {2, 2}), "TP x DP2 x DP1"};
  nodes_of_four.config.dp_local = 4;
  v.push_back(std::move(nodes_of_four));
  // With CP the node's members span C and D: only T folds.
  Case with_cp{config(small_dense(), {2, 2, 1, 2, 2, 1, 2}, ring, Algorithm::kHierarchical),
               Mapping::linear(16, 16), "TP"};
  with_cp.config.dp_local = 2;
  v.push_back(std::move(with_cp));
  return v;
}

TEST(LlmSymmetry, EveryElementMapsEveryProgramOntoItsImage) {
  int checked = 0;
  for (Case& c : cases()) {
    const uint32_t ranks = c.mapping.ranks();
    const LlmWorkload w(c.config, std::move(c.mapping));
    const Symmetry* s = w.symmetry();
    ASSERT_NE(s, nullptr) << c.digits;
    EXPECT_EQ(names(s), c.digits);
    // Every element: the generators (one digit shifted by one) and all their products.
    for (uint32_t g = 0; g < s->order(); ++g) {
      EXPECT_EQ(equivariance_failure(w, *s, g, all_endpoints(ranks)), "") << c.digits;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 4 + 16 + 4 + 8 + 4 + 8 + 8 + 4 + 4 + 4 + 8 + 16 + 2);
}

TEST(LlmSymmetry, TheComparisonCatchesWhatIsNotEquivariant) {
  const Algorithm ring = Algorithm::kRing, bidir = Algorithm::kBidirRing;
  const LlmWorkload w(config(small_dense(), {2, 2, 1, 2, 2, 1, 2}, ring, ring),
                      Mapping::linear(16, 16));
  const std::vector<uint32_t> all = all_endpoints(16);
  ASSERT_EQ(names(w.symmetry()), "TP x DP");
  // Without relabelling the peers, e's and g(e)'s programs differ.
  EXPECT_NE(equivariance_failure(w, *w.symmetry(), 1, all, false), "");
  // The C digit alone does not rotate the DP QKV ring of C x D_e members.
  const Mapping linear16 = Mapping::linear(16, 16);
  EXPECT_NE(equivariance_failure(w, Symmetry({{"CP", 2, 2}}, linear16), 1, all), "");
  // Pipeline stages run different programs.
  EXPECT_NE(equivariance_failure(w, Symmetry({{"PP", 8, 2}}, linear16), 1, all), "");
  // MoE: the E digit alone does not rotate the DP VOC ring of E x D_e members.
  const LlmWorkload moe(config(small_moe(), {2, 1, 2, 2, 2, 1, 2}, bidir, ring), linear16);
  EXPECT_NE(equivariance_failure(moe, Symmetry({{"EP", 2, 2}}, linear16), 1, all), "");

  // Uneven chunks: 18 bytes make bidirectional-ring chunks of 5 and 4 bytes, and 66 bytes of
  // DP VOC ring chunks of 17 and 16; forcing the digit shows the programs differ.
  const LlmWorkload tp(config(tiny_dense(), {2, 1, 1, 2, 2, 1, 2}, bidir, ring),
                       Mapping::linear(8, 8));
  EXPECT_EQ(names(tp.symmetry()), "DP");
  const Mapping linear8 = Mapping::linear(8, 8);
  EXPECT_NE(equivariance_failure(tp, Symmetry({{"TP", 1, 2}}, linear8), 1, all_endpoints(8)), "");
  const LlmWorkload dp(config(tiny_dense(), {2, 1, 1, 4, 2, 1, 2}, ring, ring),
                       Mapping::linear(16, 16));
  EXPECT_EQ(names(dp.symmetry()), "TP");
  EXPECT_NE(equivariance_failure(dp, Symmetry({{"DP", 2, 4}}, linear16), 1, all), "");
}

TEST(LlmSymmetry, RefusesWhereEquivarianceIsNotGuaranteed) {
  const Algorithm ring = Algorithm::kRing;
  const Parallelism par{4, 1, 1, 4, 2, 1, 2};
  const auto digits = [](LlmConfig c, Mapping m) { return names(LlmWorkload(c, m).symmetry()); };
  const Mapping linear = Mapping::linear(32, 32);
  // Algorithms other than the rings.
  EXPECT_EQ(digits(config(small_dense(), par, Algorithm::kRing2D, ring), linear), "DP");
  EXPECT_EQ(digits(config(small_dense(), par, Algorithm::kDirect, ring), linear), "DP");
  EXPECT_EQ(digits(config(small_dense(), par, ring, Algorithm::kDirect), linear), "TP");
  EXPECT_EQ(digits(config(small_dense(), par, Algorithm::kDirect, Algorithm::kDirect), linear), "");
  // MoE: never E; D_e only with equal expert loads (unequal ones are drawn per D_e) and more
  // than one D_e.
  EXPECT_EQ(digits(config(small_moe(), {2, 1, 2, 2, 2, 1, 2}, ring, ring), Mapping::linear(16, 16)),
            "TP x DP");
  LlmConfig skewed = config(small_moe(), {2, 1, 2, 2, 2, 1, 2}, ring, ring);
  skewed.expert_imbalance = 0.2;
  EXPECT_EQ(digits(skewed, Mapping::linear(16, 16)), "TP");
  EXPECT_EQ(digits(config(small_moe(), {2, 1, 2, 1, 2, 1, 2}, ring, ring), Mapping::linear(8, 8)),
            "TP");
  // A rank on endpoint 40: endpoint 31 of [0, 32) has none.
  std::vector<uint32_t> gap = all_endpoints(32);
  gap[31] = 40;
  EXPECT_EQ(LlmWorkload(config(small_dense(), par, ring, ring), Mapping::list(gap, 48)).symmetry(),
            nullptr);
}

// Spot checks at full scale: a few endpoints, the first and last phases, every generator.
void expect_generators_equivariant(const LlmWorkload& w) {
  const Symmetry& s = *w.symmetry();
  const uint32_t n = w.config().par.chips();
  uint32_t unit = 1;
  for (const Digit& d : s.digits()) {
    for (uint32_t e : {0u, n / 2 + 3, n - 1}) {
      Program want, got;
      const uint32_t ge = s.apply(unit, e);
      ASSERT_EQ(w.phases(ge), w.phases(e));
      for (uint32_t k : {0u, w.phases(e) - 1}) {
        want.clear();
        got.clear();
        w.generate(e, k, want);
        w.generate(ge, k, got);
        EXPECT_EQ(difference(want, got, [&](uint32_t p) { return s.apply(unit, p); }), "")
            << d.name << " endpoint " << e << " phase " << k;
      }
    }
    unit *= d.size;
  }
}

TEST(LlmSymmetry, Gpt3FoldsTpAndDp) {
  LlmConfig c;
  c.model = llm_preset("gpt3-175b");
  c.par = {8, 1, 1, 128, 16, 1, 16};
  const LlmWorkload w(c, Mapping::linear(16384, 16384));
  ASSERT_NE(w.symmetry(), nullptr);
  EXPECT_EQ(w.symmetry()->describe(), "TP x DP: 1024 endpoints per orbit");
  expect_generators_equivariant(w);
}

// 126 layers: pp 16 does not divide them, pp 14 (9 layers a stage) does.
TEST(LlmSymmetry, Llama405bFoldsTpAndDp) {
  LlmConfig c;
  c.model = llm_preset("llama3.1-405b");
  c.par = {64, 1, 1, 128, 14, 1, 14};
  const LlmWorkload w(c, Mapping::linear(64 * 128 * 14, 64 * 128 * 14));
  ASSERT_NE(w.symmetry(), nullptr);
  EXPECT_EQ(w.symmetry()->describe(), "TP x DP: 8192 endpoints per orbit");
  expect_generators_equivariant(w);
}

// The collective workload: 24 ranks as strided groups (size:stride), every element of its
// symmetry against every program, for the algorithms whose position shifts are rotations (ring,
// bidirectional ring over equal chunks, direct and pairwise all-to-all of equal blocks), the
// two-stage all-to-all's lane and node shifts, and some whose are not (unequal chunks or blocks:
// only the group index folds).
std::unique_ptr<CollectiveWorkload> collective(Algorithm a, Collective op, uint64_t bytes,
                                               StridedPartition groups, Mapping mapping,
                                               uint32_t local = 0) {
  CollectiveSpec base;
  base.op = op;
  base.algorithm = a;
  base.bytes = bytes;
  base.local = local;
  std::vector<CollectiveSpec> specs;
  for (uint32_t first : groups.firsts(mapping.ranks())) {
    specs.push_back(base);
    for (uint32_t r : strided_group(first, groups.size, groups.stride)) {
      specs.back().members.push_back(mapping.endpoint(r));
    }
  }
  const uint32_t endpoints = mapping.ranks();
  return std::make_unique<CollectiveWorkload>(std::move(specs), endpoints, 2, 3, 1e-6, 1e9, 0,
                                              RankLayout{std::move(mapping), groups});
}

TEST(CollectiveSymmetry, EveryElementMapsEveryProgramOntoItsImage) {
  struct CollectiveCase {
    Algorithm a;
    Collective op;
    uint64_t bytes;
    StridedPartition groups;
    bool node_major;
    std::string digits;
    uint32_t local = 0;  // hierarchical: members per node
  };
  const std::vector<CollectiveCase> cases = {
      {Algorithm::kRing, Collective::kAllReduce, 24 * 10, {24, 1}, false, "ring"},
      {Algorithm::kBidirRing, Collective::kAllReduce, 48 * 10, {24, 1}, true, "ring"},
      {Algorithm::kRing, Collective::kReduceScatter, 40, {4, 3}, false, "groups x ring x groups"},
      {Algorithm::kBidirRing, Collective::kAllGather, 16, {4, 1}, true, "ring x groups"},
      {Algorithm::kDirect, Collective::kAllToAll, 40, {4, 3}, false, "groups x ring x groups"},
      {Algorithm::kPairwise, Collective::kAllToAll, 40, {8, 1}, true, "ring x groups"},
      {Algorithm::kDirect, Collective::kAllToAll, 42, {4, 3}, false, "groups x groups"},
      {Algorithm::kHierarchical,
       Collective::kAllToAll,
       48,
       {8, 1},
       false,
       "lane x node x groups",
       2},
      {Algorithm::kHierarchical,
       Collective::kAllToAll,
       48,
       {8, 1},
       true,
       "lane x node x groups",
       4},
      {Algorithm::kHierarchical, Collective::kAllToAll, 44, {8, 1}, false, "groups", 2},
      {Algorithm::kRing, Collective::kAllReduce, 41, {4, 3}, false, "groups x groups"},
  };
  int checked = 0;
  for (const CollectiveCase& c : cases) {
    SCOPED_TRACE(c.digits);
    Mapping m = c.node_major ? Mapping::node_major({4, 6}, {2, 2}) : Mapping::linear(24, 24);
    const auto w = collective(c.a, c.op, c.bytes, c.groups, std::move(m), c.local);
    const Symmetry* s = w->symmetry();
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(names(s), c.digits);
    for (uint32_t g = 0; g < s->order(); ++g) {
      EXPECT_EQ(equivariance_failure(*w, *s, g, all_endpoints(24)), "");
      ++checked;
    }
    // And the comparison can fail: without relabelling, some element differs.
    bool caught = false;
    for (uint32_t g = 1; g < s->order() && !caught; ++g) {
      caught = !equivariance_failure(*w, *s, g, all_endpoints(24), false).empty();
    }
    EXPECT_TRUE(caught);
  }
  EXPECT_EQ(checked, 24 + 24 + 24 + 24 + 24 + 24 + 6 + 24 + 24 + 3 + 6);
}

}  // namespace
}  // namespace hx::wl
