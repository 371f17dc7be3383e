// The memory watch: a run that outgrows its node while it runs (events and flows in flight, output
// rows, later phases' programs: what the build-time check cannot see) stops at a window boundary
// with a checkpoint and its results so far, exit code 6, instead of being killed by the OOM
// killer without a word (docs/OPERATIONS.md "Memory").
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>

#include "core/stats.h"

namespace hx {

/// Resident set of this process now, in bytes (/proc/self/statm); 0 where it cannot be read.
uint64_t resident_bytes();

/// What writing the output will take on top of the rows a rank holds: half their bytes
/// (measured: writing the quickstart's 198 MiB of /flows rows added 85 MiB to its peak).
uint64_t row_output_reserve(const StatsRegistry& stats);

/// Watches this rank's resident memory against a limit. It reads the resident size at most every
/// kInterval of wall time, so asking once per window costs a coarse clock read.
class MemoryWatch {
 public:
  static constexpr double kInterval = 0.2;  // seconds

  /// `limit`: the resident bytes this rank may hold; `source`: where the limit comes from.
  MemoryWatch(uint64_t limit, std::string source);

  /// Collective: the limit of each rank is what it holds now plus 90% of its share of what its
  /// node offers (MemAvailable over the ranks on the node), and never more than 90% of its share
  /// of a cgroup limit (a Slurm job's). The 10% left is for the checkpoint and the output.
  static MemoryWatch for_node(MPI_Comm comm);

  /// What the rank will need on top of what it holds, asked at each read: room to write its
  /// output (row_output_reserve).
  void set_reserve(std::function<uint64_t()> reserve) { reserve_ = std::move(reserve); }

  /// Reads the resident size if kInterval has passed since the last read; true once it and the
  /// reserve have been seen above the limit (it stays true).
  bool check();
  bool over() const { return over_; }

  uint64_t limit() const { return limit_; }
  uint64_t resident() const { return resident_; }  // at the last read
  uint64_t reserve() const { return reserved_; }   // at the last read
  const std::string& source() const { return source_; }

 private:
  uint64_t limit_;
  std::string source_;
  std::function<uint64_t()> reserve_;
  uint64_t resident_ = 0;
  uint64_t reserved_ = 0;
  double last_read_ = -1;  // coarse monotonic seconds; < 0: never read
  bool over_ = false;
};

}  // namespace hx
