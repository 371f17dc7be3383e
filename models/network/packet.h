// The packet: the unit a router switches under virtual cut-through. It travels as the payload of
// one event per hop, so it is plain data of at most Event::kPayloadBytes bytes.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/event.h"

namespace hx::net {

inline constexpr uint32_t kNoRouter = 0xFFFFFFFFu;

struct Packet {
  // What routing and allocation read comes first: with Router::Waiting's times and the queue's
  // counters it fits the first cache line of a router's input queue.
  int32_t stream_ps = 0;  // head-to-tail time on the link it last crossed (set by the sender)
  uint32_t src = 0;       // source endpoint index
  uint32_t dst = 0;       // destination endpoint index
  uint32_t intermediate = kNoRouter;  // non-minimal routing's intermediate router
  uint16_t flits = 0;                 // packet size (a message's last packet may be shorter)
  uint16_t hops = 0;  // router-to-router links crossed so far (a 64 x 64-node RailX torus: 400+)
  uint8_t vc = 0;     // virtual channel it occupies on the link it last crossed
  uint8_t phase = 0;  // routing-defined (e.g. 0: towards intermediate, 1: towards dst)
  uint8_t flags = 0;  // kMeasured, plus bits the routing may use (kRoutingFlag0..)
  // Free for the routing, as phase and intermediate are: e.g. a ring position, a K-hop count or
  // a dimension order. Both sit in what would otherwise be padding.
  uint8_t route_aux = 0;
  uint32_t message_flits = 0;  // size of the whole message
  uint32_t route_data = 0;
  uint64_t message = 0;        // per source: a sequence number, or a workload's message_id()
  SimTime created;       // when its message entered the source queue
  SimTime injected;      // when its head left the source endpoint
  SimTime path_compute;  // workloads: compute on the sender's critical path (program_runner.h)
  static constexpr uint8_t kMeasured = 1;           // created inside the measurement window
  static constexpr uint8_t kRoutingFlag0 = 1 << 4;  // bits 4..7 belong to the routing
};
static_assert(std::is_trivially_copyable_v<Packet>);
static_assert(sizeof(Packet) <= Event::kPayloadBytes);
static_assert(sizeof(Packet) == 64, "a packet fills one cache line: keep new fields in padding");

}  // namespace hx::net
