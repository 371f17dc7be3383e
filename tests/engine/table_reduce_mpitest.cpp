// Summed tables across ranks: wide sums (stats.h, kWide) add up exactly past 64 bits on any
// rank count, as the int64 counters beside them do below it; start values stay as they were.
#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "core/stats.h"
#include "engine/table_reduce.h"

namespace hx {
namespace {

TEST(TableReduce, WideSumsAreExactPast64BitsOnAnyRankCount) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  StatsRegistry stats;
  Table& t =
      stats.declare({"sums",
                     "row",
                     "",
                     {{"wide", ColumnType::kWide, "ps", ""}, {"n", ColumnType::kU64, "1", ""}},
                     TableKind::kSummed,
                     3});
  // Rank r offers (r + 1) 2^100 + r to row 0, 2^64 - 1 to row 1 and 1 to row 2.
  t.add_to(0, 0, (Wide{static_cast<uint64_t>(rank) + 1} << 100) + static_cast<uint64_t>(rank));
  t.add_to(1, 0, Wide{~uint64_t{0}});
  t.add_to(2, 0, Wide{1});
  t.add_to(0, 1, uint64_t{1});
  reduce_summed_tables(MPI_COMM_WORLD, stats);
  const auto r = static_cast<uint64_t>(ranks);
  const Wide want0 = (Wide{r * (r + 1) / 2} << 100) + r * (r - 1) / 2;
  EXPECT_TRUE(t.wide(0)[0] == want0);  // gtest cannot print 128 bits
  EXPECT_TRUE(t.wide(0)[1] == Wide{~uint64_t{0}} * r);
  EXPECT_TRUE(t.wide(0)[2] == r);
  EXPECT_EQ(t.u64(1)[0], r);
}

// A summed table's start values (TableSpec::start: a histogram's bin edges, in kMax columns)
// come out once, not once per rank, beside counts summed over the ranks.
TEST(TableReduce, StartValuesInMaxColumnsStayAsTheyWereOnAnyRankCount) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  StatsRegistry stats;
  TableSpec spec{
      "bins",
      "bin",
      "",
      {{"n", ColumnType::kU64, "1", ""}, {"edge", ColumnType::kI64, "ps", "", Reduce::kMax}},
      TableKind::kSummed,
      3};
  spec.start = [](Table& t) { t.i64_mutable(1) = {-5, 10, 40}; };
  Table& t = stats.declare(spec);
  t.add_to(1, 0, uint64_t{2});
  reduce_summed_tables(MPI_COMM_WORLD, stats);
  EXPECT_EQ(t.i64(1), (std::vector<int64_t>{-5, 10, 40}));
  EXPECT_EQ(t.u64(0), (std::vector<uint64_t>{0, 2 * static_cast<uint64_t>(ranks), 0}));
}

}  // namespace
}  // namespace hx
