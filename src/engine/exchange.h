// Cross-rank event exchange: once per window, each rank sends one batch to each neighbouring
// rank holding the events for it, and receives one from each. Events are trivially copyable and
// all ranks run the same binary, so a batch travels as the outbox's own bytes. Only neighbours
// talk, so the cost follows the cut, not the rank count.
//
// An exchange has two halves around the window's reduction (run_windows), so that a window
// costs the ranks one meeting: post() before it, collect() after it, on every rank alike.
// Two ways, the same events in the same order either way:
// - ranks on one host (SharedBlock) post each non-empty batch into a mailbox in shared memory,
//   one per direction of each neighbour pair and parity of the window, and collect copies out
//   the mailboxes written this window. No wait: the reduction in shared memory between the
//   halves (WindowReduce, built with the same `shared`) has every rank's posts visible. A batch
//   larger than the mailbox goes by MPI that window, and the mailbox says so. A mailbox is
//   written again two windows later, after its receiver has met the others once more, so after
//   it read the batch.
// - otherwise MPI: collect hands every outbox's buffer to MPI_Isend as it is and the matched
//   receives write into the receive vector; post does nothing.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
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
  /// each holding `mailbox_events` (tests make it small); only with a WindowReduce in shared
  /// memory between post and collect.
  Exchange(MPI_Comm comm, std::vector<int> neighbours, bool shared,
           std::size_t mailbox_events = kMailboxEvents);

  /// The first half of a window's exchange, on every rank: in shared memory, sends outboxes[i]
  /// to neighbours[i] and empties it.
  void post(std::vector<std::vector<Event>>& outboxes);

  /// The events a neighbour sent this window, valid only during the call: in shared memory they
  /// are read where they lie in its mailbox, not copied out first.
  using Take = std::function<void(std::span<const Event>)>;

  /// The second half, after the reduction, on every rank alike (the executor calls it when some
  /// rank had events to send): sends what post left in the outboxes and empties them, and hands
  /// `take` every batch sent to this rank this window, in neighbour order.
  void collect(std::vector<std::vector<Event>>& outboxes, const Take& take);

  bool shared() const { return block_.valid(); }

 private:
  struct Mailbox;  // a header line, then the events
  std::size_t stride() const;
  Mailbox* outgoing(std::size_t i) const;  // ours to neighbours_[i] this window
  Mailbox* incoming(std::size_t i) const;  // neighbours_[i]'s to us this window
  void send_by_mpi(std::size_t i, std::vector<Event>& outbox);
  void receive_by_mpi(int source, const Take& take);

  MPI_Comm comm_;
  std::vector<int> neighbours_;
  std::vector<std::vector<Event>> sending_;  // the outboxes in flight (their buffers are sent)
  std::vector<MPI_Request> requests_;
  std::vector<Event> received_;  // a batch that came by MPI
  // Shared memory: each rank's part holds its outgoing mailboxes, two per neighbour (even and
  // odd windows) in its neighbour order; we are at index their_index_[i] of neighbours_[i]'s.
  std::vector<std::size_t> their_index_;
  std::size_t mailbox_events_;
  int rank_ = 0;
  uint64_t epoch_ = 0;  // windows posted
  SharedBlock block_;
};

}  // namespace hx
