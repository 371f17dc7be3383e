// Faults at flow level through whole runs (docs/MODELS.md "Faults at flow level"), at 1 and 2
// ranks: an all-to-all on a fat tree whose leaf loses an up-link mid-run moves its flows onto
// the other and completes later; one whose endpoint loses its only link for good loses the
// flows to and from it, counts their packets in /summary, /drops, /faults and /links, and still
// drains; a failed endpoint creates no synthetic messages.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <unistd.h>

#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "core/params.h"
#include "engine/run.h"
#include "io/config_file.h"
#include "network/small_networks.h"
#include "support/run_summary.h"

namespace hx {
namespace {

// 8 endpoints, two per leaf; leaf 0 (router 0) has up ports 2 and 3.
const char* const kAllToAll = R"(
[sim]
model = "fat_tree"
fidelity = "flow"
[fat_tree]
k = 2
n = 3
routing = "updown_adaptive"
[workload]
kind = "collective"
collective = "all_to_all"
algorithm = "direct"
bytes = "64KB"
)";

// A file name shared by all ranks (rank 0's process id), in the test's temporary directory.
std::string shared_path(const std::string& name) {
  long pid = static_cast<long>(::getpid());
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return ::testing::TempDir() + name + "_" + std::to_string(pid) + ".h5";
}

struct Outcome {
  RunResult result;
  // Summary values.
  double operator[](const std::string& name) const {
    return testing::summary_value(result.summary, name);
  }
};

// `base` with [faults] actions = `actions`; written to `output` unless it is empty.
Outcome run(const std::string& base, const std::string& actions, const std::string& output = "") {
  const std::string text = actions.empty() ? base : base + "[faults]\nactions = " + actions + "\n";
  const ResolvedConfig resolved =
      resolve_config(test::registry(), parse_config_text(text, "test.toml"));
  RunOptions options;
  options.progress = ProgressMode::kOff;
  options.output = output;
  return {run_simulation(MPI_COMM_WORLD, resolved, options)};
}

// A whole dataset of the output file, as uint64.
std::vector<uint64_t> column(const std::string& file, const std::string& path) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
  const hid_t space = H5Dget_space(d);
  std::vector<uint64_t> v(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  if (!v.empty()) H5Dread(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  return v;
}

std::string at_ps(double ps) { return std::to_string(static_cast<int64_t>(ps)) + "ps"; }

TEST(FlowFaults, AnAllToAllAroundAFailedUpLinkCompletesLater) {
  const Outcome clean = run(kAllToAll, "");
  ASSERT_EQ(clean["workload_complete"], 1);
  const double end = clean["workload_end_ps"];
  const Outcome faulted = run(kAllToAll, "[{at = \"" + at_ps(end / 2) +
                                         "\", element = \"router 0 port 2\"}]");
  EXPECT_EQ(faulted["workload_complete"], 1);
  EXPECT_EQ(faulted["packets_dropped"], 0);
  // Leaf 0's flows up share one link from the failure on.
  EXPECT_GT(faulted["workload_end_ps"], end * 1.05);
  // The same bytes arrive.
  EXPECT_EQ(faulted["packets_ejected"], clean["packets_ejected"]);
}

TEST(FlowFaults, AnEndpointCutOffForGoodLosesItsFlowsAndTheRunDrains) {
  const double end = run(kAllToAll, "")["workload_end_ps"];
  const std::string file = shared_path("flow_faults_cut");
  const SimTime failed = SimTime::ps(static_cast<int64_t>(end / 2));
  const Outcome r = run(kAllToAll,
                    "[{at = \"" + at_ps(end / 2) + "\", element = \"endpoint 3 port 0\"}]", file);
  EXPECT_EQ(r["workload_complete"], 0);  // endpoint 3's messages never arrive
  EXPECT_LT(r.result.reached, SimTime::infinity());  // nothing holds the run: it drained
  const double dropped = r["packets_dropped"];
  EXPECT_GT(dropped, 0);

  // Endpoint 3's two directed links: its injection link and the leaf's port to it.
  const std::vector<uint64_t> src = column(file, "/links/src_component");
  const std::vector<uint64_t> down = column(file, "/links/down_ps");
  const std::vector<uint64_t> lost = column(file, "/links/packets_dropped");
  std::vector<uint64_t> cut;
  for (uint64_t link = 0; link < down.size(); ++link) {
    if (down[link] > 0) cut.push_back(link);
  }
  ASSERT_EQ(cut.size(), 2u);
  for (const uint64_t link : cut) {
    EXPECT_EQ(down[link], static_cast<uint64_t>((r.result.reached - failed).count_ps()));
    EXPECT_GT(lost[link], 0u) << link;  // flows to 3 on its ejection link, from 3 on its own
  }
  EXPECT_EQ(std::accumulate(lost.begin(), lost.end(), uint64_t{0}), dropped);

  // One /drops row per lost flow: the 7 to endpoint 3 and the 7 from it that were in flight.
  const std::vector<uint64_t> links = column(file, "/drops/link");
  const std::vector<uint64_t> from = column(file, "/drops/src");
  const std::vector<uint64_t> to = column(file, "/drops/dst");
  const std::vector<uint64_t> time = column(file, "/drops/time_ps");
  const std::vector<uint64_t> action = column(file, "/drops/action");
  EXPECT_EQ(links.size(), 14u);
  for (std::size_t i = 0; i < links.size(); ++i) {
    EXPECT_TRUE(from[i] == 3 || to[i] == 3) << i;
    EXPECT_TRUE(links[i] == cut[0] || links[i] == cut[1]) << links[i];
    EXPECT_EQ(time[i], static_cast<uint64_t>(failed.count_ps()));
    EXPECT_EQ(action[i], 0u);
  }
  EXPECT_EQ(column(file, "/faults/packets_dropped"), std::vector<uint64_t>{uint64_t(dropped)});
  EXPECT_EQ(column(file, "/faults/time_ps"), std::vector<uint64_t>{uint64_t(failed.count_ps())});
  EXPECT_EQ(column(file, "/faults/links"), std::vector<uint64_t>{2});
  MPI_Barrier(MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::remove(file.c_str());
}

// Uniform synthetic traffic on a 4 x 4 mesh with endpoint 5 failed from the start: it offers
// nothing, and every message to it is lost as it enters the fabric.
TEST(FlowFaults, AFailedEndpointCreatesNoMessages) {
  const std::string file = shared_path("flow_faults_endpoint");
  const Outcome r = run(R"(
[sim]
model = "mesh"
fidelity = "flow"
[mesh]
k = 4
n = 2
[traffic]
pattern = "uniform"
load = 0.2
warmup = "200cycles"
measure = "1000cycles"
)",
                    "[{at = \"0ps\", element = \"endpoint 5\"}]", file);
  const std::vector<uint64_t> created = column(file, "/endpoints/messages_created");
  ASSERT_EQ(created.size(), 16u);
  for (uint32_t e = 0; e < created.size(); ++e) {
    if (e == 5) {
      EXPECT_EQ(created[e], 0u);
    } else {
      EXPECT_GT(created[e], 0u) << e;
    }
  }
  EXPECT_EQ(column(file, "/endpoints/packets_received")[5], 0u);
  const std::vector<uint64_t> to = column(file, "/drops/dst");
  EXPECT_FALSE(to.empty());
  for (const uint64_t d : to) EXPECT_EQ(d, 5u);
  EXPECT_GT(r["packets_dropped"], 0);
  MPI_Barrier(MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::remove(file.c_str());
}

}  // namespace
}  // namespace hx
