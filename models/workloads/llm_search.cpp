// The parallelism search's enumeration, memory filter and α–β ranking (llm_search.h).
#include "models/workloads/llm_search.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>

#include "core/error.h"

namespace hx::wl {
namespace {

std::vector<uint32_t> sizes(const ParamSet& s, const std::string& key) {
  std::vector<uint32_t> out;
  for (int64_t v : s.list<int64_t>(key)) out.push_back(static_cast<uint32_t>(v));
  return out;
}

ParamSpec size_list(const char* name, std::vector<std::string> def, const char* help) {
  return ParamSpec::list(name, ParamSpec::integer("", 1, "").range(1, 1 << 20), std::move(def),
                         help);
}

// One occurrence of a Table 4 row, α–β: the configured algorithm on a group of its size at the
// bandwidth of where the group lies.
double once_seconds(const LlmConfig& c, const CommVolume& v, const AnalyticNetwork& net) {
  const uint32_t p = v.group.members();
  const uint64_t span = uint64_t{v.group.stride} * v.group.size * std::max(1u, v.group.outer_size);
  const bool model_parallel = v.dim == Dim::kTP || v.dim == Dim::kCP || v.dim == Dim::kEP;
  const bool inside = (net.tp_only ? v.dim == Dim::kTP : model_parallel) &&
                      (net.hb_size == 0 || span <= net.hb_size);
  const double bw = inside ? net.hb_bandwidth : net.network_bandwidth;
  const double bytes = static_cast<double>(v.bytes);
  if (v.pattern == Pattern::kPointToPoint) return net.alpha_s + bytes / bw;
  CollectiveSpec s;
  s.bytes = v.bytes;
  s.members.resize(p);
  std::iota(s.members.begin(), s.members.end(), 0u);
  s.algorithm = v.dim == Dim::kTP   ? c.tp_algorithm
                : v.dim == Dim::kEP ? c.ep_algorithm
                                    : c.dp_algorithm;
  if (s.algorithm == Algorithm::kHierarchical) s.algorithm = Algorithm::kRing;  // see the docs
  if (v.pattern == Pattern::kReduceScatterAllGather) {
    s.op = Collective::kReduceScatter;
    const double rs = alpha_beta_seconds(s, net.alpha_s, bw);
    s.op = Collective::kAllGather;
    return (rs + alpha_beta_seconds(s, net.alpha_s, bw)) / 2;
  }
  s.op = v.pattern == Pattern::kAllToAll ? Collective::kAllToAll : Collective::kAllReduce;
  return alpha_beta_seconds(s, net.alpha_s, bw);
}

}  // namespace

std::vector<ParamSpec> search_params() {
  return {
      ParamSpec::integer("gpus", 0, "GPUs of the cluster; 0: the [llm] parallelism's chips")
          .range(0, 1 << 30),
      ParamSpec::integer("global_batch", 0, "sequences per iteration; 0: the [llm] section's")
          .range(0, 1ll << 40),
      size_list("tp", {"1", "2", "4", "8", "16", "32", "64", "128"}, "TP sizes to try"),
      size_list("pp", {"1", "2", "4", "8", "16"}, "PP sizes to try"),
      size_list("ep", {"1"}, "EP sizes to try (MoE models)"),
      size_list("cp", {"1"}, "CP sizes to try"),
      size_list("micro_batch", {"1"}, "micro-batch sizes (sequences) to try"),
      size_list("virtual_stages", {"1"}, "virtual pipeline stages to try"),
      ParamSpec::real("memory_gib", 80, "GPU memory, GiB (H100: 80)").range(0, 1e9),
      ParamSpec::list("recompute",
                      ParamSpec::choice("", "selective", {"none", "selective", "full"}, ""),
                      {"selective"},
                      "activation recomputation to try (llm.recompute: full trades compute "
                      "for memory)"),
      ParamSpec::flag("distributed_optimizer", true,
                      "optimizer state sharded over the data-parallel group (ZeRO-1)"),
      ParamSpec::real("grad_bytes", 4, "bytes per gradient (4: fp32 main gradients)").range(0, 64),
      ParamSpec::time("alpha", "1us", "analytic estimate: latency per collective step"),
      ParamSpec::bandwidth("hb_bandwidth", "3.2Tbps",
                           "analytic estimate: a GPU's bandwidth to one HB-domain neighbour, "
                           "one direction (InfiniteHBD: 6.4 Tbps over two ring directions)"),
      ParamSpec::bandwidth("network_bandwidth", "400Gbps",
                           "analytic estimate: a GPU's data-centre network bandwidth"),
      ParamSpec::integer("hb_size", 0,
                         "analytic estimate: GPUs per HB domain (0: every TP/CP/EP group fits)")
          .range(0, 1 << 30),
      ParamSpec::choice("hb_groups", "model_parallel", {"model_parallel", "tp"},
                        "analytic estimate: the groups in the HB domain: TP, CP and EP, or TP "
                        "alone (InfiniteHBD, whose rings are the TP groups)"),
      ParamSpec::integer("top", 4, "best analytic plans run at sim.fidelity = fidelity")
          .range(0, 1 << 20),
      ParamSpec::choice("fidelity", "flow", {"flow", "packet"}, "fidelity of the runs"),
      ParamSpec::list("tp_keys", ParamSpec::text("", "", ""), {},
                      "config keys set to each plan's TP (e.g. infinitehbd.tp, whose rings are "
                      "the TP groups)"),
  };
}

SearchSpace search_space(const ParamSet& search, const LlmConfig& base) {
  SearchSpace s;
  s.gpus = static_cast<uint32_t>(search.integer("gpus"));
  if (s.gpus == 0) s.gpus = base.par.chips();
  s.global_batch = static_cast<uint64_t>(search.integer("global_batch"));
  if (s.global_batch == 0) {
    s.global_batch = base.par.micro_batch * base.par.micro_batches * base.par.data();
  }
  s.tp = sizes(search, "tp");
  s.pp = sizes(search, "pp");
  s.ep = sizes(search, "ep");
  s.cp = sizes(search, "cp");
  s.micro_batch = sizes(search, "micro_batch");
  s.virtual_stages = sizes(search, "virtual_stages");
  s.memory.capacity_bytes = search.real("memory_gib") * double(1ull << 30);
  for (const std::string& r : search.list<std::string>("recompute")) {
    s.recompute.push_back(recompute_from_name(r));
  }
  s.memory.distributed_optimizer = search.flag("distributed_optimizer");
  s.memory.grad_bytes = search.real("grad_bytes");
  if (s.memory.capacity_bytes <= 0) throw InputError("search.memory_gib: must be > 0");
  s.network.alpha_s = static_cast<double>(search.time("alpha").count_ps()) * 1e-12;
  s.network.hb_bandwidth = search.bandwidth("hb_bandwidth").bytes_per_second();
  s.network.network_bandwidth = search.bandwidth("network_bandwidth").bytes_per_second();
  s.network.hb_size = static_cast<uint32_t>(search.integer("hb_size"));
  s.network.tp_only = search.text("hb_groups") == "tp";
  if (s.network.hb_bandwidth <= 0 || s.network.network_bandwidth <= 0) {
    throw InputError("search.hb_bandwidth, search.network_bandwidth: must be > 0");
  }
  s.top = static_cast<uint32_t>(search.integer("top"));
  s.fidelity = search.text("fidelity");
  s.tp_keys = search.list<std::string>("tp_keys");
  return s;
}

AnalyticIteration analytic_iteration(const LlmConfig& c, const AnalyticNetwork& net) {
  const LlmModel& m = c.model;
  const Parallelism& par = c.par;
  const LayerCompute lc = layer_compute(m, par, c.gemm);
  const double moe_layers = moe_layers_per_stage(m, par);  // of all the stage's chunks
  const auto layer = [](const LayerCompute::Pass& p) { return p.forward + p.backward; };
  // The busiest EP rank against the mean: the largest of uniform shares in [1 - c, 1].
  const double straggle = m.experts > 1 && par.ep > 1 ? 1 / (1 - c.expert_imbalance / 2) : 1.0;
  const LayerCompute::Pass moe = {lc.ffn_moe.forward * straggle, lc.ffn_moe.backward * straggle};
  // Per micro-batch: the busiest stage (the most layers, or the last one with the logits).
  double stage = 0;
  for (const uint32_t p : {0u, par.pp - 1, par.pp / 2}) {
    const double layers = par.stage_layers(m.layers, p);
    double t = (layers - moe_layers) * (layer(lc.qkv) + layer(lc.attention) + layer(lc.ffn_dense)) +
               moe_layers * (layer(lc.qkv) + layer(lc.attention) + layer(moe));
    if (c.recompute == Recompute::kFull) {  // the forward once more
      t += (layers - moe_layers) * (lc.qkv.forward + lc.attention.forward + lc.ffn_dense.forward) +
           moe_layers * (lc.qkv.forward + lc.attention.forward + moe.forward);
    }
    if (p + 1 == par.pp) t += layer(lc.logits);
    stage = std::max(stage, t);
  }
  AnalyticIteration a;
  for (const CommVolume& v : table4_volumes(m, par, c.embedding_at_ends, c.ring_attention)) {
    const double once = once_seconds(c, v, net);
    switch (v.dim) {
      case Dim::kTP:
        a.tp += once * v.frequency;
        break;
      case Dim::kCP:
        a.cp += once * v.frequency;
        break;
      case Dim::kEP:
        a.ep += once * v.frequency;
        break;
      case Dim::kPP:
        a.pp += once * 2;  // a forward and a backward receive per micro-batch slot
        break;
      default:
        a.dp += once * v.frequency;
        break;
    }
  }
  const double NB = par.micro_batches, slots = NB + (par.pp - 1.0) / par.virtual_stages;
  // With TP overlap the dense layers' TP collectives hide behind their GEMMs (all but the
  // attention core); what is left of them is exposed.
  double tp_slot = a.tp / NB;
  if (c.tp_overlap) {
    const double layers = par.max_stage_layers(m.layers) - moe_layers;
    const double gemms = layers * (layer(lc.qkv) + layer(lc.projection) + layer(lc.ffn_dense));
    tp_slot = std::max(0.0, tp_slot - gemms);
  }
  const double per_slot = stage + tp_slot + (a.cp + a.ep) / NB + (par.pp > 1 ? a.pp : 0);
  a.compute = stage * NB;
  a.pp *= par.pp > 1 ? NB : 0;
  a.seconds = slots * per_slot + a.dp;
  a.mfu = iteration_flops(m, par) / (par.chips() * c.gemm.chip_flops * a.seconds);
  return a;
}

std::vector<Plan> rank_plans(const LlmConfig& base, const SearchSpace& space,
                             SearchCounts& counts) {
  counts = {};
  std::vector<Plan> plans;
  for (uint32_t tp : space.tp) {
    for (uint32_t cp : space.cp) {
      for (uint32_t ep : space.ep) {
        for (uint32_t pp : space.pp) {
          const uint64_t mp = uint64_t{tp} * cp * ep * pp;
          if (space.gpus % mp != 0) continue;
          for (uint32_t b : space.micro_batch) {
            for (uint32_t v : space.virtual_stages) {
              for (const Recompute r : space.recompute) {
                ++counts.candidates;
                LlmConfig c = base;
                c.recompute = r;
                c.par = {tp, cp, ep, static_cast<uint32_t>(space.gpus / mp), pp, b, 0, v};
                const uint64_t replicas = uint64_t{b} * c.par.data();
                try {
                  if (space.global_batch % replicas != 0) throw InputError("batch");
                  c.par.micro_batches = static_cast<uint32_t>(space.global_batch / replicas);
                  check_llm(c, space.gpus);
                } catch (const InputError&) {
                  ++counts.indivisible;
                  continue;
                }
                MemoryOptions memory = space.memory;
                memory.recompute = r;
                const MemoryEstimate mem = llm_memory(c.model, c.par, memory);
                if (!fits(mem, memory)) {
                  ++counts.too_big;
                  continue;
                }
                plans.push_back({c.par, r, mem, analytic_iteration(c, space.network)});
              }
            }
          }
        }
      }
    }
  }
  if (counts.candidates == 0) {
    throw InputError(
        "search.tp, search.cp, search.ep, search.pp: no combination of the lists "
        "divides the " +
        std::to_string(space.gpus) + " GPUs");
  }
  if (counts.indivisible == counts.candidates) {
    throw InputError("search: none of the " + std::to_string(counts.candidates) +
                     " candidates divides the model and the global batch (" +
                     std::to_string(space.global_batch) +
                     " sequences; llm.* says why for one: " + "run it with hxsim validate)");
  }
  if (plans.empty()) {
    char gib[32];
    std::snprintf(gib, sizeof gib, "%g", space.memory.capacity_bytes / double(1ull << 30));
    throw InputError("search.memory_gib: no plan of the " + std::to_string(counts.candidates) +
                     " candidates fits (" + std::to_string(counts.indivisible) +
                     " do not divide the model, cluster or batch; " +
                     std::to_string(counts.too_big) + " need more than " + gib + " GiB)");
  }
  std::stable_sort(plans.begin(), plans.end(), [](const Plan& a, const Plan& b) {
    return a.analytic.seconds < b.analytic.seconds;
  });
  return plans;
}

std::vector<std::pair<std::string, std::string>> plan_overrides(const Plan& plan,
                                                                const SearchSpace& space) {
  const Parallelism& p = plan.par;
  std::vector<std::pair<std::string, std::string>> out = {
      {"llm.tp", std::to_string(p.tp)},
      {"llm.cp", std::to_string(p.cp)},
      {"llm.ep", std::to_string(p.ep)},
      {"llm.dp", std::to_string(p.dp)},
      {"llm.pp", std::to_string(p.pp)},
      {"llm.micro_batch", std::to_string(p.micro_batch)},
      {"llm.micro_batches", std::to_string(p.micro_batches)},
      {"llm.virtual_stages", std::to_string(p.virtual_stages)},
      {"llm.recompute", recompute_name(plan.recompute)},
      {"sim.fidelity", space.fidelity},
  };
  for (const std::string& key : space.tp_keys) out.emplace_back(key, std::to_string(p.tp));
  return out;
}

}  // namespace hx::wl
