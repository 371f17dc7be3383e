// Shared memory among the ranks of one host (shared_block.h).
#include "engine/shared_block.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bit>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <exception>
#include <new>

namespace hx {

void shared_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

void shared_yield() { sched_yield(); }

namespace {

// The futex is the 32-bit word of a 64-bit atomic that holds its low half (x86-64, little
// endian); waking compares only that half, which changes with every publish of a new epoch.
static_assert(std::endian::native == std::endian::little);
static_assert(sizeof(std::atomic<uint64_t>) == 8 && std::atomic<uint64_t>::is_always_lock_free);

uint32_t* futex_word(const std::atomic<uint64_t>& word) {
  return reinterpret_cast<uint32_t*>(const_cast<std::atomic<uint64_t>*>(&word));
}

}  // namespace

std::atomic<uint32_t>& SharedBlock::sleepers(int rank) const {
  return *reinterpret_cast<std::atomic<uint32_t>*>(part(rank) + my_bytes_);
}

void SharedBlock::publish(std::atomic<uint64_t>& word, uint64_t value) const {
  // Sequentially consistent with sleep_on's count and load: either the sleeper sees the new
  // value, or this sees the sleeper and wakes it.
  word.store(value, std::memory_order_seq_cst);
  if (sleepers(rank_).load(std::memory_order_seq_cst) != 0) {
    syscall(SYS_futex, futex_word(word), FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
  }
}

void SharedBlock::wait_longer(const std::atomic<uint64_t>& word, uint64_t value, int owner) const {
  const auto start = std::chrono::steady_clock::now();
  while (word.load(std::memory_order_acquire) != value) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
        kYieldFor) {
      shared_yield();
    } else {
      sleep_on(word, value, owner);
    }
  }
}

void SharedBlock::sleep_on(const std::atomic<uint64_t>& word, uint64_t value, int owner) const {
  ++sleeps_;
  std::atomic<uint32_t>& count = sleepers(owner);
  count.fetch_add(1, std::memory_order_seq_cst);
  const uint64_t seen = word.load(std::memory_order_seq_cst);
  if (seen != value) {
    timespec timeout{0, 10'000'000};
    syscall(SYS_futex, futex_word(word), FUTEX_WAIT, static_cast<uint32_t>(seen), &timeout, nullptr,
            0);
  }
  count.fetch_sub(1, std::memory_order_seq_cst);
}

SharedBlock::SharedBlock(MPI_Comm comm, std::size_t my_bytes, bool wanted) : comm_(comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  rank_ = rank;
  if (!wanted || size == 1) return;  // the same on every rank
  MPI_Comm host;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host);
  int on_host = 0;
  MPI_Comm_size(host, &on_host);
  // Open MPI backs the window with a file: one larger than the file size limit (ulimit -f)
  // would end the process with SIGXFSZ, so such a limit leaves the ranks to MPI.
  // A part: a line to align it, the caller's bytes and a line for the count of its sleepers.
  my_bytes_ = (my_bytes + kSharedLine - 1) / kSharedLine * kSharedLine;
  const uint64_t bytes = my_bytes_ + 2 * kSharedLine;
  uint64_t total = 0;
  MPI_Allreduce(&bytes, &total, 1, MPI_UINT64_T, MPI_SUM, comm);
  rlimit limit{};
  const bool fits = getrlimit(RLIMIT_FSIZE, &limit) == 0 &&
                    (limit.rlim_cur == RLIM_INFINITY || total + (1 << 20) <= limit.rlim_cur);
  const int mine = on_host == size && fits ? 1 : 0;
  int all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
  if (all == 0) {
    MPI_Comm_free(&host);
    return;
  }
  // 4,096 pauses last from about 15 to 200 us (the pause instruction takes 10-140 cycles,
  // by CPU): longer than most windows, short beside a time slice.
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  spins_ = cores >= size ? 4096 : 0;
  // An MPI without shared windows (or a full /dev/shm) says so rather than aborting: MPI then.
  MPI_Comm_set_errhandler(host, MPI_ERRORS_RETURN);
  void* base = nullptr;
  const int made = MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes), 1, MPI_INFO_NULL, host,
                                           &base, &window_) == MPI_SUCCESS;
  int everyone = 0;
  MPI_Allreduce(&made, &everyone, 1, MPI_INT, MPI_MIN, comm);
  if (everyone == 0) {
    if (made) MPI_Win_free(&window_);
    window_ = MPI_WIN_NULL;
    MPI_Comm_free(&host);
    return;
  }
  // Each part may start anywhere (Open MPI's first starts 8 bytes into a page): a line more,
  // and each rank tells the others where the first whole line of its part is.
  const auto at = reinterpret_cast<std::uintptr_t>(base);
  const uint64_t offset = (kSharedLine - at % kSharedLine) % kSharedLine;
  std::vector<uint64_t> offsets(static_cast<std::size_t>(size));
  MPI_Allgather(&offset, 1, MPI_UINT64_T, offsets.data(), 1, MPI_UINT64_T, comm);
  // host orders its ranks as comm does (the key is the rank), so rank r of one is r of the other.
  parts_.resize(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    MPI_Aint size_of_part = 0;
    int unit = 0;
    void* part = nullptr;
    MPI_Win_shared_query(window_, r, &size_of_part, &unit, &part);
    parts_[static_cast<std::size_t>(r)] =
        static_cast<char*>(part) + offsets[static_cast<std::size_t>(r)];
  }
  new (&sleepers(rank)) std::atomic<uint32_t>(0);  // before anyone waits: the callers' barrier
  MPI_Comm_free(&host);
}

SharedBlock::~SharedBlock() {
  // Unwinding from an error on this rank alone, the others may never come: leave it to exit.
  if (window_ == MPI_WIN_NULL || std::uncaught_exceptions() > 0) return;
  MPI_Barrier(comm_);  // nobody still reads a part
  MPI_Win_free(&window_);
}

}  // namespace hx
