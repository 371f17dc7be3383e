#include "models/topologies/railx/analytic.h"

#include "models/topologies/railx/availability.h"

namespace hx::net::railx {

Analytic analyse(uint64_t m, uint64_t n, uint64_t radix) {
  Analytic a;
  a.m = m;
  a.n = n;
  a.radix = radix;
  a.r = m * n;
  const uint64_t side = radix / 2, mm = m * m;
  a.chips = side * side * mm;
  a.switches = a.r * radix;
  a.torus_chips = side * side * mm;
  a.hyperx_chips = (a.r + 1) * (a.r + 1) * mm;
  a.dragonfly_chips = (a.r + 1) * side * mm;
  a.t_torus = 16.0 * n / (double(radix) * m);
  a.t_hyperx = 2.0 * (a.r + 1) / double(mm);
  a.t_hyperx_approx = 2.0 * n / m;
  a.hyperx_mesh_hops = m >= 2 ? 5 * m - 6 : 0;
  a.cost =
      railx_cost(static_cast<uint32_t>(m), static_cast<uint32_t>(n), static_cast<uint32_t>(radix));
  // Algorithm 2 enumerates the faults sharing rows or columns; beyond R = 256 at 0.1% there are
  // too many of them (availability.h refuses), so the figure is left out there.
  if (side <= 128) {
    a.availability_01 =
        availability_curve(static_cast<uint32_t>(side), {0.001}).front().availability;
  }
  return a;
}

}  // namespace hx::net::railx
