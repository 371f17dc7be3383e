// The parallelism search (llm_search.h) against hand computations: which plans of a [search]
// space divide the model, cluster and batch, which fit in memory, the α–β estimate's terms
// (compute + DP without model parallelism; the interleaved pipeline's shorter bubble), the
// overrides that run a plan and the [search] section's defaults. Every expected number below is
// worked out in its comment.
#include "models/workloads/llm_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.h"

namespace hx::wl {
namespace {

constexpr double kGiB = 1ull << 30;

// L=4 H=256 I=1024 h_A=8 h_KV=8 V=1024 S=128, dense, GELU (2 FFN matrices), bf16.
LlmModel tiny() { return {"tiny", 4, 256, 1024, 8, 8, 1024, 128, 1, 1, 1, 2, 2}; }
// L=4 H=64 I=256 h_A=8 h_KV=2 V=1000 S=32, 4 experts top-2 on every layer, SwiGLU, bf16.
LlmModel small_moe() { return {"small", 4, 64, 256, 8, 2, 1000, 32, 4, 2, 1, 3, 2}; }

LlmConfig config_of(const LlmModel& m, const Parallelism& par = {}) {
  LlmConfig c;
  c.model = m;
  c.par = par;
  return c;
}

// A config value as TOML would give it: "[1, 2]" an array of its items, anything else a scalar.
ConfigValue value_of(const std::string& text) {
  ConfigValue v;
  v.text = text;
  if (text.empty() || text.front() != '[') return v;
  v.kind = ConfigValue::Kind::kArray;
  std::string item;
  for (const char ch : text.substr(1)) {
    if (ch != ',' && ch != ']') {
      if (ch != ' ') item += ch;
      continue;
    }
    if (!item.empty()) v.items.push_back(value_of(item));
    item.clear();
  }
  return v;
}

using Values = std::vector<std::pair<std::string, std::string>>;

Config config_with(const Values& values) {
  Config config;
  for (const auto& [key, text] : values) config.set(key, value_of(text));
  return config;
}

// The space of the [search] keys `values` (without the "search." prefix) on `base`.
SearchSpace space_of(const Values& values, const LlmConfig& base) {
  Values keys;
  for (const auto& [k, v] : values) keys.emplace_back("search." + k, v);
  return search_space(resolve_section(config_with(keys), "search", search_params()), base);
}

// A plan's parallelism: T, C, E, D_e, P, B, N_B, v.
using Key =
    std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint64_t, uint32_t, uint32_t>;
Key key_of(const Parallelism& p) {
  return {p.tp, p.cp, p.ep, p.dp, p.pp, p.micro_batch, p.micro_batches, p.virtual_stages};
}
std::set<Key> keys_of(const std::vector<Plan>& plans) {
  std::set<Key> out;
  for (const Plan& p : plans) out.insert(key_of(p.par));
  return out;
}

// Every plan uses the whole cluster and runs the whole global batch.
void expect_whole(const std::vector<Plan>& plans, const SearchSpace& space) {
  for (const Plan& p : plans) {
    const Parallelism& q = p.par;
    EXPECT_EQ(uint64_t{q.tp} * q.cp * q.ep * q.dp * q.pp, space.gpus);
    EXPECT_EQ(q.micro_batch * q.micro_batches * q.ep * q.dp, space.global_batch);
  }
}

// 16 GPUs, 16 sequences; TP {1, 4, 16} x PP {1, 2, 8} x B {1, 2} x v {1, 2}.
SearchSpace tiny_space() {
  return space_of({{"gpus", "16"},
                   {"global_batch", "16"},
                   {"tp", "[1, 4, 16]"},
                   {"pp", "[1, 2, 8]"},
                   {"micro_batch", "[1, 2]"},
                   {"virtual_stages", "[1, 2]"}},
                  config_of(tiny()));
}

TEST(LlmSearch, EnumeratesThePlansThatDivideModelClusterAndBatch) {
  const SearchSpace space = tiny_space();
  SearchCounts counts;
  const std::vector<Plan> plans = rank_plans(config_of(tiny()), space, counts);
  // (T, P) with T P dividing 16: (1,1) (1,2) (1,8) (4,1) (4,2) (16,1); x 2 B x 2 v = 24.
  // D = 16 / (T P); N_B = 16 / (B D). Refused:
  //   (1,1): D 16, B 2 needs 32 sequences (2); v 2 needs P >= 2 (B 1) -> 3
  //   (1,2): D 8, B 2 gives N_B 1, not a multiple of P for v 2 -> 1
  //   (1,8): 8 stages divide neither L = 4 nor L + 2 = 6 -> 4
  //   (4,1): v 2 with one stage -> 2
  //   (4,2): D 2, N_B 8 or 4, L = 4 = P v for v 2 -> none
  //   (16,1): T 16 does not divide the 8 heads -> 4
  // 14 refused, 10 plans; the tiny model fits in 80 GiB.
  EXPECT_EQ(counts.candidates, 24u);
  EXPECT_EQ(counts.indivisible, 14u);
  EXPECT_EQ(counts.too_big, 0u);
  const std::set<Key> expected = {{1, 1, 1, 16, 1, 1, 1, 1}, {1, 1, 1, 8, 2, 1, 2, 1},
                                  {1, 1, 1, 8, 2, 1, 2, 2},  {1, 1, 1, 8, 2, 2, 1, 1},
                                  {4, 1, 1, 4, 1, 1, 4, 1},  {4, 1, 1, 4, 1, 2, 2, 1},
                                  {4, 1, 1, 2, 2, 1, 8, 1},  {4, 1, 1, 2, 2, 1, 8, 2},
                                  {4, 1, 1, 2, 2, 2, 4, 1},  {4, 1, 1, 2, 2, 2, 4, 2}};
  EXPECT_EQ(plans.size(), 10u);
  EXPECT_EQ(keys_of(plans), expected);
  expect_whole(plans, space);
}

TEST(LlmSearch, ExpertParallelismMustDivideTheExperts) {
  const SearchSpace space = space_of({{"gpus", "8"},
                                      {"global_batch", "8"},
                                      {"tp", "[1, 2]"},
                                      {"ep", "[1, 2, 4, 8]"},
                                      {"pp", "[1]"}},
                                     config_of(small_moe()));
  SearchCounts counts;
  const std::vector<Plan> plans = rank_plans(config_of(small_moe()), space, counts);
  // T E dividing 8: T 1 with E 1, 2, 4, 8; T 2 with E 1, 2, 4: 7. E 8 does not divide the 4
  // experts. D_e = 8 / (T E), N_B = 8 / (E D_e) = T.
  EXPECT_EQ(counts.candidates, 7u);
  EXPECT_EQ(counts.indivisible, 1u);
  EXPECT_EQ(counts.too_big, 0u);
  const std::set<Key> expected = {{1, 1, 1, 8, 1, 1, 1, 1}, {1, 1, 2, 4, 1, 1, 1, 1},
                                  {1, 1, 4, 2, 1, 1, 1, 1}, {2, 1, 1, 4, 1, 1, 2, 1},
                                  {2, 1, 2, 2, 1, 1, 2, 1}, {2, 1, 4, 1, 1, 1, 2, 1}};
  EXPECT_EQ(keys_of(plans), expected);
  expect_whole(plans, space);
}

TEST(LlmSearch, MemoryFilterDropsExactlyThePlansOverTheCapacity) {
  SearchSpace space = tiny_space();
  SearchCounts counts;
  const std::vector<Plan> all = rank_plans(config_of(tiny()), space, counts);
  std::vector<double> totals;
  for (const Plan& p : all) {
    // The plan carries llm_memory's estimate of its most loaded GPU.
    const MemoryEstimate m = llm_memory(tiny(), p.par, space.memory);
    EXPECT_DOUBLE_EQ(p.memory.total(), m.total());
    totals.push_back(m.total());
  }
  std::sort(totals.begin(), totals.end());
  ASSERT_LT(totals[4], totals[5]);  // a capacity between them keeps 5 plans at least
  space.memory.capacity_bytes = (totals[4] + totals[5]) / 2;
  std::set<Key> kept;
  for (const Plan& p : all) {
    if (p.memory.total() <= space.memory.capacity_bytes) kept.insert(key_of(p.par));
  }
  const std::vector<Plan> fit = rank_plans(config_of(tiny()), space, counts);
  EXPECT_EQ(keys_of(fit), kept);
  EXPECT_GE(kept.size(), 5u);
  EXPECT_EQ(counts.candidates, 24u);
  EXPECT_EQ(counts.indivisible, 14u);
  EXPECT_EQ(counts.too_big, 10u - kept.size());
}

TEST(LlmSearch, NothingFitsIsAnInputErrorNamingMemoryGib) {
  SearchSpace space = tiny_space();
  // 1 MB: the fewest parameters per GPU, T4 P2's (2 layers x 786,432 + the embedding's 262,144)
  // / 4 = 458,752, take 2.75 MB in weights and gradients (6 bytes each) alone.
  space.memory.capacity_bytes = 1e6;
  SearchCounts counts;
  try {
    rank_plans(config_of(tiny()), space, counts);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("search.memory_gib"), std::string::npos) << e.what();
  }
  EXPECT_EQ(counts.too_big, 10u);
}

TEST(LlmSearch, PlansAreRankedByTheirEstimate) {
  const SearchSpace space = tiny_space();
  SearchCounts counts;
  const std::vector<Plan> plans = rank_plans(config_of(tiny()), space, counts);
  ASSERT_EQ(plans.size(), 10u);
  for (size_t i = 0; i < plans.size(); ++i) {
    // Each plan's estimate is analytic_iteration of the base config with its parallelism.
    const AnalyticIteration a = analytic_iteration(config_of(tiny(), plans[i].par), space.network);
    EXPECT_DOUBLE_EQ(plans[i].analytic.seconds, a.seconds) << i;
    if (i > 0) {
      EXPECT_LE(plans[i - 1].analytic.seconds, plans[i].analytic.seconds) << i;
    }
  }
  // The order of enumeration (TP outermost) is not the ranking, so the sort is seen: the
  // first enumerated plan, T1 P1 D16, is not the best.
  const Parallelism first{1, 1, 1, 16, 1, 1, 1, 1};
  EXPECT_NE(key_of(plans.front().par), key_of(first));
}

TEST(LlmSearch, AnalyticWithoutModelParallelismIsComputePlusDp) {
  // T = C = E = P = 1, D = 4, B = 1, N_B = 2: no TP, CP, EP or PP rows, one slot per
  // micro-batch, so seconds = N_B x stage + DP.
  const AnalyticIteration a =
      analytic_iteration(config_of(tiny(), {1, 1, 1, 4, 1, 1, 2, 1}), AnalyticNetwork{});
  EXPECT_EQ(a.tp, 0);
  EXPECT_EQ(a.cp, 0);
  EXPECT_EQ(a.ep, 0);
  EXPECT_EQ(a.pp, 0);
  // Forward FLOPs per micro-batch of 128 tokens: QKV 2*128*256*768 = 50,331,648; attention
  // 128*(4*128*256 + 2*256^2) = 33,554,432; FFN 2*128*2*256*1024 = 134,217,728; 4 layers:
  // 872,415,232; logits 128*2*256*1024 = 67,108,864. Forward + backward: 3x = 2,818,572,288;
  // N_B = 2: 5,637,144,576 FLOPs at 989 TFLOP/s.
  const double compute = 5637144576.0 / 989e12;
  EXPECT_NEAR(a.compute, compute, compute * 1e-12);
  // DP ring all-reduces over 4 GPUs at 50 GB/s, α 1 µs, each 2(3α + 3/4 V/B): VOC 2HV x 2 B =
  // 1,048,576 once; QKV (2h_A + 2h_KV) H²/h_A x 2 B = 524,288 and FFN 3HI x 2 B = 1,572,864
  // (Table 4 counts 3 FFN matrices whatever ffn_matrices is), each L/P = 4 times. 9
  // all-reduces: 54 α; bytes 1,048,576 + 4 x 524,288 + 4 x 1,572,864 = 9,437,184, times 1.5 =
  // 14,155,776 over 50e9.
  const double dp = 54e-6 + 14155776.0 / 50e9;
  EXPECT_NEAR(a.dp, dp, dp * 1e-12);
  EXPECT_NEAR(a.seconds, compute + dp, (compute + dp) * 1e-12);
  // Model FLOPs: 4 GPUs each do the 5,637,144,576 above.
  EXPECT_NEAR(a.mfu, 4 * 5637144576.0 / (4 * 989e12 * a.seconds), 1e-12);
}

// One micro-batch slot of the busiest stage: compute, TP/CP/EP and the PP receives, each
// reported for the whole iteration (N_B slots).
double per_slot(const AnalyticIteration& a, double micro_batches) {
  return (a.compute + a.tp + a.cp + a.ep + a.pp) / micro_batches;
}

TEST(LlmSearch, VirtualStagesShortenTheBubbleByAFractionOfItsSlots) {
  // L = 8 so that P v = 4 x 2 divides it; T 2, D 2, P 4, N_B 8 (a multiple of P).
  LlmModel m = tiny();
  m.layers = 8;
  const double NB = 8, P = 4;
  const AnalyticIteration one =
      analytic_iteration(config_of(m, {2, 1, 1, 2, 4, 1, 8, 1}), AnalyticNetwork{});
  const AnalyticIteration two =
      analytic_iteration(config_of(m, {2, 1, 1, 2, 4, 1, 8, 2}), AnalyticNetwork{});
  ASSERT_GT(one.tp, 0);  // both communication terms of a slot are there
  ASSERT_GT(one.pp, 0);
  const double slot = per_slot(one, NB);
  EXPECT_NEAR(per_slot(two, NB), slot, slot * 1e-12);
  EXPECT_NEAR(two.dp, one.dp, one.dp * 1e-12);
  // (N_B + (P-1)/v) slots then DP: 11 slots for v = 1, 9.5 for v = 2.
  EXPECT_NEAR(one.seconds, (NB + P - 1) * slot + one.dp, one.seconds * 1e-12);
  EXPECT_NEAR(two.seconds, (NB + (P - 1) / 2) * slot + two.dp, two.seconds * 1e-12);
  // The difference is (P-1)(1 - 1/v) = 1.5 slots.
  EXPECT_NEAR(one.seconds - two.seconds, 1.5 * slot, slot * 1e-9);
}

TEST(LlmSearch, PlanOverridesSetTheParallelismFidelityAndTpKeys) {
  Plan plan;
  plan.par = {8, 2, 4, 3, 6, 5, 7, 9};
  SearchSpace space;
  space.fidelity = "packet";
  space.tp_keys = {"infinitehbd.tp", "railx.tp"};
  const auto out = plan_overrides(plan, space);
  // llm.recompute: the plan's recomputation, Plan's default (selective).
  const std::map<std::string, std::string> expected = {{"llm.tp", "8"},
                                                       {"llm.cp", "2"},
                                                       {"llm.ep", "4"},
                                                       {"llm.dp", "3"},
                                                       {"llm.pp", "6"},
                                                       {"llm.micro_batch", "5"},
                                                       {"llm.micro_batches", "7"},
                                                       {"llm.virtual_stages", "9"},
                                                       {"llm.recompute", "selective"},
                                                       {"sim.fidelity", "packet"},
                                                       {"infinitehbd.tp", "8"},
                                                       {"railx.tp", "8"}};
  const std::map<std::string, std::string> got(out.begin(), out.end());
  EXPECT_EQ(got, expected);
  EXPECT_EQ(out.size(), expected.size());  // no key twice
  // The tp_keys come last, so a tp_key naming an llm.* key would win (later sets replace).
  ASSERT_GE(out.size(), 2u);
  EXPECT_EQ(out[out.size() - 2].first, "infinitehbd.tp");
  EXPECT_EQ(out.back().first, "railx.tp");
}

// The [llm] section of `values` (without the "llm." prefix), as llm_config reads it.
LlmConfig llm_of(const Values& values) {
  Values keys;
  for (const auto& [k, v] : values) keys.emplace_back("llm." + k, v);
  return llm_config(resolve_section(config_with(keys), "llm", llm_params()));
}

TEST(LlmSearch, SpaceDefaultsComeFromTheLlmSection) {
  // T 4, E 2, D_e 3, P 2: 48 GPUs; B 2, N_B 5, D = E D_e = 6: 60 sequences.
  const LlmConfig base = llm_of({{"preset", "gpt-moe-1.1t"},
                                 {"tp", "4"},
                                 {"ep", "2"},
                                 {"dp", "3"},
                                 {"pp", "2"},
                                 {"micro_batch", "2"},
                                 {"micro_batches", "5"}});
  const SearchSpace s = space_of({}, base);
  EXPECT_EQ(s.gpus, 48u);
  EXPECT_EQ(s.global_batch, 60u);
  EXPECT_EQ(s.tp, (std::vector<uint32_t>{1, 2, 4, 8, 16, 32, 64, 128}));
  EXPECT_EQ(s.pp, (std::vector<uint32_t>{1, 2, 4, 8, 16}));
  EXPECT_EQ(s.ep, (std::vector<uint32_t>{1}));
  EXPECT_EQ(s.micro_batch, (std::vector<uint32_t>{1}));
  EXPECT_DOUBLE_EQ(s.memory.capacity_bytes, 80 * kGiB);
  EXPECT_DOUBLE_EQ(s.network.alpha_s, 1e-6);
  EXPECT_DOUBLE_EQ(s.network.network_bandwidth, 50e9);  // 400 Gbps
  EXPECT_DOUBLE_EQ(s.network.hb_bandwidth, 400e9);      // 3.2 Tbps
  EXPECT_EQ(s.top, 4u);
  EXPECT_EQ(s.fidelity, "flow");
  EXPECT_TRUE(s.tp_keys.empty());
}

TEST(LlmSearch, SpaceKeysOverrideTheDefaults) {
  const LlmConfig base = llm_of({{"tp", "4"}, {"dp", "3"}, {"micro_batches", "5"}});
  const SearchSpace s = space_of({{"gpus", "1024"},
                                  {"global_batch", "2048"},
                                  {"tp", "[8, 16]"},
                                  {"memory_gib", "40"},
                                  {"network_bandwidth", "800Gbps"},
                                  {"top", "2"},
                                  {"fidelity", "packet"},
                                  {"tp_keys", "[infinitehbd.tp]"}},
                                 base);
  EXPECT_EQ(s.gpus, 1024u);
  EXPECT_EQ(s.global_batch, 2048u);
  EXPECT_EQ(s.tp, (std::vector<uint32_t>{8, 16}));
  EXPECT_DOUBLE_EQ(s.memory.capacity_bytes, 40 * kGiB);
  EXPECT_DOUBLE_EQ(s.network.network_bandwidth, 100e9);
  EXPECT_EQ(s.top, 2u);
  EXPECT_EQ(s.fidelity, "packet");
  EXPECT_EQ(s.tp_keys, (std::vector<std::string>{"infinitehbd.tp"}));
}

TEST(LlmSearch, ZeroMemoryIsAnInputErrorNamingMemoryGib) {
  const LlmConfig base = llm_of({});
  try {
    space_of({{"memory_gib", "0"}}, base);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("search.memory_gib"), std::string::npos) << e.what();
  }
}

// Virtual stages cut the model into more chunks, not into more layers: an MoE model's compute
// per GPU (half its layers with experts) is the same with 1 and 3 chunks per stage.
TEST(LlmSearch, VirtualStagesKeepAnMoeStagesCompute) {
  LlmConfig c = config_of(small_moe());
  c.model.layers = 12;
  c.model.moe_layer_ratio = 0.5;
  c.par = {1, 1, 1, 1, 2, 1, 4, 1};
  const AnalyticIteration one = analytic_iteration(c, AnalyticNetwork{});
  c.par.virtual_stages = 3;
  const AnalyticIteration three = analytic_iteration(c, AnalyticNetwork{});
  EXPECT_GT(one.compute, 0);
  EXPECT_DOUBLE_EQ(three.compute, one.compute);
}

}  // namespace
}  // namespace hx::wl
