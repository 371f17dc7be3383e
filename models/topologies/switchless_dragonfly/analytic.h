// Closed forms of the Switch-less Dragonfly on Wafers (paper §III): sizes (Eq. 1), throughput
// bounds (Eq. 2, 4, 5), the C-group mesh's bisection (Eq. 6), the diameter (Eq. 7), cables and
// cabinets (§III-C, Table III), and the hop counts of minimal paths with their energy and latency
// (Table II, §V-C). Pure arithmetic on (n, m, a, b), no I/O: `hxsim topo` prints it
// (closed_forms.cpp).
#pragma once

#include <cstdint>
#include <optional>

#include "models/topologies/dragonfly/analytic.h"

namespace hx::net::sldf {

struct Analytic {
  uint64_t n = 0, m = 0, a = 0, b = 0;
  uint64_t chip_mesh = 1;  // on-chip routers per chiplet side (endpoints per chiplet: its square)
  uint64_t k = 0;          // n m external ports per C-group
  uint64_t h = 0;          // k - ab + 1 global ports per C-group
  uint64_t g = 0;          // ab h + 1 W-groups
  uint64_t cgroups = 0, wafers = 0;
  uint64_t chiplets = 0;            // N = ab m^2 g (Eq. 1)
  uint64_t endpoints = 0;           // N chip_mesh^2
  uint64_t wafer_ports = 0;         // a k IO channels per wafer (§III-E: 192)
  uint64_t wafer_cgroup_links = 0;  // a (a - 1) / 2 on-wafer logical links, wired off-wafer
  uint64_t cabinets = 0;            // §III-C3: 8 wafers per cabinet
  uint64_t local_cables = 0, global_cables = 0;

  // Saturation bounds in flits/cycle/chiplet with 1 flit/cycle links.
  double t_global = 0;            // Eq. 2 as printed: (mn - ab + 1) / m^2
  double t_global_bisection = 0;  // Eq. 2's first form before it is simplified: g^2 / N
  double t_local = 0;             // Eq. 4: ab / m^2, traffic inside one W-group
  double t_cgroup = 0;            // Eq. 5: n / m, traffic inside one C-group
  double mesh_bisection = 0;      // Eq. 6: B_cg = nm / 2 flits/cycle, full duplex

  PathHops diameter;         // Eq. 7: H_g + 2 H_l + (8m - 2) H_sr, + 8m(chip_mesh - 1) on-chip hops
  PathHops wgroup_diameter;  // §III-D1, one W-group: H_l + (4m - 2) H_sr
  /// Minimal paths averaged over all ordered pairs of distinct endpoints (one per on-chip
  /// router), mesh hops split into between chiplets (mesh) and on-chip. Exact, by enumerating one
  /// W-group's ports; empty when that would take more than about a second (ab (g - 1) above
  /// kMaxEnumeration).
  std::optional<PathHops> mean_uniform;

  uint64_t ab() const { return a * b; }
  uint64_t cables() const { return local_cables + global_cables; }
};

inline constexpr uint64_t kMaxEnumeration = 50'000'000;

/// Precondition: n, m, a, b, chip_mesh >= 1 and ab <= nm (h >= 1).
Analytic analyse(uint64_t n, uint64_t m, uint64_t a, uint64_t b, uint64_t chip_mesh = 1);

/// The switch-based Dragonfly the paper sets against it (§III-A, Table III): a C-group's m^2
/// chiplets become a switch's terminals, the ab C-groups of a W-group its group, same h and g.
DragonflyAnalytic switch_based_equivalent(const Analytic& s);

/// `hxsim topo`'s report from a [switchless_dragonfly] section: both systems side by side.
ClosedForms closed_forms(const ParamSet& section);

}  // namespace hx::net::sldf
