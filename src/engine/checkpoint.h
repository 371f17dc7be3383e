// Checkpoint and restart of a whole run (DESIGN §3.9): every rank's components with their
// pending events, and the statistics gathered so far, at a window boundary. io/checkpoint.h
// has the files; this decides what goes in them.
#pragma once

#include <mpi.h>

#include <string>

#include "core/stats.h"
#include "core/units.h"
#include "engine/simulation.h"
#include "io/checkpoint.h"

namespace hx {

/// Where and for what config checkpoints are written.
struct CheckpointTarget {
  std::string dir;
  int keep = 2;             // newest checkpoints kept in `dir`
  std::string config_text;  // the resolved config, for restarts without a config file
  std::string config_hash;  // see restart_config_hash()
  std::string output;       // the run's output file
};

/// The hash a checkpoint is matched against: the resolved config without sim.end_time and
/// sim.partitioner, the two settings a restart may change.
std::string restart_config_hash(const std::string& resolved_config_text);

/// Collective: writes a checkpoint at `time`, a boundary every event before which has been
/// handled and none after. `events` counts the events this rank handled since the run began
/// (restarts included). Returns the checkpoint's path; OutputError on every rank on failure.
std::string save_checkpoint(MPI_Comm comm, const CheckpointTarget& target, const Simulation& sim,
                            const StatsRegistry& stats, SimTime time, uint64_t events);

/// Collective: restores `sim` (instead of its setup()) and `stats` from `reader`, on any
/// number of ranks. InputError on every rank if the checkpoint is damaged.
void restore_checkpoint(MPI_Comm comm, CheckpointReader& reader, Simulation& sim,
                        StatsRegistry& stats);

}  // namespace hx
