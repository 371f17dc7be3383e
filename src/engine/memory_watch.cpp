// The memory watch: this rank's resident size against its limit, read on a coarse clock.
#include "engine/memory_watch.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "engine/memory.h"

namespace hx {
namespace {

// A coarse monotonic clock (a few ms of resolution) costs a memory read, not a timer read.
double coarse_seconds() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace

uint64_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long size = 0, resident = 0;  // pages
  const int read = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  if (read != 2) return 0;
  return static_cast<uint64_t>(resident) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

uint64_t row_output_reserve(const StatsRegistry& stats) { return stats.row_bytes() / 2; }

MemoryWatch::MemoryWatch(uint64_t limit, std::string source)
    : limit_(limit), source_(std::move(source)) {}

MemoryWatch MemoryWatch::for_node(MPI_Comm comm) {
  const double share = 0.9 / ranks_on_node(comm);
  const NodeMemory node = node_memory();
  uint64_t limit = UINT64_MAX;
  std::string source = "no limit known";
  if (node.available != UINT64_MAX) {
    limit = resident_bytes() + static_cast<uint64_t>(static_cast<double>(node.available) * share);
    source = "what it held at the start and 90% of its share of MemAvailable in /proc/meminfo";
  }
  if (node.cgroup_limit != UINT64_MAX) {
    const auto capped = static_cast<uint64_t>(static_cast<double>(node.cgroup_limit) * share);
    if (capped < limit) {
      limit = capped;
      source = "90% of its share of the cgroup limit " + node.cgroup_file;
    }
  }
  return MemoryWatch(limit, source);
}

bool MemoryWatch::check() {
  if (over_ || limit_ == UINT64_MAX) return over_;
  const double now = coarse_seconds();
  if (last_read_ >= 0 && now - last_read_ < kInterval) return false;
  last_read_ = now;
  resident_ = resident_bytes();
  reserved_ = reserve_ ? reserve_() : 0;
  over_ = resident_ + reserved_ > limit_;
  return over_;
}

}  // namespace hx
