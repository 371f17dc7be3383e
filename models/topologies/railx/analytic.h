// Closed forms of RailX (paper §3.2-3.3, Table 2, Eq. 1-3, §4.1.1) for `hxsim topo`: the full
// (R/2 x R/2)-node system's size and switch count, each base topology's scalability, diameter
// and all-to-all bound, the HyperX diameter in hops, and the cost (cost.h, Table 6's rules) and
// availability (availability.h, Fig. 17) of the full system. Pure arithmetic on (m, n, R).
#pragma once

#include <cstdint>

#include "core/closed_forms.h"
#include "core/params.h"
#include "models/topologies/railx/cost.h"

namespace hx::net::railx {

struct Analytic {
  uint64_t m = 0, n = 0, radix = 0;
  uint64_t r = 0;         // rails per axis m n
  uint64_t chips = 0;     // N = (R/2)^2 m^2 (Eq. 1)
  uint64_t switches = 0;  // N_s = r R (Eq. 1)
  // Table 2: largest system of each base topology [chips] and its all-to-all bound per chip
  // (bisection throughput, flits/cycle/chip with 1 flit/cycle optical links).
  uint64_t torus_chips = 0, hyperx_chips = 0, dragonfly_chips = 0;
  double t_torus = 0;          // Eq. 2: 16 n / (R m)
  double t_hyperx = 0;         // Eq. 3 before its approximation: 2 (r + 1) / m^2
  double t_hyperx_approx = 0;  // Eq. 3: 2 n / m
  // §4.1.1: a 2D HyperX's longest minimal path, 2 H_o + (5m - 6) H_i.
  uint64_t hyperx_optical_hops = 2, hyperx_mesh_hops = 0;
  CostRow cost;                // Table 6's counting for this (m, n, R)
  double availability_01 = 0;  // Fig. 17: mean single-job share of nodes at 0.1% failures
                               // (0: not computed, R > 256)
};

Analytic analyse(uint64_t m, uint64_t n, uint64_t radix);

/// `hxsim topo`'s reports from a [railx] section (closed_forms.cpp): the full system's closed
/// forms, and Fig. 17's single-job availability under node faults (--availability).
ClosedForms closed_forms(const ParamSet& section);
ClosedForms availability_closed_forms(const ParamSet& section);

}  // namespace hx::net::railx
