// The switch-less Dragonfly's closed forms (analytic.h). Everything but the mean minimal path is
// a formula of §III. The mean depends on where each port sits on a C-group's perimeter
// (shape.h), so it is summed exactly over one W-group's C-groups and ports: every W-group is
// wired alike inside, and as the far W-group runs over the other g - 1, a W-group's exit port
// runs over all its global ports once, and so does the entry port at the far end. Inside a
// C-group the routes are minimal in its M x M router mesh (M = m chip_mesh), as the model's.
#include "models/topologies/switchless_dragonfly/analytic.h"

#include <array>

#include "models/topologies/switchless_dragonfly/shape.h"

namespace hx::net::sldf {
namespace {

constexpr uint64_t kWafersPerCabinet = 8;  // §III-C3

using Point = std::array<uint32_t, 2>;

// Router hops inside a C-group's M x M mesh, and how many of them cross between chiplets (short
// reach); the rest are on-chip.
struct MeshHops {
  uint64_t all = 0, between = 0;
  MeshHops& operator+=(const MeshHops& o) {
    all += o.all;
    between += o.between;
    return *this;
  }
  MeshHops operator*(uint64_t k) const { return {all * k, between * k}; }
};

// Sum of |u - x| over u in [0, m).
uint64_t line_sum(uint64_t m, uint64_t x) { return x * (x + 1) / 2 + (m - 1 - x) * (m - x) / 2; }

uint64_t gap(uint32_t u, uint32_t v) { return u > v ? u - v : v - u; }

// Dimension-order (or any minimal) route from router p to router q.
MeshHops route(const Shape& s, Point p, Point q) {
  return {gap(p[0], q[0]) + gap(p[1], q[1]),
          gap(p[0] / s.chip, q[0] / s.chip) + gap(p[1] / s.chip, q[1] / s.chip)};
}

// Routes from router p to every router of its C-group, summed: along a dimension the routers
// of one chiplet column are `chip` apart in the sum over chiplet columns.
MeshHops routes_to_all(const Shape& s, Point p) {
  const uint64_t big = s.M, c = s.chip;
  return {big * (line_sum(big, p[0]) + line_sum(big, p[1])),
          big * c * (line_sum(s.m, p[0] / c) + line_sum(s.m, p[1] / c))};
}

PathHops mean_minimal_hops(const Shape& s) {
  const uint64_t routers = s.mesh_size(), ab = s.ab, g = s.g;
  const double n = static_cast<double>(s.routers());
  const auto at = [&s](uint32_t label) { return s.label_router(label); };
  double all = 0, between = 0, local = 0;

  // Both ends in one C-group: sum of |x - x'| over ordered pairs of [0, M) is M(M^2 - 1)/3, and
  // over chiplet columns chip^2 m(m^2 - 1)/3; each for x and y, times the M^2 choices of the
  // other coordinates.
  const double cgroups = static_cast<double>(g * ab), big = s.M, m = s.m, c = s.chip;
  all += cgroups * 2 * big * big * big * (big * big - 1) / 3;
  between += cgroups * 2 * big * big * c * c * m * (m * m - 1) / 3;

  // Both in one W-group, C-groups i != j: out of i by its port to j, into j by its port to i.
  // Over all such pairs each C-group's local ports serve as exits (and entries) equally often.
  MeshHops exits;
  for (uint32_t i = 0; i < ab; ++i) {
    for (uint32_t j = 0; j < ab; ++j) {
      if (j != i) exits += routes_to_all(s, at(s.local_label(i, j)));
    }
  }
  all += static_cast<double>(g) * 2 * static_cast<double>(routers * exits.all);
  between += static_cast<double>(g) * 2 * static_cast<double>(routers * exits.between);
  local += static_cast<double>(g * ab * (ab - 1) * routers * routers);

  // Different W-groups: from source C-group i to global port G (on C-group G / h), directly or by
  // a local hop; the entry side is the same sum, walked backwards.
  MeshHops side;
  uint64_t side_local = 0;
  for (uint32_t i = 0; i < ab; ++i) {
    for (uint32_t G = 0; G + 1 < g; ++G) {
      const uint32_t owner = G / s.h, label = owner + G % s.h;
      if (i == owner) {
        side += routes_to_all(s, at(label));
      } else {
        side += routes_to_all(s, at(s.local_label(i, owner)));
        side += route(s, at(s.local_label(owner, i)), at(label)) * routers;
        side_local += routers;
      }
    }
  }
  const double far = static_cast<double>(ab * routers);  // endpoints of the far W-group
  all += 2 * static_cast<double>(g) * far * static_cast<double>(side.all);
  between += 2 * static_cast<double>(g) * far * static_cast<double>(side.between);
  local += 2 * static_cast<double>(g) * far * static_cast<double>(side_local);
  const double global = n * (n - far);

  const double pairs = n * (n - 1);
  return {.global = global / pairs,
          .local = local / pairs,
          .mesh = between / pairs,
          .conversion = 2 * (global + local) / pairs,
          .on_chip = (all - between) / pairs};
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
                                             static_cast<uint32_t>(a), static_cast<uint32_t>(b),
                                             static_cast<uint32_t>(chip_mesh)));
  }
  return s;
}

DragonflyAnalytic switch_based_equivalent(const Analytic& s) {
  return analyse_dragonfly(s.m * s.m, s.a * s.b, s.h, s.g);
}

}  // namespace hx::net::sldf
