// The [llm] section (llm.h): its parameters, their checks and the workload they make.
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "models/workloads/llm.h"

namespace hx::wl {
namespace {

constexpr Algorithm kAlgorithms[] = {
    Algorithm::kRing,   Algorithm::kBidirRing, Algorithm::kRing2D,        Algorithm::kHierarchical,
    Algorithm::kDirect, Algorithm::kPairwise,  Algorithm::kBinaryExchange};

Algorithm algorithm_from_name(const std::string& name, const std::string& key) {
  for (Algorithm a : kAlgorithms) {
    if (name == algorithm_name(a)) return a;
  }
  throw InputError(key + ": unknown algorithm '" + name + "'");
}

void require(bool ok, const std::string& key, const std::string& what) {
  if (!ok) throw InputError("llm." + key + ": " + what);
}

}  // namespace

void check_llm(const LlmConfig& c, uint32_t ranks) {
  const LlmModel& m = c.model;
  const Parallelism& p = c.par;
  require(m.layers > 0 && m.hidden > 0 && m.ffn > 0 && m.vocab > 0 && m.seq > 0, "preset",
          "layers, hidden, ffn, vocab and seq must be positive");
  require(m.heads > 0 && m.hidden % m.heads == 0, "heads",
          std::to_string(m.heads) + " must divide hidden (" + std::to_string(m.hidden) + ")");
  require(m.kv_heads > 0 && m.heads % m.kv_heads == 0, "kv_heads",
          std::to_string(m.kv_heads) + " must divide heads (" + std::to_string(m.heads) + ")");
  require(m.experts >= 1, "experts", "must be at least 1");
  require(m.top_k >= 1 && m.top_k <= m.experts, "top_k",
          std::to_string(m.top_k) + " must be between 1 and experts (" + std::to_string(m.experts) +
              ")");
  require(m.moe_layer_ratio > 0 && m.moe_layer_ratio <= 1, "moe_layer_ratio", "must be in (0, 1]");
  require(m.ffn_matrices == 2 || m.ffn_matrices == 3, "ffn_matrices", "must be 2 or 3");
  require(m.bytes_per_element > 0, "bytes_per_element", "must be positive");
  require(p.tp >= 1 && p.cp >= 1 && p.ep >= 1 && p.dp >= 1 && p.pp >= 1, "tp",
          "tp, cp, ep, dp and pp must be at least 1");
  require(p.micro_batch >= 1 && p.micro_batches >= 1, "micro_batches",
          "micro_batch and micro_batches must be at least 1");
  require(static_cast<uint64_t>(p.tp) * p.cp * p.ep * p.dp * p.pp == ranks, "tp",
          "llm.tp * llm.cp * llm.ep * llm.dp * llm.pp = " + std::to_string(p.chips()) +
              " chips, but the mapping has " + std::to_string(ranks) + " ranks");
  require(m.heads % p.tp == 0 && m.hidden % p.tp == 0 && m.ffn % p.tp == 0, "tp",
          std::to_string(p.tp) + " must divide heads (" + std::to_string(m.heads) + "), hidden (" +
              std::to_string(m.hidden) + ") and ffn (" + std::to_string(m.ffn) + ")");
  require(m.seq % p.cp == 0, "cp",
          std::to_string(p.cp) + " must divide seq (" + std::to_string(m.seq) + ")");
  require(m.experts % p.ep == 0, "ep",
          "experts (" + std::to_string(m.experts) + ") must be a multiple of ep");
  require(m.layers % p.pp == 0 ||
              (p.pp >= 3 && (m.layers + 2) % p.pp == 0 && m.experts == 1 && p.virtual_stages == 1),
          "pp",
          std::to_string(p.pp) + " must divide layers (" + std::to_string(m.layers) +
              "), or layers + 2 for a dense model without virtual stages (the first and last "
              "stages one layer short, as Llama 3's 126 layers)");
  require(
      p.virtual_stages >= 1 && (p.virtual_stages == 1 || m.layers % (p.pp * p.virtual_stages) == 0),
      "virtual_stages",
      "pp * virtual_stages = " + std::to_string(p.pp * p.virtual_stages) + " must divide layers (" +
          std::to_string(m.layers) + ")");
  if (p.virtual_stages > 1) {
    require(p.pp >= 2 && p.micro_batches % p.pp == 0, "virtual_stages",
            "interleaved 1F1B needs pp >= 2 and micro_batches a multiple of pp (Megatron's rule)");
    require(c.schedule == Schedule::kOneFOneB, "virtual_stages",
            "virtual stages run the interleaved 1F1B schedule; llm.schedule must be \"1f1b\"");
  }
  require(m.experts == 1 || moe_layers_per_stage(m, p) > 0, "moe_layer_ratio",
          "leaves a model chunk of " + std::to_string(p.chunk_layers(m.layers)) +
              (p.chunk_layers(m.layers) == 1 ? " layer" : " layers") +
              " without expert layers; give each chunk more layers or set it to 1");
  require(c.dp_local == 0 || c.dp_algorithm == Algorithm::kHierarchical, "dp_local",
          "applies to llm.dp_algorithm = \"hierarchical\" only");
  require(c.gemm.chip_flops > 0, "chip_flops", "must be positive");
  require(c.gemm.efficiency > 0 && c.gemm.efficiency <= 1, "efficiency", "must be in (0, 1]");
  require(!c.gemm.roofline() || (c.gemm.sms > 0 && c.gemm.tile_m > 0 && c.gemm.tile_n > 0),
          "gemm_sms", "gemm_sms, gemm_tile_m and gemm_tile_n must be positive");
  require(!c.optimizer_step || c.memory_bandwidth > 0, "memory_bandwidth",
          "must be positive for llm.optimizer_step");
  require(c.expert_imbalance >= 0 && c.expert_imbalance < 1, "expert_imbalance",
          std::to_string(c.expert_imbalance) + " is outside [0, 1)");
}

std::vector<ParamSpec> llm_params() {
  // Counts held in 32 bits (layers, heads, experts) get bounds of their own: 1e12 layers were
  // accepted and cut to 32 bits (3.6 billion).
  const auto model = [](const char* name, const char* what, double max = 1e12) {
    return ParamSpec::integer(name, 0, std::string(what) + "; 0: the preset's value").range(0, max);
  };
  const auto size = [](const char* name, const char* what) {
    return ParamSpec::integer(name, 1, what).range(1, 1 << 24);
  };
  return {
      ParamSpec::choice("preset", "gpt3-175b", llm_preset_names(), "model architecture"),
      model("layers", "transformer layers L", 1e5),
      model("hidden", "hidden dimension H"),
      model("ffn", "FFN (per expert) intermediate dimension I"),
      model("heads", "attention heads h_A", 1e6),
      model("kv_heads", "key/value heads h_KV", 1e6),
      model("vocab", "vocabulary size V"),
      model("seq", "sequence length S"),
      model("experts", "experts per MoE layer (1: dense)", 1e6),
      model("top_k", "experts per token K", 1e6),
      ParamSpec::real("moe_layer_ratio", 0, "fraction of layers with experts; 0: the preset's")
          .range(0, 1),
      model("ffn_matrices", "FFN weight matrices in the FLOPs: 3 SwiGLU, 2 GELU", 8),
      model("bytes_per_element", "bytes per activation/gradient element", 64),
      size("tp", "tensor parallelism T"),
      size("cp", "context parallelism C"),
      size("ep", "expert parallelism E"),
      size("dp", "data parallelism D_e of the expert layers (attention: E * D_e)"),
      size("pp", "pipeline parallelism P"),
      size("micro_batch", "sequences per micro-batch B"),
      size("micro_batches", "micro-batches per iteration N_B"),
      size("virtual_stages", "model chunks per pipeline stage v (interleaved 1F1B; 1: none)"),
      ParamSpec::choice("schedule", "1f1b", {"1f1b", "gpipe"}, "pipeline schedule"),
      ParamSpec::choice("cp_algorithm", "exchange", {"exchange", "ring"},
                        "CP traffic: exchange, one K/V shard per layer and direction (Table 4); "
                        "ring, ring attention's C - 1 steps overlapped with the attention"),
      ParamSpec::choice("embedding", "table4", {"table4", "ends"},
                        "DP VOC all-reduce: table4, 2HV/(TC) on every stage (Table 4); ends, "
                        "HV/(TC) on the first stage (embedding) and the last (output layer)"),
      ParamSpec::flag("dp_overlap", false,
                      "DP all-reduces beside the last backward pass, each as soon as its "
                      "layer's gradients are done; false: after the backward pass"),
      ParamSpec::bytes("dp_bucket", "0B",
                       "gradient bytes a DP all-reduce carries at least (Megatron's bucket "
                       "size): a Table 4 row's consecutive layers share a bucket until it holds "
                       "this many; 0B: one all-reduce per layer and row"),
      ParamSpec::real("chip_flops", 989e12, "FLOP/s of one chip (H100 bf16 dense)").range(0, 1e18),
      ParamSpec::real("efficiency", 1.0,
                      "fraction of chip_flops the compute achieves (roofline: its ceiling)")
          .range(0, 1),
      ParamSpec::choice("gemm", "flat", {"flat", "roofline"},
                        "GEMM time: flat, FLOPs / (chip_flops * efficiency); roofline, each "
                        "GEMM math- or memory-bound with wave quantization"),
      ParamSpec::bandwidth("memory_bandwidth", "26.8Tbps",
                           "the chip's memory bandwidth, of the roofline and the optimizer "
                           "step (H100 SXM: 3.35 TB/s)"),
      ParamSpec::integer("gemm_sms", 132, "roofline: SMs a wave of tiles fills (H100 SXM: 132)")
          .range(1, 1 << 20),
      ParamSpec::integer("gemm_tile_m", 128, "roofline: rows of a thread block's output tile")
          .range(1, 1 << 20),
      ParamSpec::integer("gemm_tile_n", 256, "roofline: columns of a thread block's output tile")
          .range(1, 1 << 20),
      ParamSpec::choice("recompute", "selective", {"none", "selective", "full"},
                        "activation recomputation: full re-runs each layer's forward compute in "
                        "its backward; none and selective add no compute (hxsim search's memory "
                        "model tells them apart)"),
      ParamSpec::flag("tp_overlap", false,
                      "TP all-gathers and reduce-scatters beside the GEMMs next to them "
                      "(Megatron's TP communication overlap); false: in turn"),
      ParamSpec::flag("optimizer_step", false,
                      "after the DP all-reduces, an Adam step over each GPU's shard of the "
                      "parameters, memory-bound at memory_bandwidth"),
      ParamSpec::real("expert_imbalance", 0,
                      "(max - min) / max of the tokens an MoE layer's experts receive, drawn per "
                      "layer and micro-batch (InfiniteHBD Table 4); 0: balanced"),
      ParamSpec::choice("tp_algorithm", "bidir_ring",
                        algorithm_names_for(Collective::kReduceScatter, false),
                        "TP reduce-scatter/all-gather algorithm"),
      ParamSpec::choice("ep_algorithm", "direct", algorithm_names_for(Collective::kAllToAll, false),
                        "EP all-to-all algorithm"),
      ParamSpec::choice("dp_algorithm", "ring", algorithm_names_for(Collective::kAllReduce, true),
                        "DP all-reduce algorithm; hierarchical: the rail-only two-stage "
                        "all-reduce, rings inside each HB domain and along the rails"),
      ParamSpec::integer("dp_local", 0,
                         "hierarchical DP: members of a DP group per node (its in-domain part); "
                         "0: those in one HB domain, the topology's endpoint group")
          .range(0, 1 << 24),
  };
}

LlmConfig llm_config(const ParamSet& llm) {
  LlmConfig c;
  try {
    c.model = llm_preset(llm.text("preset"));
  } catch (const InputError& e) {
    throw InputError(std::string("llm.preset: ") + e.what());
  }
  LlmModel& m = c.model;
  const auto override_with = [&](const char* key, auto& field) {
    const int64_t v = llm.integer(key);
    if (v > 0) field = static_cast<std::remove_reference_t<decltype(field)>>(v);
  };
  override_with("layers", m.layers);
  override_with("hidden", m.hidden);
  override_with("ffn", m.ffn);
  override_with("heads", m.heads);
  override_with("kv_heads", m.kv_heads);
  override_with("vocab", m.vocab);
  override_with("seq", m.seq);
  override_with("experts", m.experts);
  override_with("top_k", m.top_k);
  override_with("ffn_matrices", m.ffn_matrices);
  override_with("bytes_per_element", m.bytes_per_element);
  if (llm.real("moe_layer_ratio") > 0) m.moe_layer_ratio = llm.real("moe_layer_ratio");
  Parallelism& p = c.par;
  override_with("tp", p.tp);
  override_with("cp", p.cp);
  override_with("ep", p.ep);
  override_with("dp", p.dp);
  override_with("pp", p.pp);
  override_with("micro_batch", p.micro_batch);
  override_with("micro_batches", p.micro_batches);
  override_with("virtual_stages", p.virtual_stages);
  c.schedule = llm.text("schedule") == "gpipe" ? Schedule::kGPipe : Schedule::kOneFOneB;
  c.dp_overlap = llm.flag("dp_overlap");
  c.dp_bucket_bytes = llm.bytes("dp_bucket").count();
  c.embedding_at_ends = llm.text("embedding") == "ends";
  c.ring_attention = llm.text("cp_algorithm") == "ring";
  c.gemm.chip_flops = llm.real("chip_flops");
  c.gemm.efficiency = llm.real("efficiency");
  if (llm.text("gemm") == "roofline") {
    c.gemm.memory_bandwidth = llm.bandwidth("memory_bandwidth").bytes_per_second();
    c.gemm.sms = static_cast<uint32_t>(llm.integer("gemm_sms"));
    c.gemm.tile_m = static_cast<uint32_t>(llm.integer("gemm_tile_m"));
    c.gemm.tile_n = static_cast<uint32_t>(llm.integer("gemm_tile_n"));
  }
  c.gemm.bytes_per_element = m.bytes_per_element;
  c.expert_imbalance = llm.real("expert_imbalance");
  c.recompute = recompute_from_name(llm.text("recompute"));
  c.tp_overlap = llm.flag("tp_overlap");
  c.optimizer_step = llm.flag("optimizer_step");
  c.memory_bandwidth = llm.bandwidth("memory_bandwidth").bytes_per_second();
  c.tp_algorithm = algorithm_from_name(llm.text("tp_algorithm"), "llm.tp_algorithm");
  c.ep_algorithm = algorithm_from_name(llm.text("ep_algorithm"), "llm.ep_algorithm");
  c.dp_algorithm = algorithm_from_name(llm.text("dp_algorithm"), "llm.dp_algorithm");
  c.dp_local = static_cast<uint32_t>(llm.integer("dp_local"));
  return c;
}

std::unique_ptr<LlmWorkload> make_llm_workload(const ParamSet& llm, Mapping mapping, double alpha_s,
                                               double bandwidth, double local_bandwidth,
                                               const DomainOf& domain, uint64_t seed) {
  LlmConfig c = llm_config(llm);
  c.seed = seed;
  c.alpha_s = alpha_s;
  c.bandwidth = bandwidth;
  c.local_bandwidth = local_bandwidth;
  return std::make_unique<LlmWorkload>(std::move(c), std::move(mapping), domain);
}

}  // namespace hx::wl
