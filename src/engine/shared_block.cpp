// Shared memory among the ranks of one host (shared_block.h).
#include "engine/shared_block.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <exception>

namespace hx {

void shared_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

void shared_yield() { sched_yield(); }

SharedBlock::SharedBlock(MPI_Comm comm, std::size_t my_bytes, bool wanted) : comm_(comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (!wanted || size == 1) return;  // the same on every rank
  MPI_Comm host;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host);
  int on_host = 0;
  MPI_Comm_size(host, &on_host);
  // Open MPI backs the window with a file: one larger than the file size limit (ulimit -f)
  // would end the process with SIGXFSZ, so such a limit leaves the ranks to MPI.
  const uint64_t bytes = my_bytes + kSharedLine;
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
  MPI_Comm_free(&host);
}

SharedBlock::~SharedBlock() {
  // Unwinding from an error on this rank alone, the others may never come: leave it to exit.
  if (window_ == MPI_WIN_NULL || std::uncaught_exceptions() > 0) return;
  MPI_Barrier(comm_);  // nobody still reads a part
  MPI_Win_free(&window_);
}

}  // namespace hx
