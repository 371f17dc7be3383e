// MessageTable: the same entries as a std::map under random finds, adds and erases, through its
// growth and the backward shifts of deletion, with sources that reuse each other's message
// numbers (as endpoints do) and probe runs that wrap around the table's end.
#include "models/components/message_table.h"

#include <gtest/gtest.h>

#include <map>
#include <utility>

#include "core/rng.h"

namespace hx::net {
namespace {

using Key = std::pair<uint32_t, uint64_t>;  // (src, message)

void expect_same(const MessageTable<uint64_t>& table, const std::map<Key, uint64_t>& want) {
  ASSERT_EQ(table.size(), want.size());
  std::map<Key, uint64_t> got;
  table.for_each([&](uint32_t src, uint64_t message, uint64_t value) {
    EXPECT_TRUE(got.emplace(Key{src, message}, value).second) << "a key twice";
  });
  EXPECT_EQ(got, want);
}

void run_random(uint32_t sources, uint64_t messages, int steps, uint64_t seed) {
  Rng rng(seed, 1, 2);
  MessageTable<uint64_t> table;
  std::map<Key, uint64_t> want;
  for (int step = 0; step < steps; ++step) {
    const auto src = static_cast<uint32_t>(rng.below(sources));
    const uint64_t message = rng.below(messages);
    const auto it = want.find({src, message});
    const auto* found = table.find(src, message);
    ASSERT_EQ(found != nullptr, it != want.end()) << "step " << step;
    if (found != nullptr) {
      ASSERT_EQ(found->value, it->second);
    }
    bool added = false;
    auto& slot = table.find_or_add(src, message, step, added);
    ASSERT_EQ(added, it == want.end()) << "step " << step;
    ASSERT_EQ(slot.src, src);
    ASSERT_EQ(slot.message, message);
    if (added) {
      want[{src, message}] = static_cast<uint64_t>(step);
      ASSERT_EQ(slot.value, static_cast<uint64_t>(step));
    } else {
      ASSERT_EQ(slot.value, it->second);
      // A message ends (erased) or gets another packet (its value changes).
      if (rng.below(2) == 0) {
        table.erase(slot);
        want.erase(it);
      } else {
        slot.value += 1000;
        it->second += 1000;
      }
    }
    if (step % 499 == 0) expect_same(table, want);
  }
  expect_same(table, want);
  // Emptied entry by entry, every key is still found on the way, and gone once erased.
  for (auto it = want.begin(); it != want.end(); it = want.erase(it)) {
    auto* slot = table.find(it->first.first, it->first.second);
    ASSERT_NE(slot, nullptr);
    ASSERT_EQ(slot->value, it->second);
    table.erase(*slot);
    ASSERT_EQ(table.find(it->first.first, it->first.second), nullptr);
  }
  EXPECT_EQ(table.size(), 0u);
}

TEST(MessageTable, MatchesAMapWithFewKeys) { run_random(3, 5, 20000, 1); }

TEST(MessageTable, MatchesAMapThroughGrowthAndDeletion) { run_random(64, 200, 200000, 2); }

TEST(MessageTable, SourcesSharingMessageNumbers) { run_random(1000, 2, 100000, 3); }

TEST(MessageTable, ClearEmptiesIt) {
  MessageTable<uint64_t> table;
  bool added = false;
  for (uint32_t i = 0; i < 100; ++i) table.find_or_add(i, i, i, added);
  table.clear();
  EXPECT_EQ(table.size(), 0u);
  table.find_or_add(7, 7, 1, added);
  EXPECT_TRUE(added);
  EXPECT_EQ(table.size(), 1u);
}

}  // namespace
}  // namespace hx::net
