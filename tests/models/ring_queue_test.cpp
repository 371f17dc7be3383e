// RingQueue: a FIFO whatever the mix of pushes, pops and erasures behind the front, across the
// moves of values from the heap ring into the front, when the queue object itself moves, and
// through a checkpoint.
#include "models/components/ring_queue.h"

#include <gtest/gtest.h>

#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <deque>
#include <sstream>
#include <vector>

#include "core/rng.h"
#include "models/components/state_io.h"

namespace hx::net {
namespace {

struct Value {
  uint64_t id;
  char pad[40];  // larger than the counters, like a queued packet
};

void expect_same(const RingQueue<Value>& q, const std::deque<uint64_t>& want) {
  ASSERT_EQ(q.size(), want.size());
  ASSERT_EQ(q.empty(), want.empty());
  for (uint32_t i = 0; i < q.size(); ++i) ASSERT_EQ(q.at(i).id, want[i]) << "position " << i;
  if (!want.empty()) {
    ASSERT_EQ(q.front().id, want.front());
  }
}

TEST(RingQueue, MatchesADequeThroughBurstsAndIdleTimes) {
  Rng rng(3, 1, 4);
  // A vector of queues, resized as the run goes, so queues move while holding values.
  std::vector<RingQueue<Value>> queues(3);
  std::vector<std::deque<uint64_t>> want(3);
  uint64_t next = 0;
  for (int step = 0; step < 20000; ++step) {
    const std::size_t k = rng.below(queues.size());
    // Mostly one value at a time (the inline slot), with bursts of up to 40 (the heap).
    const bool burst = rng.below(50) == 0;
    const uint64_t pushes = burst ? rng.below(40) : rng.below(2);
    for (uint64_t i = 0; i < pushes; ++i) {
      queues[k].push_back(Value{next, {}});
      want[k].push_back(next++);
    }
    const uint64_t pops = std::min<uint64_t>(want[k].size(), rng.below(burst ? 40 : 3));
    for (uint64_t i = 0; i < pops; ++i) {
      ASSERT_EQ(queues[k].front().id, want[k].front());
      queues[k].pop_front();
      want[k].pop_front();
    }
    // Now and then a packet leaves from behind the head (router.arch = "ideal").
    if (want[k].size() > 1 && rng.below(4) == 0) {
      const auto i = static_cast<uint32_t>(1 + rng.below(want[k].size() - 1));
      queues[k].erase(i);
      want[k].erase(want[k].begin() + i);
    }
    expect_same(queues[k], want[k]);
    if (step % 997 == 0) {
      queues.resize(queues.size() + 1);
      want.resize(want.size() + 1);
      for (std::size_t j = 0; j < queues.size(); ++j) expect_same(queues[j], want[j]);
    }
  }
}

TEST(RingQueue, CheckpointRoundTrip) {
  for (const uint64_t n : {0, 1, 2, 5}) {
    RingQueue<Value> q;
    std::deque<uint64_t> want;
    for (uint64_t i = 0; i < n + 3; ++i) {
      q.push_back(Value{i, {}});
      want.push_back(i);
    }
    for (int i = 0; i < 3; ++i) {  // start the ring away from index 0
      q.pop_front();
      want.pop_front();
    }
    std::stringstream bytes;
    {
      boost::archive::binary_oarchive out(bytes);
      StateArchive ar(out);
      serialize_queue(ar, q);
    }
    RingQueue<Value> back;
    back.push_back(Value{99, {}});  // overwritten by the load
    boost::archive::binary_iarchive in(bytes);
    StateArchive ar(in);
    serialize_queue(ar, back);
    expect_same(back, want);
  }
}

}  // namespace
}  // namespace hx::net
