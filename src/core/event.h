// The event: a small, trivially copyable value. Its payload is stored inline (no allocation per
// event) and must itself be trivially copyable, so events cross ranks and checkpoints as bytes.
#pragma once

#include <array>
#include <boost/serialization/array_wrapper.hpp>
#include <boost/serialization/is_bitwise_serializable.hpp>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/ids.h"
#include "core/units.h"

namespace hx {

/// The partition-independent total order of events (DESIGN §3.3): time, then destination,
/// then source, then the source's own send counter. Two runs on any number of ranks process the
/// events of every component in exactly this order.
struct EventKey {
  SimTime time;
  ComponentId dst = 0;
  ComponentId src = 0;
  uint64_t seq = 0;

  friend bool operator<(const EventKey& a, const EventKey& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.dst != b.dst) return a.dst < b.dst;
    if (a.src != b.src) return a.src < b.src;
    return a.seq < b.seq;
  }
  friend bool operator==(const EventKey&, const EventKey&) = default;
};

struct Event {
  static constexpr std::size_t kPayloadBytes = 64;
  /// Set in `kind` for background events (timers such as a watchdog): they are handled like
  /// any other event, but do not keep a run going. The engine clears the bit before handle().
  static constexpr uint16_t kBackground = 0x8000;

  EventKey key;
  PortId port = kSelfPort;  // receiving port on the destination, or kSelfPort
  uint16_t kind = 0;        // model-defined tag telling the handler how to read the payload
  uint32_t dst_local = 0;   // index of the destination on its rank; set by the engine, rank-local
  // Not zeroed by default: a sender fills it with set_payload, which zeroes what P leaves, so
  // every byte of an event that crosses ranks or enters a checkpoint is defined (Event{} zeroes).
  alignas(8) std::array<std::byte, kPayloadBytes> payload;

  template <class P>
  void set_payload(const P& p) {
    static_assert(std::is_trivially_copyable_v<P>, "event payloads must be trivially copyable");
    static_assert(sizeof(P) <= kPayloadBytes, "event payload too large");
    std::memcpy(payload.data(), &p, sizeof(P));
    if constexpr (sizeof(P) < kPayloadBytes) {
      std::memset(payload.data() + sizeof(P), 0, kPayloadBytes - sizeof(P));
    }
  }
  template <class P>
  P payload_as() const {
    static_assert(std::is_trivially_copyable_v<P>, "event payloads must be trivially copyable");
    static_assert(sizeof(P) <= kPayloadBytes, "event payload too large");
    P p;
    std::memcpy(&p, payload.data(), sizeof(P));
    return p;
  }

  SimTime time() const { return key.time; }
};
static_assert(std::is_trivially_copyable_v<Event>);
static_assert(sizeof(Event) == 96, "Event layout changed: check padding");

/// The one serialisation function for events: the whole value as bytes. Events are plain data
/// with no pointers, so a byte copy is exact; used for cross-rank batches and checkpoints.
template <class Archive>
void serialize(Archive& ar, Event& e, unsigned /*version*/) {
  ar& boost::serialization::make_array(reinterpret_cast<unsigned char*>(&e), sizeof(Event));
}

}  // namespace hx

BOOST_IS_BITWISE_SERIALIZABLE(hx::Event)
