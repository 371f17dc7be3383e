// The sequential and the window-synchronous executors.
#include "engine/executor.h"

#include <algorithm>
#include <chrono>
#include <span>
#include <vector>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "engine/exchange.h"
#include "engine/window_reduce.h"

namespace hx {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The window executor times each window's meeting in parts, four clock reads per window, and
// short-link runs have millions of windows: it reads the CPU's time-stamp counter where there is
// one (x86, invariant on the CPUs hxsim runs on: 7 ns a read against 17 ns for steady_clock on
// the development machine), and converts the ticks at the end by their rate over the whole run.
class WindowTimer {
 public:
  static uint64_t ticks() {
#if defined(__x86_64__)
    return __rdtsc();
#else
    return static_cast<uint64_t>(Clock::now().time_since_epoch().count());
#endif
  }
  // Ticks from `from` to `to`; a process moved to another core may see `to` a little earlier.
  static uint64_t between(uint64_t from, uint64_t to) { return to > from ? to - from : 0; }
  static uint64_t since(uint64_t from) { return between(from, ticks()); }
  // Seconds per tick over the run so far.
  double seconds_per_tick() const {
    const uint64_t elapsed = since(first_tick_);
    return elapsed == 0 ? 0.0 : seconds_since(first_) / static_cast<double>(elapsed);
  }

 private:
  Clock::time_point first_ = Clock::now();
  uint64_t first_tick_ = ticks();
};

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

// Chunks do not change results: the run resumes where the last one stopped. With a fixed 2^18
// events, a flow-level run of synthetic traffic, whose solves take milliseconds, printed no
// progress and ignored a SIGTERM for 24 minutes.
uint64_t next_chunk(uint64_t chunk, uint64_t handled, double seconds) {
  if (handled < chunk) return chunk;
  if (seconds < kChunkSeconds / 2) return std::min(chunk * 2, kMaxChunk);
  if (seconds > kChunkSeconds * 2) {
    const auto scaled = static_cast<uint64_t>(static_cast<double>(chunk) * kChunkSeconds / seconds);
    return std::max<uint64_t>(scaled, 1);
  }
  return chunk;
}

EngineStats run_sequential(Simulation& sim, SimTime end, Progress* progress,
                           const RunControl& control) {
  EngineStats stats;
  const Clock::time_point start = Clock::now();
  SimTime next_checkpoint = next_multiple_after(sim.next_time(), control.checkpoint_every);
  std::size_t observation = 0;  // the next one to make
  uint64_t chunk = kFirstChunk;
  // Observations due by the end are made even after the last work before it, as run_windows
  // makes them (a time series with bins shorter than a cycle has several in that stretch).
  const auto going = [&] {
    const SimTime work = sim.next_work_time();
    return work < end || (!work.is_infinite() && observation_time(control, observation) <= end);
  };
  while (going() && !sim.stop_requested()) {
    const SimTime target =
        std::min({end, next_checkpoint, observation_time(control, observation)});
    const Clock::time_point chunk_start = Clock::now();
    const uint64_t handled = sim.run_until(target, chunk);
    stats.events += handled;
    chunk = next_chunk(chunk, handled, seconds_since(chunk_start));
    if (progress && progress->due()) {
      progress->report(sim.now(), stats.events, sim.work_done(), sim.work_in_progress());
    }
    if (sim.stop_requested()) break;
    bool checkpointed = false;
    const bool at_target = sim.next_time() >= target;
    if (at_target && target == next_checkpoint) {
      // With no work left before the end (an observation still due), it would only record a
      // finished run. The next one is due after the next event either way, as run_windows has
      // it: left at this time, the run would come back to it for ever.
      if (sim.next_work_time() < end) {
        take_checkpoint(control, target, stats);
        checkpointed = true;
      }
      next_checkpoint = next_multiple_after(sim.next_time(), control.checkpoint_every);
    }
    // Taken while observations remain too, as run_windows does: 10^7 bins of a time series
    // take a while, and a stop must not wait for them.
    const unsigned requests = control.poll ? control.poll() : 0;
    if (requests != 0) {
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
  WindowReduce reduce(comm, control.shared_sync);
  // Mailboxes need the reduction in shared memory to see each other's posts.
  Exchange exchange(comm, sim.neighbours(), reduce.shared());
  stats.shared_sync = exchange.shared() && reduce.shared();
  const Clock::time_point start = Clock::now();
  const WindowTimer timer;
  uint64_t exchange_ticks = 0, reduce_ticks = 0;
  bool first_window = true;
  uint64_t chunk = kFirstChunk;  // events a window runs at most (next_chunk)
  SimTime next_checkpoint;
  std::size_t observation = 0;  // the next one to make

  // One meeting per window. Each rank posts its outboxes (in shared memory: into mailboxes),
  // then the ranks gather what each has next: its queue's earliest event and the earliest it
  // sends (with the neighbour it goes to, and the earliest to any other). From that every rank
  // knows where the next window starts (the earliest anywhere, in transit included) and whether
  // anyone sent; if anyone did, every rank collects what was sent to it (no wait in shared
  // memory: the meeting has every post visible).
  //
  // A rank's window then runs from there to the earliest event any other rank can have (its
  // own queue left out), or the start plus the lookahead if that is later: nothing another
  // rank sends can arrive before either. It ends earlier at the first event it sends to
  // another rank, so that ranks working on the same times work side by side. When the others
  // wait far ahead, a rank thus runs a chain of its own events (a flow fabric ending flows,
  // starting the next) without meeting them.
  // kNext: the earliest foreground event (or any event while a component holds the run), which
  // says whether the run goes on; kNextAny: the earliest of all, background timers included,
  // since handling one may send.
  enum : int { kNext, kNextAny, kSentAt, kSentTo, kSentElsewhere, kFlags, kValues };
  // kFlags bits, ORed over the ranks: rank 0 wants the progress reduction (so all ranks take it
  // together), a component asked to stop, a checkpoint or stop request (signals, wall-clock
  // limits) from any rank.
  constexpr int64_t kReport = 1, kComponentStop = 2, kCheckpointRequest = 4, kStopRequest = 8;
  const int ranks = reduce.size();
  std::vector<int64_t> all(static_cast<std::size_t>(ranks) * kValues);
  const std::vector<int>& neighbours = sim.neighbours();
  for (;;) {
    const uint64_t t = WindowTimer::ticks();
    SimTime sent_at = SimTime::infinity(), sent_elsewhere = SimTime::infinity();
    int sent_to = -1;
    uint64_t sent = 0;
    for (std::size_t i = 0; i < neighbours.size(); ++i) {
      const std::vector<Event>& box = sim.outboxes()[i];
      if (box.empty()) continue;
      sent += box.size();
      SimTime first = SimTime::infinity();
      for (const Event& e : box) first = std::min(first, e.key.time);
      if (first < sent_at) {
        sent_elsewhere = std::min(sent_elsewhere, sent_at);
        sent_at = first;
        sent_to = neighbours[i];
      } else {
        sent_elsewhere = std::min(sent_elsewhere, first);
      }
    }
    exchange.post(sim.outboxes());
    sim.clear_earliest_sent();
    const uint64_t posted = WindowTimer::ticks();
    exchange_ticks += WindowTimer::between(t, posted);
    const bool want_report = rank == 0 && progress && progress->due();
    const unsigned requests = control.poll ? control.poll() : 0;
    const int64_t local[kValues] = {
        sim.next_work_time().count_ps(),
        sim.next_time().count_ps(),
        sent_at.count_ps(),
        sent_to,
        sent_elsewhere.count_ps(),
        (want_report ? kReport : 0) | (sim.stop_requested() ? kComponentStop : 0) |
            ((requests & RunControl::kCheckpoint) ? kCheckpointRequest : 0) |
            ((requests & RunControl::kStop) ? kStopRequest : 0)};
    reduce.gather(local, all.data(), kValues);
    const uint64_t reduced = WindowTimer::ticks();
    reduce_ticks += WindowTimer::between(posted, reduced);
    int64_t work = INT64_MAX;    // the earliest event anywhere that keeps the run going
    int64_t first = INT64_MAX;   // the next window's start: the earliest event anywhere
    int64_t others = INT64_MAX;  // the earliest event another rank can have
    int64_t flags = 0;
    bool anyone_sent = false;
    for (int r = 0; r < ranks; ++r) {
      const int64_t* v = &all[static_cast<std::size_t>(r) * kValues];
      work = std::min({work, v[kNext], v[kSentAt]});
      first = std::min({first, v[kNextAny], v[kSentAt]});
      flags |= v[kFlags];
      anyone_sent = anyone_sent || v[kSentAt] != INT64_MAX;
      if (r == rank) continue;
      // What r sends to us is in our queue once collected; what it sends elsewhere is not.
      others = std::min({others, v[kNextAny], v[kSentTo] == rank ? v[kSentElsewhere] : v[kSentAt]});
    }
    others = std::min(others, sent_at.count_ps());
    stats.remote_sent += sent;
    if (anyone_sent) {
      exchange.collect(sim.outboxes(), [&](std::span<const Event> batch) {
        stats.remote_received += batch.size();
        sim.receive(batch);
      });
      ++stats.exchanges;
      exchange_ticks += WindowTimer::since(reduced);
    }
    if (flags & kReport) {
      const Clock::time_point reporting = Clock::now();
      const uint64_t mine[3] = {stats.events, sim.work_done(), sim.work_in_progress()};
      uint64_t total[3] = {0, 0, 0};
      MPI_Reduce(mine, total, 3, MPI_UINT64_T, MPI_SUM, 0, comm);
      if (rank == 0) progress->report(SimTime::ps(work), total[0], total[1], total[2]);
      stats.reduce_s += seconds_since(reporting);
    }

    const SimTime window_start = SimTime::ps(first);
    if (flags & kComponentStop) break;  // run_simulation reports why
    // Also when no work remains anywhere (infinity). An observation due by the end is made
    // first, as the sequential executor makes it, once the windows have reached its time.
    if (SimTime::ps(work) >= end &&
        (work == INT64_MAX || observation_time(control, observation) > end)) {
      break;
    }
    if (first_window) {
      next_checkpoint = next_multiple_after(window_start, control.checkpoint_every);
      first_window = false;
    }
    // Observations passed in an idle stretch all see the state at its start, as they would one
    // by one; those before a checkpoint's time are made before it, since a run restarted from
    // it makes only those from that time on. True when one ends the run.
    // None after the end: the run stops there (the sequential executor never reaches one).
    const auto observe_up_to = [&](SimTime limit, bool at_limit_too) {
      if (limit > end) limit = end, at_limit_too = true;
      for (; observation < control.observe_at.size() &&
             (control.observe_at[observation] < limit ||
              (at_limit_too && control.observe_at[observation] == limit));
           ++observation) {
        if (!control.observe(observation)) continue;
        stats.ended_early = true;
        stats.reached = observation_time(control, observation);
        return true;
      }
      return false;
    };
    // Windows end on scheduled checkpoint times, so nothing at or after one has been handled
    // when the next window would start past it.
    bool checkpointed = false;
    if (window_start >= next_checkpoint) {
      // With no work left before the end (an observation still due), it would only record a
      // finished run.
      if (SimTime::ps(work) < end) {
        if (observe_up_to(next_checkpoint, false)) break;
        take_checkpoint(control, next_checkpoint, stats);
        checkpointed = true;
      }
      next_checkpoint = next_multiple_after(window_start, control.checkpoint_every);
    }
    if (flags & (kCheckpointRequest | kStopRequest)) {
      if (!checkpointed) {
        if (observe_up_to(window_start, false)) break;
        take_checkpoint(control, window_start, stats);
      }
      if (flags & kStopRequest) {
        stats.interrupted = true;
        stats.reached = window_start;
        break;
      }
    }
    if (observe_up_to(window_start, true)) break;
    // Up to the others' earliest event, never short of the common window [start, start +
    // lookahead): a rank that ran up to others + lookahead would leave them behind by as much,
    // and the ranks would then take turns instead of working side by side.
    const SimTime common = lookahead >= end - window_start ? end : window_start + lookahead;
    SimTime window_end = std::max(common, std::min(SimTime::ps(others), end));
    window_end = std::min({window_end, next_checkpoint, observation_time(control, observation)});
    stats.events += sim.run_until(window_end, chunk);
    // A rank whose chain the others wait on can have the rest of the run in one window (the
    // others idle); it comes to the next meeting after a chunk instead, so that signals are
    // heard and progress reported, as the sequential executor does. A shorter window is always
    // safe. It ends at the end of its instant, so that a checkpoint there sees a boundary.
    const SimTime reached = std::min(window_end, sim.earliest_sent());
    if (!sim.stop_requested() && sim.next_time() < reached) {
      stats.events += sim.run_until(std::min(reached, sim.now() + SimTime::ps(1)), UINT64_MAX);
      chunk =
          next_chunk(chunk, chunk,
                     static_cast<double>(WindowTimer::since(reduced)) * timer.seconds_per_tick());
    }
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
  stats.exchange_s += static_cast<double>(exchange_ticks) * timer.seconds_per_tick();
  stats.reduce_s += static_cast<double>(reduce_ticks) * timer.seconds_per_tick();
  if (progress && rank == 0) progress->finish();
  return stats;
}

}  // namespace hx
