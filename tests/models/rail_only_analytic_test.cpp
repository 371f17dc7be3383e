// The rail-only paper's analytical model against the numbers it prints: Table 2 (§4) exactly,
// and the iteration-time results of Figs. 5, 7 and 8 (§2.2, §3.3, §3.4) at the paper's printed
// precision: a value passes when it rounds to the printed number (28% means [27.5, 28.5), 3.8%
// means [3.75, 3.85)). The one number that does not round to the paper's, Fig. 5's 1.65x, is
// checked against the interval the paper's own Fig. 8 implies, and the test says why.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "models/topologies/rail_only/analytic.h"

namespace hx::net::rail_only {
namespace {

const Hardware kGh200;  // §2.1's B_F and B_S, the H100's dense bf16 C

// v as printed with `decimals` decimals.
std::string at(double v, int decimals) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", decimals, v);
  return text;
}

Training paper(const std::string& model) { return training(model, paper_batch_tokens(model)); }

// 1 - T(K_to) / T(K_from), each K at its own N_M, as §3.3 quotes Fig. 7.
double cut(const std::string& model, uint64_t gpus, uint64_t from, uint64_t to) {
  const Training t = paper(model);
  return 1 -
         evaluate(t, kGh200, gpus, to).rail.total() / evaluate(t, kGh200, gpus, from).rail.total();
}

double palm_relative(double sequences, uint64_t hb_size) {
  return evaluate(training("palm-540b", sequences * 2048), kGh200, 32768, hb_size).relative();
}

struct PaperRow {
  uint64_t gpus;
  uint32_t radix;
  uint64_t sota_switches, rail_switches, sota_transceivers, rail_transceivers;
  int32_t reduction_percent;
};

// Table 2, as printed (K = 256, GH200).
const std::vector<PaperRow> kTable2 = {
    {32768, 32, 7168, 3072, 262144, 131072, 54}, {32768, 64, 2560, 1536, 196608, 131072, 37},
    {32768, 128, 1280, 256, 196608, 65536, 75},  {32768, 256, 384, 128, 131072, 65536, 60},
    {65536, 64, 5120, 3072, 393216, 262144, 37}, {65536, 128, 2560, 1536, 393216, 262144, 37},
    {65536, 256, 1280, 256, 393216, 131072, 75},
};

TEST(RailOnlyTable2, EveryRow) {
  const std::vector<Table2Row> grid = table2_rows();
  ASSERT_EQ(grid.size(), kTable2.size());
  for (size_t i = 0; i < kTable2.size(); ++i) {
    const PaperRow& p = kTable2[i];
    SCOPED_TRACE("N=" + std::to_string(p.gpus) + " radix " + std::to_string(p.radix));
    EXPECT_EQ(grid[i].gpus, p.gpus);
    EXPECT_EQ(grid[i].radix, p.radix);
    const CostComparison c = compare_cost(p.gpus, kTable2HbSize, p.radix);
    EXPECT_EQ(c.sota.switches, p.sota_switches);
    EXPECT_EQ(c.rail.switches, p.rail_switches);
    EXPECT_EQ(c.sota.transceivers, p.sota_transceivers);
    EXPECT_EQ(c.rail.transceivers, p.rail_transceivers);
    EXPECT_EQ(c.reduction_percent, p.reduction_percent);
  }
}

TEST(RailOnlyTable2, PercentagesAreTruncated) {
  // The printed 54% and 37% are 6/11 and 3/8: rounding to nearest would print 55% and 38%.
  EXPECT_DOUBLE_EQ(compare_cost(32768, 256, 32).reduction, 6.0 / 11);
  EXPECT_DOUBLE_EQ(compare_cost(32768, 256, 64).reduction, 3.0 / 8);
  EXPECT_DOUBLE_EQ(compare_cost(65536, 256, 128).reduction, 3.0 / 8);
  // Cost = #SW radix $748 + #TR $374.
  EXPECT_EQ(cost_usd({3, 2560, 196608}, 64), 2560u * 64 * 748 + 196608u * 374);
}

TEST(RailOnlyTable2, Tiers) {
  // §4: at radix 64 the state of the art needs a three-tier Clos, rail-only two tiers per rail.
  const Fabric sota = rail_optimized_fabric(32768, 64);
  EXPECT_EQ(sota.tiers, 3u);
  EXPECT_EQ(sota.switches, 1024u + 1024u + 512u);
  EXPECT_EQ(folded_clos(128, 64).switches, 4u + 2u);  // one rail: 4 leaves, 2 spines
  EXPECT_EQ(rail_only_fabric(32768, 256, 64).tiers, 2u);
  EXPECT_EQ(rail_only_fabric(65536, 256, 64).tiers, 2u);
  // A 128-GPU rail fills half a radix-256 switch: two rails per switch.
  EXPECT_EQ(rail_only_fabric(32768, 256, 256).switches, 128u);
  EXPECT_EQ(clos_tiers(64, 64), 1u);
  EXPECT_EQ(clos_tiers(2048, 64), 2u);
  EXPECT_EQ(clos_tiers(2049, 64), 3u);
}

TEST(RailOnlyEquations, Eq2AsPrinted) {
  // N_M* = sqrt(N S_T) / (2 sqrt(2 b M_cc d_model)), S_T in bits.
  for (const std::string& m : paper_models()) {
    const Training t = paper(m);
    const double printed = std::sqrt(32768 * t.block_bits) /
                           (2 * std::sqrt(2 * t.batch_tokens * t.mp_rounds * t.d_model));
    EXPECT_NEAR(optimal_mp_size(t, 32768), printed, 1e-9 * printed) << m;
  }
}

TEST(RailOnlyEquations, MpSizeMinimisesEq1) {
  // The N_M used is the best of Eq. 1 over the powers of two dividing K.
  for (const std::string& m : paper_models()) {
    for (const uint64_t n : {16384u, 32768u, 65536u}) {
      for (uint64_t k = 8; k <= 1024; k *= 2) {
        const Training t = paper(m);
        uint64_t best = 1;
        for (uint64_t mp = 2; mp <= k; mp *= 2) {
          if (iteration_time(t, kGh200, n, k, mp).total() <
              iteration_time(t, kGh200, n, k, best).total()) {
            best = mp;
          }
        }
        EXPECT_EQ(mp_size(t, n, k), best) << m << " N=" << n << " K=" << k;
      }
    }
  }
  EXPECT_EQ(mp_size(paper("palm-540b"), 24 * 1024, 24), 8u);  // no larger power of two divides 24
}

TEST(RailOnlyEquations, Eq1WithOneDomainIsEq3) {
  // §3.3: the ideal case is "equivalently the case where K = N".
  for (const std::string& m : paper_models()) {
    const Training t = paper(m);
    const IterationTime one = iteration_time(t, kGh200, 32768, 32768, mp_size(t, 32768, 32768));
    EXPECT_EQ(one.dp_first, 0.0);
    EXPECT_NEAR(one.total(), ideal_iteration_time(t, kGh200, 32768), 1e-12) << m;
  }
}

TEST(RailOnlyFig7, HbSizeGains) {
  // §3.3: K 32 -> 64 cuts the iteration time by 28% (GPT-3) and 33% (OPT-175B), 512 -> 1024 by
  // 3.8% and 5.3%. These are the N = 16,384 panel's: the larger clusters gain more.
  EXPECT_EQ(at(100 * cut("gpt3-175b", 16384, 32, 64), 0), "28");
  EXPECT_EQ(at(100 * cut("opt-175b", 16384, 32, 64), 0), "33");
  EXPECT_EQ(at(100 * cut("gpt3-175b", 16384, 512, 1024), 1), "3.8");
  EXPECT_EQ(at(100 * cut("opt-175b", 16384, 512, 1024), 1), "5.3");
  // With T_c ~ 1/N and T_Df ~ 1/K, communication weighs more on more GPUs.
  for (const std::string& m : paper_models()) {
    for (const auto& [from, to] : {std::pair{32, 64}, std::pair{512, 1024}}) {
      EXPECT_LT(cut(m, 16384, from, to), cut(m, 32768, from, to)) << m;
      EXPECT_LT(cut(m, 32768, from, to), cut(m, 65536, from, to)) << m;
    }
  }
}

TEST(RailOnlyFig7, Curve) {
  // Fig. 7: iteration time falls as K grows, towards (never below) the ideal any-to-any time.
  const std::vector<uint64_t> ks = {8, 16, 32, 64, 128, 256, 512, 1024};
  const std::vector<Point> curve = hb_size_sweep(paper("gpt3-175b"), kGh200, 32768, ks);
  ASSERT_EQ(curve.size(), ks.size());
  for (size_t i = 1; i < curve.size(); ++i) {
    EXPECT_LT(curve[i].rail.total(), curve[i - 1].rail.total()) << ks[i];
    EXPECT_GE(curve[i].rail.total(), curve[i].ideal) << ks[i];
  }
}

TEST(RailOnlyFig8, PalmRelativePerformance) {
  // §3.4: PaLM-540B on 32,768 GPUs, K = 256: 60% at 512 sequences, 81% at 2,048.
  EXPECT_EQ(at(100 * palm_relative(512, 256), 0), "60");
  EXPECT_EQ(at(100 * palm_relative(2048, 256), 0), "81");
  // "the relative performance ... improves as the batch size increases", for K = 256..1024.
  for (const uint64_t k : {256u, 512u, 1024u}) {
    std::vector<double> batches;
    for (double s = 512; s <= 2048; s += 256) batches.push_back(s * 2048);
    const std::vector<Point> curve = batch_sweep("palm-540b", kGh200, 32768, k, batches);
    for (size_t i = 1; i < curve.size(); ++i) {
      EXPECT_GT(curve[i].relative(), curve[i - 1].relative()) << "K=" << k;
    }
  }
}

TEST(RailOnlyFig5, IdealSpeedup) {
  // §2.2: the ideal 7.2 Tbps any-to-any network is 1.28x to 1.65x faster than the rail-optimized
  // one (which performs as rail-only does) over GPT-3, OPT-175B and PaLM-540B, on 128 GH200
  // (N = 32,768, K = 256). GPT-3 gives the low end.
  const std::vector<Point> speedups = model_sweep(kGh200, 32768, 256);
  ASSERT_EQ(speedups.size(), 3u);
  const auto [lo, hi] =
      std::minmax_element(speedups.begin(), speedups.end(),
                          [](const Point& a, const Point& b) { return a.speedup() < b.speedup(); });
  EXPECT_EQ(lo - speedups.begin(), 0);  // GPT-3
  EXPECT_EQ(at(lo->speedup(), 2), "1.28");
  // The high end is PaLM-540B at 512 sequences, 1 / Fig. 8's relative performance there. The
  // printed 60% puts it in (1/0.605, 1/0.595] = (1.653, 1.681]; 1.65 itself is just outside, so
  // the paper's 1.65x and 60% cannot both hold at printed precision. We get 1.67x.
  EXPECT_EQ(hi - speedups.begin(), 2);  // PaLM-540B
  EXPECT_DOUBLE_EQ(hi->speedup(), 1 / palm_relative(512, 256));
  EXPECT_GT(hi->speedup(), 1 / 0.605);
  EXPECT_LE(hi->speedup(), 1 / 0.595);
}

TEST(RailOnlyInputs, PresetDerived) {
  // GPT-3 has about 175B weights, PaLM about 540B (the preset counts PaLM's attention with head
  // size d_model / heads, which adds about 5%).
  EXPECT_NEAR(model_weights(wl::llm_preset("gpt3-175b")) / 1e9, 175, 1);
  EXPECT_NEAR(model_weights(wl::llm_preset("palm-540b")) / 1e9, 540, 0.06 * 540);
  const Training t = paper("palm-540b");
  EXPECT_EQ(t.batch_tokens, 512.0 * 2048);
  EXPECT_EQ(t.mp_rounds, 12u);
  EXPECT_EQ(paper("opt-175b").mp_rounds, 8u);
  EXPECT_EQ(t.flops, 6 * model_weights(wl::llm_preset("palm-540b")) * 512 * 2048);
}

const FormRow* row(const ClosedForms& r, const std::string& key) {
  for (const FormRow& x : r.rows) {
    if (x.key == key) return &x;
  }
  return nullptr;
}

TEST(RailOnlyReport, Rows) {
  const ClosedForms r = report(Inputs{});  // N = 32,768, K = 256, radix 64, GPT-3
  for (const char* key :
       {"sota_switches", "rail_switches", "reduction_pct", "eq1_compute_s", "eq1_dp_first_s",
        "eq1_dp_second_s", "eq1_mp_s", "eq1_iter_s", "eq2_mp_opt", "mp", "eq3_ideal_s",
        "ideal_speedup", "table2_n65536_r256_rail_switches", "fig7_k8_iter_s", "fig7_k1024_iter_s",
        "fig8_b2048_relative", "fig5_palm_540b_speedup"}) {
    EXPECT_NE(row(r, key), nullptr) << key;
  }
  EXPECT_EQ(row(r, "sota_switches")->cells[0].json, "2560");
  EXPECT_EQ(row(r, "rail_switches")->cells[0].json, "1536");
  EXPECT_EQ(row(r, "reduction_pct")->cells[0].json, "37");
  EXPECT_EQ(row(r, "table2_n32768_r32_reduction_pct")->cells[0].json, "54");
  const Point p = evaluate(paper("gpt3-175b"), kGh200, 32768, 256);
  EXPECT_EQ(row(r, "mp")->cells[0].json, std::to_string(p.mp));
  EXPECT_EQ(std::stod(row(r, "eq1_iter_s")->cells[0].json), p.rail.total());
  EXPECT_EQ(std::stod(row(r, "eq3_ideal_s")->cells[0].json), p.ideal);
}

void expect_input_error(const Inputs& in, const std::string& expected) {
  try {
    report(in);
    ADD_FAILURE() << "no InputError, expected " << expected;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

TEST(RailOnlyReport, BadInputs) {
  Inputs in;
  in.hb_size = 300;
  expect_input_error(in, "rail_only.hb_size = 300");
  in = {};
  in.radix = 1;
  expect_input_error(in, "rail_only.radix = 1");
  in.radix = 63;
  expect_input_error(in, "rail_only.radix = 63");
  in = {};
  in.model = "gpt5";
  expect_input_error(in, "rail_only.llm = 'gpt5'");
  in.model = "llama3.1-405b";  // a preset, but Table 1 gives it no M_cc
  expect_input_error(in, "rail_only.llm = 'llama3.1-405b'");
  in = {};
  in.batch_tokens = -1;
  expect_input_error(in, "rail_only.batch_tokens = -1");
  in = {};
  in.gpus = 0;
  expect_input_error(in, "rail_only.gpus = 0");
  in = {};
  in.hw.chip_flops = 0;
  expect_input_error(in, "rail_only.chip_flops = 0");
}

}  // namespace
}  // namespace hx::net::rail_only

namespace hx::net::rail_only {
namespace {

// §2.2: "33% of the links in an any-to-any 400 Gbps Clos network are removable" (GH200 cluster:
// 32,768 GPUs, K = 256, radix 64). Exact: one tier of three.
TEST(RailOnlyAnalytic, RemovableLinksOfFig5) {
  EXPECT_DOUBLE_EQ(removable_link_fraction(32768, 256, 64), 1.0 / 3);
  // Radix 256: two tiers, a rail of 128 under one leaf of 128 GPUs: the spine tier is idle.
  EXPECT_DOUBLE_EQ(removable_link_fraction(32768, 256, 256), 0.5);
  // One switch for everything: nothing to remove.
  EXPECT_DOUBLE_EQ(removable_link_fraction(64, 8, 64), 0.0);
}

}  // namespace
}  // namespace hx::net::rail_only
