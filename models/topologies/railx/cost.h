// Component cost of RailX and the systems the RailX paper sets against it (§6.2, Table 3,
// Appendix A.7 Table 6): switch, passive-copper-cable (PCC) and active-optical-transceiver (AOT)
// counts derived from each system's parameters, priced with §6.2's prices, and compared per
// injection bandwidth and per global (bisection) bandwidth with the 2-tier non-blocking fat tree
// of the same switches. Pure arithmetic, no I/O: `hxsim topo` prints it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hx::net::railx {

/// §6.2: every chip has 36 x 400G off-package ports; a 64-port 400G packet switch and a 128-port
/// OCS cost the same.
struct Hardware {
  uint32_t chip_ports = 36;
  uint32_t switch_radix = 64;  // packet switch
  uint32_t ocs_radix = 128;    // optical circuit switch, R
  double switch_usd = 35'000;  // either kind of switch
  double pcc_usd = 250;        // one 400G passive copper cable
  double aot_usd = 1'000;      // one 400G active optical transceiver
};

/// One row of Table 6. The relative columns divide by the 2-tier non-blocking fat tree's.
struct CostRow {
  std::string name;
  uint64_t scale = 0;     // chips
  uint64_t switches = 0;  // packet switches or OCSes
  uint64_t pcc = 0;
  uint64_t aot = 0;
  double cost_musd = 0;
  double cost_per_inject = 0;  // cost per chip-port of injection bandwidth, relative
  double global_bw_pct = 0;    // bisection bandwidth (TX + RX) per chip, % of its injection
  double cost_per_gbw = 0;     // cost_per_inject / global bandwidth, relative
};

/// A `tiers`-tier fat tree per port plane (one plane per chip port), every switch below the top
/// tapered `taper`:1 (radix k: k taper / (taper + 1) down, k / (taper + 1) up; 1 = non-blocking).
/// At most k (k taper / (taper + 1))^(tiers - 1) chips: 2048 for 2 tiers, 3072 at 1:3.
uint64_t fat_tree_max_chips(uint32_t tiers, uint32_t taper = 1, const Hardware& hw = {});
CostRow fat_tree_cost(uint64_t chips, uint32_t tiers, uint32_t taper = 1, const Hardware& hw = {});

/// HammingMesh (Hoefler et al., SC'22) HxaMesh: a x a chip boards on PCB, boards_per_dim x
/// boards_per_dim of them. Each chip row of a row of boards, in each of chip_ports / 4 planes, is
/// one non-blocking `tiers`-tier fat tree over its 2 boards_per_dim board-edge ports; likewise
/// each chip column of a column of boards.
CostRow hammingmesh_cost(uint32_t a, uint32_t tiers, uint64_t boards_per_dim,
                         const Hardware& hw = {});

/// 3D torus of cube^3-chip cubes (board x board chips per PCB board, PCCs between boards, 6
/// directions of chip_ports / 6 ports), cubes_per_dim^3 cubes. With OCS (TPUv4) every cube face
/// port goes through an OCS: one per (dimension, face position, port), 2 cubes^3 ports each.
CostRow torus3d_cost(uint32_t cube, uint32_t board, uint32_t cubes_per_dim, bool with_ocs,
                     const Hardware& hw = {});

/// Rail-Only as a 2D fat tree (§A.8): chips in a group x group grid, half the ports of each chip
/// in each dimension, each a rail of non-blocking `tiers`-tier fat trees over `group` chips.
CostRow rail_only_cost(uint64_t group, uint32_t tiers, const Hardware& hw = {});

/// RailX (§3.2, Eq. 1): m x m chip mesh per node, n ports per chip edge, r = m n rails per
/// dimension, (R/2)^2 nodes; N_s = r R OCSes; one AOT per optical port, no PCC. `ocs_radix` is
/// the system's R; hw.ocs_radix is the TPUv4 torus's and table6()'s.
CostRow railx_cost(uint32_t m, uint32_t n, uint32_t ocs_radix, const Hardware& hw = {});

/// Table 6's twelve rows in its order (the last, Hx7Mesh on 2-tier trees, is printed in Table 3).
std::vector<CostRow> table6(const Hardware& hw = {});

}  // namespace hx::net::railx
