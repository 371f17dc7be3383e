// The search for the best parallelism of one LLM on one cluster (docs/workloads/llm_search.md):
// every combination of TP, PP, EP, CP, micro-batch size and virtual stages that divides the
// model and the cluster and fits in a GPU's memory, ranked by an α–β estimate of the iteration;
// `hxsim search` then runs the best ones at flow level. Pure: no MPI, no network.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/params.h"
#include "models/workloads/llm.h"
#include "models/workloads/llm_memory.h"

namespace hx::wl {

/// What the analytic estimate assumes of the network: a GPU's bandwidth to one neighbour in
/// one direction inside its HB domain (TP, CP and EP groups of at most `hb_size` consecutive
/// ranks) and across the data-centre network (DP, PP, and model-parallel groups larger than
/// the domain), and one latency α per step.
struct AnalyticNetwork {
  double alpha_s = 1e-6;
  double hb_bandwidth = 400e9;      // bytes/s (InfiniteHBD: 3.2 Tbps each way of its ring)
  double network_bandwidth = 50e9;  // bytes/s (a 400 Gbps NIC)
  uint32_t hb_size = 0;             // GPUs per HB domain; 0: every group fits
  bool tp_only = false;             // only TP groups use the HB domain (InfiniteHBD's TP rings)
};

struct SearchSpace {
  uint32_t gpus = 0;          // the cluster: T·C·E·D_e·P must equal it
  uint64_t global_batch = 0;  // sequences per iteration: B·N_B·E·D_e
  std::vector<uint32_t> tp, pp, ep, cp, micro_batch, virtual_stages;
  std::vector<Recompute> recompute;
  MemoryOptions memory;  // the capacity and bytes per parameter (recompute: the plan's)
  AnalyticNetwork network;
  uint32_t top = 4;  // plans run at flow level
  std::string fidelity = "flow";
  std::vector<std::string> tp_keys;  // config keys set to each plan's TP (ring sizes)
};

/// The [search] section: the candidate lists, the cluster and batch (0: the [llm] section's),
/// the memory model and the analytic network.
std::vector<ParamSpec> search_params();
/// `search` resolved into a space; gpus and global_batch default to those of `base` (its
/// parallelism's chips and B·N_B·D). InputError naming the search.* key when the memory model
/// is invalid or gpus cannot be split.
SearchSpace search_space(const ParamSet& search, const LlmConfig& base);

/// An iteration's α–β estimate, seconds: the pipeline's (N_B + (P−1)/v) micro-batch slots of
/// the busiest stage's compute and TP/CP/EP communication and PP receives, then the DP
/// all-reduces; expert layers with imbalance c > 0 and E > 1 wait for a straggler computing
/// 1/(1 − c/2) times the mean (docs/workloads/llm_search.md has the formula).
struct AnalyticIteration {
  double seconds = 0;
  double compute = 0;                             // per GPU, busiest stage, whole iteration
  double tp = 0, cp = 0, ep = 0, pp = 0, dp = 0;  // α–β time per GPU and iteration
  double mfu = 0;
};
AnalyticIteration analytic_iteration(const LlmConfig& c, const AnalyticNetwork& net);

struct Plan {
  Parallelism par;
  Recompute recompute = Recompute::kSelective;
  MemoryEstimate memory;
  AnalyticIteration analytic;
};

struct SearchCounts {
  uint64_t candidates = 0;   // combinations of the lists whose product is the cluster
  uint64_t indivisible = 0;  // of those, refused by check_llm or the batch
  uint64_t too_big = 0;      // of those, over the memory capacity
};

/// Every plan of the space built on `base` (its model, algorithms and options), best analytic
/// estimate first (ties: the order of enumeration). InputError naming search.memory_gib when
/// no divisible plan fits.
std::vector<Plan> rank_plans(const LlmConfig& base, const SearchSpace& space, SearchCounts& counts);

/// The config overrides that run `plan`: llm.tp ... llm.virtual_stages, llm.recompute,
/// sim.fidelity and the tp_keys.
std::vector<std::pair<std::string, std::string>> plan_overrides(const Plan& plan,
                                                                const SearchSpace& space);

}  // namespace hx::wl
