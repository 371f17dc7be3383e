// A FIFO of plain values: an input VC's queue. Most queues of a large network hold at most one
// value at a time, so the first lives in the queue object itself, next to the queue's counters,
// where loading the queue brings it along. Only a second value moves the queue into a ring
// buffer on the heap, which is kept (it never shrinks) for the next burst; once empty the queue
// uses its own slot again. Unlike std::deque it allocates nothing until a second value.
// Queues start on a cache line, so the counters and the start of the first value share one.
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
  T& front() { return data()[head_]; }
  const T& front() const { return data()[head_]; }
  const T& at(uint32_t i) const { return data()[(head_ + i) & (capacity() - 1)]; }
  T& at(uint32_t i) { return data()[(head_ + i) & (capacity() - 1)]; }
  /// Removes the element at i > 0 (not the front: pop_front), moving those behind it forward.
  void erase(uint32_t i) {
    for (; i + 1 < size_; ++i) at(i) = at(i + 1);
    --size_;
  }

  void push_back(const T& v) {
    if (size_ == capacity()) grow();
    data()[(head_ + size_) & (capacity() - 1)] = v;
    ++size_;
  }
  void pop_front() {
    head_ = (head_ + 1) & (capacity() - 1);
    if (--size_ == 0) {
      on_heap_ = false;
      head_ = 0;
    }
  }

 private:
  T* data() { return on_heap_ ? heap_.get() : &slot_; }
  const T* data() const { return on_heap_ ? heap_.get() : &slot_; }
  uint32_t capacity() const { return on_heap_ ? heap_capacity_ : 1; }

  void grow() {
    if (!on_heap_) {  // one value, in the slot: it moves to the heap buffer
      if (heap_capacity_ == 0) {
        heap_ = std::make_unique<T[]>(2);
        heap_capacity_ = 2;
      }
      heap_[0] = slot_;
      head_ = 0;
      on_heap_ = true;
      return;
    }
    const uint32_t capacity = heap_capacity_ * 2;
    auto data = std::make_unique<T[]>(capacity);
    for (uint32_t i = 0; i < size_; ++i) data[i] = at(i);
    heap_ = std::move(data);
    heap_capacity_ = capacity;
    head_ = 0;
  }

  // The counters first, so the queue's first cache line holds them and the slot's start.
  uint32_t head_ = 0;
  uint32_t size_ = 0;
  uint32_t heap_capacity_ = 0;  // a power of two, or 0
  bool on_heap_ = false;
  std::unique_ptr<T[]> heap_;
  T slot_{};
};

}  // namespace hx::net
