// The LLM workload's schedule: DP all-reduces overlapped with the backward pass, in buckets,
// with virtual pipeline stages, on uneven stages; the generated programs run by the abstract
// interpreter of llm_test_support.h.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "models/workloads/llm.h"
#include "workloads/llm_test_support.h"

namespace hx::wl {
namespace {

using testing::check_iteration;
using testing::row;
using testing::scattered;
using testing::small_config;
using testing::small_dense_config;

// In the last phase of endpoint e (dp_overlap's passes with the DP all-reduces beside them):
// its DP sends, those that do not wait for the phase's last compute, and its PP sends, none of
// which may wait for a DP op.
struct OverlapCounts {
  uint32_t dp_sends = 0, early = 0, pp_sends = 0;
};

OverlapCounts overlap_counts(const LlmWorkload& w, uint32_t e) {
  Program last;
  w.generate(e, w.phases(e) - 1, last);
  // Which ops each op waits for, directly or not.
  std::vector<std::vector<char>> before(last.size(), std::vector<char>(last.size(), 0));
  for (uint32_t i = 0; i < last.size(); ++i) {
    for (const uint32_t d : last.deps_of(i)) {
      before[i][d] = 1;
      for (uint32_t k = 0; k < last.size(); ++k) before[i][k] |= before[d][k];
    }
  }
  const auto is = [&](uint32_t op, const std::string& prefix) {
    return w.groups()[last.ops[op].group].name.rfind(prefix, 0) == 0;
  };
  int32_t last_compute = -1;  // the passes' last op: layer 0's last compute
  for (uint32_t i = 0; i < last.size(); ++i) {
    if (last.ops[i].kind == OpKind::kCompute) last_compute = static_cast<int32_t>(i);
  }
  EXPECT_GE(last_compute, 0);
  OverlapCounts n;
  for (uint32_t i = 0; i < last.size(); ++i) {
    if (last.ops[i].kind != OpKind::kSend) continue;
    if (is(i, "DP")) {
      ++n.dp_sends;
      n.early += before[i][static_cast<uint32_t>(last_compute)] == 0;
    }
    if (is(i, "PP")) {
      ++n.pp_sends;
      for (uint32_t k = 0; k < last.size(); ++k) EXPECT_FALSE(before[i][k] && is(k, "DP"));
    }
  }
  return n;
}

// dp_overlap: the same messages and compute (check_iteration: Table 4's bytes per row), in
// fewer phases: the last backward pass is one phase, and in it each layer's DP all-reduces
// wait for that layer's backward only, never for the layers after it, and the pipeline send to
// the previous stage waits for no all-reduce.
TEST(Llm, OverlappedDpAllReducesRunBesideTheLastBackwardPass) {
  LlmConfig c = small_config();
  c.dp_overlap = true;
  check_iteration(c, 2000);
  c.schedule = Schedule::kGPipe;
  check_iteration(c, 2000);

  const Mapping mapping = scattered(c.par.chips());
  LlmConfig apart = c;
  apart.dp_overlap = false;
  const LlmWorkload w(c, mapping), w_apart(apart, mapping);
  // Rank 16, stage 1 of 2: 2 layers a stage, a receive phase; 4 DP all-reduce phases apart.
  const uint32_t e = mapping.endpoint(16), n = 3;
  EXPECT_EQ(w.phases(e), w_apart.phases(e) - (n - 1) - 5);
  const OverlapCounts n_ops = overlap_counts(w, e);
  EXPECT_GT(n_ops.dp_sends, 0u);
  EXPECT_GT(n_ops.early, 0u) << "some DP all-reduce starts before the pass's last compute";
  EXPECT_LT(n_ops.early, n_ops.dp_sends) << "the first layer's all-reduces wait for it";
  EXPECT_EQ(n_ops.pp_sends, 1u);
}

// llm.dp_bucket: a row's consecutive layers share one all-reduce until it holds the bucket's
// bytes, so the same bytes (check_iteration) go in fewer all-reduces, and the α–β time of a DP
// row loses one ring's latency (2 (p - 1) α) per all-reduce saved.
TEST(Llm, DpBucketsJoinLayersIntoFewerAllReduces) {
  LlmConfig c = small_dense_config();
  c.model.layers = 10;  // 5 a stage
  c.par = {2, 1, 1, 4, 2, 1, 2};
  c.alpha_s = 1e-6;
  c.bandwidth = 1e9;
  const Mapping mapping = scattered(c.par.chips());
  const LlmWorkload per_layer(c, mapping);
  const uint64_t qkv = row(per_layer.volumes(), "DP QKV").bytes;
  const uint64_t ffn = row(per_layer.volumes(), "DP FFN").bytes;
  ASSERT_LT(qkv, ffn);
  c.dp_bucket_bytes = 2 * qkv;  // QKV: buckets of 2, 2 and 1 layers
  check_iteration(c);
  const LlmWorkload bucketed(c, mapping);
  const uint32_t e = mapping.endpoint(0);  // stage 0: 5 layers, DP VOC
  const uint32_t ffn_buckets = ffn >= 2 * qkv ? 5 : 3;
  EXPECT_EQ(per_layer.phases(e) - bucketed.phases(e), (5 + 5 + 1) - (3 + ffn_buckets + 1));
  const auto seconds = [](const LlmWorkload& w, const std::string& name) {
    for (const OpGroup& g : w.groups()) {
      if (g.name == name) return g.analytic_s;
    }
    throw std::logic_error("no group " + name);
  };
  const double p = 4, ring_alpha = 2 * (p - 1) * c.alpha_s;
  EXPECT_NEAR(seconds(per_layer, "DP QKV all-reduce") - seconds(bucketed, "DP QKV all-reduce"),
              2 * ring_alpha, 1e-12);
  EXPECT_NEAR(seconds(per_layer, "DP VOC all-reduce"), seconds(bucketed, "DP VOC all-reduce"),
              1e-15);

  c.dp_overlap = true;  // each bucket waits for its last layer
  check_iteration(c, 2000);
  c.dp_bucket_bytes = uint64_t{1} << 40;  // one bucket per row and stage
  check_iteration(c, 2000);
  c.dp_overlap = false;
  check_iteration(c);
  const LlmWorkload whole(c, mapping);
  EXPECT_EQ(per_layer.phases(e) - whole.phases(e), (5 + 5 + 1) - 3u);
}

// Interleaved 1F1B: every stage's v chunks in Megatron's order complete without a deadlock,
// with Table 4's bytes (check_iteration) and the chunks' boundaries round the ring of stages.
TEST(Llm, VirtualStagesCompleteWithTheirTraffic) {
  LlmConfig c = small_dense_config();
  c.model.layers = 12;
  for (const auto& [pp, v, nb] : std::vector<std::tuple<uint32_t, uint32_t, uint32_t>>{
           {2, 2, 2}, {2, 3, 4}, {4, 3, 4}, {4, 3, 8}, {3, 2, 6}}) {
    SCOPED_TRACE(std::to_string(pp) + " stages, " + std::to_string(v) + " chunks, " +
                 std::to_string(nb) + " micro-batches");
    c.par = {2, 1, 1, 2, pp, 1, nb};
    c.par.virtual_stages = v;
    check_iteration(c);
  }
}

// dp_overlap with virtual stages: the steps from chunk v - 1's last backward on are one phase
// (chunk v - 1's gradients are final there, chunk 0's only at its end), the same messages and
// compute as apart, and chunk v - 1's all-reduces start before the phase's last compute.
TEST(Llm, OverlappedDpAllReducesFollowEachChunk) {
  LlmConfig c = small_dense_config();
  c.model.layers = 12;
  for (const auto& [pp, v, nb] :
       std::vector<std::tuple<uint32_t, uint32_t, uint32_t>>{{2, 2, 2}, {2, 3, 4}, {4, 3, 8}}) {
    SCOPED_TRACE(std::to_string(pp) + " stages, " + std::to_string(v) + " chunks, " +
                 std::to_string(nb) + " micro-batches");
    c.par = {2, 1, 1, 2, pp, 1, nb};
    c.par.virtual_stages = v;
    c.dp_overlap = true;
    check_iteration(c, 5000);
    const Mapping mapping = scattered(c.par.chips());
    const LlmWorkload w(c, mapping);
    for (const uint32_t rank : {0u, c.par.chips() - 1}) {  // the first and the last stage
      const OverlapCounts n = overlap_counts(w, mapping.endpoint(rank));
      EXPECT_GT(n.early, 0u);
      EXPECT_LT(n.early, n.dp_sends);
    }
  }
}

// Uneven stages (Llama 3's rule): 126 layers on 4 stages are 31, 32, 32 and 31; every rank's
// traffic follows its stage's layers and the compute adds up to the model's FLOPs.
TEST(Llm, UnevenStagesCompleteWithTheirLayers) {
  LlmConfig c = small_dense_config();
  c.model.layers = 14;  // (14 + 2) / 4 = 4: 3, 4, 4, 3
  c.par = {2, 1, 1, 2, 4, 1, 4};
  EXPECT_EQ(c.par.stage_layers(14, 0), 3u);
  EXPECT_EQ(c.par.stage_layers(14, 1), 4u);
  EXPECT_EQ(c.par.stage_layers(14, 3), 3u);
  EXPECT_EQ(c.par.stage_layers(126, 0) + c.par.stage_layers(126, 1) + c.par.stage_layers(126, 2) +
                c.par.stage_layers(126, 3),
            126u);
  check_iteration(c);
  c.dp_overlap = true;
  check_iteration(c, 2000);
}

}  // namespace
}  // namespace hx::wl
