// Workloads through the whole engine and network (resolve_config + run_simulation, no output).
//   - Ring and 2D-ring all-reduce on uncongested tori take the time of their α–β formulas
//     (RailX Eq. 6 and 7) within 5% for large messages. α is the zero-load latency between ring
//     neighbours (workload.alpha = 0: measured by the model); B is stated per test.
//   - An LLM iteration runs to completion on every endpoint and reports an MFU in (0, 1].
// Results are the same at any rank count, so every assertion holds on every rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/registry.h"
#include "engine/run.h"
#include "network/small_networks.h"
#include "support/run_summary.h"

namespace hx {
namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;

std::vector<SummaryValue> run(const Settings& settings) {
  Config config;
  for (const auto& [key, value] : settings) config.set(key, value, "test");
  return testing::run_summary(test::registry(), config);
}

double value(const std::vector<SummaryValue>& summary, const std::string& name) {
  return testing::summary_value(summary, name);
}

// A 1 GHz network with 8-byte flits: every link carries 8 GB/s = 64 Gbps.
Settings torus(const std::string& k, const std::string& n) {
  return {{"sim.model", "torus"}, {"torus.k", k}, {"torus.n", n}, {"workload.kind", "collective"}};
}

// 8 endpoints on a ring (an 8-ary 1-cube). A unidirectional ring all-reduce uses each terminal
// link in one stream, so B = 64 Gbps; T = 2[(p-1)α + (p-1)/p · V/B].
TEST(WorkloadRuns, RingAllReduceMatchesAlphaBeta) {
  Settings s = torus("8", "1");
  s.insert(s.end(), {{"workload.algorithm", "ring"},
                     {"workload.bytes", "1MiB"},
                     {"workload.bandwidth", "64Gbps"}});
  const auto summary = run(s);
  EXPECT_EQ(value(summary, "workload_complete"), 1);
  EXPECT_NEAR(value(summary, "workload_vs_analytic"), 1.0, 0.05);
}

// The bidirectional ring's two directions share each endpoint's one terminal link, so each
// direction has B = 64/2 = 32 Gbps; T = 2 T_R(p, V, B) (Eq. 6).
TEST(WorkloadRuns, BidirectionalRingAllReduceMatchesEq6) {
  Settings s = torus("8", "1");
  s.insert(s.end(), {{"workload.algorithm", "bidir_ring"},
                     {"workload.bytes", "1MiB"},
                     {"workload.bandwidth", "32Gbps"}});
  const auto summary = run(s);
  EXPECT_EQ(value(summary, "workload_complete"), 1);
  EXPECT_NEAR(value(summary, "workload_vs_analytic"), 1.0, 0.05);
}

// A 4x4 torus: the 2D ring runs four streams (X+, X-, Y+, Y-) per chip at once, which share its
// terminal link, so B = 64/4 = 16 Gbps per direction; T = 2[T_R(4, V/2, B) + T_R(4, V/8, B)]
// (Eq. 7 with mp = 4).
TEST(WorkloadRuns, Ring2DAllReduceMatchesEq7) {
  Settings s = torus("4", "2");
  s.insert(s.end(), {{"workload.algorithm", "ring_2d"},
                     {"workload.rows", "4"},
                     {"workload.cols", "4"},
                     {"workload.bytes", "1MiB"},
                     {"workload.bandwidth", "16Gbps"}});
  const auto summary = run(s);
  EXPECT_EQ(value(summary, "workload_complete"), 1);
  EXPECT_NEAR(value(summary, "workload_vs_analytic"), 1.0, 0.05);
}

// workload.groups = "4:4": the four columns {x, x+4, x+8, x+12} of a 4x4 torus each run a
// bidirectional-ring all-reduce at once. The columns share no link, so each takes Eq. 6's time
// with B = 32 Gbps (two directions on a terminal link), as one ring alone would; all 16
// endpoints take part, each sending 2 x 2(p-1) chunks of V/(2p) = 32 KiB (1,024 packets of 32
// bytes each).
TEST(WorkloadRuns, ConcurrentStridedGroupsEachMatchEq6) {
  Settings s = torus("4", "2");
  s.insert(s.end(), {{"workload.algorithm", "bidir_ring"},
                     {"workload.groups", "4:4"},
                     {"workload.bytes", "256KiB"},
                     {"workload.bandwidth", "32Gbps"}});
  const auto summary = run(s);
  EXPECT_EQ(value(summary, "workload_complete"), 1);
  EXPECT_EQ(value(summary, "workload_endpoints"), 16);
  EXPECT_EQ(value(summary, "packets_injected"), 16 * 2 * 2 * 3 * (32768 / 32));
  EXPECT_NEAR(value(summary, "workload_vs_analytic"), 1.0, 0.05);
}

// Binary-exchange all-to-all on 8 endpoints of a ring completes, every member having sent
// log2(8) messages of V/2.
TEST(WorkloadRuns, BinaryExchangeCompletes) {
  Settings s = torus("8", "1");
  s.insert(s.end(), {{"workload.collective", "all_to_all"},
                     {"workload.algorithm", "binary_exchange"},
                     {"workload.bytes", "64KiB"}});
  const auto summary = run(s);
  EXPECT_EQ(value(summary, "workload_complete"), 1);
  EXPECT_EQ(value(summary, "packets_injected"), 8 * 3 * (32768 / 32));
}

// Programs that did not end are reported with the reason: stopped by sim.end_time (events were
// left), not "a recv never matched" (none were).
TEST(WorkloadRuns, ProgramsCutByTheEndTimeSaySo) {
  Settings s = torus("8", "1");
  s.insert(s.end(), {{"workload.bytes", "1MiB"}, {"sim.end_time", "2us"}});
  Config config;
  for (const auto& [key, value] : s) config.set(key, value, "test");
  RunOptions options;
  options.progress = ProgressMode::kOff;
  const RunResult r =
      run_simulation(MPI_COMM_WORLD, resolve_config(test::registry(), config), options);
  EXPECT_EQ(value(r.summary, "workload_complete"), 0);
  std::string report;
  for (const std::string& line : r.report) report += line + "\n";
  EXPECT_NE(report.find("8 programs NOT complete (the run stopped at 2us, before they ended)"),
            std::string::npos)
      << report;
}

// A tiny MoE iteration (TP2 CP1 EP2 DP2 PP2 on 16 of a 4x4 torus's endpoints).
Settings tiny_moe() {
  return {{"sim.model", "torus"},
          {"torus.k", "4"},
          {"torus.n", "2"},
          {"workload.kind", "llm"},
          {"llm.preset", "llama3-70b-moe"},
          {"llm.layers", "4"},
          {"llm.hidden", "256"},
          {"llm.ffn", "512"},
          {"llm.heads", "8"},
          {"llm.kv_heads", "2"},
          {"llm.vocab", "1024"},
          {"llm.seq", "128"},
          {"llm.tp", "2"},
          {"llm.ep", "2"},
          {"llm.dp", "2"},
          {"llm.pp", "2"},
          {"llm.micro_batches", "2"},
          {"llm.chip_flops", "1e12"}};
}

// Every program ends, compute is on the critical path, and the MFU is a fraction.
TEST(WorkloadRuns, LlmIterationCompletes) {
  const auto summary = run(tiny_moe());
  EXPECT_EQ(value(summary, "workload_complete"), 1);
  EXPECT_EQ(value(summary, "workload_endpoints"), 16);
  const double mfu = value(summary, "mfu");
  EXPECT_GT(mfu, 0);
  EXPECT_LE(mfu, 1);
  EXPECT_GT(value(summary, "workload_critical_compute_ps"), 0);
  EXPECT_GT(value(summary, "exposed_TP_ps"), 0);
}

// Stopped by sim.end_time, the iteration did not do its FLOPs in the time it reached: no MFU
// (it was the whole iteration's FLOPs over the time so far: 3,397,578% for GPT-3 cut at 200 us).
TEST(WorkloadRuns, AnIterationCutShortHasNoMfu) {
  Settings s = tiny_moe();
  s.push_back({"sim.end_time", "1us"});
  const auto summary = run(s);
  EXPECT_EQ(value(summary, "workload_complete"), 0);
  for (const SummaryValue& v : summary) EXPECT_NE(v.name, "mfu");
}

}  // namespace
}  // namespace hx
