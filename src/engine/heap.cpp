#include "engine/heap.h"

#ifdef HX_JEMALLOC
#include <jemalloc/jemalloc.h>
#else
#include <malloc.h>
#endif

#include <cstdint>

#ifdef HX_JEMALLOC
// jemalloc's options, read once when it starts (before main): huge pages for the heap's
// extents and, past a threshold, for its own metadata. An environment's MALLOC_CONF is applied
// after these, so a user can still say MALLOC_CONF=thp:never (docs/OPERATIONS.md "Memory").
// jemalloc finds this symbol by name in the executable, the way it documents.
extern "C" {
const char* malloc_conf = "thp:always,metadata_thp:auto";
}
#endif

namespace hx {

#ifdef HX_JEMALLOC

namespace {
template <class T>
T read_ctl(const char* name, T fallback) {
  T value{};
  std::size_t size = sizeof value;
  return mallctl(name, &value, &size, nullptr, 0) == 0 ? value : fallback;
}
}  // namespace

// This thread's bytes allocated less those it freed, counted exactly (the arenas' statistics
// leave out what sits in the thread's cache, so a difference of two of them can even be
// negative). A rank builds and runs its model on one thread, and callers take differences, so a
// block freed here that another thread allocated cancels out as it should.
std::size_t heap_in_use() {
  return read_ctl<uint64_t>("thread.allocated", 0) - read_ctl<uint64_t>("thread.deallocated", 0);
}

std::string heap_allocator() {
  return std::string("jemalloc ") + read_ctl<const char*>("version", "?") + " (thp " +
         read_ctl<const char*>("opt.thp", "?") + ")";
}

#else

std::size_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

std::string heap_allocator() { return "system"; }

#endif

}  // namespace hx
