// Checkpoint helpers for the network components' plain-data state (DESIGN §3.9): vectors and
// queues of trivially copyable values go into Boost binary archives as raw bytes.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "models/network/ring_queue.h"

namespace hx::net {

template <class Archive, class T>
void save_pods(Archive& ar, const std::vector<T>& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  const uint64_t n = v.size();
  ar << n;
  if (n) ar.save_binary(v.data(), n * sizeof(T));
}

template <class Archive, class T>
void load_pods(Archive& ar, std::vector<T>& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  uint64_t n = 0;
  ar >> n;
  v.resize(n);
  if (n) ar.load_binary(v.data(), n * sizeof(T));
}

template <class Archive, class T>
void save_queue(Archive& ar, const RingQueue<T>& q) {
  std::vector<T> items;
  items.reserve(q.size());
  for (uint32_t i = 0; i < q.size(); ++i) items.push_back(q.at(i));
  save_pods(ar, items);
}

template <class Archive, class T>
void load_queue(Archive& ar, RingQueue<T>& q) {
  std::vector<T> items;
  load_pods(ar, items);
  q = RingQueue<T>();
  for (const T& item : items) q.push_back(item);
}

}  // namespace hx::net
