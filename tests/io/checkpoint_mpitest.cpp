// MPI tests of writing checkpoint directories: what the collective write leaves behind.
#include <gtest/gtest.h>
#include <mpi.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/checkpoint.h"
#include "support/mpi_world.h"

namespace hx {
namespace {

namespace fs = std::filesystem;
using testing::comm_rank;
using testing::comm_size;
using testing::scratch;

std::string write_at(const std::string& dir, int64_t time_ps, int keep) {
  CheckpointManifest m = this_build_identity();
  m.config_hash = "abc";
  m.time_ps = time_ps;
  return write_checkpoint(MPI_COMM_WORLD, dir, keep, m, "[sim]\n", [](CheckpointRankWriter& w) {
    w.add_component(static_cast<uint64_t>(comm_rank()), "state");
  });
}

// A run killed while writing a checkpoint (a batch system's SIGKILL after its grace period)
// leaves its .ckpt-<time>.partial directory, as large as a checkpoint. The next checkpoint
// written into the directory removes every such one, and keeps the newest `keep` checkpoints.
TEST(WriteCheckpoint, RemovesWhatKilledRunsLeftPartlyWritten) {
  const std::string dir = scratch("checkpoint_stale");
  const std::vector<std::string> stale = {".ckpt-00000000000000000007.partial",
                                          ".ckpt-00000000000000009000.partial"};
  if (comm_rank() == 0) {
    fs::remove_all(dir);
    for (const std::string& name : stale) {
      fs::create_directories(dir + "/" + name);
      std::ofstream(dir + "/" + name + "/rank-00000.bin") << "cut short";
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  write_at(dir, 1000, 2);
  const std::string newest = write_at(dir, 2000, 2);
  MPI_Barrier(MPI_COMM_WORLD);
  for (const std::string& name : stale) EXPECT_FALSE(fs::exists(dir + "/" + name)) << name;
  EXPECT_TRUE(fs::exists(dir + "/ckpt-00000000000000001000/manifest"));
  CheckpointReader reader(newest);
  EXPECT_EQ(reader.manifest().ranks, comm_size());
  EXPECT_EQ(reader.component(static_cast<uint64_t>(comm_rank())), "state");
  MPI_Barrier(MPI_COMM_WORLD);
  if (comm_rank() == 0) fs::remove_all(dir);
}

}  // namespace
}  // namespace hx
