// Per-GPU memory of LLM training (docs/workloads/llm_memory.md).
#include "models/workloads/llm_memory.h"

#include <algorithm>
#include <string>

#include "core/error.h"

namespace hx::wl {
namespace {

void check_parallelism(const LlmModel& m, const Parallelism& par, uint32_t stage) {
  const auto require = [](bool ok, const std::string& what) {
    if (!ok) throw InputError("llm memory: " + what);
  };
  require(par.tp > 0 && par.cp > 0 && par.ep > 0 && par.dp > 0 && par.pp > 0 &&
              par.virtual_stages > 0 && par.micro_batch > 0 && par.micro_batches > 0,
          "tp, cp, ep, dp, pp, virtual_stages, micro_batch and micro_batches must be >= 1");
  require(m.hidden > 0 && m.heads > 0 && m.experts > 0, "hidden, heads and experts must be >= 1");
  require(m.experts % par.ep == 0, "ep = " + std::to_string(par.ep) + " must divide the " +
                                       std::to_string(m.experts) + " experts");
  require(m.seq % par.cp == 0,
          "cp = " + std::to_string(par.cp) + " must divide seq = " + std::to_string(m.seq));
  require(stage < par.pp,
          "stage " + std::to_string(stage) + " out of range for pp = " + std::to_string(par.pp));
}

// Layers of the stage, split into those with experts and those without (dense FFN).
struct StageLayers {
  double dense = 0;
  double moe = 0;
};
StageLayers stage_layers(const LlmModel& m, const Parallelism& par, uint32_t stage) {
  const double moe = moe_layers_per_stage(m, par);
  return {par.stage_layers(m.layers, stage) - moe, moe};
}

}  // namespace

Recompute recompute_from_name(const std::string& name) {
  return name == "none"   ? Recompute::kNone
         : name == "full" ? Recompute::kFull
                          : Recompute::kSelective;
}

const char* recompute_name(Recompute r) {
  return r == Recompute::kNone ? "none" : r == Recompute::kFull ? "full" : "selective";
}

void check_memory_options(const MemoryOptions& o) {
  const auto require = [](bool ok, const std::string& field, double value, const char* what) {
    if (!ok) {
      throw InputError("llm memory: " + field + " = " + std::to_string(value) + " must be " + what);
    }
  };
  require(o.capacity_bytes > 0, "capacity_bytes", o.capacity_bytes, "> 0");
  require(o.weight_bytes >= 0, "weight_bytes", o.weight_bytes, ">= 0");
  require(o.grad_bytes >= 0, "grad_bytes", o.grad_bytes, ">= 0");
  require(o.optimizer_bytes >= 0, "optimizer_bytes", o.optimizer_bytes, ">= 0");
}

StageParams stage_params(const LlmModel& m, const Parallelism& par, uint32_t stage) {
  const double H = m.hidden, T = par.tp;
  // Q and O are H x H; K and V are H x (H h_KV / h_A) with grouped-query attention.
  const double attention = H * (H + 2 * H * m.kv_heads / m.heads) + H * H;
  const double ffn = static_cast<double>(m.ffn_matrices) * H * m.ffn;
  const double local_experts = static_cast<double>(m.experts) / par.ep;
  const double embedding = static_cast<double>(m.vocab) * H;  // untied: one on each end
  const StageLayers layers = stage_layers(m, par, stage);
  StageParams p;
  p.dense = ((layers.dense + layers.moe) * attention + layers.dense * ffn) / T;
  p.expert = layers.moe * local_experts * ffn / T;
  if (stage == 0) p.dense += embedding / T;
  if (stage + 1 == par.pp) p.dense += embedding / T;
  return p;
}

double layer_activation_bytes(const LlmModel& m, const Parallelism& par, Recompute r, bool moe) {
  const double s = static_cast<double>(m.seq) / par.cp, b = par.micro_batch, h = m.hidden;
  const double t = par.tp;
  // Sequence parallelism shards every term over the TP group (Korthikanti Eq. 4).
  const double sbh_t = s * b * h / t;
  if (r == Recompute::kFull) return 2 * sbh_t;  // the layer's 16-bit input only
  // Korthikanti §4.1's 34 sbh, term by term, generalised to GQA and any FFN: two norms' inputs
  // 4; attention 11 = QKV input 2 + Q 2 + K, V 4 h_KV/h_A + projection input 2 + dropout mask
  // 1; FFN 19 = input 2 + dropout mask 1 + 2 bytes per intermediate element the backward needs
  // (2 I/h per FFN matrix: GELU's input and output, SwiGLU's gate, up and product).
  const double norms = 4, attention = 7 + 4.0 * m.kv_heads / m.heads;
  const double ffn = (3 + 2.0 * m.ffn_matrices * m.ffn / h) * (moe ? m.top_k : 1);
  double bytes = sbh_t * (norms + attention + ffn);
  // Scores, softmax output and its dropout mask: 5 a s^2 b, the part selective recomputation
  // drops.
  if (r == Recompute::kNone) bytes += 5.0 * m.heads * s * s * b / t;
  return bytes;
}

uint32_t in_flight_chunks(const Parallelism& par, uint32_t stage) {
  // Warm-up forwards of Megatron's 1F1B and interleaved 1F1B (as LlmWorkload schedules them),
  // plus the forward before the first backward.
  const uint32_t P = par.pp, v = par.virtual_stages;
  const uint32_t warmup = v == 1 ? P - 1 - stage : (P - stage - 1) * 2 + (v - 1) * P;
  return std::min(warmup + 1, par.micro_batches * v);
}

MemoryEstimate llm_stage_memory(const LlmModel& m, const Parallelism& par, const MemoryOptions& o,
                                uint32_t stage) {
  check_memory_options(o);
  check_parallelism(m, par, stage);
  const StageParams params = stage_params(m, par, stage);
  MemoryEstimate e;
  e.stage = stage;
  e.weights = params.total() * o.weight_bytes;
  e.gradients = params.total() * o.grad_bytes;
  // The data-parallel groups of Table 4: G_D_QKV (C E D_e) and G_D_FFN (C D_e).
  const double dense_dp = o.distributed_optimizer ? par.cp * par.data() : 1;
  const double expert_dp = o.distributed_optimizer ? par.cp * par.dp : 1;
  e.optimizer = (params.dense / dense_dp + params.expert / expert_dp) * o.optimizer_bytes;

  const StageLayers layers = stage_layers(m, par, stage);
  const double chunk = (layers.dense * layer_activation_bytes(m, par, o.recompute, false) +
                        layers.moe * layer_activation_bytes(m, par, o.recompute, true)) /
                       par.virtual_stages;
  e.activations = in_flight_chunks(par, stage) * chunk;
  if (stage + 1 == par.pp) {
    // Output layer and cross-entropy (Korthikanti §4.3, Megatron): the final norm's output and
    // the fp32 logits, 4 s b (h + V) / t, for the one micro-batch whose backward follows at once.
    const double s = static_cast<double>(m.seq) / par.cp;
    e.activations += 4 * s * par.micro_batch * (m.hidden + m.vocab) / par.tp;
  }
  return e;
}

MemoryEstimate llm_memory(const LlmModel& m, const Parallelism& par, const MemoryOptions& o) {
  MemoryEstimate worst = llm_stage_memory(m, par, o, 0);
  for (uint32_t p = 1; p < par.pp; ++p) {
    const MemoryEstimate e = llm_stage_memory(m, par, o, p);
    if (e.total() > worst.total()) worst = e;
  }
  return worst;
}

bool fits(const MemoryEstimate& e, const MemoryOptions& o) {
  check_memory_options(o);
  return e.total() <= o.capacity_bytes;
}

}  // namespace hx::wl
