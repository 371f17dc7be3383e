// Per-GPU memory of LLM training under 5D parallelism: weights, gradients and optimizer state
// (Megatron's mixed-precision bytes per parameter, ZeRO-1 distributed optimizer) and activations
// (Korthikanti et al. 2022 with tensor and sequence parallelism), pipeline stage by stage
// (docs/workloads/llm_memory.md). A parallelism search uses it to drop plans that do not fit.
#pragma once

#include <cstdint>
#include <string>

#include "models/workloads/llm_model.h"

namespace hx::wl {

/// Activation recomputation (Korthikanti et al. 2022 §5): none; selective (the attention
/// scores, softmax and its dropout are recomputed); full (only each layer's input is kept).
enum class Recompute { kNone, kSelective, kFull };
/// "none", "selective", "full" (as llm.recompute and search.recompute spell them).
Recompute recompute_from_name(const std::string& name);
const char* recompute_name(Recompute r);

struct MemoryOptions {
  Recompute recompute = Recompute::kSelective;
  /// Megatron's distributed optimizer (ZeRO-1): the optimizer state is sharded over the
  /// parameter's data-parallel group; weights and gradients are not.
  bool distributed_optimizer = true;
  double weight_bytes = 2;                      // bf16 weights
  double grad_bytes = 4;                        // fp32 main gradients
  double optimizer_bytes = 12;                  // fp32 master weights, Adam's m and v
  double capacity_bytes = 80.0 * (1ull << 30);  // H100 80 GiB
};

/// InputError naming the field when capacity_bytes <= 0 or a bytes-per-parameter is negative.
void check_memory_options(const MemoryOptions& o);

/// Parameters one GPU of a pipeline stage holds: `dense` (attention, dense FFNs, the embedding
/// on the first stage and the output layer on the last), replicated over C*E*D_e GPUs, and
/// `expert` (the local experts' FFNs), replicated over C*D_e.
struct StageParams {
  double dense = 0;
  double expert = 0;
  double total() const { return dense + expert; }
};
StageParams stage_params(const LlmModel& m, const Parallelism& par, uint32_t stage);

/// Activation bytes one GPU keeps for one layer and one micro-batch; `moe`: the layer has
/// experts (its FFN part counted top_k times).
double layer_activation_bytes(const LlmModel& m, const Parallelism& par, Recompute r, bool moe);

/// Micro-batches of one model chunk (the stage without virtual stages) whose activations stage
/// `stage` holds at the peak of (interleaved) 1F1B: its warm-up forwards plus one.
uint32_t in_flight_chunks(const Parallelism& par, uint32_t stage);

/// Bytes per GPU, by kind.
struct MemoryEstimate {
  uint32_t stage = 0;  // the pipeline stage estimated
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
  double activations = 0;
  double total() const { return weights + gradients + optimizer + activations; }
};

/// One GPU of pipeline stage `stage`. InputError on a zero parallelism degree or micro-batch
/// count, E not dividing the experts, C not dividing the sequence, or stage >= P.
MemoryEstimate llm_stage_memory(const LlmModel& m, const Parallelism& par, const MemoryOptions& o,
                                uint32_t stage);
/// The most loaded GPU: the stage with the largest total (usually the first, which holds the
/// most in-flight micro-batches and the embedding).
MemoryEstimate llm_memory(const LlmModel& m, const Parallelism& par, const MemoryOptions& o);

/// Whether the estimate fits in o.capacity_bytes (check_memory_options first).
bool fits(const MemoryEstimate& e, const MemoryOptions& o);

}  // namespace hx::wl
