// Table III of the switch-less Dragonfly paper (§III-C): the switch-less system beside the other
// topologies built of switches of the same radix R ("all the topologies attempt to fully utilize
// the 64-port switch"), with the packaging rules of §III-C3. Pure arithmetic, no I/O:
// `hxsim topo --table3` prints it (table3.cpp).
//
// The rows' own design choices are the paper's: full and 3:1-tapered three-stage fat trees, one
// or four planes (a processor's ports); HammingMesh with 4 x 4 boards (Hx4Mesh) on one or four
// planes; PolarFly with R-port optical modules and R/2 processors per package. The DOJO row
// (450 processors on one 60-port switch) rests on a system description the paper does not give,
// and is not reproduced.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/closed_forms.h"
#include "core/params.h"
#include "models/topologies/dragonfly/analytic.h"
#include "models/topologies/switchless_dragonfly/analytic.h"

namespace hx::net::sldf {

/// One column of Table III. Throughputs in flits/cycle per processor with unit links.
struct SystemSpecs {
  std::string key;    // JSON name
  std::string label;  // the table's header
  uint64_t chip_radix = 0;
  uint64_t switch_radix = 0;  // 0: no switches
  uint64_t switches = 0;
  uint64_t cabinets = 0;
  uint64_t processors = 0;
  uint64_t cables = 0;
  double t_local = 0;   // the subset the row names (an edge switch, a board, a group)
  double t_inner = 0;   // a smaller subset in brackets ("3(2)": a C-group), or 0
  double t_global = 0;  // uniform traffic over the whole system
  PathHops diameter;
};

/// A three-stage fat tree of `radix`-port switches on `planes` planes (a processor has a port
/// on each). `taper` = d/u at the edge switches (1: full bisection; 3: 3:1, 3R/4 down and R/4
/// up); aggregation and core switches are full.
SystemSpecs fat_tree(uint64_t radix, uint64_t planes, uint64_t taper);

/// HammingMesh (Hoefler et al., SC'22) with `board` x `board` processor meshes whose edge ports
/// lead, on each of `planes` planes, into a three-stage fat tree of `radix`-port switches.
SystemSpecs hamming_mesh(uint64_t radix, uint64_t board, uint64_t planes);

/// Co-packaged PolarFly (Lakhotia et al., SC'22): the Erdős–Rényi graph ER_q of q^2 + q + 1
/// packages of degree q + 1 = `radix`, with `per_package` processors each.
SystemSpecs polarfly(uint64_t radix, uint64_t per_package);

/// The whole table for the switch-less system (n, m, a, b): its own column, the switch-based
/// Dragonfly of the same size, and the others built of that Dragonfly's switch radix.
std::vector<SystemSpecs> table3(const Analytic& switchless);

/// `hxsim topo --table3`'s report from a [switchless_dragonfly] section.
ClosedForms table3_closed_forms(const ParamSet& section);

}  // namespace hx::net::sldf
