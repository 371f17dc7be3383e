// `hxsim topo`: the closed forms of a configured network (sizes, throughput bounds, diameter,
// hop energy) from models/topologies/*/analytic.h, as a table or as JSON. Nothing is built or
// run beyond resolving the config, so the full-size systems of the papers cost nothing.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/commands.h"
#include "core/error.h"
#include "core/text.h"
#include "engine/run.h"
#include "io/config_file.h"
#include "models/topologies/dragonfly/analytic.h"
#include "models/topologies/railx/analytic.h"
#include "models/topologies/railx/availability.h"
#include "models/topologies/switchless_dragonfly/analytic.h"

namespace hx {
namespace {

// One value as the table shows it and as a JSON literal.
struct Cell {
  std::string text = "-";
  std::string json = "null";
};

Cell count(uint64_t v) { return {with_commas(v), std::to_string(v)}; }

Cell real(double v) {
  char text[32], json[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  std::snprintf(json, sizeof json, "%.17g", v);
  return {text, json};
}

// "H_g + 2H_l + 30H_sr": Eq. 7's notation, coefficients to 3 significant digits.
std::string formula(const net::PathHops& hops) {
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

Cell path(const net::PathHops& h) {
  return {formula(h), "{\"global\": " + real(h.global).json + ", \"local\": " + real(h.local).json +
                          ", \"terminal\": " + real(h.terminal).json + ", \"mesh\": " +
                          real(h.mesh).json + ", \"conversion\": " + real(h.conversion).json +
                          ", \"on_chip\": " + real(h.on_chip).json + "}"};
}

struct Row {
  std::string key;    // JSON name
  std::string label;  // table text
  std::vector<Cell> cells;
};

struct Report {
  std::string title;                 // the model and its sizes
  std::string note;                  // what the columns are
  std::vector<std::string> columns;  // JSON names of the columns
  std::vector<std::string> headers;  // their table headers
  std::vector<Row> rows;
};

// The hop counts of a path and their cost under Table II and §V-C.
void add_path(Report& r, const std::string& key, const std::string& label,
              const std::vector<const net::PathHops*>& paths) {
  Row hops{key, label, {}}, table_ii{key + "_pj_per_bit", "  energy, Table II [pJ/bit]", {}},
      section_vc{key + "_pj_per_bit_vc", "  energy, Sec. V-C: 1 pJ/bit per C-group hop", {}},
      latency{key + "_ns", "  latency, Table II [ns, no time of flight]", {}};
  const net::HopCosts costs, vc = net::section_vc_costs();
  for (const net::PathHops* p : paths) {
    hops.cells.push_back(p ? path(*p) : Cell{});
    table_ii.cells.push_back(p ? real(energy_pj_per_bit(*p, costs)) : Cell{});
    section_vc.cells.push_back(
        p && p->short_reach() + p->on_chip > 0 ? real(energy_pj_per_bit(*p, vc)) : Cell{});
    latency.cells.push_back(p ? real(latency_ns(*p, costs)) : Cell{});
  }
  for (Row* row : {&hops, &table_ii, &section_vc, &latency}) {
    // A switch-based path has no C-group hops: leave out a row of nothing but "-".
    const bool any = std::any_of(row->cells.begin(), row->cells.end(),
                                 [](const Cell& c) { return c.json != "null"; });
    if (any) r.rows.push_back(std::move(*row));
  }
}

Report dragonfly_report(const ParamSet& p) {
  const auto d = net::analyse_dragonfly(
      static_cast<uint64_t>(p.integer("p")), static_cast<uint64_t>(p.integer("a")),
      static_cast<uint64_t>(p.integer("h")), static_cast<uint64_t>(p.integer("g")));
  Report r{"dragonfly p=" + std::to_string(d.p) + " a=" + std::to_string(d.a) +
               " h=" + std::to_string(d.h) + " g=" + std::to_string(d.g),
           "switch-based Dragonfly (Kim et al. 2008) as the switch-less Dragonfly paper counts it "
           "(Table III)",
           {"switch_based"},
           {"switch-based"},
           {}};
  const auto add = [&r](std::string key, std::string label, Cell c) {
    r.rows.push_back({std::move(key), std::move(label), {std::move(c)}});
  };
  add("radix", "switch radix p + (a-1) + h", count(d.radix));
  add("terminals", "terminals per switch p", count(d.p));
  add("global_ports", "global ports per switch h", count(d.h));
  add("groups", "groups g", count(d.g));
  add("switches", "switches a g", count(d.switches));
  add("endpoints", "endpoints N = p a g", count(d.endpoints));
  add("cabinets", "cabinets (128 nodes each, Sec. III-C3)", count(d.cabinets));
  add("cables", "cables: terminal + local + global", count(d.cables()));
  add("t_switch", "T inside a switch [flits/cycle/endpoint]", real(d.t_switch));
  add("t_local", "T_local inside a group: min(1, a/p)", real(d.t_local));
  add("t_global", "T_global: min(1, g^2/N)", real(d.t_global));
  add_path(r, "diameter", "diameter (minimal)", {&d.diameter});
  add_path(r, "mean_uniform", "mean minimal path, uniform traffic", {&d.mean_uniform});
  return r;
}

Report switchless_report(const ParamSet& p) {
  const auto s = net::sldf::analyse(
      static_cast<uint64_t>(p.integer("n")), static_cast<uint64_t>(p.integer("m")),
      static_cast<uint64_t>(p.integer("a")), static_cast<uint64_t>(p.integer("b")),
      static_cast<uint64_t>(p.integer("chip_mesh")));
  const net::DragonflyAnalytic d = net::sldf::switch_based_equivalent(s);
  Report r{"switchless_dragonfly n=" + std::to_string(s.n) + " m=" + std::to_string(s.m) +
               " a=" + std::to_string(s.a) + " b=" + std::to_string(s.b) +
               " chip_mesh=" + std::to_string(s.chip_mesh),
           "Switch-less Dragonfly on Wafers (Sec. III); switch-based: the Dragonfly with a "
           "C-group's chiplets as a switch's terminals (Table III)",
           {"switch_less", "switch_based"},
           {"switch-less", "switch-based"},
           {}};
  const auto add = [&r](std::string key, std::string label, Cell a, Cell b = {}) {
    r.rows.push_back({std::move(key), std::move(label), {std::move(a), std::move(b)}});
  };
  add("ports", "C-group ports k = nm | switch radix", count(s.k), count(d.radix));
  add("terminals", "chiplets per C-group m^2 | terminals p", count(s.m * s.m), count(d.p));
  add("global_ports", "global ports per C-group h = k - ab + 1", count(s.h), count(d.h));
  add("cgroups_per_wgroup", "C-groups per W-group ab | switches a", count(s.ab()), count(d.a));
  add("groups", "W-groups g = ab h + 1", count(s.g), count(d.g));
  add("switches", "C-groups | switches", count(s.cgroups), count(d.switches));
  add("wafers", "wafers b g", count(s.wafers));
  add("chiplets", "chiplets N = ab m^2 g (Eq. 1)", count(s.chiplets), count(d.endpoints));
  add("endpoints", "endpoints N chip_mesh^2", count(s.endpoints), count(d.endpoints));
  add("wafer_ports", "IO channels per wafer a k (Sec. III-E)", count(s.wafer_ports));
  add("cabinets", "cabinets (8 wafers each, Sec. III-C3)", count(s.cabinets), count(d.cabinets));
  add("cables", "cables: [terminal +] local + global", count(s.cables()), count(d.cables()));
  add("t_cgroup", "T_cg in a C-group n/m (Eq. 5) [flits/cycle/chip]", real(s.t_cgroup),
      real(d.t_switch));
  add("t_local", "T_local in a W-group ab/m^2 (Eq. 4)", real(s.t_local), real(d.t_local));
  add("t_global", "T_global (mn - ab + 1)/m^2 (Eq. 2)", real(s.t_global), real(d.t_global));
  add("t_global_bisection", "  Eq. 2 before simplifying: g^2/N", real(s.t_global_bisection));
  add("mesh_bisection", "C-group mesh bisection nm/2 [flits/cycle] (Eq. 6)",
      real(s.mesh_bisection));
  add_path(r, "diameter", "diameter (Eq. 7)", {&s.diameter, &d.diameter});
  net::PathHops bare = s.diameter;
  bare.conversion = 0;
  add("diameter_without_conversion", "diameter less its SR-LR conversion hops", path(bare));
  add_path(r, "wgroup_diameter", "W-group diameter (Sec. III-D1)", {&s.wgroup_diameter, nullptr});
  const net::PathHops* mean = s.mean_uniform ? &*s.mean_uniform : nullptr;
  add_path(r, "mean_uniform", "mean minimal path, uniform traffic", {mean, &d.mean_uniform});
  return r;
}

Report railx_report(const ParamSet& p) {
  const auto a = net::railx::analyse(static_cast<uint64_t>(p.integer("m")),
                                     static_cast<uint64_t>(p.integer("n")),
                                     static_cast<uint64_t>(p.integer("ocs_radix")));
  Report r{"railx m=" + std::to_string(a.m) + " n=" + std::to_string(a.n) +
               " R=" + std::to_string(a.radix),
           "RailX (Sec. 3.2-3.3): the full (R/2 x R/2)-node system of these nodes and OCSes; "
           "the configured x and y only choose which part of it a run builds",
           {"railx"},
           {"value"},
           {}};
  const auto add = [&r](std::string key, std::string label, Cell c) {
    r.rows.push_back({std::move(key), std::move(label), {std::move(c)}});
  };
  add("rails", "rails per axis r = mn", count(a.r));
  add("chips", "chips N = (R/2)^2 m^2 (Eq. 1)", count(a.chips));
  add("switches", "OCSes N_s = rR (Eq. 1)", count(a.switches));
  add("torus_chips", "Table 2 torus: (R/2)^2 m^2 chips, diameter R H_o", count(a.torus_chips));
  add("hyperx_chips", "Table 2 HyperX: (r+1)^2 m^2 chips, diameter 2 H_o", count(a.hyperx_chips));
  add("dragonfly_chips", "Table 2 Dragonfly: (r+1)(R/2) m^2 chips, diameter 3 H_o",
      count(a.dragonfly_chips));
  add("t_torus", "all-to-all bound, torus 16n/(Rm) (Eq. 2) [flits/cycle/chip]", real(a.t_torus));
  add("t_hyperx", "all-to-all bound, HyperX 2(r+1)/m^2 (Eq. 3)", real(a.t_hyperx));
  add("t_hyperx_approx", "  Eq. 3's approximation 2n/m", real(a.t_hyperx_approx));
  add("hyperx_diameter_mesh_hops", "HyperX diameter 2 H_o + (5m-6) H_i: H_i count",
      count(a.hyperx_mesh_hops));
  add("ocs", "cost: OCSes (Table 6 rules)", count(a.cost.switches));
  add("aot", "cost: optical transceivers", count(a.cost.aot));
  add("cost_musd", "cost [M$]", real(a.cost.cost_musd));
  add("cost_per_inject", "cost per injection bandwidth (2-tier fat tree = 1)",
      real(a.cost.cost_per_inject));
  add("global_bw_pct", "global bandwidth [% of injection]", real(a.cost.global_bw_pct));
  add("cost_per_gbw", "cost per global bandwidth (2-tier fat tree = 1)", real(a.cost.cost_per_gbw));
  if (a.availability_01 > 0) {
    add("availability_0_1pct", "single-job availability at 0.1% node failures (Fig. 17)",
        real(a.availability_01));
  }
  return r;
}

// Fig. 17 for the full (R/2 x R/2)-node system: the largest single job (Algorithm 2) and the
// worst case (R/2 - a)^2, averaged over 100 fault sets, per node failure rate (b) and per number
// of faulted nodes (a). Points whose faults are too clustered for Algorithm 2 (more than 24
// sharing rows or columns) are left empty.
Report railx_availability_report(const ParamSet& p) {
  const auto side = static_cast<uint32_t>(p.integer("ocs_radix") / 2);
  Report r{"railx availability R=" + std::to_string(2 * side) + ": " + std::to_string(side) +
               " x " + std::to_string(side) + " nodes",
           "Fig. 17: mean over 100 fault sets (seed 1) of the faulted nodes, the largest "
           "single job (Algorithm 2) and the worst case (R/2 - a)^2, in nodes; availability = "
           "mean / (R/2)^2",
           {"faults", "mean_nodes", "worst_nodes", "availability"},
           {"faults", "mean", "worst", "availability"},
           {}};
  const auto add = [&r](std::string key, std::string label, const auto& compute) {
    Row row{std::move(key), std::move(label), {}};
    try {
      const net::railx::AvailabilityPoint a = compute();
      row.cells = {real(a.mean_faults), real(a.mean_size), real(a.worst_size),
                   real(a.availability)};
    } catch (const InputError&) {
      row.cells = {Cell{}, Cell{}, Cell{}, Cell{}};
    }
    r.rows.push_back(std::move(row));
  };
  for (const double rate : {0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01}) {
    char key[32], label[48];
    std::snprintf(key, sizeof key, "rate_%g", rate);
    std::snprintf(label, sizeof label, "node failure rate %g%%", rate * 100);
    add(key, label, [&] { return net::railx::availability_curve(side, {rate}).front(); });
  }
  for (const uint64_t faults : {1, 2, 4, 8, 12, 16}) {
    add("faults_" + std::to_string(faults), std::to_string(faults) + " faulted nodes",
        [&] { return net::railx::allocation_with_faults(side, faults); });
  }
  return r;
}

void print_table(const Report& r) {
  std::printf("# hxsim topo: %s\n# %s\n", r.title.c_str(), r.note.c_str());
  std::size_t label_width = 0;
  std::vector<std::size_t> widths;
  for (const std::string& h : r.headers) widths.push_back(h.size());
  for (const Row& row : r.rows) {
    label_width = std::max(label_width, row.label.size());
    for (std::size_t c = 0; c < row.cells.size(); ++c) {
      widths[c] = std::max(widths[c], row.cells[c].text.size());
    }
  }
  // Padded to the column widths, except the last column (no trailing blanks).
  const auto line = [&](const std::string& label, const std::vector<std::string>& cells) {
    std::printf("%-*s", static_cast<int>(label_width), label.c_str());
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const int width = c + 1 < cells.size() ? static_cast<int>(widths[c]) : 0;
      std::printf("  %-*s", width, cells[c].c_str());
    }
    std::printf("\n");
  };
  line("", r.headers);
  for (const Row& row : r.rows) {
    std::vector<std::string> cells;
    for (const Cell& c : row.cells) cells.push_back(c.text);
    line(row.label, cells);
  }
}

// {"title": ..., "<column>": {"<key>": value, ...}, ...}; unknown values are left out.
void print_json(const Report& r) {
  std::printf("{\n  \"title\": \"%s\",\n  \"note\": \"%s\"", r.title.c_str(), r.note.c_str());
  for (std::size_t c = 0; c < r.columns.size(); ++c) {
    std::printf(",\n  \"%s\": {", r.columns[c].c_str());
    bool first = true;
    for (const Row& row : r.rows) {
      if (c >= row.cells.size() || row.cells[c].json == "null") continue;
      std::printf("%s\n    \"%s\": %s", first ? "" : ",", row.key.c_str(),
                  row.cells[c].json.c_str());
      first = false;
    }
    std::printf("\n  }");
  }
  std::printf("\n}\n");
}

}  // namespace

int command_topo(MPI_Comm comm, const Registry& registry, const std::string& path,
                 const std::vector<std::string>& overrides, bool json, bool availability) {
  Config config = load_config_file(path);
  for (const std::string& s : overrides) apply_override(config, s);
  const ResolvedConfig resolved = resolve_config(registry, config);
  const std::string& model = resolved.info->name;
  const ParamSet& params = resolved.sections.front();
  Report report;
  if (availability && model != "railx") {
    throw InputError("--availability: Fig. 17's single-job availability is RailX's; model '" +
                     model + "' has none");
  }
  if (availability) {
    report = railx_availability_report(params);
  } else if (model == "switchless_dragonfly") {
    report = switchless_report(params);
  } else if (model == "dragonfly") {
    report = dragonfly_report(params);
  } else if (model == "railx") {
    report = railx_report(params);
  } else {
    throw InputError("model '" + model +
                     "' has no closed forms in hxsim topo yet; it knows dragonfly, railx and "
                     "switchless_dragonfly");
  }
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    if (json) {
      print_json(report);
    } else {
      print_table(report);
    }
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace hx
