// Transformer training as RailX sees it (§5, Appendix A.3 Table 4): a model description, a 5D
// parallelism [T, C, E, D_e, P] (T innermost), the communication volume, frequency and process
// group of every parallelism dimension, and the model FLOPs of one iteration.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/workloads/program.h"

namespace hx::wl {

struct LlmModel {
  std::string name;
  uint32_t layers = 0;         // L
  uint64_t hidden = 0;         // H
  uint64_t ffn = 0;            // I, the FFN (or one expert's) intermediate dimension
  uint32_t heads = 0;          // h_A
  uint32_t kv_heads = 0;       // h_KV (grouped-query attention; = heads for multi-head attention)
  uint64_t vocab = 0;          // V
  uint64_t seq = 0;            // S
  uint32_t experts = 1;        // 1: dense
  uint32_t top_k = 1;          // K
  double moe_layer_ratio = 1;  // fraction of the layers that have experts (when experts > 1)
  uint32_t ffn_matrices = 3;   // FLOPs only: 3 for SwiGLU (gate, up, down), 2 for GELU (up, down)
  uint32_t bytes_per_element = 2;  // bf16
};

struct Parallelism {
  uint32_t tp = 1;  // T
  uint32_t cp = 1;  // C
  uint32_t ep = 1;  // E
  uint32_t dp = 1;  // D_e, data parallelism of the expert layers; attention sees D = E * D_e
  uint32_t pp = 1;  // P
  uint64_t micro_batch = 1;     // B, sequences per micro-batch
  uint32_t micro_batches = 1;   // N_B, micro-batches per iteration and data-parallel replica
  uint32_t virtual_stages = 1;  // v: model chunks per pipeline stage (interleaved 1F1B)
  uint32_t chips() const { return tp * cp * ep * dp * pp; }
  uint32_t chunk_layers(uint32_t layers) const { return layers / (pp * virtual_stages); }
  /// Whether the stages' layers are uneven: P does not divide L, but L + 2 (a dense model; the
  /// Llama 3 paper's 126 layers on 4, 8 or 16 stages).
  bool uneven(uint32_t layers) const { return layers % pp != 0; }
  /// Layers of pipeline stage `stage`: L / P; uneven, (L + 2) / P with one fewer on the first and
  /// the last stage, where the embedding and the output layer stand in for one (Llama 3 §3.3.2).
  uint32_t stage_layers(uint32_t layers, uint32_t stage) const {
    if (!uneven(layers)) return layers / pp;
    return (layers + 2) / pp - (stage == 0 || stage + 1 == pp ? 1 : 0);
  }
  /// The most layers a stage has.
  uint32_t max_stage_layers(uint32_t layers) const {
    return uneven(layers) ? (layers + 2) / pp : layers / pp;
  }
  uint32_t data() const { return ep * dp; }  // D
};

/// The presets: "gpt3-175b", "opt-175b", "palm-540b", "llama3.1-405b", "gpt-moe-1.1t",
/// "llama3-70b-moe". InputError listing the names for an unknown one.
const LlmModel& llm_preset(const std::string& name);
const std::vector<std::string>& llm_preset_names();

/// Layers with experts in each pipeline stage. Every model chunk (a stage without virtual
/// stages) gets the same ones, spread evenly: its layer j has experts when floor((j+1)r) >
/// floor(jr) (r = 0.5: every second layer).
uint32_t moe_layers_per_stage(const LlmModel& m, const Parallelism& par);
bool is_moe_layer(const LlmModel& m, uint32_t chunk_layer);

/// A process group as RailX writes it: {base + a*stride + b*outer_stride : a < size,
/// b < outer_size} where base is a rank with those digits cleared (G_D_FFN is C ranks of stride T
/// repeated D_e times at stride TCE; the other groups have outer_size 1).
struct RankGroup {
  uint32_t size = 1;
  uint32_t stride = 1;
  uint32_t outer_size = 1;
  uint32_t outer_stride = 0;
  uint32_t members() const { return size * outer_size; }
};
/// Members of the group containing `rank`, in group-rank order (inner index fastest).
std::vector<uint32_t> group_ranks(const RankGroup& g, uint32_t rank);

enum class Pattern { kReduceScatterAllGather, kPointToPoint, kAllToAll, kAllReduce };
const char* pattern_name(Pattern p);  // "RS/AG", "p2p", "all-to-all", "all-reduce"

/// One row of Table 4: `bytes` per occurrence (elements x bytes_per_element, rounded up to a
/// whole element), `frequency` occurrences per rank and iteration (PP: per stage boundary).
struct CommVolume {
  Dim dim = Dim::kNone;
  std::string label;
  Pattern pattern = Pattern::kPointToPoint;
  RankGroup group;
  uint64_t bytes = 0;
  double frequency = 0;
};

/// Table 4's rows, in the order "TP attention", "TP FFN", "TP FFN dense", "CP", "EP", "DP VOC",
/// "DP QKV", "DP FFN", "DP FFN dense", "PP"; rows whose group has one member or that never occur
/// are left out. "TP FFN" and "DP FFN" are the expert layers of an MoE model (every layer of a
/// dense one); "TP FFN dense" and "DP FFN dense" the dense layers of an MoE model with
/// moe_layer_ratio < 1, which Table 4 (all layers MoE) does not have.
/// `embedding_at_ends`: the input embedding on the first stage and the output layer on the last,
/// so DP VOC is HV/(TC) on those two stages only (P = 1: 2HV/(TC), as Table 4); false: Table 4's
/// 2HV/(TC) on every stage.
/// `ring_attention`: CP as ring attention's C - 1 steps per layer, a message of V each forward
/// and two backward (the block and its gradient): F = 3(C-1) N_B L_s; false: Table 4's one
/// exchange of V per layer and direction.
std::vector<CommVolume> table4_volumes(const LlmModel& m, const Parallelism& par,
                                       bool embedding_at_ends = false, bool ring_attention = false);

/// Forward FLOPs of one token through one layer (with or without experts), and of the logits.
double layer_forward_flops(const LlmModel& m, bool moe);
double logits_forward_flops(const LlmModel& m);
/// Model FLOPs of one iteration over all chips: 3 x forward (backward = 2 x forward) of
/// B * N_B * D sequences of S tokens.
double iteration_flops(const LlmModel& m, const Parallelism& par);

}  // namespace hx::wl
