// Closed forms and costs of InfiniteHBD (Shou et al.): HBD fragmentation (§2.1), the 8-GPU to
// 4-GPU fault trace conversion (Appendix A), the bound on the expected GPU waste of a K-hop ring
// (Appendix C, Eq. 1, Table 7), the interconnect bill of materials of InfiniteHBD and the HBDs it
// is set against (Appendix F, Table 8) with its per-GPU cost and power (§6.5, Table 6), and §6.5's
// aggregate cost. Pure arithmetic, no I/O: report() lays it out for `hxsim topo`.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/closed_forms.h"
#include "core/units.h"

namespace hx::net::infinitehbd {

// ---- §2.1 fragmentation: GPUs of an HBD left over once it is cut into TP groups ----

struct Hbd {
  uint64_t gpus = 0;
  uint64_t faults = 0;  // failed GPUs in it
};

/// (HBD_size - N_fault) mod TP_size.
uint64_t fragment_waste(const Hbd& hbd, uint64_t tp);
/// That over HBD_size.
double fragment_waste_ratio(const Hbd& hbd, uint64_t tp);
/// Every HBD fragments on its own: the sum of their wastes.
uint64_t fragment_waste(std::span<const Hbd> hbds, uint64_t tp);

// ---- Appendix A: node faults from i.i.d. GPU faults ----

/// A node of R GPUs is faulty when any of its GPUs is: 1 - (1 - p)^R.
double node_fault_probability(double gpu_fault, uint32_t gpus_per_node);
/// The inverse: the per-GPU p that gives node fault probability P.
double gpu_fault_probability(double node_fault, uint32_t gpus_per_node);
/// Bayes with P(big | small) = 1: the probability that a smaller node (part of a big one) is
/// faulty when its big node is, P_small / P_big.
double part_fault_given_node(double part_fault, double node_fault);

// ---- Appendix C: the K-hop ring's waste ----

/// Eq. (1): the upper bound of the expected GPU waste ratio, 2 (N_t - R) P_s^K, for R GPUs per
/// node, K hops, TP (ring) size N_t and node fault probability P_s.
double waste_ratio_bound(uint32_t gpus_per_node, uint32_t k, uint32_t tp, double node_fault);
/// The bound on wasted GPUs it comes from, 2 N_s R (N_t - R) P_s^K, for N_s nodes.
double waste_gpus_bound(uint64_t nodes, uint32_t gpus_per_node, uint32_t k, uint32_t tp,
                        double node_fault);
/// The P_s Table 7 uses for R GPUs per node (R = 4 or 8; InputError otherwise).
double table7_node_fault(uint32_t gpus_per_node);

// ---- Appendix F, Table 8: interconnect bill of materials ----

struct Component {
  std::string name;
  uint64_t quantity = 0;
  double unit_usd = 0;
  Bandwidth unit_bandwidth;
  double unit_watts = 0;
};

struct Architecture {
  std::string key;   // plain name: "tpuv4", "nvl36", ..., "infinitehbd_k2"
  std::string name;  // as the paper writes it
  uint64_t gpus = 0;
  Bandwidth per_gpu;  // HBD bandwidth per GPU
  std::vector<Component> components;
  bool in_table6 = true;  // Alibaba HPN is in Table 8 only
};

/// Table 8's eight architectures, in its order.
std::vector<Architecture> table8();
/// One of them by key; InputError naming the key otherwise.
Architecture architecture(const std::string& key);
/// Table 8's InfiniteHBD row of K hops (K = 2 or 3; InputError otherwise).
Architecture infinitehbd_architecture(uint32_t k);

/// Table 6: interconnect cost and power per GPU, and per GPU per GB/s of its bandwidth.
struct CostPower {
  double usd = 0, watts = 0;                    // per GPU
  double usd_per_gbps = 0, watts_per_gbps = 0;  // per GPU per GB/s
};
CostPower cost_power(const Architecture& a);

// ---- §6.5 aggregate cost ----

/// Cost_GPU x (N_wasted + N_faulty) + Cost_interconnect. The paper gives no GPU price: it is an
/// input.
double aggregate_cost_usd(double gpu_usd, uint64_t wasted_gpus, uint64_t faulty_gpus,
                          double interconnect_usd);
/// The interconnect of `gpus` GPUs of InfiniteHBD with K hops: Table 6's per-GPU cost x GPUs.
double interconnect_usd(uint32_t k, uint64_t gpus);

// ---- `hxsim topo` ----

struct Inputs {
  uint32_t gpus_per_node = 4;  // R
  uint32_t k = 2;              // K
  uint32_t tp = 32;            // N_t
  double node_fault = 0.0367;  // P_s, a fraction
  uint64_t nodes = 1;
};

/// This configuration's Eq. (1) bound, Table 7, Table 6 (every Table 8 architecture) with §6.5's
/// ratios, and the interconnect cost of `nodes` nodes of this K. InputError on bad inputs.
ClosedForms report(const Inputs& in);

}  // namespace hx::net::infinitehbd
