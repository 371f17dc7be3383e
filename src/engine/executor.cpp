// The sequential and the window-synchronous executors.
#include "engine/executor.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "engine/exchange.h"

namespace hx {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Events handled between progress checks: large enough that the clock read is free, small
// enough that a report is at most a fraction of a second late.
constexpr uint64_t kProgressChunk = 1 << 18;

}  // namespace

EngineStats run_sequential(Simulation& sim, SimTime end, Progress* progress) {
  EngineStats stats;
  const Clock::time_point start = Clock::now();
  while (sim.next_work_time() < end && !sim.stop_requested()) {
    stats.events += sim.run_until(end, kProgressChunk);
    if (progress && progress->due()) progress->report(sim.now(), stats.events);
  }
  stats.drained = sim.next_work_time().is_infinite() && !sim.stop_requested();
  stats.reached = stats.drained ? sim.last_work_time() : end;
  stats.run_s = seconds_since(start);
  if (progress) progress->finish();
  return stats;
}

EngineStats run_windows(Simulation& sim, MPI_Comm comm, SimTime lookahead, SimTime end,
                        Progress* progress) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  EngineStats stats;
  Exchange exchange(comm, sim.neighbours());
  std::vector<Event> received;
  const Clock::time_point start = Clock::now();

  for (;;) {
    // Exchange first: the previous window's (or setup's) events for other ranks must be queued
    // there before anyone computes where the next window starts.
    Clock::time_point t = Clock::now();
    stats.remote_sent += exchange.exchange(sim.outboxes(), received);
    stats.remote_received += received.size();
    sim.receive(received);
    stats.exchange_s += seconds_since(t);

    // One reduction finds the next window's start, carries rank 0's decision to report
    // progress (so all ranks agree on when to take the extra event-count reduction) and tells
    // every rank whether a component anywhere asked to stop.
    t = Clock::now();
    const bool want_report = rank == 0 && progress && progress->due();
    int64_t local[3] = {sim.next_work_time().count_ps(), want_report ? 0 : 1,
                        sim.stop_requested() ? 0 : 1};
    int64_t global[3];
    MPI_Allreduce(local, global, 3, MPI_INT64_T, MPI_MIN, comm);
    if (global[1] == 0) {
      uint64_t total = 0;
      MPI_Reduce(&stats.events, &total, 1, MPI_UINT64_T, MPI_SUM, 0, comm);
      if (rank == 0) progress->report(SimTime::ps(global[0]), total);
    }
    stats.reduce_s += seconds_since(t);

    const SimTime window_start = SimTime::ps(global[0]);
    if (global[2] == 0) break;       // run_simulation reports why
    if (window_start >= end) break;  // also when no events remain anywhere (infinity)
    const SimTime window_end = lookahead >= end - window_start ? end : window_start + lookahead;
    stats.events += sim.run_until(window_end, UINT64_MAX);
    ++stats.windows;
  }

  // Where the run stopped is a global fact: the end time, or the last event anywhere.
  int64_t last = sim.last_work_time().count_ps();
  int64_t global_last = 0;
  MPI_Allreduce(&last, &global_last, 1, MPI_INT64_T, MPI_MAX, comm);
  int64_t next = sim.next_work_time().count_ps();
  int64_t global_next = 0;
  MPI_Allreduce(&next, &global_next, 1, MPI_INT64_T, MPI_MIN, comm);
  stats.drained = global_next == SimTime::infinity().count_ps();
  stats.reached = stats.drained ? SimTime::ps(global_last) : end;
  stats.run_s = seconds_since(start);
  if (progress && rank == 0) progress->finish();
  return stats;
}

}  // namespace hx
