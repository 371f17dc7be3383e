// Regression of the RailX paper's Fig. 14(a) at small cost, through the whole engine
// (docs/VALIDATION.md has the full figure): the 1,296-chip RailX-2D-HyperX (m = 4, n = 2, 9 x 9
// nodes, 4x mesh links, 16-flit buffers) reaches about 0.8 flits/cycle/chip under uniform
// all-to-all traffic against Eq. 3's bound 2n/m = 1. With two buffers per VC class (router.vcs
// = 6) its saturation throughput must lie within 10% of 0.8: served in full at 0.72 offered,
// saturated at 0.88.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "core/registry.h"
#include "network/small_networks.h"
#include "support/run_summary.h"

namespace hx {
namespace {

double accepted_at(const std::string& load) {
  Config c;
  const std::vector<std::pair<std::string, std::string>> settings = {
      {"sim.model", "railx"},
      {"railx.m", "4"},
      {"railx.n", "2"},
      {"railx.x", "hyperx:9"},
      {"railx.y", "hyperx:9"},
      {"router.vcs", "6"},
      {"router.buffer_flits", "16"},
      {"traffic.pattern", "uniform"},
      {"traffic.load", load},
      {"traffic.warmup", "1000cycles"},
      {"traffic.measure", "2000cycles"}};
  for (const auto& [key, value] : settings) c.set(key, value, "test");
  const std::vector<SummaryValue> s = testing::run_summary(test::registry(), c);
  return testing::summary_value(s, "accepted_load");
}

TEST(RailXPaper, Fig14aHyperXAllToAll) {
  const double below = accepted_at("0.72"), above = accepted_at("0.88");
  std::printf(
      "  Fig. 14a RailX-2D-HyperX: accepted %.3f at 0.72 offered, %.3f at 0.88 "
      "(paper 0.8, bound 1)\n",
      below, above);
  EXPECT_GT(below, 0.95 * 0.72);  // served in full (the sweep's saturation test)
  EXPECT_LT(above, 0.95 * 0.88);  // saturated
  EXPECT_LE(above, 1.0);          // Eq. 3: 2n/m
}

}  // namespace
}  // namespace hx
