// The progress line: simulated time and events always; the model's work with its rate when it
// names a unit, and the work in flight when there is any (a flow-level run's flows). And how
// often a run on one rank reports it.
#include "engine/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "engine/executor.h"

namespace hx {
namespace {

// Everything one report writes, in line mode.
std::string line(const std::string& unit, uint64_t work, uint64_t in_progress,
                 SimTime end = SimTime::infinity()) {
  std::FILE* out = std::tmpfile();
  Progress p(ProgressMode::kLines, 0, end, out);
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

// A known end gives the share done and an ETA; a run without one (a workload) prints neither,
// rather than "of inf (0.0%)" and "ETA ?".
TEST(Progress, ShareAndEtaOnlyWithAnEnd) {
  const std::string ended = line("", 0, 0, SimTime::ps(4'000'000));
  EXPECT_NE(ended.find("t=1us of 4us (25.0%)"), std::string::npos) << ended;
  EXPECT_NE(ended.find(", ETA "), std::string::npos) << ended;
  const std::string endless = line("flows", 1200, 0);
  EXPECT_EQ(endless.find(" of "), std::string::npos) << endless;
  EXPECT_EQ(endless.find("ETA"), std::string::npos) << endless;
}

// The sequential executor's chunks between reports (executor.h): they grow while events are
// cheap, shrink at once to about kChunkSeconds when they are dear, and never reach 0.
TEST(Progress, ChunksFollowTheWallTimeOfTheLast) {
  EXPECT_EQ(next_chunk(1024, 1024, kChunkSeconds / 10), 2048u);
  EXPECT_EQ(next_chunk(kMaxChunk, kMaxChunk, 0.0), kMaxChunk);
  EXPECT_EQ(next_chunk(1024, 1024, kChunkSeconds), 1024u);
  EXPECT_EQ(next_chunk(1000, 1000, 10 * kChunkSeconds), 100u);
  EXPECT_EQ(next_chunk(4, 4, 1000 * kChunkSeconds), 1u);
  EXPECT_EQ(next_chunk(1024, 10, 100 * kChunkSeconds), 1024u);  // it reached its target first
}

}  // namespace
}  // namespace hx
