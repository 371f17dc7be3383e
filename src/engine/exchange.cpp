// Neighbour exchange with matched probes: one round trip per window, no size pre-exchange.
#include "engine/exchange.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace hx {
namespace {
constexpr int kEventTag = 4242;
}  // namespace

Exchange::Exchange(MPI_Comm comm, std::vector<int> neighbours)
    : comm_(comm), neighbours_(std::move(neighbours)), sending_(neighbours_.size()) {}

uint64_t Exchange::exchange(std::vector<std::vector<Event>>& outboxes,
                            std::vector<Event>& received) {
  received.clear();
  uint64_t sent = 0;
  requests_.assign(neighbours_.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < neighbours_.size(); ++i) {
    // The outbox's buffer is sent as it is; the outbox takes the emptied one sent last window,
    // so both keep their capacity.
    sending_[i].clear();
    sending_[i].swap(outboxes[i]);
    const std::size_t bytes = sending_[i].size() * sizeof(Event);
    sent += sending_[i].size();
    if (bytes > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
      throw std::runtime_error("one window sends more than 2 GiB of events to rank " +
                               std::to_string(neighbours_[i]) + "; reduce the link latency");
    }
    MPI_Isend(sending_[i].data(), static_cast<int>(bytes), MPI_BYTE, neighbours_[i], kEventTag,
              comm_, &requests_[i]);
  }
  for (int source : neighbours_) {
    MPI_Message message;
    MPI_Status status;
    MPI_Mprobe(source, kEventTag, comm_, &message, &status);
    int bytes = 0;
    MPI_Get_count(&status, MPI_BYTE, &bytes);
    if (bytes % sizeof(Event) != 0) {
      throw std::runtime_error("rank " + std::to_string(source) + " sent " +
                               std::to_string(bytes) + " bytes, not a whole number of events");
    }
    const std::size_t have = received.size();
    received.resize(have + static_cast<std::size_t>(bytes) / sizeof(Event));
    MPI_Mrecv(received.data() + have, bytes, MPI_BYTE, &message, MPI_STATUS_IGNORE);
  }
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  return sent;
}

}  // namespace hx
