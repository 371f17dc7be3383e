// GPU placement under node faults for the HBD architectures InfiniteHBD's §6.2 compares (§6.1's
// list, plus NVL-36x2 of Table 8): which healthy GPUs a single TP-t job can use, and the waste
// ratio (healthy but unplaced GPUs over all GPUs, §2.1) with its Monte Carlo expectation under
// i.i.d. node faults (Fig. 14, 22). The core of a cluster-level fault simulation; pure functions,
// no state. The cluster is n nodes of R GPUs, node v holding GPUs [v R, v R + R); a node fault
// takes all R (the trace is node-level, App. A). Domains (NVLink switch domains, TPUv4 cubes,
// SiP rings) are runs of consecutive nodes from node 0; the modelling choices the paper leaves
// open are stated in cluster.cpp.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/rng.h"

namespace hx::net::infinitehbd {

enum class HbdKind {
  kBigSwitch,    // one ideal switch over all GPUs
  kInfiniteHbd,  // K-hop line or ring of nodes, TP groups by Algorithm 2
  kNvlink,       // NVLink-switch domains of domain_gpus GPUs, spare_gpus of them backups
  kTpuv4,        // cubes of domain_gpus GPUs joined by OCS; a faulty GPU loses its cube
  kSipRing,      // static rings of exactly t GPUs; a faulty node loses its ring
};

struct HbdArch {
  std::string name;  // plain key: "big_switch", "infinitehbd_k2", "nvl72", ...
  HbdKind kind = HbdKind::kBigSwitch;
  uint32_t domain_gpus = 0;  // kNvlink: switch domain; kTpuv4: cube
  uint32_t spare_gpus = 0;   // kNvlink: backups per full domain that stand in for failed GPUs
  uint32_t hops = 0;         // kInfiniteHbd: K
  bool ring = false;         // kInfiniteHbd: the K-hop ring rather than the line
  bool slices = false;       // kTpuv4: a fault loses only its t-GPU slice of a cube (t < cube)
};

HbdArch big_switch();
HbdArch infinitehbd(uint32_t k, bool ring = false);  // "infinitehbd_k<K>" or "..._ring"
HbdArch nvl36();                                     // 36 GPUs, 4 spare (1/9, §6.2)
HbdArch nvl72();                                     // 72 GPUs, 8 spare
HbdArch nvl36x2();  // two NVL-36 racks as one 72-GPU domain, 8 spare
HbdArch nvl576();   // 576 GPUs, no spares
/// 4^3 = 64-GPU cubes, "tpuv4": a faulty GPU loses its cube (§2.2). With `slices`,
/// "tpuv4_slices": groups of t < 64 are aligned t-GPU slices of a cube and a fault loses only
/// its slice, the reading that fits §1's 7.56% and §6.2's TP dependence (see cluster.cpp).
HbdArch tpuv4(bool slices = false);
HbdArch sip_ring();  // rings of the TP size
/// Any NVLink-switch domain, e.g. §1's 32- and 64-GPU HBDs.
HbdArch nvlink_domain(std::string name, uint32_t gpus, uint32_t spare_gpus);

/// §6.1's architectures in its order (InfiniteHBD as K = 2 and K = 3 lines), then NVL-36x2,
/// the K = 2 and K = 3 rings and TPUv4 with slices.
std::vector<HbdArch> compared_architectures();

struct Cluster {
  uint32_t nodes = 0;          // n
  uint32_t gpus_per_node = 0;  // R
  uint64_t gpus() const { return uint64_t{nodes} * gpus_per_node; }
};

/// One architecture's GPUs under one fault set for a job of TP groups of t GPUs.
struct Usage {
  uint64_t gpus = 0;    // in the cluster
  uint64_t placed = 0;  // in TP groups: the largest job, a multiple of t (§6.2 Fig. 15)
  uint64_t faulty = 0;  // on faulty nodes
  uint64_t wasted = 0;  // healthy but unplaced: gpus - placed - faulty
  double waste_ratio() const;
  uint64_t largest_job() const { return placed; }
};

/// The placement of TP-`tp` groups on `arch` over `cluster` with nodes `faulty_nodes` (any
/// order, repeats allowed) failed. InputError naming the value: t = 0; t not a multiple of R on
/// InfiniteHBD, SiP-Ring or TPUv4 slices (they take whole nodes); t larger than a domain's usable
/// GPUs; a TPUv4 t above 64 not a multiple of the cube; a domain not whole nodes; a node id out of
/// range.
Usage place(const HbdArch& arch, const Cluster& cluster, const std::vector<uint32_t>& faulty_nodes,
            uint32_t tp);

/// Healthy GPUs of an HBD of `gpus` with `faults` failed, less its fragment: what TP-`tp` groups
/// fill there.
uint64_t filled_gpus(uint64_t gpus, uint64_t faults, uint32_t tp);

/// What one NVLink domain of `gpus` GPUs (a partial one at the cluster's end too) with
/// `faulty_gpus` failed places: its spares replace failed GPUs first; the rest is an HBD of its
/// GPUs less the spares.
uint64_t nvlink_domain_placed(const HbdArch& arch, uint64_t gpus, uint64_t faulty_gpus,
                              uint32_t tp);

/// Each node faulty with probability `ratio` (in [0, 1], InputError otherwise), in node order,
/// one rng draw per node.
std::vector<uint32_t> sample_faulty_nodes(uint32_t nodes, double ratio, Rng& rng);

struct MeanUsage {
  double waste_ratio = 0;  // mean over samples of wasted / gpus
  double placed = 0;       // mean largest job, GPUs
};

/// The expected usage of each of `archs` (same order) over `samples` fault sets drawn with
/// sample_faulty_nodes from `rng`; every architecture sees the same fault sets. All inputs are
/// checked before the first draw.
std::vector<MeanUsage> expected_usage(std::span<const HbdArch> archs, const Cluster& cluster,
                                      uint32_t tp, double ratio, uint32_t samples, Rng& rng);

}  // namespace hx::net::infinitehbd
