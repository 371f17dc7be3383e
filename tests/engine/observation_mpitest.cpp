// Observations (Model::observation_times, Component::observe) see the exact state at their time
// on any rank count, in both executors, and a model that ends the run at one ends it there: a
// token ring whose hops fall on observation times (events at an observation's time come after
// it), checked against the counts the ring's timing gives.
#include <gtest/gtest.h>
#include <mpi.h>

#include "core/state_archive.h"
#include "engine/executor.h"
#include "engine/simulation.h"
#include "engine/table_reduce.h"
#include "partition/partitioner.h"

namespace hx {
namespace {

constexpr ComponentId kTokens = 24;
const SimTime kHop = SimTime::ns(3);
const SimTime kEvery = SimTime::ns(4);  // observation k at 4 (k + 1) ns: every third on a hop
constexpr std::size_t kObservations = 10;

TableSpec seen_table() {
  return {"seen",
          "observation",
          "tokens received before each observation",
          {{"tokens", ColumnType::kU64, "1", ""}},
          TableKind::kSummed,
          kObservations};
}

// Forwards its token for ever and counts what it received.
class Forwarder final : public Component {
 public:
  Forwarder(ComponentId id, Table* seen) : Component(id), seen_(seen) {}
  void setup() override { send(0, 0, uint64_t{0}); }
  void handle(const Event&) override {
    ++received_;
    send(0, 0, uint64_t{0});
  }
  void observe(uint32_t k) override { seen_->add_to(k, 0, received_); }
  void serialize(StateArchive& ar) override { ar & received_; }

 private:
  Table* seen_;
  uint64_t received_ = 0;
};

class ObservedRing final : public Model {
 public:
  ComponentId num_components() const override { return kTokens; }
  std::vector<GroupLevel> group_levels() const override { return {{"group", kTokens / 2}}; }
  ComponentRange group_range(std::size_t, uint64_t g) const override {
    return {static_cast<ComponentId>(2 * g), static_cast<ComponentId>(2 * g + 2)};
  }
  void ports(ComponentId id, std::vector<PortSpec>& out) const override {
    out.push_back({(id + 1) % kTokens, 1, kHop, 0});
    out.push_back({(id + kTokens - 1) % kTokens, 0, kHop, 0});
  }
  std::vector<TableSpec> tables() const override { return {seen_table()}; }
  std::unique_ptr<Component> create(ComponentId id, const BuildContext& ctx) const override {
    return std::make_unique<Forwarder>(id, &ctx.stats->table("seen"));
  }
};

// Tokens received before time t: one per component per hop strictly before t.
uint64_t expected_before(SimTime t) {
  return kTokens * static_cast<uint64_t>((t.count_ps() - 1) / kHop.count_ps());
}

struct Outcome {
  EngineStats engine;
  std::vector<uint64_t> seen;  // summed over ranks
};

// Runs to 1 us (tokens never run out) with observations; ends at the first whose total
// reaches `end_at_tokens`. `ranks` 0: the sequential executor on this rank alone.
Outcome run(MPI_Comm comm, bool windows, uint64_t end_at_tokens) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const ObservedRing model;
  const auto partition = make_partition("round_robin", model, ranks);
  StatsRegistry stats;
  for (const TableSpec& t : model.tables()) stats.declare(t);
  Simulation sim(model, *partition, rank, 1, stats);
  sim.setup();
  RunControl control;
  for (std::size_t k = 0; k < kObservations; ++k) {
    control.observe_at.push_back(kEvery * static_cast<int64_t>(k + 1));
  }
  control.observe = [&](std::size_t k) {
    sim.observe(static_cast<uint32_t>(k), control.observe_at[k]);
    return reduced_summed_copy(comm, stats, {"seen"}).table("seen").u64(0)[k] >= end_at_tokens;
  };
  Outcome out;
  out.engine = windows ? run_windows(sim, comm, kHop, SimTime::us(1), nullptr, control)
                       : run_sequential(sim, SimTime::us(1), nullptr, control);
  sim.finish(false, out.engine.reached);
  out.seen = reduced_summed_copy(comm, stats, {"seen"}).table("seen").u64(0);
  return out;
}

TEST(Observations, SeeTheStateAtTheirTimeAndEndTheRunThere) {
  // The 7th observation (28 ns) is the first to count 8 * 24 tokens or more: 9 hops before it.
  const uint64_t threshold = 8 * kTokens;
  const SimTime ends = kEvery * 7;
  for (const bool windows : {false, true}) {
    SCOPED_TRACE(windows ? "window executor, all ranks" : "sequential executor");
    // The sequential executor is run on each rank alone.
    const Outcome o = run(windows ? MPI_COMM_WORLD : MPI_COMM_SELF, windows, threshold);
    EXPECT_TRUE(o.engine.ended_early);
    EXPECT_FALSE(o.engine.drained);
    EXPECT_EQ(o.engine.reached, ends);
    for (std::size_t k = 0; k < kObservations; ++k) {
      const SimTime at = kEvery * static_cast<int64_t>(k + 1);
      EXPECT_EQ(o.seen[k], at <= ends ? expected_before(at) : 0) << "observation " << k;
    }
    uint64_t events = o.engine.events;
    if (windows) MPI_Allreduce(MPI_IN_PLACE, &events, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(events, expected_before(ends));  // nothing at or after 28 ns was handled
  }
}

TEST(Observations, AModelThatNeverEndsEarlyRunsToTheEnd) {
  const Outcome o = run(MPI_COMM_WORLD, true, UINT64_MAX);
  EXPECT_FALSE(o.engine.ended_early);
  EXPECT_EQ(o.engine.reached, SimTime::us(1));
  for (std::size_t k = 0; k < kObservations; ++k) {
    EXPECT_EQ(o.seen[k], expected_before(kEvery * static_cast<int64_t>(k + 1)));
  }
}

}  // namespace
}  // namespace hx
