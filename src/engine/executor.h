// Executors run a rank's Simulation to the end time (DESIGN §4): sequentially on one rank, or
// window-synchronously over MPI. In a window [t, t + lookahead) no event from another rank can
// arrive, because every cross-rank link is at least `lookahead` long; between windows the ranks
// swap their cross-rank events and agree, with one reduction, where the next window starts, so
// idle stretches of simulated time cost nothing.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "core/units.h"
#include "engine/progress.h"
#include "engine/simulation.h"

namespace hx {

/// Per-rank engine statistics (written to /engine).
struct EngineStats {
  uint64_t events = 0;
  uint64_t remote_sent = 0;
  uint64_t remote_received = 0;
  uint64_t windows = 0;
  uint64_t exchanges = 0;   // windows that exchanged events (the others: one all-reduce only)
  bool shared_sync = false;  // ranks met in shared memory (RunControl::shared_sync)
  double mpi_init_s = 0;    // MPI_Init (run and bench; run.h, RunOptions)
  double config_s = 0;      // reading and resolving the config
  double build_s = 0;       // constructing and wiring components
  double start_s = 0;       // from the process's start to the executor's: the first event
  double run_s = 0;         // the executor, all of it
  double exchange_s = 0;    // packing, sending, receiving and unpacking events
  double reduce_s = 0;      // the per-window global-minimum reductions (includes waiting)
  double checkpoint_s = 0;  // writing checkpoints
  uint64_t checkpoints = 0;
  uint64_t work = 0;         // Model::work_unit units done by this rank's components in this run
  uint64_t peak_rss = 0;     // bytes: the process's resident peak at the end of the run
  SimTime reached;           // simulated time the run got to (same on every rank)
  bool drained = false;      // it ended because no foreground events remained anywhere
  bool interrupted = false;  // a stop request ended it before `end` (after a checkpoint)
  bool ended_early = false;  // the model ended it at an observation (Model::end_early)
};

/// What may pause a run at a window boundary besides the end: checkpoints on a simulated-time
/// schedule, requests from outside the model (signals, wall-clock limits) and the model's
/// observations. At a boundary every event before it has been handled and none after, so a
/// checkpoint or an observation there is exact. At one boundary the checkpoint comes first, so
/// a run restarted from it makes that boundary's observation again.
struct RunControl {
  enum Request : unsigned { kCheckpoint = 1, kStop = 2 };
  SimTime checkpoint_every = SimTime::infinity();  // simulated time between checkpoints
  /// When every rank shares one host, exchange events and reduce in shared memory rather than
  /// through MPI (exchange.h, window_reduce.h): the same results, less latency per window.
  bool shared_sync = true;
  /// This rank's pending requests (kCheckpoint | kStop), taken when asked. Empty: none. With
  /// several ranks, a request on any rank applies to all at the next boundary.
  std::function<unsigned()> poll;
  /// Writes a checkpoint at boundary `at` (collective); `events` is how many this rank has
  /// handled in this executor so far. Empty: stop without one.
  std::function<void(SimTime at, uint64_t events)> checkpoint;
  /// Observation times, ascending (Model::observation_times from where the run starts).
  std::vector<SimTime> observe_at;
  /// Makes observation i (collective); true ends the run there.
  std::function<bool(std::size_t i)> observe;
};

/// The sequential executor handles events in chunks, and between chunks reports progress and
/// looks for stop and checkpoint requests (signals, wall-clock limits). A chunk's size follows
/// the wall time the last one took, aiming at kChunkSeconds whatever an event costs: a packet
/// hop takes a fraction of a microsecond, a flow-level solve of thousands of flows milliseconds.
constexpr double kChunkSeconds = 0.1;
constexpr uint64_t kFirstChunk = 1 << 10, kMaxChunk = 1 << 20;
/// The next chunk's size after one of `chunk` events handled `handled` in `seconds` (fewer
/// than `chunk`: it reached its target time first, which says nothing of the size). At least 1.
uint64_t next_chunk(uint64_t chunk, uint64_t handled, double seconds);

/// Runs to `end` on one rank; `progress` may be null.
EngineStats run_sequential(Simulation& sim, SimTime end, Progress* progress,
                           const RunControl& control = {});

/// Runs to `end` with all ranks of `comm`. `lookahead` is the global minimum latency of cut
/// links (> 0; infinity when nothing is cut). `progress` is used on rank 0 only; may be null.
EngineStats run_windows(Simulation& sim, MPI_Comm comm, SimTime lookahead, SimTime end,
                        Progress* progress, const RunControl& control = {});

}  // namespace hx
