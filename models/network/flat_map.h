// Values keyed by 64-bit ids in one open-addressing table (linear probing, kept under half
// full), for lookups on hot paths (the workload runtime's per message, the max-min solver's per
// link of a starting flow), where a node-based map costs an allocation per key and a cache miss
// per lookup. FlatCounts counts occurrences.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

namespace hx::net {

template <class V>
class FlatMap {
 public:
  /// The value of `key` (V{} when new). Any key but kEmpty.
  V& operator[](uint64_t key) {
    if (2 * (size_ + 1) > keys_.size()) grow();
    std::size_t i = slot(key);
    if (keys_[i] == kEmpty) {
      keys_[i] = key;
      values_[i] = V{};
      ++size_;
    }
    return values_[i];
  }
  /// The value of `key`, or nullptr when it has none.
  const V* find(uint64_t key) const {
    if (keys_.empty()) return nullptr;
    const std::size_t i = slot(key);
    return keys_[i] == kEmpty ? nullptr : &values_[i];
  }
  std::size_t size() const { return size_; }
  void clear() {
    keys_.clear();
    values_.clear();
    size_ = 0;
    shift_ = 64;
  }
  /// Calls f(key, value) for every key, in no particular order.
  template <class F>
  void for_each(F f) const {
    for (std::size_t i = 0; i < keys_.size(); ++i) {
      if (keys_[i] != kEmpty) f(keys_[i], values_[i]);
    }
  }

  static constexpr uint64_t kEmpty = ~uint64_t{0};

 private:
  // The key's slot, or the empty one where it would go.
  // Fibonacci hashing: the top bits of the product spread keys that differ in any bit.
  std::size_t slot(uint64_t key) const {
    const std::size_t mask = keys_.size() - 1;
    std::size_t i = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_);
    while (keys_[i] != kEmpty && keys_[i] != key) i = (i + 1) & mask;
    return i;
  }
  void grow() {
    std::vector<uint64_t> keys(keys_.empty() ? 16 : 2 * keys_.size(), kEmpty);
    std::vector<V> values(keys.size(), V{});
    shift_ = 64 - std::countr_zero(keys.size());
    keys.swap(keys_);
    values.swap(values_);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] == kEmpty) continue;
      const std::size_t j = slot(keys[i]);
      keys_[j] = keys[i];
      values_[j] = values[i];
    }
  }

  std::vector<uint64_t> keys_;  // a power of two of them, kEmpty where free
  std::vector<V> values_;
  std::size_t size_ = 0;
  int shift_ = 64;  // 64 - log2(keys_.size())
};

using FlatCounts = FlatMap<uint32_t>;

}  // namespace hx::net
