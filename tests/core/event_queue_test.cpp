// EventQueue: pops in EventKey order (time, destination, source, sequence) whatever the push
// order, and reuses slots.
#include "core/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "core/rng.h"

namespace hx {
namespace {

// dst_local = dst: as on one rank, local indices order as the destinations do.
Event make(int64_t t, ComponentId dst, ComponentId src, uint64_t seq) {
  Event e{};
  e.key = EventKey{SimTime::ps(t), dst, src, seq};
  e.dst_local = dst;
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
    events.push_back(make(static_cast<int64_t>(rng.below(20)),
                          static_cast<ComponentId>(rng.below(5)),
                          static_cast<ComponentId>(rng.below(5)), static_cast<uint64_t>(i)));
  }
  std::vector<Event> expected = events;
  std::sort(expected.begin(), expected.end(),
            [](const Event& a, const Event& b) { return a.key < b.key; });

  for (int trial = 0; trial < 3; ++trial) {
    std::vector<Event> shuffled = events;
    for (std::size_t i = shuffled.size(); i > 1; --i)
      std::swap(shuffled[i - 1], shuffled[rng.below(i)]);
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

// Thousands of events at one time: pushed in a random order, with runs of one source's events
// to one destination in and out of their sequence order. Sorted by std::sort, or with the
// destinations declared by the counting pass: one counter per destination (3 and 1,000
// destinations), per 2^8 neighbouring ones (2^20), and runs too long for insertion (the 500).
TEST(EventQueue, ManyEventsAtOneTimePopInTotalOrder) {
  for (const uint64_t spread :
       {uint64_t{3}, uint64_t{1000}, uint64_t{1} << 20, uint64_t{1} << 31}) {
    for (const bool declared : {false, true}) {
      std::vector<Event> events;
      Rng rng(5, spread, 1);
      for (uint64_t i = 0; i < 3000; ++i) {
        const auto dst = static_cast<ComponentId>(rng.below(spread));
        const auto src = static_cast<ComponentId>(rng.below(spread));
        events.push_back(make(1000, dst, src, i));
        events.push_back(make(1000, dst, src, i + 3000));  // same key, later sequence
      }
      for (uint64_t i = 0; i < 500; ++i) events.push_back(make(1000, 7, 7, 10000 + i));  // a run
      std::vector<Event> expected = events;
      std::sort(expected.begin(), expected.end(),
                [](const Event& a, const Event& b) { return a.key < b.key; });
      for (const bool shuffle : {false, true}) {
        std::vector<Event> order = events;
        if (shuffle) {
          for (std::size_t i = order.size(); i > 1; --i)
            std::swap(order[i - 1], order[rng.below(i)]);
        }
        EventQueue q;
        // At least 8 destinations: the run goes to destination 7.
        if (declared && spread <= (uint64_t{1} << 20)) {
          q.set_destinations(static_cast<uint32_t>(std::max<uint64_t>(spread, 8)));
        }
        q.push(make(0, 0, 0, 0));  // so the rest are pending and sorted on arrival at their time
        for (const Event& e : order) q.push(e);
        Event out;
        q.pop(out);
        for (const Event& want : expected) {
          q.pop(out);
          ASSERT_EQ(out.key, want.key)
              << "spread " << spread << " declared " << declared << " shuffle " << shuffle;
        }
        EXPECT_TRUE(q.empty());
      }
    }
  }
}

// One queue through instants of very different sizes, so the counting pass's counters change
// in number (and grain) from one instant to the next, in both directions.
TEST(EventQueue, InstantsOfChangingSizePopInTotalOrder) {
  EventQueue q;
  q.set_destinations(1000);
  Rng rng(13, 4, 5);
  std::vector<Event> events;
  uint64_t seq = 0;
  for (int64_t t = 1; t <= 12; ++t) {
    const uint64_t n = t % 3 == 0 ? 3000 : (t % 3 == 1 ? 40 : 400);
    for (uint64_t i = 0; i < n; ++i) {
      events.push_back(make(t, static_cast<ComponentId>(rng.below(1000)),
                            static_cast<ComponentId>(rng.below(50)), seq++));
    }
  }
  std::vector<Event> expected = events;
  std::sort(expected.begin(), expected.end(),
            [](const Event& a, const Event& b) { return a.key < b.key; });
  for (std::size_t i = events.size(); i > 1; --i) std::swap(events[i - 1], events[rng.below(i)]);
  for (const Event& e : events) q.push(e);
  Event out;
  for (const Event& want : expected) {
    q.pop(out);
    ASSERT_EQ(out.key, want.key);
  }
  EXPECT_TRUE(q.empty());
}

// Against a reference ordered set, with pushes at the current time, a few ps, a few ns and up
// to a simulated hour ahead: entries cross every level of the radix heap's buckets.
TEST(EventQueue, MatchesReferenceOverWideTimeRanges) {
  EventQueue q;
  std::multiset<EventKey> reference;
  Rng rng(11, 2, 3);
  uint64_t seq = 0;
  auto push_after = [&](int64_t now) {
    static constexpr int64_t kScales[] = {0, 16, 1000, 1 << 20, int64_t{1} << 42};
    const int64_t scale = kScales[rng.below(5)];
    const int64_t t =
        now + (scale ? static_cast<int64_t>(rng.below(static_cast<uint64_t>(scale))) : 0);
    Event e = make(t, static_cast<ComponentId>(rng.below(4)),
                   static_cast<ComponentId>(rng.below(4)), seq++);
    q.push(e);
    reference.insert(e.key);
  };
  for (int i = 0; i < 200; ++i) push_after(0);
  Event out;
  for (int i = 0; i < 50000; ++i) {
    ASSERT_EQ(q.next_time(), reference.begin()->time);
    q.pop(out);
    ASSERT_EQ(out.key, *reference.begin());
    reference.erase(reference.begin());
    const auto pushes = rng.below(3);  // 0, 1 or 2: the queue shrinks and grows
    for (uint64_t k = 0; k < pushes || reference.empty(); ++k) push_after(out.key.time.count_ps());
  }
  ASSERT_EQ(q.size(), reference.size());
  while (!q.empty()) {
    q.pop(out);
    ASSERT_EQ(out.key, *reference.begin());
    reference.erase(reference.begin());
  }
  EXPECT_TRUE(q.next_time().is_infinite());
}

}  // namespace
}  // namespace hx
