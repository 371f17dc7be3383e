// The events of the flow level: endpoints post messages to the fabric, which tells the sender
// when the last byte has left and the receiver when it has arrived.
#pragma once

#include <cstdint>

#include "core/units.h"

namespace hx::flow {

enum FlowEventKind : uint16_t {
  kFlowStart = 1,  // fabric, payload FlowStart: an endpoint posts a message
  kFlowEnd,        // fabric, background, payload uint32_t version: the earliest flow end has
                   // come, unless a later wake-up (another version) replaced this one
  kSendDone,       // endpoint, payload SendDone: the message's last byte has left
  kFlowArrived,    // endpoint, payload FlowArrived: a message has arrived whole
  kWake,           // endpoint, payload uint32_t op: a program op's time is up
  kGenerate,       // endpoint: a synthetic message is due ([traffic] pattern)
  kStopInjection,  // endpoint, background: the drain limit is over; drop what still waits
  kFaultChange,    // fabric, background: a link fails or comes back (faults.h)
  kRetry,          // endpoint: what held its messages (faults.h) may have changed
};

/// A message's op in its sender's program, or none (synthetic traffic).
inline constexpr uint32_t kNoOp = 0xFFFFFFFFu;

struct FlowStart {
  uint64_t bytes = 0;
  uint64_t message = 0;
  SimTime created;
  SimTime path_compute;
  uint32_t src = 0;  // the sender: the fabric's ports to endpoints outnumber PortId's
  uint32_t dst = 0;
  uint32_t op = 0;
};

struct SendDone {
  uint64_t bytes = 0;
  uint32_t op = 0;
};

struct FlowArrived {
  uint64_t message = 0;
  uint64_t bytes = 0;
  SimTime created;
  SimTime injected;  // when the flow entered the fabric
  SimTime sent;      // when its last byte left the sender
  SimTime path_compute;
  uint32_t src = 0;
  float mean_hops = 0;
};

}  // namespace hx::flow
