// Single-job allocation on a RailX with faulted nodes (§6.6, Appendix A.5 Algorithm 2, Fig. 17).
// A node sits on one X-OCS group (its row) and one Y-OCS group (its column) of the n x n node
// grid (n = R/2), so a job using the whole system must drop every row or every column holding a
// faulted node; it keeps the (n - rows) x (n - columns) nodes left.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace hx::net::railx {

/// Algorithm 2 enumerates 2^|C| choices for the faults sharing a row or column with another.
inline constexpr size_t kMaxNonIsolatedFaults = 24;

/// Nodes of the largest single allocation (Algorithm 2). `faulted` holds (row, column) pairs
/// below n; repeats count once. InputError when a pair is off the grid or more than
/// kMaxNonIsolatedFaults faults are non-isolated.
uint64_t max_single_allocation(uint32_t n,
                               const std::vector<std::pair<uint32_t, uint32_t>>& faulted);

/// §6.6's worst case: `faults` faults in distinct rows and columns each cost a row or a column,
/// split evenly, (n - ceil(f/2)) (n - floor(f/2)): (n - a)^2 for 2a faults. Every placement of
/// `faults` faults keeps at least this many nodes.
uint64_t worst_single_allocation(uint32_t n, uint64_t faults);

struct AvailabilityPoint {
  double failure_rate = 0;
  double mean_faults = 0;
  double mean_size = 0;     // Algorithm 2's maximum, averaged over the samples
  double worst_size = 0;    // worst_single_allocation of each sample's faults, averaged
  double availability = 0;  // mean_size / n^2
};

/// Fig. 17(b): every node fails independently with the rate; `samples` fault sets per rate,
/// deterministic in `seed`. Sample s draws the same numbers at every rate, so a higher rate
/// faults a superset of the nodes.
std::vector<AvailabilityPoint> availability_curve(uint32_t n, const std::vector<double>& rates,
                                                  uint32_t samples = 100, uint64_t seed = 1);

/// Fig. 17(a): exactly `faults` distinct faulted nodes, uniform, per sample.
AvailabilityPoint allocation_with_faults(uint32_t n, uint64_t faults, uint32_t samples = 100,
                                         uint64_t seed = 1);

}  // namespace hx::net::railx
