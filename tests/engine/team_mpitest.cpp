// A team of MPI ranks (engine/mpi_team.h) shares a model's start-up analysis: shares cover the
// items in rank order, gathers concatenate in rank order (empty and uneven parts included), and
// an exception on some ranks reaches every rank as the lowest such rank's, so none is left
// waiting at a later gather.
#include <gtest/gtest.h>
#include <mpi.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.h"
#include "engine/mpi_team.h"

namespace hx {
namespace {

TEST(Team, SharesCoverTheItemsInRankOrder) {
  const MpiTeam team(MPI_COMM_WORLD);
  for (const uint64_t n : {0ull, 1ull, 3ull, 10ull, 1001ull}) {
    const auto [begin, end] = team_share(team, n);
    const std::vector<uint64_t> bounds = gather_all(team, std::vector<uint64_t>{begin, end});
    ASSERT_EQ(bounds.size(), 2u * static_cast<std::size_t>(team.size()));
    EXPECT_EQ(bounds.front(), 0u);
    EXPECT_EQ(bounds.back(), n);
    for (std::size_t r = 1; r < static_cast<std::size_t>(team.size()); ++r) {
      EXPECT_EQ(bounds[2 * r], bounds[2 * r - 1]) << "n = " << n << ", rank " << r;
    }
  }
}

TEST(Team, GatherConcatenatesInRankOrder) {
  const MpiTeam team(MPI_COMM_WORLD);
  // Rank r sends r * 3 values r * 1000 + i: rank 0 sends none.
  std::vector<uint32_t> mine;
  for (uint32_t i = 0; i < static_cast<uint32_t>(team.rank()) * 3; ++i) {
    mine.push_back(static_cast<uint32_t>(team.rank()) * 1000 + i);
  }
  std::vector<uint32_t> want;
  for (uint32_t r = 0; r < static_cast<uint32_t>(team.size()); ++r) {
    for (uint32_t i = 0; i < r * 3; ++i) want.push_back(r * 1000 + i);
  }
  EXPECT_EQ(gather_all(team, mine), want);
}

TEST(Team, AnExceptionOnOneRankReachesEveryRank) {
  const MpiTeam team(MPI_COMM_WORLD);
  const int last = team.size() - 1;
  try {
    run_together(team, [&] {
      if (team.rank() == last) throw InputError("no route from rank " + std::to_string(last));
    });
    FAIL() << "rank " << team.rank() << " did not throw";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "no route from rank " + std::to_string(last));
  }
  // Several ranks throw: every rank gets the lowest rank's, of its kind.
  try {
    run_together(team, [&] {
      if (team.rank() == 0) throw std::logic_error("rank 0's bug");
      throw std::runtime_error("rank " + std::to_string(team.rank()));
    });
    FAIL() << "rank " << team.rank() << " did not throw";
  } catch (const InputError&) {
    FAIL() << "an InputError where rank 0 threw a logic_error";
  } catch (const std::logic_error& e) {
    EXPECT_EQ(std::string(e.what()), "rank 0's bug");
  }
  // And when nobody throws, the team goes on together.
  run_together(team, [] {});
  EXPECT_EQ(gather_all(team, std::vector<int>{team.rank()}).size(),
            static_cast<std::size_t>(team.size()));
}

}  // namespace
}  // namespace hx
