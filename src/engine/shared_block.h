// Memory that all ranks of a communicator share when they run on one host: each rank allocates
// a part of an MPI shared-memory window (MPI_Win_allocate_shared) and every rank can read and
// write every part. The window-synchronous executor meets in it instead of calling MPI for its
// per-window reduction and event exchange (window_reduce.h, exchange.h): a window of a
// short-link network is a few dozen events, so MPI's latency per call is what limits such runs.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace hx {

/// The cache-line size the parts are aligned to.
inline constexpr std::size_t kSharedLine = 64;

void shared_pause();  // the CPU's spin-wait hint
void shared_yield();  // sched_yield

class SharedBlock {
 public:
  /// Collective over `comm`. Without `wanted`, a world of one rank, ranks on several hosts, or
  /// a file size limit (ulimit -f) the block might not fit under, nothing is allocated and
  /// valid() is false on every rank.
  SharedBlock(MPI_Comm comm, std::size_t my_bytes, bool wanted);
  ~SharedBlock();
  SharedBlock(const SharedBlock&) = delete;
  SharedBlock& operator=(const SharedBlock&) = delete;

  bool valid() const { return window_ != MPI_WIN_NULL; }
  /// Rank `rank`'s part (of comm), kSharedLine-aligned where the host maps it alike.
  char* part(int rank) const { return parts_[static_cast<std::size_t>(rank)]; }

  /// Waits until `ready()`, which reads what another rank writes. With a core per rank it
  /// spins; with more ranks than cores (--oversubscribe) it yields the core at once, to the
  /// rank it waits for.
  template <typename Ready>
  void wait(Ready ready) const {
    for (unsigned spins = 0; !ready(); ++spins) {
      if (spins < spins_) {
        shared_pause();
      } else {
        shared_yield();
      }
    }
  }

 private:
  MPI_Comm comm_;
  unsigned spins_ = 0;
  MPI_Win window_ = MPI_WIN_NULL;
  std::vector<char*> parts_;
};

}  // namespace hx
