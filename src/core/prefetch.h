// Cache prefetch hints, in one place: the engine and the models ask for memory they will touch
// soon through these, never through the compiler intrinsic, so what a component declares hot
// (HotSpan) is the only thing the engine knows of its memory layout (docs/performance/engine.md).
#pragma once

#include <cstddef>
#include <cstdint>

namespace hx {

inline constexpr std::size_t kCacheLine = 64;

/// Starts loading the cache line holding `p` for reading. Never faults, changes nothing.
[[gnu::always_inline]] inline void prefetch_read(const void* p) { __builtin_prefetch(p, 0); }
/// As prefetch_read, for a line about to be written.
[[gnu::always_inline]] inline void prefetch_write(const void* p) { __builtin_prefetch(p, 1); }

/// A component's hot state: the bytes every one of its events touches, which the engine starts
/// loading a few events ahead of handling one (Component::hot_state).
struct HotSpan {
  const void* begin = nullptr;
  std::size_t bytes = 0;

  /// From the start of `object` (its vtable pointer and base class included) to the end of
  /// its member `last`: a component that declares its hot fields first ends its span so.
  template <class T>
  static HotSpan up_to(const void* object, const T& last) {
    const auto* b = static_cast<const char*>(object);
    const auto* e = reinterpret_cast<const char*>(&last) + sizeof(T);
    return {b, static_cast<std::size_t>(e - b)};
  }
};

}  // namespace hx
