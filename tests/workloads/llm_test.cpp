// The LLM workload against RailX Table 4: volumes, frequencies and process groups by hand, the
// generated programs run by an abstract interpreter, model FLOPs against 6 x params x tokens.
#include "models/workloads/llm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <stdexcept>
#include <tuple>

#include "core/error.h"

namespace hx::wl {
namespace {

// L=4 H=64 I=256 h_A=8 h_KV=2 V=1000 S=32, 4 experts top-2 on every layer, SwiGLU, bf16.
LlmModel small_moe() { return {"small", 4, 64, 256, 8, 2, 1000, 32, 4, 2, 1, 3, 2}; }
// T=2 C=2 E=2 D_e=2 P=2, B=1, N_B=2: 32 chips.
Parallelism small_par() { return {2, 2, 2, 2, 2, 1, 2}; }

const CommVolume& row(const std::vector<CommVolume>& rows, const std::string& label) {
  for (const CommVolume& v : rows) {
    if (v.label == label) return v;
  }
  throw std::logic_error("no row " + label);
}

bool has_row(const std::vector<CommVolume>& rows, const std::string& label) {
  for (const CommVolume& v : rows) {
    if (v.label == label) return true;
  }
  return false;
}

TEST(Llm, Table4VolumesOfASmallMoeModel) {
  const std::vector<CommVolume> rows = table4_volumes(small_moe(), small_par());
  ASSERT_EQ(rows.size(), 8u);
  const uint64_t B = 1, S = 32, H = 64, K = 2, T = 2, C = 2, bytes = 2;
  const double NB = 2, L = 4, P = 2;
  EXPECT_EQ(row(rows, "TP attention").bytes, B * S * H * bytes);
  EXPECT_EQ(row(rows, "TP attention").frequency, 4 * NB * L / P);
  EXPECT_EQ(row(rows, "TP FFN").bytes, B * S * H * K * bytes);
  EXPECT_EQ(row(rows, "TP FFN").frequency, 4 * NB * L / P);
  EXPECT_EQ(row(rows, "CP").bytes, B * S * H * (2 * 2) / 8 / T * bytes);  // 2 h_KV / h_A
  EXPECT_EQ(row(rows, "CP").frequency, 2 * NB * L / P);
  EXPECT_EQ(row(rows, "EP").bytes, B * S * H * K / (T * C) * bytes);
  EXPECT_EQ(row(rows, "EP").frequency, 4 * NB * L / P);
  EXPECT_EQ(row(rows, "DP VOC").bytes, 2 * H * 1000 / (T * C) * bytes);
  EXPECT_EQ(row(rows, "DP VOC").frequency, 1);
  EXPECT_EQ(row(rows, "DP QKV").bytes, (2 * H * H + 2 * 2 * H * H / 8) / T * bytes);
  EXPECT_EQ(row(rows, "DP QKV").frequency, L / P);
  EXPECT_EQ(row(rows, "DP FFN").bytes, 3 * H * 256 / T * bytes);
  EXPECT_EQ(row(rows, "DP FFN").frequency, L / P);
  EXPECT_EQ(row(rows, "PP").bytes, B * S * H / (T * C) * bytes);
  EXPECT_EQ(row(rows, "PP").frequency, 2 * NB);
  EXPECT_EQ(row(rows, "TP FFN").pattern, Pattern::kReduceScatterAllGather);
  EXPECT_EQ(row(rows, "EP").pattern, Pattern::kAllToAll);
  EXPECT_EQ(row(rows, "DP QKV").pattern, Pattern::kAllReduce);
  EXPECT_EQ(row(rows, "CP").dim, Dim::kCP);
}

TEST(Llm, DenseModelsHaveNoExpertRowsAndHalfMoeModelsHaveDenseRows) {
  LlmModel dense = small_moe();
  dense.experts = 1;
  dense.top_k = 1;
  Parallelism par = small_par();
  par.ep = 1;
  par.dp = 4;
  std::vector<CommVolume> rows = table4_volumes(dense, par);
  EXPECT_FALSE(has_row(rows, "EP"));
  EXPECT_FALSE(has_row(rows, "TP FFN dense"));
  EXPECT_EQ(row(rows, "TP FFN").bytes, 1u * 32 * 64 * 2);  // K = 1
  EXPECT_EQ(row(rows, "DP FFN").group.members(), 2u * 4);  // C * D_e = C * D

  LlmModel half = small_moe();
  half.moe_layer_ratio = 0.5;  // stage layers 1 of {0, 1} has experts
  rows = table4_volumes(half, small_par());
  EXPECT_EQ(row(rows, "TP FFN").frequency, 4 * 2 * 1);  // 4 N_B x 1 expert layer per stage
  EXPECT_EQ(row(rows, "TP FFN dense").frequency, 4 * 2 * 1);
  EXPECT_EQ(row(rows, "TP FFN dense").bytes, 1u * 32 * 64 * 2);
  EXPECT_EQ(row(rows, "EP").frequency, 4 * 2 * 1);
  EXPECT_EQ(row(rows, "DP FFN").frequency, 1);
  EXPECT_EQ(row(rows, "DP FFN dense").frequency, 1);
  EXPECT_EQ(row(rows, "DP FFN dense").group.members(), 2u * 2 * 2);  // G_D_QKV
  EXPECT_FALSE(is_moe_layer(half, 0));
  EXPECT_TRUE(is_moe_layer(half, 1));
}

TEST(Llm, ProcessGroupsAreTable4s) {
  const std::vector<CommVolume> rows = table4_volumes(small_moe(), small_par());
  // Rank 13 = t 1 + c 0*2 + e 1*4 + d_e 1*8 + p 0*16, with T=2 C=2 E=2 D_e=2 P=2.
  const uint32_t i = 13;
  using V = std::vector<uint32_t>;
  EXPECT_EQ(group_ranks(row(rows, "TP attention").group, i), (V{12, 13}));  // G_T
  EXPECT_EQ(group_ranks(row(rows, "TP FFN").group, i), (V{12, 13}));
  EXPECT_EQ(group_ranks(row(rows, "CP").group, i), (V{13, 15}));           // i, i+T
  EXPECT_EQ(group_ranks(row(rows, "EP").group, i), (V{9, 13}));            // stride TC
  EXPECT_EQ(group_ranks(row(rows, "DP VOC").group, i), (V{1, 5, 9, 13}));  // D = 4, stride TC
  EXPECT_EQ(group_ranks(row(rows, "DP QKV").group, i),
            (V{1, 3, 5, 7, 9, 11, 13, 15}));  // CD = 8, stride T
  // {G_C,5, G_C,5+TCE}: C ranks of stride T, D_e times at stride TCE = 8.
  EXPECT_EQ(group_ranks(row(rows, "DP FFN").group, i), (V{5, 7, 13, 15}));
  EXPECT_EQ(group_ranks(row(rows, "PP").group, i), (V{13, 29}));  // stride TCD = 16
}

// Runs every endpoint's phases: an op runs when its dependencies are done; a recv completes
// once the matching (src, dst, tag) send has been issued (the k-th recv matches the k-th send).
struct Interpreter {
  const Workload& w;
  uint32_t endpoints;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> bytes;  // (group, endpoint) -> bytes sent
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> sends;  // (group, endpoint) -> sends
  std::map<uint32_t, double> compute_ps;                    // group -> total
  size_t max_phase_ops = 0;
  std::map<std::tuple<uint32_t, uint32_t, std::string>, uint64_t> traffic;  // (src, dst, type)

  bool run() {
    std::vector<uint32_t> phase(endpoints, 0);
    std::vector<Program> prog(endpoints);
    std::vector<std::vector<char>> done(endpoints);
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::deque<uint64_t>> in_flight;
    for (bool progress = true; progress;) {
      progress = false;
      for (uint32_t e = 0; e < endpoints; ++e) {
        while (phase[e] < w.phases(e)) {
          Program& p = prog[e];
          if (done[e].empty()) {
            p.clear();
            w.generate(e, phase[e], p);
            done[e].assign(p.size(), 0);
            max_phase_ops = std::max(max_phase_ops, p.size());
          }
          for (uint32_t i = 0; i < p.size(); ++i) {
            if (done[e][i]) continue;
            bool ready = true;
            for (uint32_t d : p.deps_of(i)) ready = ready && done[e][d];
            if (!ready) continue;
            const Op& op = p.ops[i];
            if (op.kind == OpKind::kSend) {
              in_flight[{e, op.peer, op.tag}].push_back(op.bytes);
              bytes[{op.group, e}] += op.bytes;
              ++sends[{op.group, e}];
              traffic[{e, op.peer, w.traffic_types().at(w.traffic_type(op))}] += op.bytes;
            } else if (op.kind == OpKind::kRecv) {
              auto& q = in_flight[{op.peer, e, op.tag}];
              if (q.empty()) continue;
              EXPECT_TRUE(op.bytes == 0 || op.bytes == q.front());
              q.pop_front();
            } else if (op.kind == OpKind::kCompute) {
              compute_ps[op.group] += static_cast<double>(op.compute_ps);
            }
            done[e][i] = 1;
            progress = true;
          }
          if (std::find(done[e].begin(), done[e].end(), 0) != done[e].end()) break;
          done[e].clear();
          ++phase[e];
          progress = true;
        }
      }
    }
    for (uint32_t e = 0; e < endpoints; ++e) {
      if (phase[e] < w.phases(e)) return false;
    }
    return true;
  }
};

// Ranks on scattered endpoints of a larger network: endpoint = (7r + 3) mod 40.
Mapping scattered(uint32_t ranks) {
  std::vector<uint32_t> eps;
  for (uint32_t r = 0; r < ranks; ++r) eps.push_back((7 * r + 3) % 40);
  return Mapping::list(eps, 40);
}

// Bytes a member sends in one occurrence of a row: (p-1)/p V for RS, AG and all-to-all, twice
// that for all-reduce, V for a point-to-point send.
double member_bytes(const CommVolume& v) {
  const double p = v.group.members(), V = static_cast<double>(v.bytes);
  switch (v.pattern) {
    case Pattern::kAllReduce:
      return 2 * (p - 1) / p * V;
    case Pattern::kPointToPoint:
      return V;
    default:
      return (p - 1) / p * V;
  }
}

// `max_ops`: the most ops a phase may hold (an overlapped last backward pass holds the stage's
// layers and its DP all-reduces).
void check_iteration(const LlmConfig& c, size_t max_ops = 200) {
  const uint32_t chips = c.par.chips();
  const Mapping mapping = scattered(chips);
  const LlmWorkload w(c, mapping);
  Interpreter run{w, 40, {}, {}, {}, 0, {}};
  ASSERT_TRUE(run.run()) << "deadlock";
  EXPECT_LT(run.max_phase_ops, max_ops);
  const std::vector<CommVolume>& rows = w.volumes();
  ASSERT_EQ(w.groups().size(), rows.size() + 2);
  for (uint32_t g = 0; g < rows.size(); ++g) {
    const CommVolume& v = rows[g];
    SCOPED_TRACE(v.label);
    EXPECT_EQ(w.groups()[g].dim, v.dim);
    uint64_t pp_sends = 0;
    for (uint32_t r = 0; r < chips; ++r) {
      const uint32_t e = mapping.endpoint(r);
      if (v.label == "PP") {
        pp_sends += run.sends[{g, e}];
      } else {
        // Per-layer rows on uneven stages: F counts the largest stage's layers. DP VOC with the
        // embedding at the ends: on the first and last stages only.
        const uint32_t stage = r / (chips / c.par.pp);
        const bool voc_here = !c.embedding_at_ends || stage == 0 || stage + 1 == c.par.pp;
        const double layers = v.label == "DP VOC"
                                  ? (voc_here ? 1 : 0)
                                  : static_cast<double>(c.par.stage_layers(c.model.layers, stage)) /
                                        c.par.max_stage_layers(c.model.layers);
        EXPECT_DOUBLE_EQ(static_cast<double>(run.bytes[{g, e}]),
                         v.frequency * layers * member_bytes(v));
      }
      if (v.label == "CP") {
        EXPECT_EQ(run.sends[std::make_pair(g, e)], v.frequency);
      }
    }
    // F = 2 N_B transfers across each of the P v - 1 boundaries between model stages of each
    // pipeline; rank 0 (stage 0) sends forward from each of its v chunks and backward from all
    // but the first.
    if (v.label == "PP") {
      const uint32_t vs = c.par.virtual_stages;
      EXPECT_EQ(pp_sends, v.frequency * (c.par.pp * vs - 1) * (chips / c.par.pp));
      EXPECT_EQ(run.bytes[std::make_pair(g, mapping.endpoint(0))],
                c.par.micro_batches * (2 * vs - 1) * v.bytes);
    }
  }
  // Compute adds up to the model FLOPs: forward a third, backward two thirds.
  const double flops_per_ps = c.gemm.chip_flops * c.gemm.efficiency * 1e-12;
  const auto fwd = static_cast<uint32_t>(rows.size()), bwd = fwd + 1;
  EXPECT_EQ(w.groups()[fwd].name, "compute forward");
  EXPECT_NEAR(run.compute_ps[fwd] * flops_per_ps, w.model_flops() / 3, w.model_flops() * 1e-6);
  EXPECT_NEAR(run.compute_ps[bwd] * flops_per_ps, w.model_flops() * 2 / 3, w.model_flops() * 1e-6);
  for (uint32_t e = 0; e < 40; ++e) {
    if (mapping.rank_of(e) == Mapping::kNone) {
      EXPECT_EQ(w.phases(e), 0u);
    }
  }
}

LlmConfig small_config() {
  LlmConfig c;
  c.model = small_moe();
  c.par = small_par();
  c.gemm.chip_flops = 1e9;  // slow enough that no compute op rounds to a few picoseconds
  return c;
}

// small_config() as a dense model.
LlmConfig small_dense_config() {
  LlmConfig c = small_config();
  c.model.experts = 1;
  c.model.top_k = 1;
  return c;
}

TEST(Llm, MoeIterationMatchesTable4AndCompletes) {
  LlmConfig c = small_config();
  check_iteration(c);
  c.schedule = Schedule::kGPipe;
  check_iteration(c);
}

TEST(Llm, HalfMoeDeepPipelineCompletes) {
  LlmConfig c = small_config();
  c.model.moe_layer_ratio = 0.5;
  c.par = {2, 1, 2, 1, 4, 1, 3};  // 16 chips, 4 stages of 2 layers
  c.model.layers = 8;
  c.tp_algorithm = Algorithm::kRing;
  c.ep_algorithm = Algorithm::kPairwise;
  c.dp_algorithm = Algorithm::kDirect;
  check_iteration(c);
  c.schedule = Schedule::kGPipe;
  check_iteration(c);
}

TEST(Llm, DenseIterationCompletes) {
  LlmConfig c = small_dense_config();
  c.model.ffn_matrices = 2;
  c.par = {4, 2, 1, 2, 2, 2, 5};
  check_iteration(c);
}

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

// llm.embedding = "ends": DP VOC is one matrix (HV/(TC)) on the first and the last stage and
// absent between; on a single stage both matrices, as Table 4.
TEST(Llm, EmbeddingAtTheEndsAllReducesOnTheFirstAndLastStagesOnly) {
  LlmConfig c = small_dense_config();
  c.model.layers = 8;
  c.par = {2, 1, 1, 2, 4, 1, 4};
  c.embedding_at_ends = true;
  const uint64_t H = c.model.hidden, V = c.model.vocab, bpe = c.model.bytes_per_element;
  EXPECT_EQ(row(table4_volumes(c.model, c.par, true), "DP VOC").bytes, H * V / 2 * bpe);
  EXPECT_EQ(row(table4_volumes(c.model, c.par, false), "DP VOC").bytes, 2 * H * V / 2 * bpe);
  check_iteration(c);
  c.par = {2, 1, 1, 2, 1, 1, 4};
  EXPECT_EQ(row(table4_volumes(c.model, c.par, true), "DP VOC").bytes, 2 * H * V / 2 * bpe);
  check_iteration(c);
}

// llm.cp_algorithm = "ring": C - 1 steps a layer, one message of V forward and two backward,
// with Table 4's bytes otherwise (check_iteration: F = 3(C-1) N_B L_s sends of V per rank);
// a rank computes the attention of its own block while it passes that block on.
TEST(Llm, RingAttentionPassesTheBlocksWhileComputing) {
  for (const uint32_t cp : {2u, 4u}) {
    LlmConfig c = small_dense_config();
    c.ring_attention = true;
    c.par = {2, cp, 1, 2, 2, 1, 2};
    check_iteration(c);
  }
  LlmConfig c = small_dense_config();
  c.ring_attention = true;
  c.par = {2, 4, 1, 1, 1, 1, 1};
  const Mapping mapping = Mapping::linear(8, 8);
  const LlmWorkload w(c, mapping);
  Program layer;
  w.generate(0, 0, layer);  // the forward of layer 0
  const auto cp = static_cast<uint32_t>(
      std::find_if(w.groups().begin(), w.groups().end(),
                   [](const OpGroup& g) { return g.name.rfind("CP", 0) == 0; }) -
      w.groups().begin());
  std::vector<uint32_t> sends, computes;
  for (uint32_t i = 0; i < layer.size(); ++i) {
    if (layer.ops[i].kind == OpKind::kSend && layer.ops[i].group == cp) sends.push_back(i);
    if (layer.ops[i].kind == OpKind::kCompute) computes.push_back(i);
  }
  ASSERT_EQ(sends.size(), 3u);  // C - 1 steps
  // QKV, then the own block beside the first send, then three blocks, then the FFN.
  ASSERT_EQ(computes.size(), 6u);
  const auto deps = [&](uint32_t op) {
    const auto d = layer.deps_of(op);
    return std::vector<uint32_t>(d.begin(), d.end());
  };
  EXPECT_EQ(deps(computes[1]), deps(sends[0])) << "the own block starts with the first send";
}

TEST(Llm, AnalyticTimesFollowAlphaBeta) {
  LlmConfig c = small_config();
  c.alpha_s = 1e-6;
  c.bandwidth = 1e9;
  const LlmWorkload w(c, Mapping::linear(32, 32));
  const CommVolume& pp = w.volumes().back();
  ASSERT_EQ(pp.label, "PP");
  EXPECT_DOUBLE_EQ(w.groups()[w.volumes().size() - 1].analytic_s,
                   (1e-6 + static_cast<double>(pp.bytes) / 1e9) * pp.frequency);
  // TP attention, bidirectional ring of 2: (p-1)α + (p-1)/p V/(2B) per RS or AG (RailX Eq. 6).
  const CommVolume& tp = w.volumes().front();
  EXPECT_NEAR(w.groups()[0].analytic_s,
              (1e-6 + 0.5 * static_cast<double>(tp.bytes) / 2e9) * tp.frequency, 1e-12);
  EXPECT_EQ(w.groups()[0].name, "TP attention RS/AG");
}

// T=2 D=8 on 16 GPUs in HB domains of 8: every DP group {i, i+2, ..., i+14} has 4 members in
// each of 2 domains. The two-stage all-reduce runs rings of 4 inside each domain (DP2) and rings
// of 2 along the rails (DP1): each member sends 2·3/4 V to the next member of its domain and
// 2·1/2 V/4 to its rail peer in the other domain, per occurrence of a DP row.
TEST(Llm, HierarchicalDpRunsItsStagesInTheHbDomains) {
  LlmConfig c = small_dense_config();
  c.par = {2, 1, 1, 8, 1, 1, 1};
  c.dp_algorithm = Algorithm::kHierarchical;
  c.alpha_s = 1e-6;
  c.bandwidth = 50e9;
  c.local_bandwidth = 400e9;
  const auto domain = [](uint32_t e) { return e / 8; };
  const LlmWorkload w(c, Mapping::linear(16, 16), domain);
  EXPECT_EQ(w.dp_local("DP VOC"), 4u);
  EXPECT_EQ(w.dp_local("DP QKV"), 4u);
  EXPECT_EQ(w.dp_local("TP attention"), 0u);
  EXPECT_EQ(w.traffic_types(), (std::vector<std::string>{"MP", "EP", "PP", "DP", "DP1", "DP2"}));
  Interpreter run{w, 16, {}, {}, {}, 0, {}};
  ASSERT_TRUE(run.run()) << "deadlock";
  uint64_t dp_bytes = 0;  // per member, all DP rows
  for (std::size_t g = 0; g < w.volumes().size(); ++g) {
    const CommVolume& v = w.volumes()[g];
    if (v.dim != Dim::kDP) continue;
    dp_bytes += static_cast<uint64_t>(v.frequency) * v.bytes;
    EXPECT_DOUBLE_EQ(w.groups()[g].analytic_s,
                     v.frequency * two_stage_all_reduce_seconds(4, 2, static_cast<double>(v.bytes),
                                                                1e-6, 50e9, 400e9));
  }
  for (const auto& [key, bytes] : run.traffic) {
    const auto& [src, dst, type] = key;
    SCOPED_TRACE(std::to_string(src) + " -> " + std::to_string(dst) + " " + type);
    EXPECT_TRUE(type == "MP" || type == "DP1" || type == "DP2");
    if (type == "DP1") {
      EXPECT_EQ(dst, (src + 8) % 16);  // the same rail, the other domain
    } else {
      EXPECT_EQ(dst / 8, src / 8);  // inside the HB domain
    }
  }
  // The DP rows' V are multiples of 4, so the shares are exact.
  EXPECT_EQ(run.traffic.at({0, 2, "DP2"}), 2 * 3 * dp_bytes / 4);
  EXPECT_EQ(run.traffic.at({0, 8, "DP1"}), dp_bytes / 4);
  EXPECT_EQ(run.traffic.at({14, 8, "DP2"}), 2 * 3 * dp_bytes / 4);  // the ring closes
  EXPECT_EQ(run.traffic.count({0, 1, "MP"}), 1u);
  // A plain ring all-reduce is one type, DP.
  c.dp_algorithm = Algorithm::kRing;
  const LlmWorkload ring(c, Mapping::linear(16, 16), domain);
  Interpreter plain{ring, 16, {}, {}, {}, 0, {}};
  ASSERT_TRUE(plain.run());
  EXPECT_EQ(plain.traffic.at({0, 2, "DP"}), 2 * 7 * dp_bytes / 8);
}

TEST(Llm, HierarchicalDpNeedsEvenDomains) {
  LlmConfig c = small_dense_config();
  c.par = {2, 1, 1, 8, 1, 1, 1};
  c.dp_algorithm = Algorithm::kHierarchical;
  const auto rejects = [&](const DomainOf& domain, const std::string& key,
                           const std::string& fact) {
    try {
      LlmWorkload w(c, Mapping::linear(16, 16), domain);
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(fact), std::string::npos) << e.what();
    }
  };
  // Domains of 6 GPUs: the DP group {0, 2, ..., 14} has 3 members in the first, 3 in the
  // second and 2 in the third.
  rejects([](uint32_t e) { return e / 6; }, "llm.dp_algorithm", "does not divide evenly");
  // Domains by parity of e / 4: the group leaves domain 0 and comes back.
  rejects([](uint32_t e) { return (e / 4) % 2; }, "llm.dp_algorithm", "comes back");
  rejects({}, "llm.dp_local", "no HB domains");
  c.dp_local = 3;
  rejects([](uint32_t e) { return e / 8; }, "llm.dp_local", "does not divide");
  c.dp_local = 2;  // explicit: the domains are not consulted
  const LlmWorkload w(c, Mapping::linear(16, 16), [](uint32_t e) { return e / 6; });
  EXPECT_EQ(w.dp_local("DP VOC"), 2u);
  c.dp_algorithm = Algorithm::kRing;
  rejects({}, "llm.dp_local", "hierarchical");
}

// GPT-3 175B, one sequence: params = 12 L H^2 + V H = 173.95e9 + 0.62e9 = 174.6e9 ~ 175e9.
// FLOPs = 3 tokens (24 L H^2 + 4 S H L + 2 H V) = 6 params tokens + 12 S H L tokens, and
// 12 S H L = 2.9e13 is 2.8% of 6 params, so within 5% of 6 x 175e9 x 2048.
TEST(Llm, Gpt3FlopsAreSixTimesParamsTimesTokens) {
  const LlmModel& m = llm_preset("gpt3-175b");
  const Parallelism par{8, 1, 1, 4, 8, 1, 16};  // 4 x 16 sequences
  const double tokens = 4.0 * 16 * 2048;
  const double flops = iteration_flops(m, par);
  EXPECT_NEAR(flops / (6 * 175e9 * tokens), 1, 0.05);
  const double L = 96, H = 12288, S = 2048, V = 50257;
  EXPECT_DOUBLE_EQ(flops, 3 * tokens * (L * (24 * H * H + 4 * S * H) + 2 * H * V));
}

TEST(Llm, PresetsHoldThePublishedNumbers) {
  const LlmModel& moe = llm_preset("gpt-moe-1.1t");  // InfiniteHBD Appendix B
  EXPECT_EQ(moe.layers, 192u);
  EXPECT_EQ(moe.ffn, 49152u);
  EXPECT_EQ(moe.hidden, 12288u);
  EXPECT_EQ(moe.vocab, 64000u);
  EXPECT_EQ(moe.heads, 128u);
  EXPECT_EQ(moe.seq, 2048u);
  EXPECT_EQ(moe.experts, 8u);
  EXPECT_EQ(moe.moe_layer_ratio, 0.5);
  EXPECT_EQ(moe.top_k, 2u);
  // ~1.1T parameters: 96 dense and 96 expert layers of 4H^2 attention + 2HI per FFN.
  const double H = 12288, I = 49152;
  const double params = 96 * (4 * H * H + 2 * H * I) + 96 * (4 * H * H + 8 * 2 * H * I);
  EXPECT_NEAR(params / 1.1e12, 1, 0.06);

  const LlmModel& llama = llm_preset("llama3.1-405b");
  EXPECT_EQ(llama.layers, 126u);
  EXPECT_EQ(llama.hidden, 16384u);
  EXPECT_EQ(llama.ffn, 53248u);
  EXPECT_EQ(llama.heads, 128u);
  EXPECT_EQ(llama.kv_heads, 8u);
  EXPECT_EQ(llama.vocab, 128256u);
  EXPECT_EQ(llama.seq, 8192u);
  EXPECT_EQ(llama.ffn_matrices, 3u);

  const LlmModel& gpt3 = llm_preset("gpt3-175b");
  EXPECT_EQ(gpt3.layers, 96u);
  EXPECT_EQ(gpt3.hidden, 12288u);
  EXPECT_EQ(gpt3.ffn, 4u * 12288);
  EXPECT_EQ(gpt3.vocab, 50257u);
  EXPECT_EQ(gpt3.ffn_matrices, 2u);
  EXPECT_EQ(llm_preset("opt-175b").vocab, 50272u);

  const LlmModel& palm = llm_preset("palm-540b");
  EXPECT_EQ(palm.layers, 118u);
  EXPECT_EQ(palm.hidden, 18432u);
  EXPECT_EQ(palm.heads, 48u);
  EXPECT_EQ(palm.kv_heads, 1u);
  EXPECT_EQ(palm.vocab, 256000u);

  const LlmModel& l70 = llm_preset("llama3-70b-moe");  // RailX A.4 Listing 1
  EXPECT_EQ(l70.layers, 80u);
  EXPECT_EQ(l70.hidden, 8192u);
  EXPECT_EQ(l70.ffn, 28672u);
  EXPECT_EQ(l70.experts, 8u);
  EXPECT_EQ(l70.top_k, 2u);
  EXPECT_EQ(llm_preset_names().size(), 6u);
}

ParamSet llm_section(const std::vector<std::pair<std::string, std::string>>& values) {
  Config config;
  for (const auto& [k, v] : values) config.set("llm." + k, v, "test");
  return resolve_section(config, "llm", llm_params());
}

// RailX A.4 Listing 1: TP4 CP2 EP2 DP4 PP2 with D = E * D_e = 4, so D_e = 2: 64 chips.
TEST(Llm, MakeResolvesListing1) {
  const ParamSet s = llm_section({{"preset", "llama3-70b-moe"},
                                  {"tp", "4"},
                                  {"cp", "2"},
                                  {"ep", "2"},
                                  {"dp", "2"},
                                  {"pp", "2"},
                                  {"micro_batches", "4"}});
  const auto w = make_llm_workload(s, Mapping::linear(64, 64), 1e-6, 50e9);
  EXPECT_EQ(w->config().model.name, "llama3-70b-moe");
  EXPECT_EQ(w->config().par.chips(), 64u);
  EXPECT_EQ(w->config().tp_algorithm, Algorithm::kBidirRing);
  EXPECT_EQ(w->volumes().size(), 8u);
  EXPECT_GT(w->groups()[0].analytic_s, 0);
  Interpreter run{*w, 64, {}, {}, {}, 0, {}};
  EXPECT_TRUE(run.run());
  EXPECT_NEAR(run.compute_ps[static_cast<uint32_t>(w->volumes().size())] * 989e12 * 1e-12,
              w->model_flops() / 3, w->model_flops() * 1e-6);
}

void expect_input_error(const ParamSet& s, uint32_t ranks, const std::string& key) {
  try {
    make_llm_workload(s, Mapping::linear(ranks, ranks), 0, 0);
    ADD_FAILURE() << "no InputError for " << key;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
  }
}

TEST(Llm, MakeRejectsInconsistentConfigs) {
  expect_input_error(llm_section({{"tp", "8"}, {"pp", "2"}}), 8, "llm.tp");
  ParamSet unknown = llm_section({});
  unknown.set("preset", std::string("gpt5"), "gpt5");
  expect_input_error(unknown, 1, "llm.preset");
  try {
    make_llm_workload(unknown, Mapping::linear(1, 1), 0, 0);
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("palm-540b"), std::string::npos) << e.what();
  }
  expect_input_error(llm_section({{"tp", "5"}}), 5, "llm.tp");  // 96 heads
  expect_input_error(llm_section({{"preset", "gpt-moe-1.1t"}, {"ep", "3"}}), 3, "llm.ep");
  expect_input_error(llm_section({{"pp", "5"}}), 5, "llm.pp");  // 96 layers
  expect_input_error(llm_section({{"preset", "gpt-moe-1.1t"}, {"expert_imbalance", "1"}}), 1,
                     "llm.expert_imbalance");
  expect_input_error(llm_section({{"ep", "2"}}), 2, "llm.ep");  // dense
  // Uneven stages: 96 layers on 9 stages (98 is no multiple either); 192 expert layers on 97
  // (194 is, but uneven stages are for dense models).
  expect_input_error(llm_section({{"pp", "9"}}), 9, "llm.pp");
  expect_input_error(llm_section({{"preset", "gpt-moe-1.1t"}, {"pp", "97"}}), 97, "llm.pp");
  // Virtual stages: 96 layers, not 5 x 4 chunks; one stage; micro-batches not a multiple of
  // the stages; GPipe.
  expect_input_error(llm_section({{"pp", "4"}, {"virtual_stages", "5"}, {"micro_batches", "4"}}), 4,
                     "llm.virtual_stages");
  expect_input_error(llm_section({{"virtual_stages", "2"}}), 1, "llm.virtual_stages");
  expect_input_error(llm_section({{"pp", "4"}, {"virtual_stages", "2"}, {"micro_batches", "6"}}), 4,
                     "llm.virtual_stages");
  expect_input_error(
      llm_section(
          {{"pp", "4"}, {"virtual_stages", "2"}, {"micro_batches", "4"}, {"schedule", "gpipe"}}),
      4, "llm.virtual_stages");
}

}  // namespace
}  // namespace hx::wl
