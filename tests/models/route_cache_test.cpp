// RouteCache: a router's kept candidates come back exactly as stored (order, VCs, escape and
// penalty, the detour flag), per input queue, until the queue's head leaves or the fault
// schedule's epoch moves on; a list too long to keep is not kept. Whole runs with kept candidates
// equal the golden results recorded before the cache existed
// (tests/determinism/railx_collective.toml).
#include "models/components/route_cache.h"

#include <gtest/gtest.h>

namespace hx::net {
namespace {

Candidates list(uint32_t n, PortId first, uint8_t penalty = 0) {
  Candidates c;
  for (uint32_t i = 0; i < n; ++i) {
    c.add(static_cast<PortId>(first + i), static_cast<uint8_t>(i % 3), i % 2 == 0,
          i == n - 1 ? penalty : 0);
  }
  return c;
}

void expect_equal(const Candidates& a, const Candidates& b) {
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(a.has_detours(), b.has_detours());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].port, b[i].port) << i;
    EXPECT_EQ(a[i].vc, b[i].vc) << i;
    EXPECT_EQ(a[i].escape, b[i].escape) << i;
    EXPECT_EQ(a[i].penalty, b[i].penalty) << i;
  }
}

TEST(RouteCache, GivesBackWhatWasStoredPerQueueUntilDropped) {
  RouteCache cache;
  Candidates out;
  EXPECT_TRUE(cache.empty());
  EXPECT_FALSE(cache.load(3, 0, out));
  const Candidates a = list(4, 10, 2), b = list(1, 20);
  cache.store(3, 0, a);
  cache.store(7, 0, b);
  ASSERT_TRUE(cache.load(3, 0, out));
  expect_equal(out, a);
  EXPECT_TRUE(out.has_detours());
  ASSERT_TRUE(cache.load(7, 0, out));
  expect_equal(out, b);
  EXPECT_FALSE(out.has_detours());
  cache.drop(3);
  EXPECT_FALSE(cache.load(3, 0, out));
  ASSERT_TRUE(cache.load(7, 0, out));
  expect_equal(out, b);
  cache.drop(7);
  EXPECT_TRUE(cache.empty());
  cache.drop(7);  // nothing kept: no effect
  EXPECT_TRUE(cache.empty());
}

TEST(RouteCache, KeepsNoListLongerThanItsEntries) {
  RouteCache cache;
  cache.store(1, 0, list(8, 0));
  cache.store(2, 0, list(9, 0));
  Candidates out;
  EXPECT_TRUE(cache.load(1, 0, out));
  EXPECT_FALSE(cache.load(2, 0, out));  // the router routes that head again each round
}

TEST(RouteCache, KeepsCandidatesForTheirEpochOnly) {
  RouteCache cache;
  Candidates out;
  const Candidates early = list(3, 4), late = list(2, 9);
  cache.store(5, 1, early);
  EXPECT_FALSE(cache.load(5, 2, out));  // links may have changed since
  cache.store(5, 2, late);              // replaces the earlier epoch's
  ASSERT_TRUE(cache.load(5, 2, out));
  expect_equal(out, late);
  EXPECT_FALSE(cache.load(5, 1, out));
  cache.drop(5);
  EXPECT_TRUE(cache.empty());
}

}  // namespace
}  // namespace hx::net
