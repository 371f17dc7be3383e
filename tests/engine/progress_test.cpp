// The progress line: simulated time and events always; the model's work with its rate when it
// names a unit, and the work in flight when there is any (a flow-level run's flows).
#include "engine/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace hx {
namespace {

// Everything one report writes, in line mode.
std::string line(const std::string& unit, uint64_t work, uint64_t in_progress) {
  std::FILE* out = std::tmpfile();
  Progress p(ProgressMode::kLines, 0, SimTime::infinity(), out);
  if (!unit.empty()) p.set_work_unit(unit);
  p.report(SimTime::ps(1'000'000), 500, work, in_progress);
  std::rewind(out);
  char buf[512] = {};
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, out);
  std::fclose(out);
  return std::string(buf, n);
}

TEST(Progress, FlowsDoneAndInFlight) {
  const std::string flows = line("flows", 1200, 37);
  EXPECT_NE(flows.find("t=1us"), std::string::npos) << flows;
  EXPECT_NE(flows.find(", 1200 flows ("), std::string::npos) << flows;
  EXPECT_NE(flows.find(", 37 in flight"), std::string::npos) << flows;
  // Nothing in flight: not shown; no unit: no work at all.
  EXPECT_EQ(line("flows", 1200, 0).find("in flight"), std::string::npos);
  const std::string plain = line("", 0, 0);
  EXPECT_EQ(plain.find("flows"), std::string::npos) << plain;
  EXPECT_NE(plain.find("events/s"), std::string::npos) << plain;
}

}  // namespace
}  // namespace hx
