// The window reduction in shared memory, or MPI_Allreduce (window_reduce.h).
#include "engine/window_reduce.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace hx {

// One rank's values of one epoch, a cache line of its own so that ranks write apart. A rank
// alternates between two: one that writes epoch e + 2 has seen every rank arrive at e + 1,
// which they do after reading e.
struct alignas(kSharedLine) WindowReduce::Slot {
  std::atomic<uint64_t> epoch;
  int64_t values[kMaxValues];
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "shared between processes");

WindowReduce::WindowReduce(MPI_Comm comm, bool shared)
    : comm_(comm),
      rank_([comm] {
        int r = 0;
        MPI_Comm_rank(comm, &r);
        return r;
      }()),
      size_([comm] {
        int s = 0;
        MPI_Comm_size(comm, &s);
        return s;
      }()),
      block_(comm, 2 * sizeof(Slot), shared) {
  static_assert(sizeof(Slot) == kSharedLine);
  if (!block_.valid()) return;
  for (uint64_t parity = 0; parity < 2; ++parity) {
    new (slot(parity, rank_)) Slot{};
    slot(parity, rank_)->epoch.store(0, std::memory_order_relaxed);
  }
  MPI_Barrier(comm);  // every slot is set before anyone reads one
}

WindowReduce::Slot* WindowReduce::slot(uint64_t epoch, int rank) const {
  return reinterpret_cast<Slot*>(block_.part(rank)) + epoch % 2;
}

void WindowReduce::min(const int64_t* local, int64_t* global, int n) {
  if (n > kMaxValues) throw std::logic_error("WindowReduce::min: too many values");
  if (!block_.valid()) {
    MPI_Allreduce(local, global, n, MPI_INT64_T, MPI_MIN, comm_);
    return;
  }
  scratch_.resize(static_cast<std::size_t>(size_ * n));
  gather(local, scratch_.data(), n);
  std::copy(local, local + n, global);
  for (int r = 0; r < size_; ++r) {
    for (int i = 0; i < n; ++i) global[i] = std::min(global[i], scratch_[r * n + i]);
  }
}

void WindowReduce::gather(const int64_t* local, int64_t* all, int n) {
  if (n > kMaxValues) throw std::logic_error("WindowReduce::gather: too many values");
  if (!block_.valid()) {
    MPI_Allgather(local, n, MPI_INT64_T, all, n, MPI_INT64_T, comm_);
    return;
  }
  ++epoch_;
  Slot* mine = slot(epoch_, rank_);
  std::memcpy(mine->values, local, static_cast<std::size_t>(n) * sizeof(int64_t));
  block_.publish(mine->epoch, epoch_);
  std::copy(local, local + n, all + rank_ * n);
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    const Slot* other = slot(epoch_, r);
    block_.wait_for(other->epoch, epoch_, r);
    std::copy(other->values, other->values + n, all + r * n);
  }
}

}  // namespace hx
