// Unstable runs (docs/VALIDATION.md, "Stability"): beyond saturation the source queues grow
// through the measurement window and the run says so (/summary unstable), a source queue never
// holds more than traffic.source_queue_limit packets (the rest are counted, not offered), and
// traffic.stop_unstable ends such a run at the first queue sample that finds it unstable. Below saturation nothing of this shows. The
// figures are the same at any rank count, so every rank checks them.
#include <gtest/gtest.h>

#include <string>

#include "core/params.h"
#include "core/registry.h"
#include "models/register_all.h"
#include "network/small_networks.h"
#include "support/run_summary.h"

namespace hx {
namespace {

using test::registry;

// A 4x4 mesh under uniform traffic: its bisection bound is 4 * 15 / 64 = 0.9375
// flits/cycle/endpoint, and dimension-order routing saturates near 0.6.
Config mesh(const std::string& load) {
  Config c;
  c.set("sim.model", "mesh", "test");
  c.set("mesh.k", "4", "test");
  c.set("mesh.n", "2", "test");
  c.set("traffic.load", load, "test");
  c.set("traffic.warmup", "500cycles", "test");
  c.set("traffic.measure", "4000cycles", "test");
  return c;
}

double value(const std::vector<SummaryValue>& s, const std::string& name) {
  return testing::summary_value(s, name);
}

TEST(NetworkStability, BelowSaturationIsStable) {
  const auto s = testing::run_summary(registry(), mesh("0.3"));
  EXPECT_EQ(value(s, "unstable"), 0);
  EXPECT_EQ(value(s, "packets_not_offered"), 0);
  EXPECT_LT(value(s, "queue_growth_packets"), 16);  // less than one packet per source
}

TEST(NetworkStability, GrowingQueuesAreUnstable) {
  // Beyond saturation, with room in the queues: found by the samples alone.
  const auto s = testing::run_summary(registry(), mesh("0.9"));
  EXPECT_EQ(value(s, "unstable"), 1);
  EXPECT_EQ(value(s, "packets_not_offered"), 0);
  EXPECT_GT(value(s, "queue_growth_packets"), 16 * 10);
}

TEST(NetworkStability, QueueLimitCapsTheSourceQueues) {
  Config c = mesh("0.9");
  c.set("traffic.source_queue_limit", "50", "test");
  const auto s = testing::run_summary(registry(), c);
  EXPECT_EQ(value(s, "unstable"), 1);
  EXPECT_GT(value(s, "packets_not_offered"), 0);
  // Only what the queues held is left in them when injection stops.
  EXPECT_LE(value(s, "packets_queued"), 16 * 50);
  EXPECT_EQ(value(s, "packets_injected"),
            value(s, "packets_ejected") + value(s, "packets_in_flight"));
}

TEST(NetworkStability, StopUnstableEndsTheRunAtTheFirstSampleThatFindsIt) {
  // Far beyond saturation the queues grow by about 0.3 / 4 packets per cycle per source, 150
  // per source between the halves of the first four samples (window/8 apart): far above the
  // two packets per source that four samples ask for, so the run ends at the fourth.
  Config c = mesh("0.9");
  const ResolvedConfig full = resolve_config(registry(), c);
  c.set("traffic.stop_unstable", "true", "test");
  const ResolvedConfig stopped = resolve_config(registry(), c);
  RunOptions options;
  options.progress = ProgressMode::kOff;
  const RunResult a = run_simulation(MPI_COMM_WORLD, full, options);
  const RunResult b = run_simulation(MPI_COMM_WORLD, stopped, options);
  EXPECT_FALSE(a.ended_early);
  EXPECT_TRUE(b.ended_early);
  // Window [500, 4500) cycles of 1 ns: the fourth sample ends its first half.
  EXPECT_EQ(b.reached, SimTime::ns(2500));
  EXPECT_EQ(value(b.summary, "unstable"), 1);
  EXPECT_LT(b.total_events, a.total_events * 3 / 5);
  // Rates are over the half window reached, so the offered load is still the configured one
  // (Bernoulli: within 3% on 16 sources over 2,000 cycles).
  EXPECT_NEAR(value(b.summary, "offered_load"), 0.9, 0.9 * 0.03);
  EXPECT_NEAR(value(b.summary, "accepted_load"), value(a.summary, "accepted_load"),
              0.1 * value(a.summary, "accepted_load"));
}

// With a time series the run is observed at every bin's end too, but only the queue samples
// can end it: only there does the engine add tables up across ranks, and only the two small
// ones the decision reads (adding up every table at each bin end grows with the bins squared).
TEST(NetworkStability, StopUnstableAddsUpTwoTablesAtQueueSamplesOnly) {
  Config c = mesh("0.9");
  c.set("traffic.stop_unstable", "true", "test");
  const ResolvedConfig plain = resolve_config(registry(), c);
  c.set("traffic.timeseries_bin", "10ns", "test");
  const ResolvedConfig series = resolve_config(registry(), c);
  const std::size_t samples = plain.model->observation_times().size();
  const std::size_t observations = series.model->observation_times().size();
  EXPECT_GT(observations, samples * 5);  // 450 bin ends and 64 samples, some at one time
  std::size_t asking = 0;
  for (std::size_t k = 0; k < observations; ++k) {
    const std::vector<std::string> tables = series.model->end_early_tables(k);
    if (tables.empty()) continue;
    ++asking;
    EXPECT_EQ(tables, (std::vector<std::string>{"network_totals", "queue_samples"}));
  }
  EXPECT_EQ(asking, samples);
  RunOptions options;
  options.progress = ProgressMode::kOff;
  const RunResult r = run_simulation(MPI_COMM_WORLD, series, options);
  EXPECT_TRUE(r.ended_early);
  EXPECT_EQ(r.reached, SimTime::ns(2500));  // as without the time series
}

// An end that is no bin's end lies in the last /timeseries bin, which its queue observation
// at the run's end closes: the bins before it are observed at their ends, all before the end,
// and no bin lies wholly after it (whose predecessor would end after the run, unobserved).
TEST(NetworkStability, TheLastTimeSeriesBinHoldsTheEnd) {
  Config c = mesh("0.3");
  c.set("sim.end_time", "1000ns", "test");
  c.set("traffic.timeseries_bin", "333ns", "test");
  const ResolvedConfig r = resolve_config(registry(), c);
  std::vector<SimTime> bin_ends;
  for (const SimTime t : r.model->observation_times()) {
    if (t.count_ps() % SimTime::ns(333).count_ps() == 0) bin_ends.push_back(t);
  }
  EXPECT_EQ(bin_ends, (std::vector<SimTime>{SimTime::ns(333), SimTime::ns(666), SimTime::ns(999)}));
}

TEST(NetworkStability, StopUnstableLeavesAStableRunWhole) {
  Config c = mesh("0.3");
  c.set("traffic.stop_unstable", "true", "test");
  RunOptions options;
  options.progress = ProgressMode::kOff;
  const RunResult r = run_simulation(MPI_COMM_WORLD, resolve_config(registry(), c), options);
  EXPECT_FALSE(r.ended_early);
  EXPECT_GE(r.reached, SimTime::ns(4500));  // the window's end, then the drain
  EXPECT_EQ(value(r.summary, "unstable"), 0);
}

}  // namespace
}  // namespace hx
