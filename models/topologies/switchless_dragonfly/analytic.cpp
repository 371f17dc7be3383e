// The switch-less Dragonfly's closed forms (analytic.h). Everything but the mean minimal path is
// a formula of §III. The mean depends on where each port sits on a C-group's perimeter
// (shape.h), so it is summed exactly over one W-group's C-groups and ports: every W-group is
// wired alike inside, and as the far W-group runs over the other g - 1, a W-group's exit port
// runs over all its global ports once, and so does the entry port at the far end.
#include "models/topologies/switchless_dragonfly/analytic.h"

#include <array>
#include <cstdlib>

#include "models/topologies/switchless_dragonfly/shape.h"

namespace hx::net::sldf {
namespace {

constexpr uint64_t kWafersPerCabinet = 8;  // §III-C3

using Point = std::array<uint32_t, 2>;

uint64_t distance(Point p, Point q) {
  return static_cast<uint64_t>(std::abs(static_cast<int64_t>(p[0]) - q[0]) +
                               std::abs(static_cast<int64_t>(p[1]) - q[1]));
}

// Sum of |u - x| over u in [0, m).
uint64_t line_sum(uint64_t m, uint64_t x) { return x * (x + 1) / 2 + (m - 1 - x) * (m - x) / 2; }

// Sum of the mesh distances from p to every chiplet of an m x m mesh.
uint64_t distance_sum(uint64_t m, Point p) { return m * (line_sum(m, p[0]) + line_sum(m, p[1])); }

PathHops mean_minimal_hops(const Shape& s) {
  const uint64_t m = s.m, mesh = s.mesh_size(), ab = s.ab, g = s.g;
  const double n = static_cast<double>(s.chiplets());
  const auto at = [&s](uint32_t label) { return s.slot_router(s.slot_of(label)); };
  PathHops sum;

  // Both ends in one C-group: the mean distance of two points of an m x m grid, summed.
  sum.mesh = static_cast<double>(g * ab) * 2.0 * static_cast<double>(m * m * m * (mesh - 1)) / 3;

  // Both in one W-group, C-groups c != d: out of c by its port to d, into d by its port to c.
  // Over all such pairs each C-group's local ports serve as exits (and entries) equally often.
  uint64_t exits = 0;
  for (uint32_t c = 0; c < ab; ++c) {
    for (uint32_t d = 0; d < ab; ++d) {
      if (d != c) exits += distance_sum(m, at(s.local_label(c, d)));
    }
  }
  sum.mesh += static_cast<double>(g) * 2.0 * static_cast<double>(mesh * exits);
  sum.local += static_cast<double>(g * ab * (ab - 1) * mesh * mesh);

  // Different W-groups: from source C-group c to global port G (on C-group G / h), directly or by
  // a local hop; the entry side is the same sum, walked backwards.
  uint64_t side_mesh = 0, side_local = 0;
  for (uint32_t c = 0; c < ab; ++c) {
    for (uint32_t G = 0; G + 1 < g; ++G) {
      const uint32_t owner = G / s.h, label = owner + G % s.h;
      if (c == owner) {
        side_mesh += distance_sum(m, at(label));
      } else {
        side_mesh += distance_sum(m, at(s.local_label(c, owner))) +
                     mesh * distance(at(s.local_label(owner, c)), at(label));
        side_local += mesh;
      }
    }
  }
  const double far = static_cast<double>(ab * mesh);  // chiplets of the far W-group
  sum.mesh += 2.0 * static_cast<double>(g) * far * static_cast<double>(side_mesh);
  sum.local += 2.0 * static_cast<double>(g) * far * static_cast<double>(side_local);
  sum.global = n * (n - far);

  const double pairs = n * (n - 1);
  return {.global = sum.global / pairs,
          .local = sum.local / pairs,
          .mesh = sum.mesh / pairs,
          .conversion = 2 * (sum.global + sum.local) / pairs};
}

// A path over `long_reach` long-reach hops crosses long_reach + 1 C-groups, each corner to
// corner in the worst case.
PathHops worst_path(const Analytic& s, double global, double local) {
  const double cgroups = global + local + 1;
  return {.global = global,
          .local = local,
          .mesh = cgroups * 2 * static_cast<double>(s.m - 1),
          .conversion = 2 * (global + local),
          .on_chip = cgroups * 2 * static_cast<double>(s.m * (s.chip_mesh - 1))};
}

}  // namespace

Analytic analyse(uint64_t n, uint64_t m, uint64_t a, uint64_t b, uint64_t chip_mesh) {
  Analytic s;
  s.n = n;
  s.m = m;
  s.a = a;
  s.b = b;
  s.chip_mesh = chip_mesh;
  const uint64_t ab = a * b, mesh = m * m;
  s.k = n * m;
  s.h = s.k - ab + 1;
  s.g = ab * s.h + 1;
  s.cgroups = ab * s.g;
  s.wafers = b * s.g;
  s.chiplets = s.cgroups * mesh;
  s.endpoints = s.chiplets * chip_mesh * chip_mesh;
  s.wafer_ports = a * s.k;
  s.wafer_cgroup_links = a * (a - 1) / 2;
  s.cabinets = (s.wafers + kWafersPerCabinet - 1) / kWafersPerCabinet;
  s.local_cables = s.g * ab * (ab - 1) / 2;
  s.global_cables = s.g * (s.g - 1) / 2;

  const auto g = static_cast<double>(s.g);
  s.t_global = static_cast<double>(s.h) / static_cast<double>(mesh);
  s.t_global_bisection = g * g / static_cast<double>(s.chiplets);
  s.t_local = static_cast<double>(ab) / static_cast<double>(mesh);
  s.t_cgroup = static_cast<double>(n) / static_cast<double>(m);
  s.mesh_bisection = static_cast<double>(n * m) / 2;

  s.diameter = worst_path(s, 1, ab > 1 ? 2 : 0);
  s.wgroup_diameter = worst_path(s, 0, ab > 1 ? 1 : 0);
  if (ab * (s.g - 1) <= kMaxEnumeration) {
    s.mean_uniform = mean_minimal_hops(Shape(static_cast<uint32_t>(n), static_cast<uint32_t>(m),
                                             static_cast<uint32_t>(a), static_cast<uint32_t>(b)));
  }
  return s;
}

DragonflyAnalytic switch_based_equivalent(const Analytic& s) {
  return analyse_dragonfly(s.m * s.m, s.a * s.b, s.h, s.g);
}

}  // namespace hx::net::sldf
