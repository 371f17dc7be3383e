// The LLM workload against RailX Table 4: volumes, frequencies and process groups by hand, whole
// iterations run by the abstract interpreter of llm_test_support.h, model FLOPs against 6 x
// params x tokens, the [llm] section's checks. The schedule's options: llm_schedule_test.cpp.
#include "models/workloads/llm.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "workloads/llm_test_support.h"

namespace hx::wl {
namespace {

using testing::check_iteration;
using testing::has_row;
using testing::Interpreter;
using testing::row;
using testing::scattered;
using testing::small_config;
using testing::small_dense_config;
using testing::small_moe;
using testing::small_par;

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
