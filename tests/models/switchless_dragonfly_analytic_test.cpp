// Regressions of the closed forms behind `hxsim topo` against the numbers the Switch-less
// Dragonfly on Wafers paper prints: Table II (hop costs), Table III (the n=12, m=4, a=4, b=8
// system and the Slingshot Dragonfly of the same size), and the sizes quoted in §III and §V.
// Integers are checked exactly; reals the paper prints rounded are checked within the rounding
// stated at each test. The mean minimal path, which the paper does not print, is checked against
// the routings themselves: the mean over every path the route explorer walks.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "models/topologies/dragonfly/dragonfly.h"
#include "models/topologies/switchless_dragonfly/analytic.h"
#include "models/topologies/switchless_dragonfly/switchless_dragonfly.h"
#include "models/topologies/switchless_dragonfly/table3.h"
#include "models/verification/route_explorer.h"

namespace hx::net {
namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;

Network build(const TopologyFamily& family, const Settings& settings) {
  Config config;
  for (const auto& [key, value] : settings) config.set(family.name + "." + key, value, "test");
  return family.make(resolve_section(config, family.name, family.params, SimTime::ns(1)));
}

// Router-to-router hops of the routing's paths, averaged per pair, then over all ordered pairs.
double mean_routed_hops(const Network& net) {
  const Topology& t = *net.topology;
  double total = 0;
  uint64_t pairs = 0;
  for (uint32_t s = 0; s < t.num_endpoints(); ++s) {
    for (uint32_t d = 0; d < t.num_endpoints(); ++d) {
      if (s == d) continue;
      double hops = 0;
      uint64_t paths = 0;
      ExploreVisitor visitor;
      visitor.on_delivered = [&](uint32_t h) {
        hops += h;
        ++paths;
      };
      explore_routes(t, *net.routing, net.routing->vcs(), s, d, t.diameter(), visitor);
      total += hops / static_cast<double>(paths);
      ++pairs;
    }
  }
  return total / static_cast<double>(pairs);
}

TEST(SwitchlessAnalytic, TableIIIRow) {
  // Table III, "Switch-less Dragonfly" (§III-C: n = 12, m = 4, a = 4, b = 8).
  const sldf::Analytic s = sldf::analyse(12, 4, 4, 8);
  EXPECT_EQ(s.n, 12u);  // chip-radix
  EXPECT_EQ(s.k, 48u);
  EXPECT_EQ(s.h, 17u);
  EXPECT_EQ(s.g, 545u);                 // "up to g = 545 W-groups"
  EXPECT_EQ(s.chiplets, 279'040u);      // #Processor, Eq. 1
  EXPECT_EQ(s.ab() * s.h, 544u);        // "a total of 544 off-W-group ports"
  EXPECT_EQ(s.a * s.m * s.m, 64u);      // "Each wafer has 4 C-groups (64 chiplets)"
  EXPECT_EQ(s.ab() * s.m * s.m, 512u);  // "a W-group (512 chiplets)"
  EXPECT_EQ(s.cabinets, 545u);          // #Cabinet (8 wafers per cabinet)
  EXPECT_EQ(s.wafer_ports, 192u);       // §III-E: "the total number of IO channels for a wafer"
  EXPECT_EQ((s.cables() + 500) / 1000, 419u);  // "N=419K" cables, printed in thousands
  // T_local "3(2)": intra-C-group (Eq. 5) and intra-W-group (Eq. 4), exact.
  EXPECT_DOUBLE_EQ(s.t_cgroup, 3.0);
  EXPECT_DOUBLE_EQ(s.t_local, 2.0);
  // T_global "1": Eq. 2 gives (mn - ab + 1) / m^2 = 17/16, and g^2/N = 545/512 before the
  // simplification; the table rounds both to 1 (within 1/m^2 + 0.01).
  EXPECT_DOUBLE_EQ(s.t_global, 17.0 / 16);
  EXPECT_DOUBLE_EQ(s.t_global_bisection, 545.0 / 512);
  EXPECT_NEAR(s.t_global, 1.0, 1.0 / 16 + 0.01);
  EXPECT_NEAR(s.t_global_bisection, 1.0, 1.0 / 16 + 0.01);
  // Diameter H_g + 2 H_l + 30 H_sr (Eq. 7, 8m - 2 with m = 4): 24 mesh + 6 conversion hops.
  EXPECT_EQ(s.diameter.global, 1);
  EXPECT_EQ(s.diameter.local, 2);
  EXPECT_EQ(s.diameter.short_reach(), 30);
  EXPECT_EQ(s.diameter.mesh, 24);
  EXPECT_EQ(s.diameter.conversion, 6);
  EXPECT_EQ(s.diameter.on_chip, 0);
  EXPECT_DOUBLE_EQ(s.mesh_bisection, 24.0);  // Eq. 6: nm / 2
}

TEST(SwitchlessAnalytic, TableIIIDragonflyRow) {
  // Table III, "Dragonfly (Slingshot)": the switch-based system of the same size (64-port
  // switches, 16 terminals, 31 local and 17 global ports).
  const DragonflyAnalytic d = sldf::switch_based_equivalent(sldf::analyse(12, 4, 4, 8));
  EXPECT_EQ(d.p, 16u);
  EXPECT_EQ(d.a, 32u);
  EXPECT_EQ(d.h, 17u);
  EXPECT_EQ(d.radix, 64u);                     // SW-radix
  EXPECT_EQ(d.switches, 17'440u);              // #Switch
  EXPECT_EQ(d.cabinets, 2'180u);               // #Cabinet
  EXPECT_EQ(d.endpoints, 279'040u);            // #Processor
  EXPECT_EQ((d.cables() + 500) / 1000, 698u);  // "N=698K"
  EXPECT_DOUBLE_EQ(d.t_switch, 1.0);           // T_local "1(1)"
  EXPECT_DOUBLE_EQ(d.t_local, 1.0);
  EXPECT_DOUBLE_EQ(d.t_global, 1.0);  // T_global 1
  // Diameter H_g + 2 H_l + 2 H_l*.
  EXPECT_EQ(d.diameter.global, 1);
  EXPECT_EQ(d.diameter.local, 2);
  EXPECT_EQ(d.diameter.terminal, 2);
  EXPECT_EQ(d.diameter.short_reach(), 0);
}

// Table III's other rows, each built of the Slingshot Dragonfly's 64-port switches (§III-C),
// against the table as printed: cables "in thousands" (N = 197K, ...), T_global 4/3 as a fraction.
TEST(SwitchlessAnalytic, TableIIIOtherRows) {
  const std::vector<sldf::SystemSpecs> t = sldf::table3(sldf::analyse(12, 4, 4, 8));
  const auto column = [&t](const std::string& key) {
    const auto it = std::find_if(t.begin(), t.end(),
                                 [&key](const sldf::SystemSpecs& s) { return s.key == key; });
    EXPECT_NE(it, t.end()) << key;
    return it == t.end() ? sldf::SystemSpecs{} : *it;
  };
  const auto thousands = [](uint64_t n) { return (n + 500) / 1000; };
  struct Row {
    const char* key;
    uint64_t chip_radix, switches, cabinets, processors, cables_k;
    double t_local, t_global;
  };
  // "Three-Stage Fat-Tree" (chip radix 1, then 4), "Three-Stage F-T (3:1 Taper)", "1-Plane
  // Hx4Mesh", "4-Plane Hx4Mesh" (its #Processor cell is merged with the row above: 65,536),
  // "Co-Packaged PolarFly (p=32)".
  const Row rows[] = {{"fat_tree", 1, 5'120, 608, 65'536, 197, 1, 1},
                      {"fat_tree_4", 4, 20'480, 896, 65'536, 786, 4, 4},
                      {"fat_tree_4_taper3", 4, 14'336, 960, 98'304, 655, 4, 4.0 / 3},
                      {"hx4mesh", 4, 5'120, 352, 65'536, 197, 2, 0.5},
                      {"hx4mesh_4", 16, 20'480, 640, 65'536, 786, 8, 2},
                      {"polarfly", 1, 4'033, 505, 129'056, 129, 1, 1}};
  for (const Row& r : rows) {
    const sldf::SystemSpecs s = column(r.key);
    EXPECT_EQ(s.switch_radix, 64u) << r.key;
    EXPECT_EQ(s.chip_radix, r.chip_radix) << r.key;
    EXPECT_EQ(s.switches, r.switches) << r.key;
    EXPECT_EQ(s.cabinets, r.cabinets) << r.key;
    EXPECT_EQ(s.processors, r.processors) << r.key;
    EXPECT_EQ(thousands(s.cables), r.cables_k) << r.key;
    EXPECT_DOUBLE_EQ(s.t_local, r.t_local) << r.key;
    EXPECT_DOUBLE_EQ(s.t_global, r.t_global) << r.key;
  }
  // PolarFly: the paper prints 504 cabinets, 4,033 packages / 8 rounded down; a whole system
  // needs 505. ER_63's quadrics have degree 63, so 129,024 links, not 4,033 * 64 / 2.
  EXPECT_EQ(column("polarfly").cables, 129'024u);
  // Diameters: 2H_g + 2H_l + 2H_l* (the fat trees), 2H_g + 2H_sr (PolarFly).
  for (const char* key : {"fat_tree", "fat_tree_4", "fat_tree_4_taper3"}) {
    const PathHops d = column(key).diameter;
    EXPECT_EQ(d.global, 2) << key;
    EXPECT_EQ(d.local, 2) << key;
    EXPECT_EQ(d.terminal, 2) << key;
    EXPECT_EQ(d.short_reach(), 0) << key;
  }
  const PathHops pf = column("polarfly").diameter;
  EXPECT_EQ(pf.global, 2);
  EXPECT_EQ(pf.short_reach(), 2);
  EXPECT_EQ(pf.local + pf.terminal, 0);
  // The table's last two rows are the columns of TableIIIRow and TableIIIDragonflyRow.
  EXPECT_EQ(column("dragonfly").switches, 17'440u);
  EXPECT_EQ(column("switch_less").processors, 279'040u);
  EXPECT_EQ(column("switch_less").switches, 0u);
}

TEST(SwitchlessAnalytic, TableIIHopCosts) {
  // Table II: energy 20+ (H_g, H_l), ~2 (H_sr), ~0.1 (on-chip) pJ/bit; latency 150 + ToF, ~5,
  // ~1 ns. §V-C: an intra-C-group hop at 1 pJ/bit.
  const HopCosts c;
  EXPECT_EQ(c.long_reach_pj, 20);
  EXPECT_EQ(c.mesh_pj, 2);
  EXPECT_EQ(c.conversion_pj, 2);
  EXPECT_EQ(c.on_chip_pj, 0.1);
  EXPECT_EQ(c.long_reach_ns, 150);
  EXPECT_EQ(c.short_reach_ns, 5);
  EXPECT_EQ(c.on_chip_ns, 1);
  EXPECT_EQ(section_vc_costs().mesh_pj, 1);
  // The worst-case paths of Table III's two systems, hop by hop.
  const sldf::Analytic s = sldf::analyse(12, 4, 4, 8);
  const DragonflyAnalytic d = sldf::switch_based_equivalent(s);
  EXPECT_DOUBLE_EQ(energy_pj_per_bit(s.diameter, c), 3 * 20 + 30 * 2);
  EXPECT_DOUBLE_EQ(energy_pj_per_bit(s.diameter, section_vc_costs()), 3 * 20 + 24 * 1 + 6 * 2);
  EXPECT_DOUBLE_EQ(energy_pj_per_bit(d.diameter, c), 5 * 20);
  EXPECT_DOUBLE_EQ(latency_ns(s.diameter, c), 3 * 150 + 30 * 5);
  EXPECT_DOUBLE_EQ(latency_ns(d.diameter, c), 5 * 150);
}

TEST(SwitchlessAnalytic, SizesQuotedInTheText) {
  // §III-B1: (a, b, m, n) = (2, 4, 2, 6) "can reach 1K" chiplets; it is §V's radix-16 system:
  // k = 12 external ports, 7 local and 5 global (§V-B1), 41 W-groups of 32 chips, 1312 chips
  // and 5248 on-chip nodes with 2 x 2 routers per chiplet (§V-B2), 40 global links per W-group
  // (§V-B4: "3/40", "1/40").
  const sldf::Analytic r16 = sldf::analyse(6, 2, 2, 4, 2);
  EXPECT_EQ(r16.k, 12u);
  EXPECT_EQ(r16.ab() - 1, 7u);
  EXPECT_EQ(r16.h, 5u);
  EXPECT_EQ(r16.g, 41u);
  EXPECT_EQ(r16.ab() * r16.m * r16.m, 32u);
  EXPECT_EQ(r16.chiplets, 1312u);
  EXPECT_EQ(r16.endpoints, 5248u);
  EXPECT_EQ(r16.g - 1, 40u);
  // With 2 x 2 on-chip routers a corner-to-corner crossing of a C-group takes 2 (2m - 1) router
  // hops, 2 (m - 1) of them between chiplets.
  EXPECT_EQ(r16.diameter.mesh + r16.diameter.on_chip, 4 * 2 * (2 * 2 - 1));
  // The switch-based baseline of §V-A4: ports 4:7:5, (41, 1312).
  const DragonflyAnalytic d16 = sldf::switch_based_equivalent(sldf::analyse(6, 2, 2, 4));
  EXPECT_EQ(d16.radix, 16u);
  EXPECT_EQ(d16.g, 41u);
  EXPECT_EQ(d16.endpoints, 1312u);
  // §V-A4 radix 32: ports 8:15:9, (145, 18560).
  const DragonflyAnalytic d32 = analyse_dragonfly(8, 16, 9);
  EXPECT_EQ(d32.radix, 32u);
  EXPECT_EQ(d32.g, 145u);
  EXPECT_EQ(d32.endpoints, 18'560u);

  // §III-D1: single-chiplet C-groups with 12 ports build "a system of up to 333 chips"; a single
  // W-group has diameter H_l + (4m - 2) H_sr.
  uint64_t largest = 0;
  for (uint64_t ab = 1; ab <= 12; ++ab) {
    largest = std::max(largest, sldf::analyse(12, 1, ab, 1).chiplets);
  }
  EXPECT_EQ(largest, 333u);
  for (uint64_t m : {1u, 2u, 4u}) {
    const sldf::Analytic s = sldf::analyse(12, m, 2, 2);
    EXPECT_EQ(s.wgroup_diameter.local, 1);
    EXPECT_EQ(s.wgroup_diameter.short_reach(), static_cast<double>(4 * m - 2));
  }
  // §III-E: "a wafer with 9 C-groups ... only 36 inter-C-group wafer-level channels".
  EXPECT_EQ(sldf::analyse(12, 4, 9, 1).wafer_cgroup_links, 36u);
  // Eq. 3 (n = 3m, ab = 2m^2): T_local = 2, T_cg = 3 and T_global about 1 (1 + 1/m^2).
  const sldf::Analytic eq3 = sldf::analyse(9, 3, 6, 3);
  EXPECT_DOUBLE_EQ(eq3.t_local, 2.0);
  EXPECT_DOUBLE_EQ(eq3.t_cgroup, 3.0);
  EXPECT_DOUBLE_EQ(eq3.t_global, 1.0 + 1.0 / 9);
}

TEST(SwitchlessAnalytic, MeanMinimalPathIsTheRoutingsMean) {
  // Router-to-router hops of the minimal routing (dimension order in C-groups) over every ordered
  // pair, against the enumeration over one W-group's ports; with on-chip meshes too. The
  // diameter is the topology's own hop bound.
  for (const auto& [n, m, a, b, chip] : std::vector<std::array<uint32_t, 5>>{
           {4, 2, 2, 2, 1}, {6, 3, 1, 2, 1}, {3, 2, 1, 3, 2}, {4, 1, 1, 3, 3}}) {
    SCOPED_TRACE(std::to_string(n) + " " + std::to_string(m) + " " + std::to_string(a) + " " +
                 std::to_string(b) + " chip " + std::to_string(chip));
    const Network net = build(switchless_dragonfly_family(), {{"n", std::to_string(n)},
                                                              {"m", std::to_string(m)},
                                                              {"a", std::to_string(a)},
                                                              {"b", std::to_string(b)},
                                                              {"chip_mesh", std::to_string(chip)}});
    const sldf::Analytic s = sldf::analyse(n, m, a, b, chip);
    EXPECT_EQ(net.topology->num_endpoints(), s.endpoints);
    const PathHops& d = s.diameter;
    EXPECT_EQ(net.topology->diameter(), d.global + d.local + d.mesh + d.on_chip);
    ASSERT_TRUE(s.mean_uniform.has_value());
    const PathHops& mean = *s.mean_uniform;
    EXPECT_NEAR(mean.mesh + mean.on_chip + mean.local + mean.global, mean_routed_hops(net), 1e-9);
    EXPECT_DOUBLE_EQ(mean.conversion, 2 * (mean.local + mean.global));
    if (chip == 1) {
      EXPECT_EQ(mean.on_chip, 0);
    }
  }
}

TEST(SwitchlessAnalytic, DragonflyMeanMinimalPathIsTheRoutingsMean) {
  for (const auto& [p, a, h] : std::vector<std::array<uint32_t, 3>>{{2, 4, 2}, {3, 3, 1}}) {
    const Network net = build(dragonfly_family(), {{"p", std::to_string(p)},
                                                   {"a", std::to_string(a)},
                                                   {"h", std::to_string(h)},
                                                   {"routing", "minimal"}});
    const DragonflyAnalytic d = analyse_dragonfly(p, a, h);
    EXPECT_NEAR(d.mean_uniform.local + d.mean_uniform.global, mean_routed_hops(net), 1e-9);
    EXPECT_EQ(d.mean_uniform.terminal, 2);
  }
}

}  // namespace
}  // namespace hx::net
