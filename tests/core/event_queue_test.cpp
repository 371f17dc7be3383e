// EventQueue: pops in EventKey order (time, destination, source, sequence) whatever the push
// order, and reuses slots.
#include "core/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/rng.h"

namespace hx {
namespace {

Event make(int64_t t, ComponentId dst, ComponentId src, uint64_t seq) {
  Event e;
  e.key = EventKey{SimTime::ps(t), dst, src, seq};
  return e;
}

TEST(EventKey, OrdersByTimeThenDestinationThenSourceThenSequence) {
  EXPECT_LT(make(1, 9, 9, 9).key, make(2, 0, 0, 0).key);
  EXPECT_LT(make(5, 1, 9, 9).key, make(5, 2, 0, 0).key);
  EXPECT_LT(make(5, 1, 1, 9).key, make(5, 1, 2, 0).key);
  EXPECT_LT(make(5, 1, 1, 1).key, make(5, 1, 1, 2).key);
  EXPECT_FALSE(make(5, 1, 1, 1).key < make(5, 1, 1, 1).key);
}

TEST(EventQueue, PopsInTotalOrderForAnyPushOrder) {
  std::vector<Event> events;
  Rng rng(7, 0, 0);
  for (int i = 0; i < 5000; ++i) {
    // Few distinct times, destinations and sources: many ties that only the later fields break.
    events.push_back(make(static_cast<int64_t>(rng.below(20)), static_cast<ComponentId>(rng.below(5)),
                          static_cast<ComponentId>(rng.below(5)), static_cast<uint64_t>(i)));
  }
  std::vector<Event> expected = events;
  std::sort(expected.begin(), expected.end(),
            [](const Event& a, const Event& b) { return a.key < b.key; });

  for (int trial = 0; trial < 3; ++trial) {
    std::vector<Event> shuffled = events;
    for (std::size_t i = shuffled.size(); i > 1; --i) std::swap(shuffled[i - 1], shuffled[rng.below(i)]);
    EventQueue q;
    for (const Event& e : shuffled) q.push(e);
    ASSERT_EQ(q.size(), events.size());
    Event out;
    for (const Event& want : expected) {
      ASSERT_EQ(q.next_time(), want.key.time);
      q.pop(out);
      ASSERT_EQ(out.key, want.key);
    }
    EXPECT_TRUE(q.empty());
    EXPECT_TRUE(q.next_time().is_infinite());
  }
}

TEST(EventQueue, InterleavedPushPopKeepsOrderAndPayload) {
  EventQueue q;
  Rng rng(3, 1, 2);
  int64_t now = 0;
  for (int i = 0; i < 100; ++i) {
    Event e = make(static_cast<int64_t>(rng.below(100)), 1, 2, static_cast<uint64_t>(i));
    e.set_payload(uint64_t{1000} + static_cast<uint64_t>(i));
    q.push(e);
  }
  Event out;
  for (int i = 0; i < 10000; ++i) {
    q.pop(out);
    ASSERT_GE(out.key.time.count_ps(), now);
    ASSERT_EQ(out.payload_as<uint64_t>(), 1000 + out.key.seq);
    now = out.key.time.count_ps();
    Event e = make(now + static_cast<int64_t>(rng.below(50)), 1, 2, 100 + static_cast<uint64_t>(i));
    e.set_payload(uint64_t{1000} + e.key.seq);
    q.push(e);
  }
  EXPECT_EQ(q.size(), 100u);
}

}  // namespace
}  // namespace hx
