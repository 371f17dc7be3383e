// A FIFO of plain values in one growable ring buffer: an input VC's queue. Unlike std::deque it
// allocates nothing while empty (a 200K-router network has millions of mostly empty queues) and
// never shrinks, so a queue reaches its working size once.
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

namespace hx::net {

template <class T>
class RingQueue {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  RingQueue() = default;
  RingQueue(RingQueue&&) noexcept = default;
  RingQueue& operator=(RingQueue&&) noexcept = default;

  bool empty() const { return size_ == 0; }
  uint32_t size() const { return size_; }
  T& front() { return data_[head_]; }
  const T& front() const { return data_[head_]; }
  const T& at(uint32_t i) const { return data_[(head_ + i) & (capacity_ - 1)]; }

  void push_back(const T& v) {
    if (size_ == capacity_) grow();
    data_[(head_ + size_) & (capacity_ - 1)] = v;
    ++size_;
  }
  void pop_front() {
    head_ = (head_ + 1) & (capacity_ - 1);
    --size_;
  }

 private:
  void grow() {
    const uint32_t capacity = capacity_ == 0 ? 2 : capacity_ * 2;
    auto data = std::make_unique<T[]>(capacity);
    for (uint32_t i = 0; i < size_; ++i) data[i] = at(i);
    data_ = std::move(data);
    capacity_ = capacity;
    head_ = 0;
  }

  std::unique_ptr<T[]> data_;
  uint32_t capacity_ = 0;  // a power of two
  uint32_t head_ = 0;
  uint32_t size_ = 0;
};

}  // namespace hx::net
