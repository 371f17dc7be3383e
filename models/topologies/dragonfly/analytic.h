// Closed forms of the switch-based Dragonfly (Kim et al. 2008) as the switch-less Dragonfly paper
// compares it (Table III, "Dragonfly (Slingshot)"): sizes, cables, throughput bounds and the hop
// counts of minimal paths, with their energy and latency from the paper's Table II. Also the
// per-hop costs that the switch-less calculator (switchless_dragonfly/analytic.h) shares. Pure
// arithmetic, no I/O: `hxsim topo` prints it (closed_forms.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/closed_forms.h"
#include "core/params.h"

namespace hx::net {

/// The hops of a path (or their mean over many paths) by physical class.
struct PathHops {
  double global = 0;      // H_g: long reach, between groups
  double local = 0;       // H_l: long reach, between routers (C-groups) of a group
  double terminal = 0;    // H_l*: chip to switch and back, long reach (switch-based only)
  double mesh = 0;        // H_sr: on-wafer, chiplet to chiplet inside a C-group
  double conversion = 0;  // H_sr: SR-LR conversion at both ends of each long-reach hop
  double on_chip = 0;     // H_on-chip: between on-chip routers of one chiplet

  double long_reach() const { return global + local + terminal; }
  double short_reach() const { return mesh + conversion; }
};

/// Cost of one hop of each class. The defaults are Table II's (energy "20+", "~2", "~0.1" pJ/bit;
/// latency "150 + ToF", "~5", "~1" ns, so long-reach latency leaves out the time of flight).
struct HopCosts {
  double long_reach_pj = 20;
  double mesh_pj = 2;
  double conversion_pj = 2;
  double on_chip_pj = 0.1;
  double long_reach_ns = 150;
  double short_reach_ns = 5;
  double on_chip_ns = 1;
};

/// §V-C's energy model: like Table II, but "an intra-C-group hop takes 1 pJ/bit on average"
/// (mesh and on-chip hops alike).
HopCosts section_vc_costs();

double energy_pj_per_bit(const PathHops& hops, const HopCosts& costs);
/// Physical-layer latency only: no time of flight, no router or switch pipeline.
double latency_ns(const PathHops& hops, const HopCosts& costs);

struct DragonflyAnalytic {
  uint64_t p = 0, a = 0, h = 0, g = 0;
  uint64_t radix = 0;      // p + a - 1 + h switch ports
  uint64_t switches = 0;   // a * g
  uint64_t endpoints = 0;  // p * a * g
  uint64_t cabinets = 0;   // §III-C3: 64 blades of 2 nodes per cabinet
  uint64_t terminal_cables = 0, local_cables = 0, global_cables = 0;
  // Saturation bounds in flits/cycle/endpoint, each at most the one injection link's 1.
  double t_switch = 0;    // traffic inside one switch
  double t_local = 0;     // inside one group: bisection (a/2)^2 * 2 * 2 / (a p) = a/p
  double t_global = 0;    // whole system: bisection (g/2)^2 * 2 * 2 / N = g^2 / N
  PathHops diameter;      // minimal: H_g + 2 H_l + 2 H_l*
  PathHops mean_uniform;  // minimal paths averaged over all ordered pairs of distinct endpoints

  uint64_t cables() const { return terminal_cables + local_cables + global_cables; }
};

/// g = 0 means the largest system, a*h + 1 groups. Precondition: p, a, h >= 1, g <= a*h + 1.
DragonflyAnalytic analyse_dragonfly(uint64_t p, uint64_t a, uint64_t h, uint64_t g = 0);

/// `hxsim topo`'s report from a [dragonfly] section.
ClosedForms dragonfly_closed_forms(const ParamSet& section);

/// A path's hops in Eq. 7's notation ("H_g + 2H_l + 30H_sr") and as a JSON object.
FormCell path_cell(const PathHops& hops);
/// Rows `key` (the hops of each column's path; nullptr: none) and its energy and latency under
/// Table II and §V-C; rows with no value in any column are left out.
void add_path_rows(ClosedForms& report, const std::string& key, const std::string& label,
                   const std::vector<const PathHops*>& paths);

}  // namespace hx::net
