// Checkpoint helpers for the network components' record-like state (DESIGN §3.9): vectors and
// queues of plain records (packets, messages, credit returns) go through a StateArchive as a
// count and then raw bytes, in either direction. Plain records only: a record's bytes are its
// fields, as the packets inside events are (the engine saves pending events the same way).
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/state_archive.h"
#include "models/components/ring_queue.h"

namespace hx::net {

template <class T>
void serialize_items(StateArchive& ar, std::vector<T>& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  uint64_t n = v.size();
  ar & n;
  if (ar.loading()) v.resize(n);
  ar.bytes(v.data(), n * sizeof(T));
}

template <class T>
void serialize_queue(StateArchive& ar, RingQueue<T>& q) {
  std::vector<T> items;
  if (!ar.loading()) {
    items.reserve(q.size());
    for (uint32_t i = 0; i < q.size(); ++i) items.push_back(q.at(i));
  }
  serialize_items(ar, items);
  if (ar.loading()) {
    q = RingQueue<T>();
    for (const T& item : items) q.push_back(item);
  }
}

}  // namespace hx::net
