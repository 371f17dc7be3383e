// Algorithm 2 as printed (Appendix A.5), with its line 12-13 (split the isolated faults into r'
// rows and c' columns) solved in closed form. It is exact, not a heuristic: a cover must take,
// for each fault, its row or its column, and Algorithm 2 tries every such choice for the
// non-isolated faults C; an isolated fault shares its row and column with no other fault, so
// whatever C takes never covers it and it always costs one more row or column. What makes the
// general problem hard (NP-hard, [48]) is only the 2^|C| enumeration.
#include "models/topologies/railx/availability.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "core/rng.h"

namespace hx::net::railx {
namespace {

using Faults = std::vector<std::pair<uint32_t, uint32_t>>;

// max over r' + c' = isolated of (rows - r') (cols - c'), a side below zero keeping nothing.
int64_t best_split(int64_t rows, int64_t cols, int64_t isolated) {
  const int64_t lo = std::max<int64_t>(0, isolated - cols), hi = std::min(isolated, rows);
  if (lo > hi) return 0;
  const auto area = [&](int64_t r) { return (rows - r) * (cols - isolated + r); };
  // A parabola in r' symmetric about (rows - cols + isolated) / 2, a multiple of 1/2: rounding
  // it down (then into [lo, hi]) is as good as any integer.
  return area(std::clamp((rows - cols + isolated) / 2, lo, hi));
}

AvailabilityPoint summarise(uint32_t n, const std::vector<Faults>& samples) {
  AvailabilityPoint p;
  for (const Faults& f : samples) {
    p.mean_faults += static_cast<double>(f.size());
    p.mean_size += static_cast<double>(max_single_allocation(n, f));
    p.worst_size += static_cast<double>(worst_single_allocation(n, f.size()));
  }
  const auto count = static_cast<double>(samples.size());
  p.mean_faults /= count;
  p.mean_size /= count;
  p.worst_size /= count;
  p.availability = p.mean_size / (static_cast<double>(n) * n);
  return p;
}

}  // namespace

uint64_t worst_single_allocation(uint32_t n, uint64_t faults) {
  const uint64_t rows = (faults + 1) / 2, cols = faults / 2;
  return rows >= n ? 0 : (n - rows) * (n - cols);
}

uint64_t max_single_allocation(uint32_t n, const Faults& faulted) {
  Faults faults = faulted;
  std::sort(faults.begin(), faults.end());
  faults.erase(std::unique(faults.begin(), faults.end()), faults.end());
  std::vector<uint32_t> in_row(n), in_col(n);
  for (const auto& [r, c] : faults) {
    if (r >= n || c >= n) {
      throw InputError("railx availability: faulted node (" + std::to_string(r) + ", " +
                       std::to_string(c) + ") is off the " + std::to_string(n) + " x " +
                       std::to_string(n) + " grid");
    }
    ++in_row[r];
    ++in_col[c];
  }
  Faults shared;  // C: non-isolated
  for (const auto& f : faults) {
    if (in_row[f.first] > 1 || in_col[f.second] > 1) shared.push_back(f);
  }
  const auto isolated = static_cast<int64_t>(faults.size() - shared.size());
  if (shared.empty()) return worst_single_allocation(n, faults.size());  // lines 3-6
  if (shared.size() > kMaxNonIsolatedFaults) {
    throw InputError("railx availability: " + std::to_string(shared.size()) +
                     " faulted nodes share a row or column with another; Algorithm 2 "
                     "enumerates 2^|C| choices and stops at " +
                     std::to_string(kMaxNonIsolatedFaults));
  }
  // Lines 7-15. A row (column) is disabled once however many faults pick it: mark it with the
  // choice's number.
  std::vector<uint64_t> row_mark(n, ~uint64_t{0}), col_mark(n, ~uint64_t{0});
  int64_t best = 0;
  for (uint64_t choice = 0; choice < (uint64_t{1} << shared.size()); ++choice) {
    int64_t rows = 0, cols = 0;
    for (size_t i = 0; i < shared.size(); ++i) {
      if (choice >> i & 1) {
        cols += col_mark[shared[i].second] != choice;
        col_mark[shared[i].second] = choice;
      } else {
        rows += row_mark[shared[i].first] != choice;
        row_mark[shared[i].first] = choice;
      }
    }
    best = std::max(best, best_split(n - rows, n - cols, isolated));
  }
  return static_cast<uint64_t>(best);
}

std::vector<AvailabilityPoint> availability_curve(uint32_t n, const std::vector<double>& rates,
                                                  uint32_t samples, uint64_t seed) {
  std::vector<AvailabilityPoint> curve;
  for (const double rate : rates) {
    std::vector<Faults> sets(samples);
    for (uint32_t s = 0; s < samples; ++s) {
      Rng rng(seed, s, static_cast<uint64_t>(RngPurpose::kFaults));
      for (uint32_t r = 0; r < n; ++r) {
        for (uint32_t c = 0; c < n; ++c) {
          if (rng.bernoulli(rate)) sets[s].emplace_back(r, c);
        }
      }
    }
    curve.push_back(summarise(n, sets));
    curve.back().failure_rate = rate;
  }
  return curve;
}

AvailabilityPoint allocation_with_faults(uint32_t n, uint64_t faults, uint32_t samples,
                                         uint64_t seed) {
  const uint64_t nodes = uint64_t{n} * n;
  if (faults > nodes) {
    throw InputError("railx availability: " + std::to_string(faults) + " faults on " +
                     std::to_string(nodes) + " nodes");
  }
  std::vector<Faults> sets(samples);
  std::vector<uint64_t> order(nodes);
  for (uint32_t s = 0; s < samples; ++s) {
    Rng rng(seed, s, static_cast<uint64_t>(RngPurpose::kFaults));
    for (uint64_t i = 0; i < nodes; ++i) order[i] = i;
    for (uint64_t i = 0; i < faults; ++i) {  // the first `faults` of a Fisher-Yates shuffle
      std::swap(order[i], order[i + rng.below(nodes - i)]);
      sets[s].emplace_back(static_cast<uint32_t>(order[i] / n),
                           static_cast<uint32_t>(order[i] % n));
    }
  }
  AvailabilityPoint p = summarise(n, sets);
  p.failure_rate = static_cast<double>(faults) / static_cast<double>(nodes);
  return p;
}

}  // namespace hx::net::railx
