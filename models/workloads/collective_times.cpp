// α–β model times of the collectives (docs/WORKLOADS.md, "α–β model"): RailX Eq. 6, 7, 8, 12,
// 13, InfiniteHBD App. G.2 and the rail-only paper's two-stage all-reduce (its Eq. 1).
#include <cmath>
#include <stdexcept>
#include <vector>

#include "models/workloads/collective_stages.h"
#include "models/workloads/collectives.h"

namespace hx::wl {
namespace {

using detail::global_stage;
using detail::is_grid;
using detail::size_of;

// α–β building blocks (α: latency of one step, B: bandwidth towards one neighbour, one way).
// Unidirectional ring RS or AG: like Eq. 6, but every byte crosses the one outgoing link, so
// V/B where the bidirectional ring has V/(2B).
double t_ring(double p, double v, double a, double b) { return (p - 1) * a + (p - 1) / p * v / b; }
// RailX Eq. 6: bidirectional ring RS or AG.
double t_bidir(double p, double v, double a, double b) {
  return (p - 1) * a + (p - 1) / p * v / (2 * b);
}
// RailX Eq. 12: direct RS or AG (the paper calls it T_AR). It charges V/(2B) as if a member's
// links into the group together carried 2B, like the two links of a bidirectional ring.
double t_direct(double p, double v, double a, double b) {
  return p > 1 ? a + (p - 1) / p * v / (2 * b) : 0;
}

// Time of s on v bytes.
double model(const CollectiveSpec& s, double v, double a, double b, double b_local) {
  const double p = size_of(s);
  const double passes = s.op == Collective::kAllReduce ? 2 : 1;  // AR = RS + AG
  if (p <= 1) return 0;
  if (s.op == Collective::kAllToAll) {
    switch (s.algorithm) {
      case Algorithm::kPairwise:
        return (p - 1) * (a + v / (p * b));
      case Algorithm::kBinaryExchange:  // InfiniteHBD G.2: log2 p rounds of V/2 each
        return std::log2(p) * (a + v / (2 * b));
      case Algorithm::kHierarchical: {
        // Two stages, each all pairs at once: inside the node L - 1 peers get the blocks of a
        // whole lane (n V / p each) at the local bandwidth, then n - 1 nodes get L blocks (L V /
        // p) each at the global one.
        const double l = s.local, n = p / l;
        return (l > 1 ? a + (l - 1) * n * v / p / b_local : 0) +
               (n > 1 ? a + (n - 1) * l * v / p / b : 0);
      }
      default:
        return a + (p - 1) / p * v / b;
    }
  }
  if (is_grid(s)) {
    // RailX Eq. 7 (2D ring; the paper's rows = cols = mp, nB = B) and Eq. 13 without its
    // local-mesh term (2D direct): 2[T(c, V/2, B) + T(r, V/(2c), B)], the 2 being RS + AG.
    const double r = s.rows, c = s.cols;
    const auto t = s.algorithm == Algorithm::kRing2D ? t_bidir : t_direct;
    return passes * (t(c, v / 2, a, b) + t(r, v / (2 * c), a, b));
  }
  switch (s.algorithm) {
    case Algorithm::kRing:
      return passes * t_ring(p, v, a, b);
    case Algorithm::kBidirRing:
    case Algorithm::kRing2D:
      return passes * t_bidir(p, v, a, b);
    case Algorithm::kHierarchical: {
      // RailX Eq. 8: local bidirectional-ring RS (and AG) at the on-package bandwidth, and the
      // global step on a V/local share among the nodes at B. Unlike Eq. 8, the local steps
      // keep their (local-1)α latency. A unidirectional local ring (the rail-only two-stage
      // all-reduce) sends every byte over one link.
      const CollectiveSpec g =
          global_stage(s, s.op, 1, std::vector<uint32_t>(size_of(s) / s.local));
      const auto t_local = s.local_algorithm == Algorithm::kRing ? t_ring : t_bidir;
      return passes * t_local(s.local, v, a, b_local) + model(g, v / s.local, a, b, b_local);
    }
    default:
      return passes * t_direct(p, v, a, b);
  }
}

}  // namespace

double alpha_beta_seconds(const CollectiveSpec& spec, double alpha_s, double bandwidth,
                          double local_bandwidth) {
  if (bandwidth <= 0) throw std::logic_error("alpha_beta_seconds: bandwidth must be > 0");
  const double b_local = local_bandwidth > 0 ? local_bandwidth : bandwidth;
  return model(spec, static_cast<double>(spec.bytes), alpha_s, bandwidth, b_local);
}

double two_stage_all_reduce_seconds(uint32_t local, uint32_t nodes, double bytes, double alpha_s,
                                    double network_bandwidth, double domain_bandwidth) {
  if (local == 0 || nodes == 0 || network_bandwidth <= 0 || domain_bandwidth <= 0) {
    throw std::logic_error("two_stage_all_reduce_seconds: empty group or bandwidth <= 0");
  }
  const double second = 2 * t_ring(local, bytes, alpha_s, domain_bandwidth);
  const double first = 2 * t_ring(nodes, bytes / local, alpha_s, network_bandwidth);
  return second + first;
}

}  // namespace hx::wl
