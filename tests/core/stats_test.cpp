// Statistics tables: typed columns, row checks, registry order.
#include "core/stats.h"

#include <gtest/gtest.h>

namespace hx {
namespace {

TableSpec spec() {
  return {"t", "id", "test", {{"n", ColumnType::kU64, "1", ""}, {"x", ColumnType::kF64, "s", ""}}};
}

TEST(Table, StoresRowsByColumn) {
  Table t(spec());
  t.add_row(3, {uint64_t{7}, 0.5});
  t.add_row(1, {uint64_t{9}, 1.5});
  EXPECT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.ids(), (std::vector<uint64_t>{3, 1}));
  EXPECT_EQ(t.u64(0), (std::vector<uint64_t>{7, 9}));
  EXPECT_EQ(t.f64(1), (std::vector<double>{0.5, 1.5}));
}

TEST(Table, RejectsWrongCellCountOrType) {
  Table t(spec());
  EXPECT_THROW(t.add_row(0, {uint64_t{1}}), std::logic_error);
  EXPECT_THROW(t.add_row(0, {1.0, 1.0}), std::logic_error);
}

// Restoring a checkpoint merges saved rows into a live table.
TEST(Table, MergeAppendsRowsOfByIdTables) {
  Table live(spec()), saved(spec());
  live.add_row(0, {uint64_t{1}, 0.5});
  saved.add_row(2, {uint64_t{3}, 2.5});
  saved.add_row(1, {uint64_t{2}, 1.5});
  live.merge(saved);
  EXPECT_EQ(live.ids(), (std::vector<uint64_t>{0, 2, 1}));
  EXPECT_EQ(live.u64(0), (std::vector<uint64_t>{1, 3, 2}));
  EXPECT_EQ(live.f64(1), (std::vector<double>{0.5, 2.5, 1.5}));
}

TEST(Table, MergeAddsSummedTablesCellByCell) {
  const TableSpec summed{"h",
                         "bin",
                         "",
                         {{"n", ColumnType::kU64, "1", ""}, {"d", ColumnType::kI64, "ps", ""}},
                         TableKind::kSummed,
                         3};
  Table live(summed), saved(summed);
  live.add_to(0, 0, uint64_t{5});
  live.add_to(2, 1, int64_t{-1});
  saved.add_to(0, 0, uint64_t{2});
  saved.add_to(1, 1, int64_t{7});
  live.merge(saved);
  EXPECT_EQ(live.rows(), 3u);
  EXPECT_EQ(live.u64(0), (std::vector<uint64_t>{7, 0, 0}));
  EXPECT_EQ(live.i64(1), (std::vector<int64_t>{0, 7, -1}));
}

// A time series' last bin takes what comes after it: merged into a table of fewer bins (a
// restart that ends earlier), the rows past its last bin go to that bin, class by class.
TEST(Table, MergeFoldsATimeSeriesRowsPastTheLastBinIntoIt) {
  const auto series = [](uint64_t bins) {
    return TableSpec{"s",      "cell", "", {{"n", ColumnType::kU64, "1", ""}}, TableKind::kSummed,
                     bins * 2, {},     2};  // 2 classes per bin
  };
  Table live(series(2)), saved(series(4));
  for (uint64_t r = 0; r < 8; ++r) saved.add_to(r, 0, uint64_t{1} << r);
  live.merge(saved);
  EXPECT_EQ(live.u64(0), (std::vector<uint64_t>{1, 2, 4 + 16 + 64, 8 + 32 + 128}));
  // Not a time series: the rows past the end are not this table's.
  TableSpec plain = series(2);
  plain.bin_rows = 0;
  TableSpec longer = series(4);
  longer.bin_rows = 0;
  Table kept(plain), more(longer);
  for (uint64_t r = 0; r < 8; ++r) more.add_to(r, 0, uint64_t{1} << r);
  kept.merge(more);
  EXPECT_EQ(kept.u64(0), (std::vector<uint64_t>{1, 2, 4, 8}));
}

// Wide sums carry past 64 bits, merge cell by cell, and take no reduction but the sum.
TEST(Table, WideColumnsSumPast64Bits) {
  const TableSpec summed{"w", "row", "", {{"sum", ColumnType::kWide, "ps", ""}}, TableKind::kSummed,
                         2};
  Table live(summed), saved(summed);
  const uint64_t big = uint64_t{1} << 63;
  for (int i = 0; i < 6; ++i) live.add_to(0, 0, Wide{big});
  saved.add_to(0, 0, Wide{big} * 4);
  saved.add_to(1, 0, Wide{3});
  live.merge(saved);
  EXPECT_TRUE(live.wide(0)[0] == Wide{big} * 10);  // 5 x 2^64: gtest cannot print 128 bits
  EXPECT_TRUE(live.wide(0)[1] == 3);
  EXPECT_THROW(Table(TableSpec{"m",
                               "row",
                               "",
                               {{"least", ColumnType::kWide, "ps", "", Reduce::kMin}},
                               TableKind::kSummed,
                               1}),
               std::logic_error);
}

TEST(Table, MergeRejectsAnotherLayout) {
  Table live(spec());
  Table other(TableSpec{"t", "id", "", {{"n", ColumnType::kU64, "1", ""}}});
  EXPECT_THROW(live.merge(other), std::logic_error);
}

TEST(StatsRegistry, IteratesTablesByNameAndRejectsDuplicates) {
  StatsRegistry r;
  TableSpec b = spec();
  b.name = "b";
  TableSpec a = spec();
  a.name = "a";
  r.declare(b);
  r.declare(a);
  EXPECT_THROW(r.declare(a), std::logic_error);
  EXPECT_EQ(r.tables().begin()->first, "a");
  EXPECT_EQ(&r.table("b"), r.tables().rbegin()->second.get());
}

}  // namespace
}  // namespace hx
