// The process's memory allocator. hxsim links jemalloc (cmake -DHX_ALLOCATOR=jemalloc, the
// default) and has it back the heap with transparent huge pages: a rank's model state is
// megabytes of routers, queues and events touched at random, and with 4 KiB pages nearly every
// touch also misses the TLB (docs/performance/engine.md "Huge pages"). HX_ALLOCATOR=system
// keeps the C library's malloc (also what sanitizer builds use).
#pragma once

#include <cstddef>
#include <string>

namespace hx {

/// Bytes in use on the heap (blocks mapped on their own included), for differences taken on
/// one thread: with jemalloc, what this thread allocated less what it freed.
std::size_t heap_in_use();

/// The allocator and its page policy as the allocator reports them, for --version and the
/// run's /engine attributes: e.g. "jemalloc 5.3.0-0-g54eaed1d8b56 (thp always)" or "system".
std::string heap_allocator();

}  // namespace hx
