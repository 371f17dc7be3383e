// Neighbour exchange through shared-memory mailboxes, or MPI with matched probes: no size
// pre-exchange.
#include "engine/exchange.h"

#include <atomic>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace hx {
namespace {
constexpr int kEventTag = 4242;
constexpr int kIndexTag = 4243;
// A mailbox's count when its batch went by MPI.
constexpr uint64_t kByMpi = std::numeric_limits<uint64_t>::max();
}  // namespace

struct alignas(kSharedLine) Exchange::Mailbox {
  std::atomic<uint64_t> epoch;  // of the batch it holds
  uint64_t count;               // its events, or kByMpi
  Event* events() { return reinterpret_cast<Event*>(reinterpret_cast<char*>(this) + kSharedLine); }
};

std::size_t Exchange::stride() const {
  const std::size_t bytes = kSharedLine + mailbox_events_ * sizeof(Event);
  return (bytes + kSharedLine - 1) / kSharedLine * kSharedLine;
}

Exchange::Exchange(MPI_Comm comm, std::vector<int> neighbours, bool shared,
                   std::size_t mailbox_events)
    : comm_(comm),
      neighbours_(std::move(neighbours)),
      sending_(neighbours_.size()),
      mailbox_events_(mailbox_events),
      rank_([comm] {
        int r = 0;
        MPI_Comm_rank(comm, &r);
        return r;
      }()),
      block_(comm, 2 * neighbours_.size() * stride(), shared) {
  static_assert(std::atomic<uint64_t>::is_always_lock_free, "shared between processes");
  if (!block_.valid()) return;
  // Where we are in each neighbour's list (neighbour lists are symmetric).
  their_index_.resize(neighbours_.size());
  std::vector<MPI_Request> requests(2 * neighbours_.size());
  std::vector<uint64_t> mine(neighbours_.size());
  for (std::size_t i = 0; i < neighbours_.size(); ++i) {
    mine[i] = i;
    MPI_Isend(&mine[i], 1, MPI_UINT64_T, neighbours_[i], kIndexTag, comm_, &requests[2 * i]);
    MPI_Irecv(&their_index_[i], 1, MPI_UINT64_T, neighbours_[i], kIndexTag, comm_,
              &requests[2 * i + 1]);
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  for (std::size_t i = 0; i < 2 * neighbours_.size(); ++i) {
    auto* box = reinterpret_cast<Mailbox*>(block_.part(rank_) + i * stride());
    new (&box->epoch) std::atomic<uint64_t>(0);
    box->count = 0;
  }
  MPI_Barrier(comm_);  // every mailbox is set before anyone reads one
}

Exchange::Mailbox* Exchange::outgoing(std::size_t i) const {
  return reinterpret_cast<Mailbox*>(block_.part(rank_) + (2 * i + epoch_ % 2) * stride());
}

Exchange::Mailbox* Exchange::incoming(std::size_t i) const {
  return reinterpret_cast<Mailbox*>(block_.part(neighbours_[i]) +
                                    (2 * their_index_[i] + epoch_ % 2) * stride());
}

void Exchange::send_by_mpi(std::size_t i, std::vector<Event>& outbox) {
  // The outbox's buffer is sent as it is; the outbox takes the emptied one sent last window,
  // so both keep their capacity.
  sending_[i].clear();
  sending_[i].swap(outbox);
  const std::size_t bytes = sending_[i].size() * sizeof(Event);
  if (bytes > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw std::runtime_error("one window sends more than 2 GiB of events to rank " +
                             std::to_string(neighbours_[i]) + "; reduce the link latency");
  }
  MPI_Isend(sending_[i].data(), static_cast<int>(bytes), MPI_BYTE, neighbours_[i], kEventTag, comm_,
            &requests_[i]);
}

void Exchange::receive_by_mpi(int source, const Take& take) {
  MPI_Message message;
  MPI_Status status;
  MPI_Mprobe(source, kEventTag, comm_, &message, &status);
  int bytes = 0;
  MPI_Get_count(&status, MPI_BYTE, &bytes);
  if (bytes % sizeof(Event) != 0) {
    throw std::runtime_error("rank " + std::to_string(source) + " sent " + std::to_string(bytes) +
                             " bytes, not a whole number of events");
  }
  received_.resize(static_cast<std::size_t>(bytes) / sizeof(Event));
  MPI_Mrecv(received_.data(), bytes, MPI_BYTE, &message, MPI_STATUS_IGNORE);
  take(received_);
}

void Exchange::post(std::vector<std::vector<Event>>& outboxes) {
  ++epoch_;
  if (!block_.valid()) return;
  requests_.assign(neighbours_.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < neighbours_.size(); ++i) {
    std::vector<Event>& outbox = outboxes[i];
    if (outbox.empty()) continue;  // its mailbox keeps an older epoch: nothing this window
    Mailbox* box = outgoing(i);
    if (outbox.size() <= mailbox_events_) {
      std::memcpy(box->events(), outbox.data(), outbox.size() * sizeof(Event));
      box->count = outbox.size();
      outbox.clear();
    } else {
      send_by_mpi(i, outbox);
      box->count = kByMpi;
    }
    box->epoch.store(epoch_, std::memory_order_release);
  }
}

void Exchange::collect(std::vector<std::vector<Event>>& outboxes, const Take& take) {
  if (!block_.valid()) {
    requests_.assign(neighbours_.size(), MPI_REQUEST_NULL);
    for (std::size_t i = 0; i < neighbours_.size(); ++i) send_by_mpi(i, outboxes[i]);
    for (const int source : neighbours_) receive_by_mpi(source, take);
  } else {
    for (std::size_t i = 0; i < neighbours_.size(); ++i) {
      Mailbox* box = incoming(i);
      if (box->epoch.load(std::memory_order_acquire) != epoch_) continue;  // nothing for us
      if (box->count == kByMpi) {
        receive_by_mpi(neighbours_[i], take);
        continue;
      }
      // The writer fills this mailbox again two windows from now, after meeting us once more.
      take(std::span<const Event>(box->events(), box->count));
    }
  }
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
}

}  // namespace hx
