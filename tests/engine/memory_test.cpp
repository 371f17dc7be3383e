// Memory figures: the build sample is one whole group (or the first components), its bytes grow
// with what its components hold, and the resident peak sees memory that is touched.
#include "engine/memory.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "engine/memory_watch.h"
#include "models/phold/phold.h"

namespace hx {
namespace {

phold::PholdConfig phold_with(uint32_t neighbors) {
  phold::PholdConfig c;
  c.lps = 10000;
  c.group_size = 1000;
  c.neighbors = neighbors;
  c.mean_delay = SimTime::ns(1);
  c.link_latency = SimTime::ns(5);
  return c;
}

TEST(BuildMemory, SamplesOneWholeGroup) {
  const auto model = phold::make_model(phold_with(1));
  const BuildMemorySample s = sample_build_memory(*model, 1);
  EXPECT_EQ(s.group, "group 0");
  EXPECT_EQ(s.components, 1000u);
  // At least the LP objects themselves, and not absurdly more.
  EXPECT_GT(s.per_component(), 64.0);
  EXPECT_LT(s.per_component(), 4096.0);
}

TEST(BuildMemory, FallsBackToTheFirstComponentsAndCountsPorts) {
  const auto small = phold::make_model(phold_with(1));
  const auto wide = phold::make_model(phold_with(8));
  const BuildMemorySample a = sample_build_memory(*small, 1, nullptr, 500);
  const BuildMemorySample b = sample_build_memory(*wide, 1, nullptr, 500);
  EXPECT_EQ(a.group, "components [0, 500)");
  EXPECT_EQ(a.components, 500u);
  // 14 more ports per LP (two per neighbour), each a wired link of at least 16 bytes.
  EXPECT_GT(b.per_component(), a.per_component() + 14 * 16);
}

// The sample's set-up asks `enough` before each component after the first and stops at a yes.
TEST(BuildMemory, StopsSettingUpWhenEnough) {
  const auto model = phold::make_model(phold_with(1));
  // Enough from the 10th ask on: asked once on the resident growth, then again on the heap's
  // figure to confirm.
  int asked = 0;
  const BuildMemorySample part = sample_build_memory(*model, 1, [&](const BuildMemorySample& s) {
    EXPECT_EQ(s.components, 1000u);
    return ++asked >= 10;
  });
  EXPECT_EQ(asked, 11);
  EXPECT_TRUE(part.partial);
  const BuildMemorySample whole = sample_build_memory(*model, 1);
  EXPECT_FALSE(whole.partial);
  EXPECT_LT(part.bytes, whole.bytes);  // set-up schedules each LP's first events
}

TEST(PeakRss, SeesTouchedMemory) {
  const uint64_t before = peak_rss_bytes();
  constexpr std::size_t kBytes = std::size_t{256} << 20;
  auto block = std::make_unique<char[]>(kBytes);
  std::memset(block.get(), 1, kBytes);
  EXPECT_GE(peak_rss_bytes(), before + kBytes / 2);
  EXPECT_EQ(block[kBytes - 1], 1);
}

// The watch reads what is resident now: touched memory shows, and a limit below it trips at
// the first read and stays tripped.
TEST(MemoryWatch, SeesTouchedMemoryPassItsLimit) {
  const uint64_t before = resident_bytes();
  ASSERT_GT(before, 0u);
  MemoryWatch watch(before + (std::size_t{64} << 20), "test");
  EXPECT_FALSE(watch.check());
  EXPECT_FALSE(watch.over());
  EXPECT_GE(watch.resident(), before / 2);
  constexpr std::size_t kBytes = std::size_t{128} << 20;
  auto block = std::make_unique<char[]>(kBytes);
  std::memset(block.get(), 1, kBytes);
  EXPECT_GE(resident_bytes(), before + kBytes / 2);

  MemoryWatch tight(before + (std::size_t{64} << 20), "test");
  EXPECT_TRUE(tight.check());
  EXPECT_TRUE(tight.over());
  EXPECT_GT(tight.resident(), tight.limit());
  block.reset();
  EXPECT_TRUE(tight.check());  // once past, the run is stopping
  EXPECT_EQ(tight.source(), "test");
}

// Writing the output takes half the bytes of the rows a rank holds (ids included); summed
// tables, held whole from the start, are the build check's.
TEST(MemoryWatch, ReservesHalfTheRowsForTheOutput) {
  StatsRegistry stats;
  TableSpec rows{
      "flows", "id", "", {{"a", ColumnType::kU64, "1", ""}, {"b", ColumnType::kF64, "1", ""}}};
  Table& flows = stats.declare(rows);
  TableSpec summed{"totals",           "id", "", {{"a", ColumnType::kU64, "1", ""}},
                   TableKind::kSummed, 1000};
  stats.declare(summed);
  EXPECT_EQ(row_output_reserve(stats), 0u);
  for (uint64_t i = 0; i < 100; ++i) flows.add_row(i, {uint64_t{i}, 1.5});
  EXPECT_EQ(row_output_reserve(stats), 100u * 3 * 8 / 2);
}

}  // namespace
}  // namespace hx
