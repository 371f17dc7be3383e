// Cross-rank event exchange: once per window, each rank sends one message to each neighbouring
// rank (possibly empty) holding the events for it, and receives one from each. Events are
// trivially copyable and all ranks run the same binary, so a batch travels as the outbox's own
// bytes: no packing, no copy on the way out, one on the way in (into the receive vector). Only
// neighbours talk, so the cost follows the cut, not the rank count.
#pragma once

#include <mpi.h>

#include <vector>

#include "core/event.h"

namespace hx {

class Exchange {
 public:
  Exchange(MPI_Comm comm, std::vector<int> neighbours);

  /// Sends outboxes[i] to neighbours[i] and empties it; fills `received` with every event sent
  /// to this rank, in neighbour order. Returns the number of events sent.
  uint64_t exchange(std::vector<std::vector<Event>>& outboxes, std::vector<Event>& received);

 private:
  MPI_Comm comm_;
  std::vector<int> neighbours_;
  std::vector<std::vector<Event>> sending_;  // the outboxes in flight (their buffers are sent)
  std::vector<MPI_Request> requests_;
};

}  // namespace hx
