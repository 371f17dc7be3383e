// The per-GPU memory model against hand computations from its sources: Korthikanti et al. 2022
// (activations), Megatron's distributed optimizer (bytes per parameter), Narayanan et al. SC'21
// (interleaved 1F1B). Every expected number below is worked out in its comment.
#include "models/workloads/llm_memory.h"

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"

namespace hx::wl {
namespace {

constexpr double kGiB = 1ull << 30;

// Llama 3.1-405B as InfiniteHBD Table 2 runs it: multi-head attention (kv_heads = heads).
LlmModel llama_mha() {
  LlmModel m = llm_preset("llama3.1-405b");
  m.kv_heads = m.heads;
  return m;
}

// {T, C, E, D_e, P, B, N_B}
Parallelism llama_par(uint32_t tp, uint32_t dp, uint32_t pp) { return {tp, 1, 1, dp, pp, 1, 128}; }

TEST(LlmMemory, KorthikantiActivationsPerLayerOfGpt3) {
  // GPT-3 175B (Korthikanti Table 3's row: h 12288, a 96, s 2048, t 8), b 1. Eq. 4 (tensor +
  // sequence parallelism): s b h (34/t + 5 a s / (h t)).
  // sbh/t = 2048 * 12288 / 8 = 3,145,728; 34 sbh/t = 106,954,752;
  // 5 a s^2 b / t = 5 * 96 * 2048^2 / 8 = 251,658,240.
  const LlmModel m = llm_preset("gpt3-175b");
  const Parallelism par{8, 1, 1, 1, 8, 1, 1};
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, par, Recompute::kNone, false), 358612992.0);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, par, Recompute::kSelective, false), 106954752.0);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, par, Recompute::kFull, false), 2 * 3145728.0);
  // Llama 3.1-405B at t 16, s 8192: the 34 generalised to SwiGLU with I = 3.25 h: 4 + 11 + 3 +
  // 2 * 3 * 3.25 = 37.5 (MHA); GQA's 8 KV heads of 128 drop K, V's 4 to 0.25: 33.75.
  // sbh/t = 8192 * 16384 / 16 = 8,388,608.
  const Parallelism lpar = llama_par(16, 16, 4);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(llama_mha(), lpar, Recompute::kSelective, false),
                   37.5 * 8388608);
  EXPECT_DOUBLE_EQ(
      layer_activation_bytes(llm_preset("llama3.1-405b"), lpar, Recompute::kSelective, false),
      33.75 * 8388608);
  // Context parallelism: s = S / C halves the sbh terms and quarters the scores.
  Parallelism cp = par;
  cp.cp = 2;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, cp, Recompute::kNone, false),
                   106954752.0 / 2 + 251658240.0 / 4);
}

TEST(LlmMemory, Llama405bAtTp16Pp4Dp16) {
  // Per layer (MHA): attention 4 H^2 = 1,073,741,824, FFN 3 H I = 2,617,245,696: 3,690,987,520,
  // /16 = 230,686,720 per GPU. Embedding V H / 16 = 128256 * 16384 / 16 = 131,334,144.
  // Stage 0: 31 layers + embedding = 7,282,622,464 params. Bytes: weights x2 = 14,565,244,928;
  // gradients x4 = 29,130,489,856; optimizer x12/16 (DP 16) = 5,461,966,848.
  // Activations: 4 micro-batches in flight x 31 layers x 37.5 x 8,388,608 = 39,007,027,200.
  // Stage 1 (32 layers, 3 in flight) totals 74.6 GiB, so stage 0 (82.1 GiB) is the worst.
  const MemoryOptions o;
  const MemoryEstimate e = llm_memory(llama_mha(), llama_par(16, 16, 4), o);
  EXPECT_EQ(e.stage, 0u);
  EXPECT_DOUBLE_EQ(e.weights, 14565244928.0);
  EXPECT_DOUBLE_EQ(e.gradients, 29130489856.0);
  EXPECT_DOUBLE_EQ(e.optimizer, 5461966848.0);
  EXPECT_DOUBLE_EQ(e.activations, 39007027200.0);
  EXPECT_NEAR(e.total() / kGiB, 82.11, 0.01);
  EXPECT_FALSE(fits(e, o));

  // Half the tensor parallelism, twice the data parallelism: twice the weights and the
  // activations per GPU.
  const MemoryEstimate tp8 = llm_memory(llama_mha(), llama_par(8, 32, 4), o);
  EXPECT_GT(tp8.weights, 1.9 * e.weights);
  EXPECT_GT(tp8.activations, 1.9 * e.activations);
  EXPECT_GT(tp8.total(), e.total());
}

TEST(LlmMemory, RecomputationOrdersActivations) {
  MemoryOptions o;
  const LlmModel m = llama_mha();
  const Parallelism par = llama_par(16, 16, 4);
  o.recompute = Recompute::kNone;
  const MemoryEstimate none = llm_stage_memory(m, par, o, 0);
  o.recompute = Recompute::kSelective;
  const MemoryEstimate selective = llm_stage_memory(m, par, o, 0);
  o.recompute = Recompute::kFull;
  const MemoryEstimate full = llm_stage_memory(m, par, o, 0);
  EXPECT_GT(none.activations, selective.activations);
  EXPECT_GT(selective.activations, full.activations);
  EXPECT_EQ(none.weights + none.optimizer, full.weights + full.optimizer);
  // Full: 2 sbh/t per layer, 4 x 31 layers in flight on stage 0.
  EXPECT_DOUBLE_EQ(full.activations, 4 * 31 * 2 * 8388608.0);
  // With activations that small, stage 1's extra layer (230,686,720 params per GPU, 6.75 bytes
  // each) outweighs stage 0's embedding (131,334,144) and its 4 x 31 - 3 x 32 = 28 more
  // in-flight layers (28 x 2 x 8,388,608): stage 1 is the most loaded.
  EXPECT_EQ(llm_memory(m, par, o).stage, 1u);
}

TEST(LlmMemory, DistributedOptimizerShardsOverTheDataParallelGroups) {
  // GPT-MoE 1.1T at T 8, C 2, E 2, D_e 4, P 8: dense parameters are replicated over
  // C E D_e = 16 GPUs, expert parameters over C D_e = 8.
  const LlmModel m = llm_preset("gpt-moe-1.1t");
  const Parallelism par{8, 2, 2, 4, 8, 1, 16};
  MemoryOptions o;
  o.distributed_optimizer = false;
  const MemoryEstimate plain = llm_stage_memory(m, par, o, 0);
  o.distributed_optimizer = true;
  const MemoryEstimate sharded = llm_stage_memory(m, par, o, 0);
  const StageParams p = stage_params(m, par, 0);
  EXPECT_DOUBLE_EQ(plain.optimizer, 12 * p.total());
  EXPECT_DOUBLE_EQ(sharded.optimizer, 12 * (p.dense / 16 + p.expert / 8));
  EXPECT_EQ(plain.weights, sharded.weights);
  EXPECT_EQ(plain.gradients, sharded.gradients);
  // A dense model: the whole optimizer state divided by D = 16.
  const Parallelism lpar = llama_par(16, 16, 4);
  o.distributed_optimizer = false;
  const double unsharded = llm_stage_memory(llama_mha(), lpar, o, 0).optimizer;
  o.distributed_optimizer = true;
  EXPECT_DOUBLE_EQ(llm_stage_memory(llama_mha(), lpar, o, 0).optimizer, unsharded / 16);
}

TEST(LlmMemory, InterleavingMultipliesTheFirstStagesActivations) {
  // GPT-3 175B, T 8, P 8, 64 micro-batches. 1F1B: stage 0 holds P = 8 micro-batches of its 12
  // layers. v = 2 (chunks of 6 layers): Megatron's 2 (P-1) + (v-1) P = 22 warm-up forwards + 1
  // = 23 chunks = 138 layers = 96 (1 + (P-1)/(P v)) = 96 x 1.4375 (Korthikanti §4.2.3).
  const LlmModel m = llm_preset("gpt3-175b");
  Parallelism par{8, 1, 1, 1, 8, 1, 64};
  const MemoryOptions o;
  const MemoryEstimate plain = llm_stage_memory(m, par, o, 0);
  EXPECT_EQ(in_flight_chunks(par, 0), 8u);
  par.virtual_stages = 2;
  const MemoryEstimate interleaved = llm_stage_memory(m, par, o, 0);
  EXPECT_EQ(in_flight_chunks(par, 0), 23u);
  EXPECT_DOUBLE_EQ(interleaved.activations, plain.activations * (1 + 7.0 / 16));
  EXPECT_EQ(interleaved.weights, plain.weights);
  EXPECT_EQ(llm_memory(m, par, o).stage, 0u);
  // Fewer micro-batches than stages: all of them in flight, no more.
  par.virtual_stages = 1;
  par.micro_batches = 3;
  EXPECT_EQ(in_flight_chunks(par, 0), 3u);
}

TEST(LlmMemory, ExpertParallelismHalvesExpertParameters) {
  // GPT-MoE 1.1T at T 8, P 8: 24 layers per stage, 12 with experts. One expert FFN:
  // 2 H I / 8 = 2 * 12288 * 49152 / 8 = 150,994,944 per GPU. E 1: 8 local experts x 12 layers
  // = 14,495,514,624; E 2: half. Dense on stage 0: 24 x 4 H^2 / 8 = 1,811,939,328 attention +
  // 12 dense FFNs 1,811,939,328 + embedding 64000 * 12288 / 8 = 98,304,000 = 3,722,182,656.
  const LlmModel m = llm_preset("gpt-moe-1.1t");
  const StageParams e1 = stage_params(m, {8, 1, 1, 8, 8, 1, 16}, 0);
  const StageParams e2 = stage_params(m, {8, 1, 2, 4, 8, 1, 16}, 0);
  EXPECT_DOUBLE_EQ(e1.expert, 14495514624.0);
  EXPECT_DOUBLE_EQ(e2.expert, e1.expert / 2);
  EXPECT_DOUBLE_EQ(e1.dense, 3722182656.0);
  EXPECT_DOUBLE_EQ(e2.dense, e1.dense);
  // Expert layers keep top_k = 2 copies of the FFN part: 4 + 11 + 2 (3 + 2 * 2 * 4) = 53.
  const Parallelism par{8, 1, 1, 8, 8, 1, 16};
  const double sbh_t = 2048.0 * 12288 / 8;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, par, Recompute::kSelective, true), 53 * sbh_t);
}

TEST(LlmMemory, OutputLayerOnTheLastStage) {
  // GPT-3 175B on one stage, T 8, one micro-batch: 96 layers x 106,954,752 plus the output
  // layer's 4 s b (h + V) / t = 4 * 2048 * (12288 + 50257) / 8 = 64,046,080; the embedding and
  // the output layer both on the stage: 2 V H / 8.
  const LlmModel m = llm_preset("gpt3-175b");
  const Parallelism par{8, 1, 1, 1, 1, 1, 1};
  const MemoryEstimate e = llm_memory(m, par, MemoryOptions{});
  EXPECT_DOUBLE_EQ(e.activations, 96 * 106954752.0 + 64046080.0);
  const double layer = 4.0 * 12288 * 12288 + 2.0 * 12288 * 49152;
  EXPECT_DOUBLE_EQ(stage_params(m, par, 0).dense, (96 * layer + 2.0 * 50257 * 12288) / 8);
}

TEST(LlmMemory, ErrorsNameTheField) {
  MemoryOptions o;
  o.capacity_bytes = 0;
  try {
    fits(MemoryEstimate{}, o);
    ADD_FAILURE() << "no InputError for capacity_bytes = 0";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("capacity_bytes"), std::string::npos) << e.what();
  }
  EXPECT_THROW(llm_memory(llama_mha(), llama_par(16, 16, 4), o), InputError);
  Parallelism par = llama_par(16, 16, 4);
  par.ep = 3;  // does not divide a dense model's 1 "expert"
  EXPECT_THROW(llm_memory(llama_mha(), par, MemoryOptions{}), InputError);
  EXPECT_THROW(llm_stage_memory(llama_mha(), llama_par(16, 16, 4), MemoryOptions{}, 4), InputError);
  MemoryEstimate e;
  e.weights = 80 * kGiB;
  EXPECT_TRUE(fits(e, MemoryOptions{}));
  e.activations = 1;
  EXPECT_FALSE(fits(e, MemoryOptions{}));
}

}  // namespace
}  // namespace hx::wl
