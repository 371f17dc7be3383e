// Table 6's counting rules (cost.h). Every optical link between two electrical ends takes two
// AOTs; a port into an OCS takes one (§6.2). Global bandwidth is the bisection (TX + RX) per
// chip over its injection: a non-blocking switch or tree of E ports contributes E when the cut
// halves its ports, a taper t:1 divides it by t per tapered tier, a torus cut crosses the
// wrap-around twice.
#include "models/topologies/railx/cost.h"

#include <string>
#include <utility>

#include "core/error.h"

namespace hx::net::railx {
namespace {

// What a system needs, before prices.
struct Counts {
  uint64_t chips = 0, switches = 0, pcc = 0, aot = 0;
  uint32_t ports = 0;    // injection ports per chip
  double bisection = 0;  // ports, TX + RX
};

struct Tree {
  uint64_t switches = 0, links = 0;  // links counts the endpoint links too
};

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

uint64_t power(uint64_t base, uint32_t exponent) {
  uint64_t p = 1;
  for (uint32_t i = 0; i < exponent; ++i) p *= base;
  return p;
}

void require(bool ok, const std::string& what) {
  if (!ok) throw InputError("railx cost: " + what);
}

uint64_t down_ports(uint32_t taper, uint32_t radix) {
  require(taper >= 1 && radix % (taper + 1) == 0,
          "taper " + std::to_string(taper) + ":1 must split the radix " + std::to_string(radix));
  return uint64_t{radix} * taper / (taper + 1);
}

uint64_t max_endpoints(uint32_t tiers, uint32_t taper, uint32_t radix) {
  require(tiers >= 1, "a fat tree needs at least one tier");
  return radix * power(down_ports(taper, radix), tiers - 1);
}

// One plane of a fat tree: tiers below the top split ports down/up, the top is all down.
Tree tree(uint64_t endpoints, uint32_t tiers, uint32_t taper, uint32_t radix) {
  require(endpoints >= 1 && endpoints <= max_endpoints(tiers, taper, radix),
          std::to_string(endpoints) + " endpoints do not fit a " + std::to_string(tiers) +
              "-tier fat tree of radix " + std::to_string(radix));
  const uint64_t down = down_ports(taper, radix), up = radix - down;
  Tree t{.switches = 0, .links = endpoints};
  uint64_t below = endpoints;  // links into the next tier up
  for (uint32_t tier = 1; tier < tiers; ++tier) {
    const uint64_t s = ceil_div(below, down);
    t.switches += s;
    below = s * up;
    t.links += below;
  }
  t.switches += ceil_div(below, radix);
  return t;
}

CostRow finish(std::string name, const Counts& c, const Hardware& hw) {
  const auto cost = [&hw](const Counts& x) {
    return (static_cast<double>(x.switches) * hw.switch_usd +
            static_cast<double>(x.pcc) * hw.pcc_usd + static_cast<double>(x.aot) * hw.aot_usd) /
           1e6;
  };
  const auto injection = [](const Counts& x) { return static_cast<double>(x.chips) * x.ports; };
  // The baseline: the largest 2-tier non-blocking fat tree of the same switches and chips.
  const uint64_t base_chips = max_endpoints(2, 1, hw.switch_radix);
  const Tree base_tree = tree(base_chips, 2, 1, hw.switch_radix);
  const Counts base{.chips = base_chips,
                    .switches = base_tree.switches * hw.chip_ports,
                    .aot = 2 * base_tree.links * hw.chip_ports,
                    .ports = hw.chip_ports};

  CostRow row{.name = std::move(name),
              .scale = c.chips,
              .switches = c.switches,
              .pcc = c.pcc,
              .aot = c.aot,
              .cost_musd = cost(c)};
  row.cost_per_inject = (row.cost_musd / injection(c)) / (cost(base) / injection(base));
  const double gbw = c.bisection / injection(c);
  row.global_bw_pct = 100 * gbw;
  row.cost_per_gbw = row.cost_per_inject / gbw;
  return row;
}

uint32_t split_ports(const Hardware& hw, uint32_t ways) {
  require(hw.chip_ports % ways == 0, std::to_string(hw.chip_ports) + " chip ports do not split " +
                                         std::to_string(ways) + " ways");
  return hw.chip_ports / ways;
}

// Table 6's names: "2-Tier Nonbl. FT", "1:7:49 Tap. 3-Tier FT" (cumulative tapers).
std::string fat_tree_name(uint32_t tiers, uint32_t taper) {
  const std::string tier = std::to_string(tiers) + "-Tier";
  if (taper == 1) return tier + " Nonbl. FT";
  std::string ratio = "1";
  for (uint32_t i = 1; i < tiers; ++i) ratio += ":" + std::to_string(power(taper, i));
  return ratio + " Tap. " + tier + " FT";
}

}  // namespace

uint64_t fat_tree_max_chips(uint32_t tiers, uint32_t taper, const Hardware& hw) {
  return max_endpoints(tiers, taper, hw.switch_radix);
}

CostRow fat_tree_cost(uint64_t chips, uint32_t tiers, uint32_t taper, const Hardware& hw) {
  const Tree t = tree(chips, tiers, taper, hw.switch_radix);
  const Counts c{.chips = chips,
                 .switches = t.switches * hw.chip_ports,
                 .aot = 2 * t.links * hw.chip_ports,
                 .ports = hw.chip_ports,
                 .bisection = static_cast<double>(chips * hw.chip_ports) /
                              static_cast<double>(power(taper, tiers - 1))};
  return finish(fat_tree_name(tiers, taper), c, hw);
}

CostRow hammingmesh_cost(uint32_t a, uint32_t tiers, uint64_t boards_per_dim, const Hardware& hw) {
  require(a >= 1 && boards_per_dim >= 1, "HammingMesh needs a >= 1 and boards");
  const uint32_t planes = split_ports(hw, 4);  // one per chip port direction
  const uint64_t trees = 2 * boards_per_dim * a * planes;
  const Tree t = tree(2 * boards_per_dim, tiers, 1, hw.switch_radix);  // both ends of a row
  const Counts c{.chips = boards_per_dim * boards_per_dim * a * a,
                 .switches = trees * t.switches,
                 .aot = 2 * trees * t.links,
                 .ports = 4 * planes,
                 // Cutting the board columns in half cuts every X tree.
                 .bisection = static_cast<double>(trees / 2 * 2 * boards_per_dim)};
  return finish("Hx" + std::to_string(a) + "Mesh (" + std::to_string(tiers) + "-Tier FT)", c, hw);
}

CostRow torus3d_cost(uint32_t cube, uint32_t board, uint32_t cubes_per_dim, bool with_ocs,
                     const Hardware& hw) {
  require(board >= 1 && cube % board == 0 && cubes_per_dim >= 1, "boards must tile a cube's side");
  const uint64_t p = split_ports(hw, 6), c = cube, cubes = power(cubes_per_dim, 3);
  const uint64_t in_cube = 3 * c * c * (c - 1) * p;  // neighbour links
  const uint64_t on_boards = c * c * c / (board * board) * 2 * board * (board - 1) * p;
  const uint64_t face_ports = cubes * 6 * c * c * p;
  uint64_t switches = 0;
  if (with_ocs) {
    require(2 * cubes <= hw.ocs_radix, "an OCS joins the same face port of every cube: " +
                                           std::to_string(cubes) + " cubes need more than R/2");
    switches = 3 * c * c * p;
  }
  const uint64_t side = c * cubes_per_dim;
  const Counts counts{.chips = cubes * c * c * c,
                      .switches = switches,
                      .pcc = cubes * (in_cube - on_boards),
                      .aot = face_ports,  // 1 per OCS port, or 2 per direct link
                      .ports = static_cast<uint32_t>(6 * p),
                      .bisection = static_cast<double>(2 * side * side * p * 2)};
  return finish(std::string("3D-Torus ") + (with_ocs ? "w/ OCS" : "w/o OCS"), counts, hw);
}

CostRow rail_only_cost(uint64_t group, uint32_t tiers, const Hardware& hw) {
  const uint32_t rails = split_ports(hw, 2);  // per dimension
  const uint64_t trees = 2 * group * rails;
  const Tree t = tree(group, tiers, 1, hw.switch_radix);
  const Counts c{.chips = group * group,
                 .switches = trees * t.switches,
                 .aot = 2 * trees * t.links,
                 .ports = 2 * rails,
                 .bisection = static_cast<double>(trees / 2 * group)};
  return finish("Rail-Only (2D FT)", c, hw);
}

CostRow railx_cost(uint32_t m, uint32_t n, uint32_t ocs_radix, const Hardware& hw) {
  require(m >= 1 && n >= 1 && 4 * n <= hw.chip_ports,
          "RailX needs m, n >= 1 and 4n <= " + std::to_string(hw.chip_ports) + " chip ports");
  require(ocs_radix >= 2 && ocs_radix % 2 == 0, "RailX needs an even OCS radix");
  const uint64_t half = ocs_radix / 2, r = uint64_t{m} * n, nodes = half * half;
  const Counts c{.chips = nodes * m * m,     // Eq. 1
                 .switches = r * ocs_radix,  // Eq. 1
                 .aot = nodes * 4 * r,       // r rails of 2 ports, X and Y
                 .ports = 4 * n,
                 // Cutting the node columns in half cuts every X-OCS: R/2 rows of r.
                 .bisection = static_cast<double>(half * r * ocs_radix)};
  return finish("RailX" + std::to_string(m) + "Mesh", c, hw);
}

std::vector<CostRow> table6(const Hardware& hw) {
  const uint32_t n = split_ports(hw, 4), half = hw.ocs_radix / 2;
  const CostRow railx7 = railx_cost(7, n, hw.ocs_radix, hw);  // r = 63 matches R/2 = 64 (§6.2)
  // Upper part at each system's largest (or original) scale.
  const uint64_t one_tier_boards = fat_tree_max_chips(1, 1, hw) / 2;
  std::vector<CostRow> rows{
      fat_tree_cost(fat_tree_max_chips(2, 1, hw), 2, 1, hw),
      fat_tree_cost(fat_tree_max_chips(2, 3, hw), 2, 3, hw),
      hammingmesh_cost(4, 1, one_tier_boards, hw),
      hammingmesh_cost(7, 1, one_tier_boards, hw),
      torus3d_cost(4, 2, 4, true, hw),  // the TPUv4 pod: 64 = R/2 cubes of 4^3
      torus3d_cost(4, 2, 4, false, hw),
      rail_only_cost(fat_tree_max_chips(1, 1, hw), 1, hw),
      railx_cost(4, n, hw.ocs_radix, hw),
      railx7,
  };
  // Lower part at RailX7Mesh's ~200K chips: the 4-tier tree takes whole 3-tier pods, the
  // tapered 3-tier tree is full, the HammingMesh has RailX7Mesh's R/2 x R/2 grid of 7 x 7 boards.
  const uint64_t pod = fat_tree_max_chips(3, 1, hw);
  rows.push_back(fat_tree_cost(railx7.scale / pod * pod, 4, 1, hw));
  rows.push_back(fat_tree_cost(fat_tree_max_chips(3, 7, hw), 3, 7, hw));
  rows.push_back(hammingmesh_cost(7, 2, half, hw));
  return rows;
}

}  // namespace hx::net::railx
