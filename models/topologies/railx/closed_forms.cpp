// RailX's closed forms as `hxsim topo` prints them: Eq. 1-3, Table 2 and 6 for the full system,
// and (--availability) Fig. 17's single-job availability under node faults.
#include <cstdio>
#include <string>

#include "core/error.h"
#include "models/topologies/railx/analytic.h"
#include "models/topologies/railx/availability.h"

namespace hx::net::railx {

ClosedForms closed_forms(const ParamSet& p) {
  const auto a = analyse(static_cast<uint64_t>(p.integer("m")),
                         static_cast<uint64_t>(p.integer("n")),
                         static_cast<uint64_t>(p.integer("ocs_radix")));
  ClosedForms r{"railx m=" + std::to_string(a.m) + " n=" + std::to_string(a.n) +
                    " R=" + std::to_string(a.radix),
                "RailX (Sec. 3.2-3.3): the full (R/2 x R/2)-node system of these nodes and "
                "OCSes; the configured x and y only choose which part of it a run builds",
                {"railx"},
                {"value"},
                {}};
  const auto add = [&r](std::string key, std::string label, FormCell c) {
    r.rows.push_back({std::move(key), std::move(label), {std::move(c)}});
  };
  add("rails", "rails per axis r = mn", count_cell(a.r));
  add("chips", "chips N = (R/2)^2 m^2 (Eq. 1)", count_cell(a.chips));
  add("switches", "OCSes N_s = rR (Eq. 1)", count_cell(a.switches));
  add("torus_chips", "Table 2 torus: (R/2)^2 m^2 chips, diameter R H_o", count_cell(a.torus_chips));
  add("hyperx_chips", "Table 2 HyperX: (r+1)^2 m^2 chips, diameter 2 H_o",
      count_cell(a.hyperx_chips));
  add("dragonfly_chips", "Table 2 Dragonfly: (r+1)(R/2) m^2 chips, diameter 3 H_o",
      count_cell(a.dragonfly_chips));
  add("t_torus", "all-to-all bound, torus 16n/(Rm) (Eq. 2) [flits/cycle/chip]",
      real_cell(a.t_torus));
  add("t_hyperx", "all-to-all bound, HyperX 2(r+1)/m^2 (Eq. 3)", real_cell(a.t_hyperx));
  add("t_hyperx_approx", "  Eq. 3's approximation 2n/m", real_cell(a.t_hyperx_approx));
  add("hyperx_diameter_mesh_hops", "HyperX diameter 2 H_o + (5m-6) H_i: H_i count",
      count_cell(a.hyperx_mesh_hops));
  add("ocs", "cost: OCSes (Table 6 rules)", count_cell(a.cost.switches));
  add("aot", "cost: optical transceivers", count_cell(a.cost.aot));
  add("cost_musd", "cost [M$]", real_cell(a.cost.cost_musd));
  add("cost_per_inject", "cost per injection bandwidth (2-tier fat tree = 1)",
      real_cell(a.cost.cost_per_inject));
  add("global_bw_pct", "global bandwidth [% of injection]", real_cell(a.cost.global_bw_pct));
  add("cost_per_gbw", "cost per global bandwidth (2-tier fat tree = 1)",
      real_cell(a.cost.cost_per_gbw));
  if (a.availability_01 > 0) {
    add("availability_0_1pct", "single-job availability at 0.1% node failures (Fig. 17)",
        real_cell(a.availability_01));
  }
  return r;
}

// Fig. 17 for the full (R/2 x R/2)-node system: the largest single job (Algorithm 2) and the
// worst case (R/2 - a)^2, averaged over 100 fault sets, per node failure rate (b) and per number
// of faulted nodes (a). Points whose faults are too clustered for Algorithm 2 (more than 24
// sharing rows or columns) are left empty.
ClosedForms availability_closed_forms(const ParamSet& p) {
  const auto side = static_cast<uint32_t>(p.integer("ocs_radix") / 2);
  ClosedForms r{"railx availability R=" + std::to_string(2 * side) + ": " +
                    std::to_string(side) + " x " + std::to_string(side) + " nodes",
                "Fig. 17: mean over 100 fault sets (seed 1) of the faulted nodes, the largest "
                "single job (Algorithm 2) and the worst case (R/2 - a)^2, in nodes; "
                "availability = mean / (R/2)^2",
                {"faults", "mean_nodes", "worst_nodes", "availability"},
                {"faults", "mean", "worst", "availability"},
                {}};
  const auto add = [&r](std::string key, std::string label, const auto& compute) {
    FormRow row{std::move(key), std::move(label), {}};
    try {
      const AvailabilityPoint a = compute();
      row.cells = {real_cell(a.mean_faults), real_cell(a.mean_size), real_cell(a.worst_size),
                   real_cell(a.availability)};
    } catch (const InputError&) {
      row.cells = {FormCell{}, FormCell{}, FormCell{}, FormCell{}};
    }
    r.rows.push_back(std::move(row));
  };
  for (const double rate : {0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01}) {
    char key[32], label[48];
    std::snprintf(key, sizeof key, "rate_%g", rate);
    std::snprintf(label, sizeof label, "node failure rate %g%%", rate * 100);
    add(key, label, [&] { return availability_curve(side, {rate}).front(); });
  }
  for (const uint64_t faults : {1, 2, 4, 8, 12, 16}) {
    add("faults_" + std::to_string(faults), std::to_string(faults) + " faulted nodes",
        [&] { return allocation_with_faults(side, faults); });
  }
  return r;
}

}  // namespace hx::net::railx
