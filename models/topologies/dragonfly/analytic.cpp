// The switch-based Dragonfly's closed forms (analytic.h). The mean minimal path needs no
// enumeration: whatever the global arrangement, each of a group's g - 1 global links sits on
// exactly one of its a routers, so a random source router holds the link to a random other group
// with probability 1/a, and so does the destination's router at the far end.
#include "models/topologies/dragonfly/analytic.h"

#include <algorithm>

namespace hx::net {

namespace {
constexpr uint64_t kNodesPerCabinet = 128;  // §III-C3: 64 blades of 2 nodes
}  // namespace

HopCosts section_vc_costs() {
  HopCosts c;
  c.mesh_pj = 1;
  c.on_chip_pj = 1;
  return c;
}

double energy_pj_per_bit(const PathHops& hops, const HopCosts& costs) {
  return hops.long_reach() * costs.long_reach_pj + hops.mesh * costs.mesh_pj +
         hops.conversion * costs.conversion_pj + hops.on_chip * costs.on_chip_pj;
}

double latency_ns(const PathHops& hops, const HopCosts& costs) {
  return hops.long_reach() * costs.long_reach_ns + hops.short_reach() * costs.short_reach_ns +
         hops.on_chip * costs.on_chip_ns;
}

DragonflyAnalytic analyse_dragonfly(uint64_t p, uint64_t a, uint64_t h, uint64_t g) {
  DragonflyAnalytic d;
  d.p = p;
  d.a = a;
  d.h = h;
  d.g = g == 0 ? a * h + 1 : g;
  d.radix = p + a - 1 + h;
  d.switches = a * d.g;
  d.endpoints = p * d.switches;
  d.cabinets = (d.endpoints + kNodesPerCabinet - 1) / kNodesPerCabinet;
  d.terminal_cables = d.endpoints;
  d.local_cables = d.g * a * (a - 1) / 2;
  d.global_cables = d.g * (d.g - 1) / 2;

  const auto n = static_cast<double>(d.endpoints);
  const auto groups = static_cast<double>(d.g);
  d.t_switch = 1;
  d.t_local = std::min(1.0, static_cast<double>(a) / static_cast<double>(p));
  d.t_global = std::min(1.0, groups * groups / n);

  d.diameter = {.global = d.g > 1 ? 1.0 : 0.0, .local = a > 1 ? 2.0 : 0.0, .terminal = 2};
  if (d.endpoints < 2) return d;
  // Destinations of a source: p - 1 on its switch, (a - 1) p in its group, the rest elsewhere.
  const double others = n - 1;
  const double in_group = static_cast<double>((a - 1) * p) / others;
  const double elsewhere = (n - static_cast<double>(a * p)) / others;
  const double off_router = 1 - 1 / static_cast<double>(a);
  d.mean_uniform = {
      .global = elsewhere, .local = in_group + elsewhere * 2 * off_router, .terminal = 2};
  return d;
}

}  // namespace hx::net
