// The ways ranks meet at window boundaries: the event exchange and the window reduction give
// the same results through shared memory and through MPI, including batches too large for a
// mailbox (which go by MPI that window) beside small ones and empty ones.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <span>
#include <thread>
#include <vector>

#include "engine/exchange.h"
#include "engine/window_reduce.h"

namespace hx {
namespace {

struct Stamp {
  uint32_t from, to, round, index;
};

// Events from `from` to `to` in `round`: a count that varies from 0 to 10 past the mailbox of 4.
// Some rounds send nothing from any rank: the executor collects only when some rank sent.
std::vector<Event> batch(int from, int to, int round) {
  if (round % 5 == 4) return {};
  const auto n = static_cast<uint32_t>((round * 7 + from * 3 + to) % 11);
  std::vector<Event> events(n);
  for (uint32_t i = 0; i < n; ++i) {
    events[i].key.time = SimTime::ps(round * 1000 + i);
    events[i].set_payload(Stamp{static_cast<uint32_t>(from), static_cast<uint32_t>(to),
                                static_cast<uint32_t>(round), i});
  }
  return events;
}

// Whether shared memory is what the ranks should meet in: asked for, several ranks, one host.
bool expect_shared(bool asked) {
  int ranks = 1, on_host = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm host;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
  MPI_Comm_size(host, &on_host);
  MPI_Comm_free(&host);
  int all = on_host == ranks ? 1 : 0, everywhere = 0;
  MPI_Allreduce(&all, &everywhere, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return asked && ranks > 1 && everywhere == 1;
}

class Meeting : public ::testing::TestWithParam<bool> {};

TEST_P(Meeting, ExchangeDeliversEveryBatchInNeighbourOrder) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::vector<int> neighbours;
  for (int r = ranks - 1; r >= 0; --r) {
    if (r != rank) neighbours.push_back(r);  // not ascending: the order is the caller's
  }
  WindowReduce reduce(MPI_COMM_WORLD, GetParam());
  Exchange exchange(MPI_COMM_WORLD, neighbours, reduce.shared(), 4);
  EXPECT_EQ(exchange.shared(), expect_shared(GetParam()));
  std::vector<std::vector<Event>> outboxes(neighbours.size());
  std::vector<Event> received;
  for (int round = 0; round < 40; ++round) {
    int64_t sent = 0;
    for (std::size_t i = 0; i < neighbours.size(); ++i) {
      outboxes[i] = batch(rank, neighbours[i], round);
      sent += static_cast<int64_t>(outboxes[i].size());
    }
    // As the executor meets: post, reduce (here: the most any rank sent), collect if any did.
    exchange.post(outboxes);
    const int64_t local = -sent;
    int64_t most = 0;
    reduce.min(&local, &most, 1);
    received.clear();
    if (most < 0) {
      exchange.collect(outboxes, [&](std::span<const Event> batch) {
        received.insert(received.end(), batch.begin(), batch.end());
      });
    }
    for (const auto& box : outboxes) EXPECT_TRUE(box.empty());
    std::vector<Event> expected;
    for (const int from : neighbours) {
      for (const Event& e : batch(from, rank, round)) expected.push_back(e);
    }
    // EXPECT, not ASSERT: a rank that left the loop would leave the others waiting for it.
    EXPECT_EQ(received.size(), expected.size()) << "round " << round;
    for (std::size_t k = 0; k < std::min(received.size(), expected.size()); ++k) {
      const auto got = received[k].payload_as<Stamp>();
      const auto want = expected[k].payload_as<Stamp>();
      EXPECT_EQ(received[k].key.time, expected[k].key.time);
      EXPECT_EQ(got.from, want.from);
      EXPECT_EQ(got.to, static_cast<uint32_t>(rank));
      EXPECT_EQ(got.round, want.round);
      EXPECT_EQ(got.index, want.index);
    }
  }
}

TEST_P(Meeting, ReductionFindsTheMinimumOfEveryValue) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  WindowReduce reduce(MPI_COMM_WORLD, GetParam());
  EXPECT_EQ(reduce.shared(), expect_shared(GetParam()));
  for (int64_t epoch = 0; epoch < 1000; ++epoch) {
    // Each value's minimum sits on a different rank, and moves from epoch to epoch.
    int64_t local[WindowReduce::kMaxValues];
    int64_t want[WindowReduce::kMaxValues];
    for (int i = 0; i < WindowReduce::kMaxValues; ++i) {
      const int low = static_cast<int>((epoch + i) % ranks);
      local[i] = rank == low ? epoch - i : epoch + rank + 1;
      want[i] = epoch - i;
    }
    const int n = 1 + static_cast<int>(epoch % WindowReduce::kMaxValues);
    int64_t global[WindowReduce::kMaxValues] = {};
    reduce.min(local, global, n);
    bool same = true;
    for (int i = 0; i < n; ++i) same = same && global[i] == want[i];
    EXPECT_TRUE(same) << "epoch " << epoch;
  }
}

// A rank that comes 20 ms late finds the others asleep in shared memory (past their 1 ms of
// yielding) and wakes them: the values are right, and the waiting ranks did sleep.
TEST_P(Meeting, LateRankWakesTheSleepers) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  WindowReduce reduce(MPI_COMM_WORLD, GetParam());
  for (int64_t epoch = 0; epoch < 6; ++epoch) {
    const int late = static_cast<int>(epoch % ranks);
    if (rank == late) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const int64_t local[2] = {epoch * 10 + rank, -rank};
    int64_t all[2 * 4] = {};
    ASSERT_LE(ranks, 4);
    reduce.gather(local, all, 2);
    for (int r = 0; r < ranks; ++r) {
      EXPECT_EQ(all[2 * r], epoch * 10 + r) << "epoch " << epoch << ", rank " << r;
      EXPECT_EQ(all[2 * r + 1], -r) << "epoch " << epoch << ", rank " << r;
    }
  }
  uint64_t sleeps = reduce.sleeps(), total = 0;
  MPI_Allreduce(&sleeps, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (reduce.shared()) {
    EXPECT_GT(total, 0u);
  } else {
    EXPECT_EQ(total, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(SharedOrMpi, Meeting, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? "SharedMemory" : "Mpi";
                         });

}  // namespace
}  // namespace hx
