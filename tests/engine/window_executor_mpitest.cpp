// The window executor over MPI gives exactly the sequential result: each rank runs its part of
// PHOLD with both partitioners, the rows are gathered on rank 0 and compared, per LP, with a
// sequential run of the whole model made in the same process.
#include <gtest/gtest.h>
#include <mpi.h>

#include <map>
#include <tuple>
#include <vector>

#include "engine/executor.h"
#include "engine/simulation.h"
#include "models/phold/phold.h"
#include "partition/cut_report.h"
#include "partition/partitioner.h"
#include "support/token_ring.h"

namespace hx {
namespace {

phold::PholdConfig config() {
  phold::PholdConfig c;
  // Group size 5 is coprime to 2, 3 and 4, so round-robin cuts links at every rank count tested.
  c.lps = 100;
  c.group_size = 5;
  c.neighbors = 3;
  c.remote_probability = 0.25;
  c.mean_delay = SimTime::ns(2);
  c.min_delay = SimTime::zero();  // zero-delay self events: ties at equal times are common
  c.link_latency = SimTime::ns(7);
  c.events_per_lp = 2;
  return c;
}

// (id -> events, checksum) for the rows of a table.
std::map<uint64_t, std::pair<uint64_t, uint64_t>> rows_of(const Table& t) {
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> rows;
  for (std::size_t i = 0; i < t.rows(); ++i) rows[t.ids()[i]] = {t.u64(0)[i], t.u64(4)[i]};
  return rows;
}

std::map<uint64_t, std::pair<uint64_t, uint64_t>> run_parallel(const std::string& partitioner,
                                                               bool shared, SimTime end,
                                                               EngineStats& out) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const auto model = phold::make_model(config());
  const auto partition = make_partition(partitioner, *model, ranks);
  const RankCut cut = analyse_rank(*model, *partition, rank);
  int64_t mine = cut.min_cut_latency.count_ps(), lookahead = 0;
  MPI_Allreduce(&mine, &lookahead, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);

  StatsRegistry stats;
  for (const TableSpec& t : model->tables()) stats.declare(t);
  Simulation sim(*model, *partition, rank, 11, stats);
  sim.setup();
  RunControl control;
  control.shared_sync = shared;
  out = run_windows(sim, MPI_COMM_WORLD, SimTime::ps(lookahead), end, nullptr, control);
  sim.finish(false, out.reached);

  // Gather (id, events, checksum) triples on rank 0.
  const Table& t = stats.table("lps");
  std::vector<uint64_t> flat;
  for (std::size_t i = 0; i < t.rows(); ++i) {
    flat.insert(flat.end(), {t.ids()[i], t.u64(0)[i], t.u64(4)[i]});
  }
  int count = static_cast<int>(flat.size());
  std::vector<int> counts(static_cast<std::size_t>(ranks)), displs(static_cast<std::size_t>(ranks));
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < ranks; ++r) displs[r] = total, total += counts[r];
  std::vector<uint64_t> all(static_cast<std::size_t>(total));
  MPI_Gatherv(flat.data(), count, MPI_UINT64_T, all.data(), counts.data(), displs.data(),
              MPI_UINT64_T, 0, MPI_COMM_WORLD);
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> rows;
  for (std::size_t i = 0; i + 2 < all.size(); i += 3) rows[all[i]] = {all[i + 1], all[i + 2]};
  return rows;
}

std::map<uint64_t, std::pair<uint64_t, uint64_t>> run_sequential_reference(SimTime end) {
  const auto model = phold::make_model(config());
  const auto partition = make_partition("group", *model, 1);
  StatsRegistry stats;
  for (const TableSpec& t : model->tables()) stats.declare(t);
  Simulation sim(*model, *partition, 0, 11, stats);
  sim.setup();
  const EngineStats s = run_sequential(sim, end, nullptr);
  sim.finish(false, s.reached);
  return rows_of(stats.table("lps"));
}

// Runs this rank's share of a token ring with the window executor (3 ns of lookahead between
// ranks) under `control`, its ranks meeting in shared memory if `shared`; `total` is the events
// handled on all ranks.
EngineStats run_token_ring(const testing::TokenRing& model, const std::string& partitioner,
                           bool shared, RunControl control, SimTime end, uint64_t& total) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const auto partition = make_partition(partitioner, model, ranks);
  StatsRegistry stats;
  Simulation sim(model, *partition, rank, 1, stats);
  sim.setup();
  control.shared_sync = shared;
  const SimTime lookahead = ranks == 1 ? SimTime::infinity() : SimTime::ns(3);
  const EngineStats s = run_windows(sim, MPI_COMM_WORLD, lookahead, end, nullptr, control);
  MPI_Allreduce(&s.events, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

// The same on this rank alone, by the sequential executor.
EngineStats run_token_ring_sequential(const testing::TokenRing& model, const RunControl& control,
                                      SimTime end) {
  const auto whole = make_partition("group", model, 1);
  StatsRegistry stats;
  Simulation sim(model, *whole, 0, 1, stats);
  sim.setup();
  return run_sequential(sim, end, nullptr, control);
}

// (partitioner, ranks meet in shared memory)
class WindowExecutor : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

TEST_P(WindowExecutor, MatchesSequentialRunExactly) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const SimTime end = SimTime::ns(300);
  EngineStats stats;
  const auto [partitioner, shared] = GetParam();
  const auto parallel = run_parallel(partitioner, shared, end, stats);
  EXPECT_EQ(stats.reached, end);
  if (!shared) {
    EXPECT_FALSE(stats.shared_sync);
  }
  if (ranks > 1) {
    EXPECT_GT(stats.windows, 10u);  // 300 ns in windows of at most 7 ns
  }
  if (rank != 0) return;
  const auto reference = run_sequential_reference(end);
  ASSERT_EQ(parallel.size(), reference.size());
  EXPECT_EQ(parallel, reference);
}

TEST_P(WindowExecutor, StopsWhenNoEventsRemainAnywhere) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const auto [partitioner, shared] = GetParam();
  uint64_t total = 0;
  const EngineStats s = run_token_ring(testing::TokenRing(24, 2, 50, SimTime::ns(3)), partitioner,
                                       shared, RunControl{}, SimTime::us(1000), total);
  EXPECT_EQ(s.reached, SimTime::ns(150));  // 50 hops of 3 ns, not the far end time
  EXPECT_EQ(total, 24u * 50u);
  if (ranks > 1) {
    EXPECT_LE(s.windows, 51u);  // idle time is skipped: one window per hop at most
  }
}

// A rank whose neighbours have nothing before its own next event to send them runs on past the
// common window [start, start + lookahead): a chain of its own events takes one window, not one
// per lookahead. The token crosses ranks 2 * ranks times on two laps of the ring.
TEST_P(WindowExecutor, ARankRunsItsOwnChainWhileTheOthersWait) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const ComponentId n = 12;
  const auto [partitioner, shared] = GetParam();
  uint64_t total = 0;
  const EngineStats s =
      run_token_ring(testing::TokenRing(n, 1, 2 * n, SimTime::ns(3), /*one_token=*/true),
                     partitioner, shared, RunControl{}, SimTime::us(1000), total);
  EXPECT_EQ(s.reached, SimTime::ns(3 * 2 * n));
  EXPECT_EQ(total, 2u * n);
  if (ranks > 1 && partitioner == "group") {
    // A window per stretch on one rank (two laps: 2 * ranks stretches), not one per hop.
    EXPECT_LE(s.windows, 2u * static_cast<uint64_t>(ranks) + 2);
  }
}

// The observations (indices into `at`) the window executor and then the sequential one make
// running the ring to `end`, and where each run stopped.
struct Observed {
  std::vector<std::size_t> windows, sequential;
  SimTime windows_reached, sequential_reached;
};
Observed observe_ring(const testing::TokenRing& ring, const std::string& partitioner, bool shared,
                      std::vector<SimTime> at, SimTime end) {
  Observed o;
  std::vector<std::size_t>* made = &o.windows;
  RunControl control;
  control.observe_at = std::move(at);
  control.observe = [&made](std::size_t i) {
    made->push_back(i);
    return false;
  };
  uint64_t total = 0;
  o.windows_reached = run_token_ring(ring, partitioner, shared, control, end, total).reached;
  made = &o.sequential;
  o.sequential_reached = run_token_ring_sequential(ring, control, end).reached;
  return o;
}

// An observation at the end time is made, as the sequential executor makes it, even though no
// work remains before the end: the tokens run on to 150 ns, the run ends at 60 ns.
TEST_P(WindowExecutor, MakesAnObservationDueAtTheEnd) {
  const auto [partitioner, shared] = GetParam();
  RunControl control;
  control.observe_at = {SimTime::ns(30), SimTime::ns(60)};
  std::vector<std::size_t> made;
  control.observe = [&made](std::size_t i) {
    made.push_back(i);
    return false;
  };
  uint64_t total = 0;
  const EngineStats s = run_token_ring(testing::TokenRing(24, 2, 50, SimTime::ns(3)), partitioner,
                                       shared, control, SimTime::ns(60), total);
  EXPECT_EQ(s.reached, SimTime::ns(60));
  EXPECT_EQ(made, (std::vector<std::size_t>{0, 1}));
}

// Observations between the last work before the end and the end (a time series with bins
// shorter than the events' spacing) are all made, by both executors: the tokens hop every 3 ns,
// so after 57 ns the next work is at the end, 60 ns.
TEST_P(WindowExecutor, MakesTheObservationsAfterTheLastWorkBeforeTheEnd) {
  const auto [partitioner, shared] = GetParam();
  const Observed o =
      observe_ring(testing::TokenRing(24, 2, 50, SimTime::ns(3)), partitioner, shared,
                   {SimTime::ns(58), SimTime::ns(59), SimTime::ns(60)}, SimTime::ns(60));
  EXPECT_EQ(o.windows, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(o.sequential_reached, SimTime::ns(60));
  EXPECT_EQ(o.sequential, (std::vector<std::size_t>{0, 1, 2}));
}

// An observation after the end is never made, even when the next work lies past it too: the
// tokens hop every 3 ns, so after 57 ns the next work is at 60 ns, past the end at 59 ns, where
// one observation (58 ns) is still due and one (60 ns) is not. The window executor made both.
TEST_P(WindowExecutor, MakesNoObservationAfterTheEnd) {
  const auto [partitioner, shared] = GetParam();
  const Observed o = observe_ring(testing::TokenRing(24, 2, 50, SimTime::ns(3)), partitioner,
                                  shared, {SimTime::ns(58), SimTime::ns(60)}, SimTime::ns(59));
  EXPECT_EQ(o.windows_reached, SimTime::ns(59));
  EXPECT_EQ(o.windows, std::vector<std::size_t>{0});
  EXPECT_EQ(o.sequential_reached, SimTime::ns(59));
  EXPECT_EQ(o.sequential, std::vector<std::size_t>{0});
}

// A checkpoint time with no work after it before the end, but observations still due, is
// passed without a checkpoint by both executors (the sequential one came back to it for ever):
// the tokens' last hop before the end (60 ns) is at 57 ns, checkpoints are due every 29 ns.
TEST_P(WindowExecutor, PassesACheckpointTimeWithOnlyObservationsAfterIt) {
  const auto [partitioner, shared] = GetParam();
  RunControl control;
  control.checkpoint_every = SimTime::ns(29);
  std::vector<SimTime> checkpoints;
  control.checkpoint = [&checkpoints](SimTime at, uint64_t) { checkpoints.push_back(at); };
  control.observe_at = {SimTime::ns(59), SimTime::ns(60)};
  std::vector<std::size_t> made;
  control.observe = [&made](std::size_t i) {
    made.push_back(i);
    return false;
  };
  const testing::TokenRing ring(24, 2, 50, SimTime::ns(3));
  uint64_t total = 0;
  const EngineStats windows =
      run_token_ring(ring, partitioner, shared, control, SimTime::ns(60), total);
  EXPECT_EQ(windows.reached, SimTime::ns(60));
  EXPECT_EQ(checkpoints, std::vector<SimTime>{SimTime::ns(29)});
  EXPECT_EQ(made, (std::vector<std::size_t>{0, 1}));

  checkpoints.clear();
  made.clear();
  const EngineStats s = run_token_ring_sequential(ring, control, SimTime::ns(60));
  EXPECT_EQ(s.reached, SimTime::ns(60));
  EXPECT_EQ(checkpoints, std::vector<SimTime>{SimTime::ns(29)});
  EXPECT_EQ(made, (std::vector<std::size_t>{0, 1}));
}

// A rank that the others wait on (they have nothing at all) may run the rest of the run in one
// window; it still comes to a meeting after a chunk of events, where requests (signals) are
// heard. A stop asked for at the second meeting stops the run long before its end.
TEST_P(WindowExecutor, ALongChainOnOneRankStillHearsRequests) {
  const auto [partitioner, shared] = GetParam();
  if (partitioner != "group") GTEST_SKIP() << "the chain must stay on one rank";
  // 40,000 components in contiguous blocks of at least 10,000: the token's 9,000 hops from
  // component 0 never leave rank 0.
  RunControl control;
  int polls = 0;
  control.poll = [&polls] { return ++polls == 2 ? unsigned{RunControl::kStop} : 0u; };
  uint64_t total = 0;
  const EngineStats s =
      run_token_ring(testing::TokenRing(40000, 1, 9000, SimTime::ns(3), /*one_token=*/true),
                     partitioner, shared, control, SimTime::us(1000), total);
  EXPECT_TRUE(s.interrupted);
  EXPECT_EQ(polls, 2);
  // The first window ran kFirstChunk events, then finished its instant.
  EXPECT_EQ(s.reached, SimTime::ns(3 * (kFirstChunk + 1)));
  EXPECT_EQ(total, kFirstChunk);
}

INSTANTIATE_TEST_SUITE_P(PartitionersAndSync, WindowExecutor,
                         ::testing::Combine(::testing::Values("group", "round_robin"),
                                            ::testing::Bool()));

}  // namespace
}  // namespace hx
