// The sweep's search over offered loads and its saturation test.
#include "engine/sweep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <variant>

#include "core/error.h"
#include "engine/run.h"

namespace hx {
namespace {

double value_of(const std::vector<SummaryValue>& summary, const std::string& name) {
  for (const SummaryValue& v : summary) {
    if (v.name != name) continue;
    return std::visit(
        [](const auto& x) -> double {
          if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::string>) {
            return 0.0;
          } else {
            return static_cast<double>(x);
          }
        },
        v.value);
  }
  throw std::logic_error("the model's sweep metrics name '" + name + "', which it does not report");
}

std::string load_text(double load) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", load);
  return buf;
}

}  // namespace

std::string saturation_criterion(const SweepOptions& o, const SweepMetrics& m) {
  return "a load is saturated when " + m.accepted + " < (1 - " + load_text(o.margin) + ") * " +
         m.offered + ", or " + m.latency_mean + " > " + load_text(o.latency_factor) +
         " x that of the first (lowest) load, or no measured packet arrived, or the run was "
         "unstable (" + m.unstable + " = 1: its source queues grew through the window)";
}

SweepResult run_sweep(MPI_Comm comm, const Registry& registry, const Config& base,
                      const SweepMetrics& m, const SweepOptions& options,
                      const std::function<void(const SweepPoint&)>& on_point) {
  if (!(options.start > 0) || !(options.step > 0) || options.max < options.start) {
    throw InputError("sweep loads: expected start > 0, step > 0 and max >= start");
  }
  SweepResult result;
  double reference_latency = 0;

  auto run_at = [&](double load) {
    Config config = base;
    config.set(m.load, load_text(load), "the sweep");
    // An unstable point is saturated whatever else it shows: no need to run it to the end.
    config.set(m.stop_unstable, "true", "the sweep");
    const ResolvedConfig resolved = resolve_config(registry, config);
    RunOptions run;
    run.progress = ProgressMode::kOff;
    run.check_memory = options.check_memory;
    run.watch_memory = false;  // a point has no output to keep; an unstable one stops early
    const auto start = std::chrono::steady_clock::now();
    const RunResult r = run_simulation(comm, resolved, run);
    SweepPoint p;
    p.target = load;
    p.offered = value_of(r.summary, m.offered);
    p.accepted = value_of(r.summary, m.accepted);
    p.latency_mean_ps = value_of(r.summary, m.latency_mean);
    p.network_latency_mean_ps = value_of(r.summary, m.network_latency_mean);
    p.hops_mean = value_of(r.summary, m.hops_mean);
    p.latency_p50_ps = static_cast<int64_t>(value_of(r.summary, m.latency_p50));
    p.latency_p99_ps = static_cast<int64_t>(value_of(r.summary, m.latency_p99));
    p.unstable = value_of(r.summary, m.unstable) != 0;
    p.events = r.total_events;
    p.reached = r.reached;
    p.ended_early = r.ended_early;
    p.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (result.points.empty()) reference_latency = p.latency_mean_ps;
    p.saturated = p.unstable || std::isnan(p.latency_mean_ps) ||
                  p.accepted < (1.0 - options.margin) * p.offered ||
                  p.latency_mean_ps > options.latency_factor * reference_latency;
    result.points.push_back(p);
    result.saturation_throughput = std::max(result.saturation_throughput, p.accepted);
    on_point(p);
    return p.saturated;
  };

  // Steps of `step` (counted, not accumulated, so loads stay round numbers).
  double good = 0, bad = -1;
  for (int i = 0;; ++i) {
    const double load = options.start + options.step * i;
    if (load > options.max + 1e-12) break;
    if (run_at(load)) {
      bad = load;
      break;
    }
    good = load;
  }
  if (bad < 0) {
    result.reached_max = true;
  } else if (good > 0) {
    for (int i = 0; i < options.refine; ++i) {
      const double mid = (good + bad) / 2;
      if (run_at(mid)) {
        bad = mid;
      } else {
        good = mid;
      }
    }
  }
  result.saturation_load = good;
  std::sort(result.points.begin(), result.points.end(),
            [](const SweepPoint& a, const SweepPoint& b) { return a.target < b.target; });
  return result;
}

}  // namespace hx
