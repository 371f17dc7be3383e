// A FIFO of plain values: an input VC's queue. Its front always lives in the queue object
// itself, next to the queue's counters, so reading a head (what an allocation round does for
// every busy VC) touches the queue's own lines, which the router can prefetch, and never a heap
// buffer behind a pointer. The values behind the front wait in a ring buffer on the heap,
// allocated at the first second value and kept (it never shrinks) for the next burst; popping
// moves the next value into the object. Unlike std::deque it allocates nothing until a second
// value. Queues start on a cache line, so the counters and the front's start share one.
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>

namespace hx::net {

template <class T>
class alignas(64) RingQueue {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  bool empty() const { return size_ == 0; }
  uint32_t size() const { return size_; }
  /// The front; a pop overwrites it with the next value, so copy what must outlive the pop.
  T& front() { return front_; }
  const T& front() const { return front_; }
  const T& at(uint32_t i) const { return i == 0 ? front_ : behind(i); }
  T& at(uint32_t i) { return i == 0 ? front_ : behind(i); }
  /// Removes the element at i > 0 (not the front: pop_front), moving those behind it forward.
  void erase(uint32_t i) {
    for (; i + 1 < size_; ++i) behind(i) = behind(i + 1);
    --size_;
  }

  void push_back(const T& v) {
    if (size_ == 0) {
      front_ = v;
    } else {
      if (size_ - 1 == capacity_) grow();
      behind(size_) = v;
    }
    ++size_;
  }
  void pop_front() {
    if (--size_ == 0) return;
    front_ = heap_[head_];
    head_ = (head_ + 1) & (capacity_ - 1);
  }

 private:
  // The value at position i >= 1: the ring holds positions 1 .. size - 1 from head_ on.
  T& behind(uint32_t i) { return heap_[(head_ + i - 1) & (capacity_ - 1)]; }
  const T& behind(uint32_t i) const { return heap_[(head_ + i - 1) & (capacity_ - 1)]; }

  void grow() {
    const uint32_t capacity = capacity_ == 0 ? 2 : capacity_ * 2;
    auto data = std::make_unique<T[]>(capacity);
    for (uint32_t i = 1; i < size_; ++i) data[i - 1] = behind(i);
    heap_ = std::move(data);
    capacity_ = capacity;
    head_ = 0;
  }

  // The counters first, so the queue's first cache line holds them and the front's start.
  uint32_t head_ = 0;      // the ring slot of position 1
  uint32_t size_ = 0;      // values, the front included
  uint32_t capacity_ = 0;  // of the ring: a power of two, or 0
  std::unique_ptr<T[]> heap_;
  T front_{};
};

}  // namespace hx::net
