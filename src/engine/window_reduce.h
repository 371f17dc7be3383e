// The per-window meeting of run_windows (executor.cpp): every rank's few int64 values, gathered
// on every rank (or their minimum). When every rank shares one host they meet in shared memory
// (shared_block.h): each publishes its values with an epoch in a cache line of its own and reads
// everyone else's. Otherwise, or with sim.shared_sync off, it is MPI_Allgather (MPI_Allreduce for
// the minimum). Both give the same values, so the choice never changes a result.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "engine/shared_block.h"

namespace hx {

class WindowReduce {
 public:
  /// At most this many values per call.
  static constexpr int kMaxValues = 7;

  /// Collective over `comm`. `shared`: meet in shared memory when all ranks are on one host.
  WindowReduce(MPI_Comm comm, bool shared);

  /// global[i] = the minimum of local[i] over the ranks, i < n <= kMaxValues. Collective.
  void min(const int64_t* local, int64_t* global, int n);
  /// Every rank's values: all[r * n + i] = rank r's local[i], i < n <= kMaxValues. Collective.
  void gather(const int64_t* local, int64_t* all, int n);

  int rank() const { return rank_; }
  int size() const { return size_; }

  bool shared() const { return block_.valid(); }
  /// How many times this rank slept waiting for another (shared memory only).
  uint64_t sleeps() const { return block_.sleeps(); }

 private:
  struct Slot;
  Slot* slot(uint64_t epoch, int rank) const;

  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  uint64_t epoch_ = 0;
  std::vector<int64_t> scratch_;  // min()'s gathered values
  SharedBlock block_;  // each rank's part: its slots of even and odd epochs
};

}  // namespace hx
