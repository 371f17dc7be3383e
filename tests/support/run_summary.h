// Test helpers for whole runs: run a config through the engine (no output file) on
// MPI_COMM_WORLD and read its /summary values.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <string>
#include <variant>
#include <vector>

#include "core/params.h"
#include "core/registry.h"
#include "engine/run.h"

namespace hx::testing {

inline std::vector<SummaryValue> run_summary(const Registry& registry, const Config& config) {
  const ResolvedConfig resolved = resolve_config(registry, config);
  RunOptions options;  // no output file
  options.progress = ProgressMode::kOff;
  return run_simulation(MPI_COMM_WORLD, resolved, options).summary;
}

/// A numeric summary value as a double; a test failure (and NaN) when it is missing or text.
inline double summary_value(const std::vector<SummaryValue>& summary, const std::string& name) {
  for (const SummaryValue& v : summary) {
    if (v.name != name) continue;
    if (const auto* d = std::get_if<double>(&v.value)) return *d;
    if (const auto* u = std::get_if<uint64_t>(&v.value)) return static_cast<double>(*u);
    if (const auto* i = std::get_if<int64_t>(&v.value)) return static_cast<double>(*i);
    ADD_FAILURE() << "summary value " << name << " is text";
    return std::nan("");
  }
  ADD_FAILURE() << "no summary value " << name;
  return std::nan("");
}

/// An unsigned count of the summary (packets, messages); a test failure (and 0) when it is
/// missing or of another type.
inline uint64_t summary_count(const std::vector<SummaryValue>& summary, const std::string& name) {
  for (const SummaryValue& v : summary) {
    if (v.name != name) continue;
    if (const auto* u = std::get_if<uint64_t>(&v.value)) return *u;
    ADD_FAILURE() << "summary value " << name << " is not an unsigned count";
    return 0;
  }
  ADD_FAILURE() << "no summary value " << name;
  return 0;
}

}  // namespace hx::testing
