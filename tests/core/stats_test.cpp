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
