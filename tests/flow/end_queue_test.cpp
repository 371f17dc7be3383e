// The fabric's queue of flow ends against a plain ordered reference: random ends set, moved and
// removed, near and far apart in time, taken as time advances; and the misuse it refuses.
#include "models/flow/end_queue.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <stdexcept>
#include <vector>

namespace hx::flow {
namespace {

// The earliest end of `ends` (slot -> end), infinity when empty.
SimTime earliest_of(const std::map<uint32_t, int64_t>& ends) {
  SimTime m = SimTime::infinity();
  for (const auto& [slot, end] : ends) m = std::min(m, SimTime::ps(end));
  return m;
}

TEST(EndQueue, AgreesWithAnOrderedReference) {
  for (const int64_t spread : {int64_t{3}, int64_t{1000}, int64_t{1} << 40}) {
    std::mt19937_64 rng(static_cast<uint64_t>(spread));
    EndQueue q;
    std::map<uint32_t, int64_t> ref;
    int64_t now = 0;
    std::size_t taken = 0;
    for (int step = 0; step < 20000; ++step) {
      const auto slot = static_cast<uint32_t>(rng() % 64);
      const uint64_t op = rng() % 10;
      if (op < 6) {  // a new or moved end, not before the present
        const int64_t end = now + 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(spread));
        q.set(slot, SimTime::ps(end));
        ref[slot] = end;
      } else if (op < 7) {
        q.remove(slot);
        ref.erase(slot);
      } else {  // time advances to the earliest end, or short of it, and the due ends leave
        const SimTime next = earliest_of(ref);
        ASSERT_EQ(q.earliest(), next);
        if (next.is_infinite()) continue;
        now = (rng() % 4 == 0) ? now + (next.count_ps() - now) / 2 : next.count_ps();
        std::vector<uint32_t> due{999};  // appended to, not replaced
        q.take_due(SimTime::ps(now), due);
        std::vector<uint32_t> expected{999};
        for (auto it = ref.begin(); it != ref.end();) {
          if (it->second == now) {
            expected.push_back(it->first);  // the map gives ascending slots
            it = ref.erase(it);
          } else {
            ++it;
          }
        }
        ASSERT_EQ(due, expected) << "at " << now << " ps";
        taken += due.size() - 1;
      }
      ASSERT_EQ(q.size(), ref.size());
    }
    EXPECT_GT(taken, 1000u) << "the test must take ends, spread " << spread;
  }
}

TEST(EndQueue, RefusesEndsInThePastAndTimeRunningBackwards) {
  EndQueue q;
  q.set(0, SimTime::ps(100));
  std::vector<uint32_t> due;
  q.take_due(SimTime::ps(100), due);
  EXPECT_EQ(due, std::vector<uint32_t>{0});
  EXPECT_THROW(q.set(1, SimTime::ps(99)), std::logic_error);
  EXPECT_THROW(q.set(1, SimTime::infinity()), std::logic_error);
  EXPECT_THROW(q.take_due(SimTime::ps(50), due), std::logic_error);
  q.set(1, SimTime::ps(200));
  EXPECT_THROW(q.take_due(SimTime::ps(300), due), std::logic_error);  // 200 left behind
}

}  // namespace
}  // namespace hx::flow
