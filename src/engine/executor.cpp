// The sequential and the window-synchronous executors.
#include "engine/executor.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "engine/exchange.h"
#include "engine/window_reduce.h"

namespace hx {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Events handled between progress checks: large enough that the clock read is free, small
// enough that a report is at most a fraction of a second late.
constexpr uint64_t kProgressChunk = 1 << 18;

// The first multiple of `every` after `t`: the next scheduled checkpoint.
SimTime next_multiple_after(SimTime t, SimTime every) {
  if (every.is_infinite() || t.is_infinite()) return SimTime::infinity();
  return SimTime::ps((t.count_ps() / every.count_ps() + 1) * every.count_ps());
}

// Checkpoints with their cost accounted for.
void take_checkpoint(const RunControl& control, SimTime at, EngineStats& stats) {
  if (!control.checkpoint) return;
  const Clock::time_point t = Clock::now();
  control.checkpoint(at, stats.events);
  stats.checkpoint_s += seconds_since(t);
  ++stats.checkpoints;
}

// Time of observation i, or infinity when none is left.
SimTime observation_time(const RunControl& control, std::size_t i) {
  return i < control.observe_at.size() ? control.observe_at[i] : SimTime::infinity();
}

}  // namespace

EngineStats run_sequential(Simulation& sim, SimTime end, Progress* progress,
                           const RunControl& control) {
  EngineStats stats;
  const Clock::time_point start = Clock::now();
  SimTime next_checkpoint = next_multiple_after(sim.next_time(), control.checkpoint_every);
  std::size_t observation = 0;  // the next one to make
  while (sim.next_work_time() < end && !sim.stop_requested()) {
    const SimTime target =
        std::min({end, next_checkpoint, observation_time(control, observation)});
    stats.events += sim.run_until(target, kProgressChunk);
    if (progress && progress->due()) {
      progress->report(sim.now(), stats.events, sim.work_done(), sim.work_in_progress());
    }
    if (sim.stop_requested()) break;
    bool checkpointed = false;
    const bool at_target = sim.next_time() >= target;
    // A checkpoint after the last event would only record a finished run.
    if (at_target && target == next_checkpoint && sim.next_work_time() < end) {
      take_checkpoint(control, target, stats);
      checkpointed = true;
      next_checkpoint = next_multiple_after(sim.next_time(), control.checkpoint_every);
    }
    const unsigned requests = control.poll ? control.poll() : 0;
    if (requests != 0 && sim.next_work_time() < end) {
      // A chunk may end inside an instant: finish it, so that the state is at a boundary.
      SimTime boundary = target;
      if (!at_target) {
        boundary = sim.now() + SimTime::ps(1);
        stats.events += sim.run_until(boundary, UINT64_MAX);
        checkpointed = false;
      }
      if (!checkpointed) take_checkpoint(control, boundary, stats);
      if (requests & RunControl::kStop) {
        stats.interrupted = true;
        stats.reached = boundary;
        break;
      }
    }
    // An observation after the last event is never made: the run ended before its time (as
    // on several ranks, where windows stop when the work does).
    if (at_target && observation < control.observe_at.size() &&
        target == control.observe_at[observation] && !sim.next_work_time().is_infinite() &&
        control.observe(observation++)) {
      stats.ended_early = true;
      stats.reached = target;
      break;
    }
  }
  if (!stats.interrupted && !stats.ended_early) {
    stats.drained = sim.next_work_time().is_infinite() && !sim.stop_requested();
    stats.reached = stats.drained ? sim.last_work_time() : end;
  }
  stats.run_s = seconds_since(start);
  if (progress) progress->finish();
  return stats;
}

EngineStats run_windows(Simulation& sim, MPI_Comm comm, SimTime lookahead, SimTime end,
                        Progress* progress, const RunControl& control) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  EngineStats stats;
  Exchange exchange(comm, sim.neighbours(), control.shared_sync);
  WindowReduce reduce(comm, control.shared_sync);
  stats.shared_sync = exchange.shared() && reduce.shared();
  std::vector<Event> received;
  const Clock::time_point start = Clock::now();
  bool first_window = true;
  SimTime next_checkpoint;
  std::size_t observation = 0;  // the next one to make

  // Two orders of a window's synchronisation, chosen alike on every rank from the last window:
  // - dense (some rank sent events last window): exchange the outboxes, then one reduction finds
  //   the next window's start over every queue;
  // - sparse (nobody did): one reduction also asks whether any outbox holds events. If none
  //   does, nothing is in transit and the queues' minimum is the start: no exchange at all.
  //   Otherwise exchange, then reduce the start again.
  // Runs whose windows rarely cross ranks (a short-link network between collectives) then pay
  // one all-reduce per window instead of a neighbour exchange and an all-reduce.
  bool dense = true;  // the setup may have filled outboxes
  const auto has_outgoing = [&sim] {
    for (const std::vector<Event>& box : sim.outboxes()) {
      if (!box.empty()) return true;
    }
    return false;
  };
  for (;;) {
    uint64_t sent = 0;
    const auto exchange_events = [&] {
      const Clock::time_point t = Clock::now();
      sent = exchange.exchange(sim.outboxes(), received);
      ++stats.exchanges;
      stats.remote_sent += sent;
      stats.remote_received += received.size();
      sim.receive(received);
      stats.exchange_s += seconds_since(t);
    };
    // Dense: the previous window's (or setup's) events for other ranks must be queued there
    // before anyone computes where the next window starts.
    if (dense) exchange_events();

    // One reduction finds the next window's start, carries rank 0's decision to report
    // progress (so all ranks agree on when to take the extra event-count reduction), tells
    // every rank whether a component anywhere asked to stop, spreads checkpoint and stop
    // requests (signals, wall-clock limits) from any rank to all, and says whether events
    // crossed (dense) or wait to cross (sparse). Flags are 0 for "yes".
    Clock::time_point t = Clock::now();
    const bool want_report = rank == 0 && progress && progress->due();
    const unsigned requests = control.poll ? control.poll() : 0;
    const bool crossing = dense ? sent > 0 : has_outgoing();
    int64_t local[6] = {
        sim.next_work_time().count_ps(),        want_report ? 0 : 1,
        sim.stop_requested() ? 0 : 1,           (requests & RunControl::kCheckpoint) ? 0 : 1,
        (requests & RunControl::kStop) ? 0 : 1, crossing ? 0 : 1};
    int64_t global[6];
    reduce.min(local, global, 6);
    stats.reduce_s += seconds_since(t);
    if (!dense && global[5] == 0) {
      exchange_events();
      t = Clock::now();
      const int64_t next = sim.next_work_time().count_ps();
      reduce.min(&next, &global[0], 1);
      stats.reduce_s += seconds_since(t);
    }
    dense = global[5] == 0;
    if (global[1] == 0) {
      t = Clock::now();
      const uint64_t mine[3] = {stats.events, sim.work_done(), sim.work_in_progress()};
      uint64_t total[3] = {0, 0, 0};
      MPI_Reduce(mine, total, 3, MPI_UINT64_T, MPI_SUM, 0, comm);
      if (rank == 0) progress->report(SimTime::ps(global[0]), total[0], total[1], total[2]);
      stats.reduce_s += seconds_since(t);
    }

    const SimTime window_start = SimTime::ps(global[0]);
    if (global[2] == 0) break;       // run_simulation reports why
    if (window_start >= end) break;  // also when no events remain anywhere (infinity)
    if (first_window) {
      next_checkpoint = next_multiple_after(window_start, control.checkpoint_every);
      first_window = false;
    }
    // Windows end on scheduled checkpoint times, so nothing at or after one has been handled
    // when the next window would start past it.
    bool checkpointed = false;
    if (window_start >= next_checkpoint) {
      take_checkpoint(control, next_checkpoint, stats);
      checkpointed = true;
      next_checkpoint = next_multiple_after(window_start, control.checkpoint_every);
    }
    if (global[3] == 0 || global[4] == 0) {
      if (!checkpointed) take_checkpoint(control, window_start, stats);
      if (global[4] == 0) {
        stats.interrupted = true;
        stats.reached = window_start;
        break;
      }
    }
    // Observations passed in an idle stretch all see the state at its start, as they would
    // one by one.
    for (; observation < control.observe_at.size() && control.observe_at[observation] <= window_start;
         ++observation) {
      if (!control.observe(observation)) continue;
      stats.ended_early = true;
      stats.reached = observation_time(control, observation);
      break;
    }
    if (stats.ended_early) break;
    SimTime window_end = lookahead >= end - window_start ? end : window_start + lookahead;
    window_end = std::min({window_end, next_checkpoint, observation_time(control, observation)});
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
  if (!stats.interrupted && !stats.ended_early) {
    stats.drained = global_next == SimTime::infinity().count_ps();
    stats.reached = stats.drained ? SimTime::ps(global_last) : end;
  }
  stats.run_s = seconds_since(start);
  if (progress && rank == 0) progress->finish();
  return stats;
}

}  // namespace hx
