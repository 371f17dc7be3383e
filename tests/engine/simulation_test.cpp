// One rank's Simulation driven by the sequential executor, on PHOLD: events are conserved, two
// simulations in one process do not interfere (no global state), and the seed matters.
#include "engine/simulation.h"

#include <gtest/gtest.h>

#include "engine/executor.h"
#include "models/phold/phold.h"
#include "partition/partitioner.h"

namespace hx {
namespace {

phold::PholdConfig small_phold() {
  phold::PholdConfig c;
  c.lps = 64;
  c.group_size = 8;
  c.neighbors = 2;
  c.remote_probability = 0.3;
  c.mean_delay = SimTime::ns(1);
  c.min_delay = SimTime::ps(100);
  c.link_latency = SimTime::ns(5);
  c.events_per_lp = 2;
  return c;
}

struct Outcome {
  std::vector<uint64_t> events, checksums;
  uint64_t handled = 0, remote = 0, pending = 0;
};

Outcome run_phold(const phold::PholdConfig& c, uint64_t seed, SimTime end) {
  const auto model = phold::make_model(c);
  const auto partition = make_partition("group", *model, 1);
  StatsRegistry stats;
  for (const TableSpec& t : model->tables()) stats.declare(t);
  Simulation sim(*model, *partition, 0, seed, stats);
  sim.setup();
  const EngineStats s = run_sequential(sim, end, nullptr);
  sim.finish(false, s.reached);
  Outcome o;
  o.handled = s.events;
  o.pending = sim.queue().size();
  const Table& t = stats.table("lps");
  o.events = t.u64(0);
  o.checksums = t.u64(4);
  for (uint64_t r : t.u64(1)) o.remote += r;
  EXPECT_EQ(s.reached, end);
  return o;
}

TEST(Simulation, PholdConservesEvents) {
  const phold::PholdConfig c = small_phold();
  const Outcome o = run_phold(c, 1, SimTime::ns(200));
  // Every handled event creates exactly one new event, so the population never changes.
  EXPECT_EQ(o.pending, uint64_t{c.lps} * c.events_per_lp);
  uint64_t sum = 0;
  for (uint64_t e : o.events) sum += e;
  EXPECT_EQ(sum, o.handled);
  EXPECT_GT(o.remote, o.handled / 5);  // p = 0.3: far from zero
  EXPECT_LT(o.remote, o.handled / 2);
}

TEST(Simulation, TwoSimulationsInOneProcessAgree) {
  const Outcome a = run_phold(small_phold(), 5, SimTime::ns(150));
  const Outcome b = run_phold(small_phold(), 5, SimTime::ns(150));
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.checksums, b.checksums);
  const Outcome c = run_phold(small_phold(), 6, SimTime::ns(150));
  EXPECT_NE(a.checksums, c.checksums);
}

}  // namespace
}  // namespace hx
