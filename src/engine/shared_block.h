// Memory that all ranks of a communicator share when they run on one host: each rank allocates
// a part of an MPI shared-memory window (MPI_Win_allocate_shared) and every rank can read and
// write every part. The window-synchronous executor meets in it instead of calling MPI for its
// per-window reduction and event exchange (window_reduce.h, exchange.h): a window of a
// short-link network is a few dozen events, so MPI's latency per call is what limits such runs.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
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

  /// How many times wait_for() went to sleep on this rank.
  uint64_t sleeps() const { return sleeps_; }

  /// Stores `value` in `word`, a word of this rank's part that other ranks wait_for(), and wakes
  /// those asleep on it.
  void publish(std::atomic<uint64_t>& word, uint64_t value) const;

  /// Waits until `word`, in rank `owner`'s part and written by its publish(), holds `value`.
  /// With a core per rank it spins first. Then it yields the core for up to kYieldFor (to the
  /// rank it waits for, when they share a core: --oversubscribe), and then sleeps until the owner
  /// publishes: a rank whose core other work also wants is woken at once, rather than when that
  /// work's time slice ends (a futex on the word's low half; it wakes every 10 ms regardless,
  /// so a missed wake-up costs time, never the run).
  void wait_for(const std::atomic<uint64_t>& word, uint64_t value, int owner) const {
    for (unsigned spins = 0; spins < spins_; ++spins) {
      if (word.load(std::memory_order_acquire) == value) return;
      shared_pause();
    }
    wait_longer(word, value, owner);
  }

 private:
  // Yields until kYieldFor has passed, then sleeps. A yield hands the core to the rank waited
  // for when it shares it, which a futex wake-up would cost a system call each; a yield to
  // other work can cost that work's whole time slice, which a sleeper is woken out of.
  static constexpr double kYieldFor = 1000e-6;  // seconds
  void wait_longer(const std::atomic<uint64_t>& word, uint64_t value, int owner) const;
  void sleep_on(const std::atomic<uint64_t>& word, uint64_t value, int owner) const;
  std::atomic<uint32_t>& sleepers(int rank) const;  // of the words in rank's part

  MPI_Comm comm_;
  int rank_ = 0;
  unsigned spins_ = 0;
  mutable uint64_t sleeps_ = 0;
  std::size_t my_bytes_ = 0;  // each part's, rounded up to a line; its sleepers count follows
  MPI_Win window_ = MPI_WIN_NULL;
  std::vector<char*> parts_;
};

}  // namespace hx
