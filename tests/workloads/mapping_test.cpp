// Process groups and mapping policies: group syntax and its errors, RailX Table 4's strided
// groups, node-major placement, list validation.
#include "models/workloads/mapping.h"

#include <gtest/gtest.h>

#include <set>

#include "core/error.h"

namespace hx::wl {
namespace {

using V = std::vector<uint32_t>;

void expect_error(auto&& f, std::initializer_list<const char*> facts) {
  try {
    f();
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    for (const char* fact : facts) EXPECT_NE(msg.find(fact), std::string::npos) << msg;
  }
}

TEST(Mapping, ParsesGroups) {
  EXPECT_EQ(parse_group("0,4,8", 16, "g"), (V{0, 4, 8}));
  EXPECT_EQ(parse_group("0-3", 16, "g"), (V{0, 1, 2, 3}));
  EXPECT_EQ(parse_group("1:4:4", 16, "g"), (V{1, 5, 9, 13}));
  EXPECT_EQ(parse_group("all", 3, "g"), (V{0, 1, 2}));
  EXPECT_EQ(parse_group(" 7, 2-3 ,0:1:2", 8, "g"), (V{7, 2, 3, 0, 1}));
  EXPECT_EQ(parse_group("5", 8, "g"), (V{5}));
}

TEST(Mapping, RejectsBadGroups) {
  const char* key = "workload.groups.dp";
  expect_error([&] { parse_group("0,x", 8, key); }, {key, "'x'"});
  expect_error([&] { parse_group("", 8, key); }, {key});
  expect_error([&] { parse_group("1:2", 8, key); }, {key, "'1:2'"});
  expect_error([&] { parse_group("1-2-3", 8, key); }, {key, "'1-2-3'"});
  expect_error([&] { parse_group("0,8", 8, key); }, {key, "rank 8", "8 ranks"});
  expect_error([&] { parse_group("0:3:4", 8, key); }, {key, "rank 9"});
  expect_error([&] { parse_group("0-4000000000", 8, key); }, {key, "rank 8"});
  expect_error([&] { parse_group("0-3,2", 8, key); }, {key, "rank 2", "twice"});
  expect_error([&] { parse_group("0:0:2", 8, key); }, {key, "rank 0", "twice"});
  expect_error([&] { parse_group("3-1", 8, key); }, {key, "'3-1'", "backwards"});
  expect_error([&] { parse_group("0:1:0", 8, key); }, {key, "no ranks"});
}

// RailX Table 4 with T = C = E = D = 2 (16 ranks, order [T, C, E, D], T innermost):
// G_T,i = {i, i+1}, G_C,i = {i, i+T}, G_E,i = {i, i+TC}, G_D,i = {i, i+TCE}.
TEST(Mapping, StridedGroupsFollowTable4) {
  const uint32_t t = 2, c = 2, e = 2, d = 2;
  for (uint32_t x = 0; x < t * c * e * d; ++x) {
    const uint32_t ti = x % t, ci = x / t % c, ei = x / (t * c) % e, di = x / (t * c * e);
    auto rank = [&](uint32_t a, uint32_t b, uint32_t f, uint32_t g) {
      return a + t * (b + c * (f + e * g));
    };
    EXPECT_EQ(strided_group(x, t, 1), (V{rank(0, ci, ei, di), rank(1, ci, ei, di)}));
    EXPECT_EQ(strided_group(x, c, t), (V{rank(ti, 0, ei, di), rank(ti, 1, ei, di)}));
    EXPECT_EQ(strided_group(x, e, t * c), (V{rank(ti, ci, 0, di), rank(ti, ci, 1, di)}));
    EXPECT_EQ(strided_group(x, d, t * c * e), (V{rank(ti, ci, ei, 0), rank(ti, ci, ei, 1)}));
    EXPECT_EQ(strided_rank(x, t, 1), ti);
    EXPECT_EQ(strided_rank(x, c, t), ci);
    EXPECT_EQ(strided_rank(x, e, t * c), ei);
    EXPECT_EQ(strided_rank(x, d, t * c * e), di);
  }
  // The definitions literally: G_C,1 = {1, 1+T}, G_E,2 = {2, 2+TC}, G_D,5 = {5, 5+TCE}.
  EXPECT_EQ(strided_group(1, 2, 2), (V{1, 3}));
  EXPECT_EQ(strided_group(3, 2, 2), (V{1, 3}));
  EXPECT_EQ(strided_group(6, 2, 4), (V{2, 6}));
  EXPECT_EQ(strided_group(13, 2, 8), (V{5, 13}));
  // Uneven sizes: C = 3 groups with stride T = 4 among 24 ranks.
  EXPECT_EQ(strided_group(21, 3, 4), (V{13, 17, 21}));
  EXPECT_EQ(strided_rank(21, 3, 4), 2u);
}

// workload.groups: "C:T" splits the ranks into Table 4's CP groups, one per first rank.
TEST(Mapping, StridedPartitions) {
  const StridedPartition cp = parse_partition("3:4", 24, "workload.groups");
  EXPECT_EQ(cp.size, 3u);
  EXPECT_EQ(cp.stride, 4u);
  EXPECT_EQ(cp.firsts(24), (V{0, 1, 2, 3, 12, 13, 14, 15}));
  std::set<uint32_t> covered;
  for (uint32_t first : cp.firsts(24)) {
    for (uint32_t r : strided_group(first, cp.size, cp.stride)) {
      EXPECT_TRUE(covered.insert(r).second) << r;
    }
  }
  EXPECT_EQ(covered.size(), 24u);
  EXPECT_EQ(parse_partition(" 4 : 1 ", 8, "g").firsts(8), (V{0, 4}));
  const char* key = "workload.groups";
  expect_error([&] { parse_partition("3:4", 16, key); }, {key, "multiple of 12", "16"});
  expect_error([&] { parse_partition("3", 12, key); }, {key, "'3'", "size:stride"});
  expect_error([&] { parse_partition("0:4", 12, key); }, {key, "'0:4'"});
  expect_error([&] { parse_partition("2:x", 12, key); }, {key, "'2:x'"});
  expect_error([&] { parse_partition("1:2:3", 12, key); }, {key, "'1:2:3'"});
}

TEST(Mapping, NodeMajorFillsABlockFirst) {
  // 4x4 grid (endpoint = x + 4y), 2x2 blocks: ranks 0-3 on endpoints 0, 1, 4, 5.
  const Mapping m = Mapping::node_major({4, 4}, {2, 2});
  ASSERT_EQ(m.ranks(), 16u);
  EXPECT_EQ((V{m.endpoint(0), m.endpoint(1), m.endpoint(2), m.endpoint(3)}), (V{0, 1, 4, 5}));
  EXPECT_EQ((V{m.endpoint(4), m.endpoint(5), m.endpoint(6), m.endpoint(7)}), (V{2, 3, 6, 7}));
  EXPECT_EQ(m.endpoint(8), 8u);
  EXPECT_EQ(m.endpoint(15), 15u);
  std::set<uint32_t> used;
  for (uint32_t r = 0; r < 16; ++r) {
    used.insert(m.endpoint(r));
    EXPECT_EQ(m.rank_of(m.endpoint(r)), r);
  }
  EXPECT_EQ(used.size(), 16u);
  EXPECT_EQ(m.rank_of(16), Mapping::kNone);
  expect_error([] { Mapping::node_major({4, 4}, {3, 2}); }, {"3x2", "4x4"});
  expect_error([] { Mapping::node_major({4, 4}, {2}); }, {"2", "4x4"});
}

TEST(Mapping, LinearAndList) {
  const Mapping lin = Mapping::linear(3, 8);
  EXPECT_EQ(lin.ranks(), 3u);
  EXPECT_EQ(lin.endpoint(2), 2u);
  EXPECT_EQ(lin.rank_of(2), 2u);
  EXPECT_EQ(lin.rank_of(5), Mapping::kNone);
  const Mapping l = Mapping::list({7, 0, 3}, 8);
  EXPECT_EQ(l.endpoint(0), 7u);
  EXPECT_EQ(l.rank_of(3), 2u);
  EXPECT_EQ(l.rank_of(1), Mapping::kNone);
  expect_error([] { Mapping::list({1, 8}, 8); }, {"rank 1", "endpoint 8", "8 endpoints"});
  expect_error([] { Mapping::list({1, 2, 1}, 8); }, {"ranks 0 and 2", "endpoint 1"});
}

TEST(Mapping, ParsesPolicies) {
  const char* key = "workload.mapping";
  const Mapping nm = Mapping::parse("node_major", "2x2", 8, {4, 4}, key);
  EXPECT_EQ(nm.ranks(), 8u);
  EXPECT_EQ(nm.endpoint(3), 5u);
  EXPECT_EQ(nm.rank_of(15), Mapping::kNone);
  const Mapping li = Mapping::parse("list", "15,0-2", 4, {4, 4}, key);
  EXPECT_EQ((V{li.endpoint(0), li.endpoint(1), li.endpoint(3)}), (V{15, 0, 2}));
  EXPECT_EQ(Mapping::parse("linear", "", 16, {4, 4}, key).endpoint(9), 9u);
  expect_error([&] { Mapping::parse("linear", "", 17, {4, 4}, key); }, {key, "17", "16"});
  expect_error([&] { Mapping::parse("list", "0,1", 3, {4, 4}, key); }, {key, "2 ranks", "3"});
  expect_error([&] { Mapping::parse("list", "0,0,1", 3, {4, 4}, key); }, {key, "twice"});
  expect_error([&] { Mapping::parse("node_major", "3x2", 16, {4, 4}, key); }, {key, "3x2"});
  expect_error([&] { Mapping::parse("node_major", "2xq", 16, {4, 4}, key); }, {key, "2xq"});
  expect_error(
      [&] {
        Mapping::parse("nodemajor", "2x2", 16, {4, 4}, key);
      },
      {key, "nodemajor", "node_major"});
}

}  // namespace
}  // namespace hx::wl
