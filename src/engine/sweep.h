// Load sweeps to saturation (`hxsim sweep`): run a network config at increasing offered loads
// until it saturates, then bisect between the last unsaturated and the first saturated load.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

#include "core/params.h"
#include "core/registry.h"

namespace hx {

struct SweepOptions {
  double start = 0.05;   // first offered load, flits/cycle/endpoint
  double step = 0.05;    // increment until saturation
  double max = 1.0;      // give up (unsaturated) beyond this load
  int refine = 3;        // bisection steps between the last good and the first saturated load
  double margin = 0.05;  // saturated: accepted < (1 - margin) * offered ...
  double latency_factor = 10.0;  // ... or mean latency > factor * the first point's
  bool check_memory = true;      // refuse a point whose build the nodes have no memory for
};

struct SweepPoint {
  double target = 0;  // traffic.load as configured
  double offered = 0, accepted = 0;
  double latency_mean_ps = 0, network_latency_mean_ps = 0, hops_mean = 0;
  int64_t latency_p50_ps = 0, latency_p99_ps = 0;
  bool saturated = false;
  bool unstable = false;  // its source queues grew without bound (it counts as saturated)
  uint64_t events = 0;
  SimTime reached;           // simulated time the run got to
  bool ended_early = false;  // found unstable before its end (Model::end_early)
  double wall_s = 0;
};

struct SweepResult {
  std::vector<SweepPoint> points;    // ascending target load
  double saturation_load = 0;        // highest load judged unsaturated (0: none)
  double saturation_throughput = 0;  // highest accepted load seen at any point
  bool reached_max = false;          // no point saturated up to options.max
};

/// The criterion as text, for the output file and the docs.
std::string saturation_criterion(const SweepOptions& options, const SweepMetrics& metrics);

/// Collective. `base` is the config (with overrides applied), `metrics` its model's; `on_point` is
/// called on every rank after each run.
SweepResult run_sweep(MPI_Comm comm, const Registry& registry, const Config& base,
                      const SweepMetrics& metrics, const SweepOptions& options,
                      const std::function<void(const SweepPoint&)>& on_point);

}  // namespace hx
