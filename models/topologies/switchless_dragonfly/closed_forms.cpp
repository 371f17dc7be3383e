// The switch-less Dragonfly's closed forms as `hxsim topo` prints them, next to its switch-based
// equivalent's.
#include <string>

#include "models/topologies/switchless_dragonfly/analytic.h"

namespace hx::net::sldf {

ClosedForms closed_forms(const ParamSet& p) {
  const auto s = analyse(
      static_cast<uint64_t>(p.integer("n")), static_cast<uint64_t>(p.integer("m")),
      static_cast<uint64_t>(p.integer("a")), static_cast<uint64_t>(p.integer("b")),
      static_cast<uint64_t>(p.integer("chip_mesh")));
  const DragonflyAnalytic d = switch_based_equivalent(s);
  ClosedForms r{"switchless_dragonfly n=" + std::to_string(s.n) + " m=" + std::to_string(s.m) +
                    " a=" + std::to_string(s.a) + " b=" + std::to_string(s.b) +
                    " chip_mesh=" + std::to_string(s.chip_mesh),
                "Switch-less Dragonfly on Wafers (Sec. III); switch-based: the Dragonfly with a "
                "C-group's chiplets as a switch's terminals (Table III)",
                {"switch_less", "switch_based"},
                {"switch-less", "switch-based"},
                {}};
  const auto add = [&r](std::string key, std::string label, FormCell a, FormCell b = {}) {
    r.rows.push_back({std::move(key), std::move(label), {std::move(a), std::move(b)}});
  };
  add("ports", "C-group ports k = nm | switch radix", count_cell(s.k), count_cell(d.radix));
  add("terminals", "chiplets per C-group m^2 | terminals p", count_cell(s.m * s.m),
      count_cell(d.p));
  add("global_ports", "global ports per C-group h = k - ab + 1", count_cell(s.h),
      count_cell(d.h));
  add("cgroups_per_wgroup", "C-groups per W-group ab | switches a", count_cell(s.ab()),
      count_cell(d.a));
  add("groups", "W-groups g = ab h + 1", count_cell(s.g), count_cell(d.g));
  add("switches", "C-groups | switches", count_cell(s.cgroups), count_cell(d.switches));
  add("wafers", "wafers b g", count_cell(s.wafers));
  add("chiplets", "chiplets N = ab m^2 g (Eq. 1)", count_cell(s.chiplets),
      count_cell(d.endpoints));
  add("endpoints", "endpoints N chip_mesh^2", count_cell(s.endpoints), count_cell(d.endpoints));
  add("wafer_ports", "IO channels per wafer a k (Sec. III-E)", count_cell(s.wafer_ports));
  add("cabinets", "cabinets (8 wafers each, Sec. III-C3)", count_cell(s.cabinets),
      count_cell(d.cabinets));
  add("cables", "cables: [terminal +] local + global", count_cell(s.cables()),
      count_cell(d.cables()));
  add("t_cgroup", "T_cg in a C-group n/m (Eq. 5) [flits/cycle/chip]", real_cell(s.t_cgroup),
      real_cell(d.t_switch));
  add("t_local", "T_local in a W-group ab/m^2 (Eq. 4)", real_cell(s.t_local),
      real_cell(d.t_local));
  add("t_global", "T_global (mn - ab + 1)/m^2 (Eq. 2)", real_cell(s.t_global),
      real_cell(d.t_global));
  add("t_global_bisection", "  Eq. 2 before simplifying: g^2/N", real_cell(s.t_global_bisection));
  add("mesh_bisection", "C-group mesh bisection nm/2 [flits/cycle] (Eq. 6)",
      real_cell(s.mesh_bisection));
  add_path_rows(r, "diameter", "diameter (Eq. 7)", {&s.diameter, &d.diameter});
  PathHops bare = s.diameter;
  bare.conversion = 0;
  add("diameter_without_conversion", "diameter less its SR-LR conversion hops", path_cell(bare));
  add_path_rows(r, "wgroup_diameter", "W-group diameter (Sec. III-D1)",
                {&s.wgroup_diameter, nullptr});
  const PathHops* mean = s.mean_uniform ? &*s.mean_uniform : nullptr;
  add_path_rows(r, "mean_uniform", "mean minimal path, uniform traffic", {mean, &d.mean_uniform});
  return r;
}

}  // namespace hx::net::sldf
