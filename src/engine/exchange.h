// Cross-rank event exchange: once per window, each rank sends one message to each neighbouring
// rank (possibly empty) holding the events for it, serialised with a Boost binary archive, and
// receives one from each. Only neighbours talk, so the cost follows the cut, not the rank count.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "core/event.h"

namespace hx {

/// Serialises a batch of events (Boost binary archive, no header) and back.
void pack_events(const std::vector<Event>& events, std::string& out);
void unpack_events(const char* data, std::size_t size, std::vector<Event>& out);

class Exchange {
 public:
  Exchange(MPI_Comm comm, std::vector<int> neighbours);

  /// Sends outboxes[i] to neighbours[i] and clears it; fills `received` with every event sent
  /// to this rank, in neighbour order. Returns the number of events sent.
  uint64_t exchange(std::vector<std::vector<Event>>& outboxes, std::vector<Event>& received);

 private:
  MPI_Comm comm_;
  std::vector<int> neighbours_;
  std::vector<std::string> send_buffers_;
  std::vector<MPI_Request> requests_;
  std::vector<char> recv_buffer_;
  std::vector<Event> batch_;
};

}  // namespace hx
