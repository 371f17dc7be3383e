// Cross-rank event exchange: once per window, each rank sends one batch to each neighbouring
// rank (possibly empty) holding the events for it, and receives one from each. Events are
// trivially copyable and all ranks run the same binary, so a batch travels as the outbox's own
// bytes. Only neighbours talk, so the cost follows the cut, not the rank count.
//
// Two ways, the same events in the same order either way:
// - ranks on one host (SharedBlock) write each batch into a mailbox in shared memory, one per
//   direction of each neighbour pair, and the receiver copies it out; a batch larger than the
//   mailbox goes by MPI that window, and the mailbox says so;
// - otherwise MPI: the outbox's buffer is handed to MPI_Isend as it is and the matched receive
//   writes into the receive vector.
// A mailbox holds one batch: callers synchronise every rank between two exchanges (the window
// reduction of run_windows does), so its receiver has read it before it is written again.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/event.h"
#include "engine/shared_block.h"

namespace hx {

class Exchange {
 public:
  /// Events a mailbox holds by default, 32 KiB: more than most windows of the packet-level
  /// benchmarks send (5-30 KB, docs/performance/engine.md), and the short windows that need
  /// shared memory most send a few.
  static constexpr std::size_t kMailboxEvents = 340;

  /// Collective over `comm`. `shared`: mailboxes in shared memory when all ranks share a host,
  /// each holding `mailbox_events` (tests make it small).
  Exchange(MPI_Comm comm, std::vector<int> neighbours, bool shared,
           std::size_t mailbox_events = kMailboxEvents);

  /// Sends outboxes[i] to neighbours[i] and empties it; fills `received` with every event sent
  /// to this rank, in neighbour order. Returns the number of events sent.
  uint64_t exchange(std::vector<std::vector<Event>>& outboxes, std::vector<Event>& received);

  bool shared() const { return block_.valid(); }

 private:
  struct Mailbox;  // a header line, then the events
  std::size_t stride() const;
  Mailbox* outgoing(std::size_t i) const;  // ours to neighbours_[i]
  Mailbox* incoming(std::size_t i) const;  // neighbours_[i]'s to us
  void send_by_mpi(std::size_t i, std::vector<Event>& outbox);
  void receive_by_mpi(int source, std::vector<Event>& received);

  MPI_Comm comm_;
  std::vector<int> neighbours_;
  std::vector<std::vector<Event>> sending_;  // the outboxes in flight (their buffers are sent)
  std::vector<MPI_Request> requests_;
  // Shared memory: each rank's part holds its outgoing mailboxes, in its neighbour order; we are
  // at index their_index_[i] of neighbours_[i]'s.
  std::vector<std::size_t> their_index_;
  std::size_t mailbox_events_;
  int rank_ = 0;
  uint64_t epoch_ = 0;
  SharedBlock block_;
};

}  // namespace hx
