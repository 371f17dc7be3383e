// Table III's columns (table3.h) and `hxsim topo --table3`'s report.
#include "models/topologies/switchless_dragonfly/table3.h"

#include <algorithm>
#include <string>

#include "core/error.h"

namespace hx::net::sldf {
namespace {

// §III-C3's packaging: 64 blades of 2 nodes per cabinet with their top-of-rack switches, 32
// further (non-ToR) switches per cabinet, and twice the chips per cabinet for short-reach boards
// and co-packages: 16 Hx4Mesh boards or 8 PolarFly packages.
constexpr uint64_t kNodesPerCabinet = 128;
constexpr uint64_t kSwitchesPerCabinet = 32;
constexpr uint64_t kBoardsPerCabinet = 16;
constexpr uint64_t kPackagesPerCabinet = 8;

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// The switches of one plane of a three-stage fat tree of radix-port switches: R pods of R/2 edge
// switches, each with `up` ports towards aggregation switches of R/2 down and R/2 up, under core
// switches of R down. The edge switches' other ports are the tree's leaves.
struct FatTreePlane {
  uint64_t edge = 0, aggregation = 0, core = 0;
  uint64_t leaves = 0;    // ports at the edge switches for processors (or boards)
  uint64_t up_links = 0;  // edge-aggregation links, as many as aggregation-core links
};

FatTreePlane fat_tree_plane(uint64_t radix, uint64_t down, uint64_t up) {
  FatTreePlane f;
  f.edge = radix * radix / 2;
  f.up_links = f.edge * up;
  f.aggregation = f.up_links / (radix / 2);
  f.core = f.up_links / radix;
  f.leaves = f.edge * down;
  return f;
}

void check_radix(uint64_t radix, uint64_t divisor, const char* what) {
  if (radix < 4 || radix % divisor != 0) {
    throw InputError(std::string("table3: ") + what + " needs a switch radix of at least 4 that " +
                     std::to_string(divisor) + " divides; the switch-based equivalent has " +
                     std::to_string(radix));
  }
}

}  // namespace

SystemSpecs fat_tree(uint64_t radix, uint64_t planes, uint64_t taper) {
  check_radix(radix, 2 * (taper + 1), "a fat tree");
  const uint64_t up = radix / (taper + 1), down = radix - up;
  const FatTreePlane f = fat_tree_plane(radix, down, up);
  SystemSpecs s;
  s.chip_radix = planes;
  s.switch_radix = radix;
  s.switches = planes * (f.edge + f.aggregation + f.core);
  s.processors = f.leaves;
  // Every processor's port on each plane, then edge-aggregation and aggregation-core links.
  s.cables = planes * (f.leaves + 2 * f.up_links);
  // Nodes with their ToR (edge) switches, then the other switches 32 to a cabinet.
  s.cabinets = ceil_div(s.processors, kNodesPerCabinet) +
               ceil_div(planes * (f.aggregation + f.core), kSwitchesPerCabinet);
  // An edge switch's processors meet inside it, at their injection rate; across the system the
  // edge switches' uplinks carry at most up/down of it.
  s.t_local = static_cast<double>(planes);
  s.t_global = static_cast<double>(planes) * std::min(1.0, static_cast<double>(up) / down);
  s.diameter.terminal = 2;  // processor to edge switch and back
  s.diameter.local = 2;     // edge to aggregation and back
  s.diameter.global = 2;    // aggregation to core and back
  return s;
}

SystemSpecs hamming_mesh(uint64_t radix, uint64_t board, uint64_t planes) {
  check_radix(radix, 4, "HammingMesh");
  // One full fat tree per plane over every board's edge ports, `board` on each side.
  const FatTreePlane f = fat_tree_plane(radix, radix / 2, radix / 2);
  const uint64_t board_ports = 4 * board;
  SystemSpecs s;
  s.chip_radix = 4 * planes;  // the board mesh's four directions on each plane
  s.switch_radix = radix;
  s.switches = planes * (f.edge + f.aggregation + f.core);
  const uint64_t boards = f.leaves / board_ports;
  s.processors = boards * board * board;
  s.cables = planes * (f.leaves + 2 * f.up_links);
  s.cabinets = ceil_div(boards, kBoardsPerCabinet) +
               ceil_div(planes * (f.aggregation + f.core), kSwitchesPerCabinet);
  // A board's mesh closes into a torus through its edge ports: uniform traffic on a k-ary
  // 2-cube loads a link with k/8 of the injection rate, so 8/k per processor and plane.
  s.t_local = 8.0 * static_cast<double>(planes) / static_cast<double>(board);
  // Routed dimension by dimension, a packet leaves two boards (its own and the one where it
  // turns) through the 4 * board edge ports per plane that a board's board^2 processors share.
  s.t_global =
      static_cast<double>(board_ports * planes) / (2.0 * static_cast<double>(board * board));
  return s;  // no diameter: HammingMesh's routing across boards is not modelled here
}

SystemSpecs polarfly(uint64_t radix, uint64_t per_package) {
  if (radix < 3 || per_package < 1) {
    throw InputError("table3: PolarFly needs a radix of at least 3 and a processor per package");
  }
  const uint64_t q = radix - 1, packages = q * q + q + 1;
  // ER_q: q + 1 of its vertices (the quadrics) lie on their own line, so their degree is q.
  const uint64_t directed = packages * (q + 1) - (q + 1);
  SystemSpecs s;
  s.chip_radix = 1;
  s.switch_radix = radix;
  s.switches = packages;
  s.processors = packages * per_package;
  s.cables = directed / 2;
  s.cabinets = ceil_div(packages, kPackagesPerCabinet);
  s.t_local = 1;  // a package's processors meet in its module at their injection rate
  // Diameter 2: a vertex reaches its neighbours in one hop and the rest in two. Uniform traffic
  // crosses a mean of h links (none inside a package); the links carry directed / processors each.
  const auto n = static_cast<double>(packages);
  const double mean_hops = (2 * n * (n - 1) - static_cast<double>(directed)) / (n * (n - 1));
  const auto procs = static_cast<double>(s.processors);
  const double hops_per_packet =
      mean_hops * (procs - static_cast<double>(per_package)) / (procs - 1);
  s.t_global = std::min(1.0, static_cast<double>(directed) / procs / hops_per_packet);
  s.diameter.global = 2;  // module to module, optical
  s.diameter.mesh = 2;    // processor to module and back, inside the package (short reach)
  return s;
}

std::vector<SystemSpecs> table3(const Analytic& sl) {
  const DragonflyAnalytic d = switch_based_equivalent(sl);
  const uint64_t r = d.radix;
  std::vector<SystemSpecs> t;
  const auto add = [&t](SystemSpecs s, std::string key, std::string label) {
    s.key = std::move(key);
    s.label = std::move(label);
    t.push_back(std::move(s));
  };
  add(fat_tree(r, 1, 1), "fat_tree", "fat tree");
  add(fat_tree(r, 4, 1), "fat_tree_4", "fat tree x4");
  add(fat_tree(r, 4, 3), "fat_tree_4_taper3", "x4, 3:1 taper");
  add(hamming_mesh(r, 4, 1), "hx4mesh", "Hx4Mesh");
  add(hamming_mesh(r, 4, 4), "hx4mesh_4", "Hx4Mesh x4");
  add(polarfly(r, r / 2), "polarfly", "PolarFly");
  t.push_back({.key = "dragonfly",
               .label = "Dragonfly",
               .chip_radix = 1,
               .switch_radix = r,
               .switches = d.switches,
               .cabinets = d.cabinets,
               .processors = d.endpoints,
               .cables = d.cables(),
               .t_local = d.t_local,
               .t_inner = d.t_switch,
               .t_global = d.t_global,
               .diameter = d.diameter});
  t.push_back({.key = "switch_less",
               .label = "switch-less",
               .chip_radix = sl.n,
               .cabinets = sl.cabinets,
               .processors = sl.chiplets,
               .cables = sl.cables(),
               .t_local = sl.t_local,
               .t_inner = sl.t_cgroup,
               .t_global = sl.t_global,
               .diameter = sl.diameter});
  return t;
}

ClosedForms table3_closed_forms(const ParamSet& p) {
  const Analytic sl =
      analyse(static_cast<uint64_t>(p.integer("n")), static_cast<uint64_t>(p.integer("m")),
              static_cast<uint64_t>(p.integer("a")), static_cast<uint64_t>(p.integer("b")));
  const std::vector<SystemSpecs> t = table3(sl);
  ClosedForms r{"switchless_dragonfly n=" + std::to_string(sl.n) + " m=" + std::to_string(sl.m) +
                    " a=" + std::to_string(sl.a) + " b=" + std::to_string(sl.b) + ": Table III",
                "Sec. III-C: systems of the switch-based equivalent's " +
                    std::to_string(t.front().switch_radix) +
                    "-port switches (fat trees on 1 or 4 planes, HammingMesh of 4 x 4 boards, "
                    "PolarFly of R/2 processors per package) and the switch-less Dragonfly; "
                    "cabinets as Sec. III-C3; the DOJO row is not reproduced",
                {},
                {},
                {}};
  for (const SystemSpecs& s : t) {
    r.columns.push_back(s.key);
    r.headers.push_back(s.label);
  }
  const auto row = [&r, &t](std::string key, std::string label, auto cell) {
    FormRow out{std::move(key), std::move(label), {}};
    for (const SystemSpecs& s : t) out.cells.push_back(cell(s));
    r.rows.push_back(std::move(out));
  };
  const auto count_or_none = [](uint64_t v) { return v == 0 ? FormCell{} : count_cell(v); };
  row("chip_radix", "chip radix", [](const SystemSpecs& s) { return count_cell(s.chip_radix); });
  row("switch_radix", "switch radix",
      [&](const SystemSpecs& s) { return count_or_none(s.switch_radix); });
  row("switches", "switches", [](const SystemSpecs& s) { return count_cell(s.switches); });
  row("cabinets", "cabinets", [](const SystemSpecs& s) { return count_cell(s.cabinets); });
  row("processors", "processors", [](const SystemSpecs& s) { return count_cell(s.processors); });
  row("cables", "cables", [](const SystemSpecs& s) { return count_cell(s.cables); });
  row("t_local", "T_local [flits/cycle/chip]",
      [](const SystemSpecs& s) { return real_cell(s.t_local); });
  row("t_inner", "  in a C-group or a switch",
      [](const SystemSpecs& s) { return s.t_inner > 0 ? real_cell(s.t_inner) : FormCell{}; });
  row("t_global", "T_global", [](const SystemSpecs& s) { return real_cell(s.t_global); });
  std::vector<const PathHops*> diameters;
  for (const SystemSpecs& s : t) {
    const bool known = s.diameter.long_reach() + s.diameter.short_reach() > 0;
    diameters.push_back(known ? &s.diameter : nullptr);
  }
  add_path_rows(r, "diameter", "diameter", diameters);
  return r;
}

}  // namespace hx::net::sldf
