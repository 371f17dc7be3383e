// The Dragonfly's closed forms as `hxsim topo` prints them, and the rows of a path's hops with
// their energy and latency, which the switch-less Dragonfly's report shares.
#include <algorithm>
#include <cstdio>
#include <string>

#include "models/topologies/dragonfly/analytic.h"

namespace hx::net {
namespace {

// "H_g + 2H_l + 30H_sr": Eq. 7's notation, coefficients to 3 significant digits.
std::string formula(const PathHops& hops) {
  std::string out;
  const auto term = [&out](double n, const char* name) {
    if (n == 0) return;
    char c[32] = "";
    if (n != 1) std::snprintf(c, sizeof c, "%.3g", n);
    out += (out.empty() ? "" : " + ") + std::string(c) + name;
  };
  term(hops.global, "H_g");
  term(hops.local, "H_l");
  term(hops.terminal, "H_l*");
  term(hops.short_reach(), "H_sr");
  term(hops.on_chip, "H_on-chip");
  return out.empty() ? "0" : out;
}

}  // namespace

FormCell path_cell(const PathHops& h) {
  return {formula(h), "{\"global\": " + real_cell(h.global).json +
                          ", \"local\": " + real_cell(h.local).json +
                          ", \"terminal\": " + real_cell(h.terminal).json +
                          ", \"mesh\": " + real_cell(h.mesh).json +
                          ", \"conversion\": " + real_cell(h.conversion).json +
                          ", \"on_chip\": " + real_cell(h.on_chip).json + "}"};
}

void add_path_rows(ClosedForms& r, const std::string& key, const std::string& label,
                   const std::vector<const PathHops*>& paths) {
  FormRow hops{key, label, {}}, table_ii{key + "_pj_per_bit", "  energy, Table II [pJ/bit]", {}},
      section_vc{key + "_pj_per_bit_vc", "  energy, Sec. V-C: 1 pJ/bit per C-group hop", {}},
      latency{key + "_ns", "  latency, Table II [ns, no time of flight]", {}};
  const HopCosts costs, vc = section_vc_costs();
  for (const PathHops* p : paths) {
    hops.cells.push_back(p ? path_cell(*p) : FormCell{});
    table_ii.cells.push_back(p ? real_cell(energy_pj_per_bit(*p, costs)) : FormCell{});
    section_vc.cells.push_back(p && p->short_reach() + p->on_chip > 0
                                   ? real_cell(energy_pj_per_bit(*p, vc))
                                   : FormCell{});
    latency.cells.push_back(p ? real_cell(latency_ns(*p, costs)) : FormCell{});
  }
  for (FormRow* row : {&hops, &table_ii, &section_vc, &latency}) {
    // A switch-based path has no C-group hops: leave out a row of nothing but "-".
    const bool any = std::any_of(row->cells.begin(), row->cells.end(),
                                 [](const FormCell& c) { return c.json != "null"; });
    if (any) r.rows.push_back(std::move(*row));
  }
}

ClosedForms dragonfly_closed_forms(const ParamSet& p) {
  const auto d = analyse_dragonfly(
      static_cast<uint64_t>(p.integer("p")), static_cast<uint64_t>(p.integer("a")),
      static_cast<uint64_t>(p.integer("h")), static_cast<uint64_t>(p.integer("g")));
  ClosedForms r{"dragonfly p=" + std::to_string(d.p) + " a=" + std::to_string(d.a) +
                    " h=" + std::to_string(d.h) + " g=" + std::to_string(d.g),
                "switch-based Dragonfly (Kim et al. 2008) as the switch-less Dragonfly paper "
                "counts it (Table III)",
                {"switch_based"},
                {"switch-based"},
                {}};
  const auto add = [&r](std::string key, std::string label, FormCell c) {
    r.rows.push_back({std::move(key), std::move(label), {std::move(c)}});
  };
  add("radix", "switch radix p + (a-1) + h", count_cell(d.radix));
  add("terminals", "terminals per switch p", count_cell(d.p));
  add("global_ports", "global ports per switch h", count_cell(d.h));
  add("groups", "groups g", count_cell(d.g));
  add("switches", "switches a g", count_cell(d.switches));
  add("endpoints", "endpoints N = p a g", count_cell(d.endpoints));
  add("cabinets", "cabinets (128 nodes each, Sec. III-C3)", count_cell(d.cabinets));
  add("cables", "cables: terminal + local + global", count_cell(d.cables()));
  add("t_switch", "T inside a switch [flits/cycle/endpoint]", real_cell(d.t_switch));
  add("t_local", "T_local inside a group: min(1, a/p)", real_cell(d.t_local));
  add("t_global", "T_global: min(1, g^2/N)", real_cell(d.t_global));
  add_path_rows(r, "diameter", "diameter (minimal)", {&d.diameter});
  add_path_rows(r, "mean_uniform", "mean minimal path, uniform traffic", {&d.mean_uniform});
  return r;
}

}  // namespace hx::net
