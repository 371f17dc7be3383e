// The LLM iteration's compute side: the GEMM time models against hand-computed rooflines, the
// expert loads against InfiniteHBD's imbalance coefficient, and the generated programs of an
// MoE layer with unequal experts (the all-to-all sums to the balanced total, stragglers appear).
#include "models/workloads/llm_compute.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "core/rng.h"
#include "models/workloads/expert_loads.h"
#include "models/workloads/llm.h"

namespace hx::wl {
namespace {

GemmModel h100_roofline() {
  GemmModel g;
  g.efficiency = 0.8;
  g.memory_bandwidth = 3.35e12;
  return g;
}

TEST(LlmCompute, FlatIsFlopsOverTheRate) {
  GemmModel g;
  g.chip_flops = 1e12;
  g.efficiency = 0.5;
  EXPECT_DOUBLE_EQ(g.seconds(100, 200, 300), 2.0 * 100 * 200 * 300 / 0.5e12);
  EXPECT_DOUBLE_EQ(g.backward(100, 200, 300), 2 * g.seconds(100, 200, 300));
}

// 8192^3: 64 x 32 = 2,048 tiles of 128 x 256 in 16 waves of 132 SMs, the last one 68/132
// full: wave = 2048 / 2112. Memory: 3 x 8192^2 x 2 bytes at 3.35 TB/s = 0.12 ms, below the
// math time of 1.1e12 FLOPs at 0.8 x 989 TFLOP/s x 0.97 = 1.43 ms.
TEST(LlmCompute, RooflineOfALargeGemmIsMathBoundWithWaveQuantization) {
  const GemmModel g = h100_roofline();
  const double n = 8192, flops = 2 * n * n * n;
  EXPECT_NEAR(g.seconds(n, n, n), flops / (989e12 * 0.8 * 2048.0 / 2112), 1e-12);
}

// 8192 x 64 over 8192: 2 x 8192 x 64 x 8192 = 8.6e9 FLOPs (11 us at the ceiling) but
// (8192^2 + 2 x 8192 x 64) x 2 bytes = 136 MB to move: 40.7 us at 3.35 TB/s.
TEST(LlmCompute, RooflineOfASkinnyGemmIsMemoryBound) {
  const GemmModel g = h100_roofline();
  const double bytes = (8192.0 * 8192 + 2 * 8192.0 * 64) * 2;
  EXPECT_DOUBLE_EQ(g.seconds(8192, 64, 8192), bytes / 3.35e12);
}

// InfiniteHBD §6.3: a larger TP splits the GEMMs into smaller, less efficient ones. Llama
// 3.1-405B (MHA) at micro-batch 1: the layer's achieved fraction of the peak falls from TP 8
// to TP 64, where the QKV, FFN and output products are memory-bound or fill fewer waves.
TEST(LlmCompute, LargerTensorParallelismComputesLessEfficiently) {
  LlmModel m = llm_preset("llama3.1-405b");
  m.kv_heads = m.heads;
  const GemmModel g = h100_roofline();
  double last = 1;
  for (uint32_t tp : {8u, 16u, 32u, 64u}) {
    Parallelism par;
    par.tp = tp;
    const LayerCompute c = layer_compute(m, par, g);
    const double flops = static_cast<double>(m.seq) * layer_forward_flops(m, false) / tp;
    const double time = c.qkv.forward + c.attention.forward + c.ffn_dense.forward;
    const double efficiency = flops / (time * 989e12);
    EXPECT_LE(efficiency, 0.8 + 1e-12) << tp;
    EXPECT_LE(efficiency, last + 1e-12) << tp;
    last = efficiency;
    if (tp == 8) {
      EXPECT_GT(efficiency, 0.75);
    }
    if (tp == 64) {
      EXPECT_LT(efficiency, 0.7);
    }
  }
}

// Eight experts of 512 tokens, 512 x 3072 over 12288 each: alone, 4 x 12 = 48 tiles fill 48 of
// 132 SMs; grouped, 384 tiles run in 3 waves (396 slots): the time of the FLOPs at 384/396.
TEST(LlmCompute, GroupedExpertsShareTheWaves) {
  const GemmModel g = h100_roofline();
  const std::vector<Gemm> experts(8, Gemm{512, 3072, 12288});
  const double flops = 8 * 2.0 * 512 * 3072 * 12288;
  EXPECT_NEAR(g.grouped(experts), flops / (989e12 * 0.8 * 384 / 396), 1e-12);
  EXPECT_NEAR(g.seconds(512, 3072, 12288) * 8, flops / (989e12 * 0.8 * 48 / 132), 1e-12);
}

TEST(LlmCompute, FlatLayerTimesAreTheFlops) {
  const LlmModel m = llm_preset("gpt3-175b");
  Parallelism par;
  par.tp = 8;
  GemmModel g;
  const LayerCompute c = layer_compute(m, par, g);
  const double per_chip = static_cast<double>(m.seq) / par.tp;  // tokens x 1/T
  EXPECT_NEAR((c.qkv.forward + c.attention.forward + c.ffn_dense.forward) * 989e12,
              per_chip * layer_forward_flops(m, false), 1e3);
  EXPECT_DOUBLE_EQ(c.ffn_dense.backward, 2 * c.ffn_dense.forward);
}

TEST(ExpertLoads, SharesHaveTheCoefficient) {
  Rng rng(1, 2, 3);
  for (double c : {0.0, 0.1, 0.2, 0.3}) {
    for (int draw = 0; draw < 20; ++draw) {
      const std::vector<double> w = expert_shares(8, c, rng);
      EXPECT_NEAR(std::accumulate(w.begin(), w.end(), 0.0), 1, 1e-12);
      const auto [lo, hi] = std::minmax_element(w.begin(), w.end());
      EXPECT_NEAR((*hi - *lo) / *hi, c, 1e-12);
    }
  }
}

TEST(ExpertLoads, ApportionSumsExactly) {
  const std::vector<double> shares = {0.1, 0.25, 0.3, 0.35};
  const std::vector<uint64_t> parts = apportion(1001, shares);
  EXPECT_EQ(std::accumulate(parts.begin(), parts.end(), uint64_t{0}), 1001u);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    EXPECT_LE(std::abs(static_cast<double>(parts[i]) - 1001 * shares[i]), 1.0);
  }
}

// L=4 H=64 I=256 h_A=8 V=1000 S=32, 8 experts top-2 on every layer; T=2 E=4 D_e=2: 16 chips.
LlmConfig imbalanced(double coefficient) {
  LlmConfig c;
  c.model = {"small", 4, 64, 256, 8, 8, 1000, 32, 8, 2, 1, 3, 2};
  c.par = {2, 1, 4, 2, 1, 1, 2};
  c.gemm.chip_flops = 1e9;
  c.expert_imbalance = coefficient;
  c.seed = 7;
  return c;
}

struct PhaseTotals {
  uint64_t ep_bytes = 0;
  int64_t compute_ps = 0;
};

// Rank r's EP bytes sent and compute in one phase (each rank runs on endpoint r).
PhaseTotals phase_of(const LlmWorkload& w, uint32_t r, uint32_t phase) {
  Program p;
  w.generate(r, phase, p);
  PhaseTotals t;
  for (const Op& op : p.ops) {
    if (op.kind == OpKind::kSend && w.groups()[op.group].dim == Dim::kEP) t.ep_bytes += op.bytes;
    if (op.kind == OpKind::kCompute) t.compute_ps += op.compute_ps;
  }
  return t;
}

TEST(LlmImbalance, AllToAllsSumToTheBalancedTotalAndExpertsStraggle) {
  const LlmWorkload balanced(imbalanced(0), Mapping::linear(16, 16));
  const LlmWorkload skewed(imbalanced(0.3), Mapping::linear(16, 16));
  // The EP group of rank 0: ranks 0, 2, 4, 6 (stride T); phase 0 is layer 0's forward of
  // micro-batch 0, phase 1 layer 1's.
  for (uint32_t phase : {0u, 1u}) {
    uint64_t bytes_balanced = 0, bytes_skewed = 0;
    int64_t compute_balanced = 0, compute_skewed = 0, slowest = 0, fastest = INT64_MAX;
    for (uint32_t r : {0u, 2u, 4u, 6u}) {
      const PhaseTotals b = phase_of(balanced, r, phase), s = phase_of(skewed, r, phase);
      bytes_balanced += b.ep_bytes;
      bytes_skewed += s.ep_bytes;
      compute_balanced += b.compute_ps;
      compute_skewed += s.compute_ps;
      slowest = std::max(slowest, s.compute_ps);
      fastest = std::min(fastest, s.compute_ps);
      EXPECT_EQ(b.compute_ps, phase_of(balanced, 0, phase).compute_ps);
      // The TP peer computes the same experts' loads.
      EXPECT_EQ(s.compute_ps, phase_of(skewed, r + 1, phase).compute_ps);
    }
    EXPECT_EQ(bytes_skewed, bytes_balanced);
    EXPECT_NEAR(static_cast<double>(compute_skewed), static_cast<double>(compute_balanced), 4);
    EXPECT_GT(slowest, compute_balanced / 4 + 1000);  // a straggler
    EXPECT_LT(fastest, compute_balanced / 4 - 1000);
  }
  // Other layers and replicas draw other loads.
  EXPECT_NE(phase_of(skewed, 0, 0).compute_ps, phase_of(skewed, 0, 1).compute_ps);
  EXPECT_NE(phase_of(skewed, 0, 0).compute_ps, phase_of(skewed, 8, 0).compute_ps);
}

TEST(LlmImbalance, BackwardSeesTheForwardsLoads) {
  LlmConfig c = imbalanced(0.3);
  c.par.micro_batches = 1;
  const LlmWorkload w(c, Mapping::linear(16, 16));
  // One stage, one micro-batch: phases 0-3 the forward of layers 0-3, 4-7 the backward of
  // layers 3-0 (the logits on layer 3 both ways).
  for (uint32_t layer = 0; layer < 3; ++layer) {
    for (uint32_t r : {0u, 2u, 4u, 6u}) {
      const PhaseTotals f = phase_of(w, r, layer), b = phase_of(w, r, 7 - layer);
      EXPECT_EQ(f.ep_bytes, b.ep_bytes);
      EXPECT_EQ(b.compute_ps, 2 * f.compute_ps);  // flat: backward twice the forward
    }
  }
}

// Full recomputation re-runs the layer's forward compute before its backward (the memory model
// keeps only the layer's input): a layer's backward computes three forwards' worth.
TEST(LlmRecompute, FullRecomputationRunsTheForwardAgain) {
  LlmConfig c = imbalanced(0.3);
  c.par.micro_batches = 1;
  c.recompute = Recompute::kFull;
  const LlmWorkload w(c, Mapping::linear(16, 16));
  for (uint32_t layer = 0; layer < 3; ++layer) {
    const PhaseTotals f = phase_of(w, 0, layer), b = phase_of(w, 0, 7 - layer);
    EXPECT_EQ(b.compute_ps, 3 * f.compute_ps) << layer;
  }
}

// TP overlap moves no byte and no picosecond of compute: a dense layer's phase sends what it
// sent and computes what it computed, forward and backward; only the order changes.
TEST(LlmTpOverlap, SameMessagesAndComputeInAnotherOrder) {
  LlmConfig c = imbalanced(0);
  c.model.experts = 1;
  c.model.top_k = 1;
  c.par = {4, 1, 1, 4, 1, 1, 1};  // T4 D4
  LlmConfig overlapped = c;
  overlapped.tp_overlap = true;
  const LlmWorkload a(c, Mapping::linear(16, 16)), b(overlapped, Mapping::linear(16, 16));
  ASSERT_EQ(a.phases(0), b.phases(0));
  for (uint32_t phase = 0; phase < a.phases(0); ++phase) {
    Program pa, pb;
    a.generate(0, phase, pa);
    b.generate(0, phase, pb);
    uint64_t bytes_a = 0, bytes_b = 0;
    int64_t ps_a = 0, ps_b = 0;
    for (const Op& op : pa.ops) {
      bytes_a += op.kind == OpKind::kSend ? op.bytes : 0;
      ps_a += op.kind == OpKind::kCompute ? op.compute_ps : 0;
    }
    for (const Op& op : pb.ops) {
      bytes_b += op.kind == OpKind::kSend ? op.bytes : 0;
      ps_b += op.kind == OpKind::kCompute ? op.compute_ps : 0;
    }
    EXPECT_EQ(bytes_a, bytes_b) << phase;
    EXPECT_EQ(ps_a, ps_b) << phase;
  }
  // The first layer's forward: its first compute (QKV) waits for nothing, beside the
  // all-gather; without overlap it waits for the all-gather.
  Program pa, pb;
  a.generate(0, 0, pa);
  b.generate(0, 0, pb);
  const auto first_compute = [](const Program& p) -> uint32_t {
    for (uint32_t i = 0; i < p.size(); ++i) {
      if (p.ops[i].kind == OpKind::kCompute) return i;
    }
    return static_cast<uint32_t>(p.size());
  };
  EXPECT_FALSE(pa.deps_of(first_compute(pa)).empty());
  EXPECT_TRUE(pb.deps_of(first_compute(pb)).empty());
}

// The optimizer step: one more phase per GPU after the DP all-reduces, one compute op of its
// shard's Adam update: 28 bytes per parameter at the memory bandwidth. A stage of
// imbalanced(0)'s model (4 layers, one stage): per layer H(H + 2H) + H^2 = 4H^2 attention and
// 8 experts of 3HI, /T = 2; plus the embedding and the output layer, 2VH/T; the shard of the
// dense part over E D_e = 8 GPUs, of the experts (E = 4 hold 2 each) over D_e = 2.
TEST(LlmOptimizer, TheStepFollowsTheAllReduces) {
  LlmConfig c = imbalanced(0);
  const LlmWorkload plain(c, Mapping::linear(16, 16));
  c.optimizer_step = true;
  c.memory_bandwidth = 1e12;
  const LlmWorkload stepped(c, Mapping::linear(16, 16));
  ASSERT_EQ(stepped.phases(0), plain.phases(0) + 1);
  Program last;
  stepped.generate(0, stepped.phases(0) - 1, last);
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last.ops[0].kind, OpKind::kCompute);
  EXPECT_EQ(stepped.groups()[last.ops[0].group].name, "compute optimizer");
  const double H = 64, I = 256, V = 1000, L = 4, T = 2;
  const double dense = (L * 4 * H * H + 2 * V * H) / T, experts = L * 2 * 3 * H * I / T;
  const double shard = dense / 8 + experts / 2;
  EXPECT_NEAR(static_cast<double>(last.ops[0].compute_ps), shard * 28 / 1e12 * 1e12, 1);
}

}  // namespace
}  // namespace hx::wl
