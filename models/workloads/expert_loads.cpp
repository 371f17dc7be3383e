// Expert loads (expert_loads.h).
#include "models/workloads/expert_loads.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hx::wl {

std::vector<double> expert_shares(uint32_t experts, double imbalance, Rng& rng) {
  std::vector<double> w(experts, 1.0);
  if (experts >= 2 && imbalance > 0) {
    for (double& x : w) x = rng.uniform();
    const auto [lo, hi] = std::minmax_element(w.begin(), w.end());
    const double min = *lo, span = *hi - *lo;
    for (double& x : w) x = span > 0 ? 1 - imbalance * (1 - (x - min) / span) : 1;
  }
  const double sum = std::accumulate(w.begin(), w.end(), 0.0);
  for (double& x : w) x /= sum;
  return w;
}

std::vector<uint64_t> apportion(uint64_t total, std::span<const double> shares) {
  std::vector<uint64_t> out(shares.size());
  if (shares.empty()) return out;
  std::vector<std::size_t> order(shares.size());
  std::vector<double> rest(shares.size());
  uint64_t given = 0;
  for (std::size_t i = 0; i < shares.size(); ++i) {
    const double exact = static_cast<double>(total) * shares[i];
    out[i] = std::min<uint64_t>(static_cast<uint64_t>(std::floor(exact)), total - given);
    rest[i] = exact - static_cast<double>(out[i]);
    given += out[i];
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return rest[a] > rest[b]; });
  for (std::size_t i = 0; given < total; i = (i + 1) % order.size(), ++given) ++out[order[i]];
  return out;
}

}  // namespace hx::wl
