// Program building: dependencies must name earlier ops; sends carry bytes.
#include "models/workloads/program.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace hx::wl {
namespace {

TEST(Program, RecordsDependencies) {
  Program p;
  const uint32_t a = p.compute(10, 0);
  const uint32_t b = p.send(3, 100, 7, 0, std::vector<uint32_t>{a});
  const uint32_t c = p.recv(3, 100, 7, 0);
  const uint32_t d = p.wait(0, std::vector<uint32_t>{b, c});
  ASSERT_EQ(p.size(), 4u);
  EXPECT_TRUE(p.deps_of(a).empty());
  ASSERT_EQ(p.deps_of(d).size(), 2u);
  EXPECT_EQ(p.deps_of(d)[0], b);
  EXPECT_EQ(p.deps_of(d)[1], c);
  EXPECT_EQ(p.ops[b].bytes, 100u);
  EXPECT_EQ(p.ops[b].peer, 3u);
}

TEST(Program, RejectsForwardDependenciesAndEmptySends) {
  Program p;
  EXPECT_THROW(p.wait(0, std::vector<uint32_t>{0}), std::logic_error);
  EXPECT_THROW(p.send(1, 0, 0, 0), std::logic_error);
}

}  // namespace
}  // namespace hx::wl
