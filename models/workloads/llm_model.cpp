// Model presets, Table 4 volumes and model FLOPs (docs/workloads/llm.md).
#include "models/workloads/llm_model.h"

#include <cmath>

#include "core/error.h"
#include "models/workloads/mapping.h"

namespace hx::wl {
namespace {

// {name, L, H, I, h_A, h_KV, V, S, experts, K, moe_layer_ratio, ffn_matrices, bytes}
const std::vector<LlmModel>& presets() {
  static const std::vector<LlmModel> kPresets = {
      // Brown et al. 2020 (GPT-3) Table 2.1; rail-only §2.2. FFN 4H with GELU: 2 matrices.
      {"gpt3-175b", 96, 12288, 4 * 12288, 96, 96, 50257, 2048, 1, 1, 1, 2, 2},
      // Zhang et al. 2022 (OPT) Table 1; rail-only §2.2. FFN 4H with ReLU: 2 matrices.
      {"opt-175b", 96, 12288, 4 * 12288, 96, 96, 50272, 2048, 1, 1, 1, 2, 2},
      // Chowdhery et al. 2022 (PaLM) Table 1 and §2; rail-only §2.2. Multi-query attention,
      // FFN 4H with SwiGLU: 3 matrices. (PaLM's head size is 256, not H/h_A; see the doc.)
      {"palm-540b", 118, 18432, 4 * 18432, 48, 1, 256000, 2048, 1, 1, 1, 3, 2},
      // Llama 3 paper (Dubey et al. 2024) Table 3, vocabulary of the released tokenizer;
      // InfiniteHBD §2.3, §6.3. SwiGLU: 3 matrices.
      {"llama3.1-405b", 126, 16384, 53248, 128, 8, 128256, 8192, 1, 1, 1, 3, 2},
      // InfiniteHBD Appendix B, every field; 128 KV heads (multi-head attention: App. B gives no
      // KV heads). GELU, 2 matrices, because that makes 1.16e12 parameters (~1.1T); SwiGLU
      // would make 1.68e12.
      {"gpt-moe-1.1t", 192, 12288, 49152, 128, 128, 64000, 2048, 8, 2, 0.5, 2, 2},
      // Llama 3 70B (Dubey et al. 2024 Table 3) with RailX A.4 Listing 1's MoE: 8 experts,
      // top-2, every layer MoE (Megatron's default layer frequency). SwiGLU: 3 matrices.
      {"llama3-70b-moe", 80, 8192, 28672, 64, 8, 128256, 8192, 8, 2, 1, 3, 2},
  };
  return kPresets;
}

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace

const std::vector<std::string>& llm_preset_names() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const LlmModel& m : presets()) names.push_back(m.name);
    return names;
  }();
  return kNames;
}

const LlmModel& llm_preset(const std::string& name) {
  for (const LlmModel& m : presets()) {
    if (m.name == name) return m;
  }
  std::string list;
  for (const std::string& n : llm_preset_names()) list += (list.empty() ? "" : ", ") + n;
  throw InputError("unknown LLM preset '" + name + "'; presets: " + list);
}

bool is_moe_layer(const LlmModel& m, uint32_t chunk_layer) {
  if (m.experts <= 1) return false;
  // The small epsilon keeps ratios like 0.1 * 10 from rounding below the integer.
  const double r = m.moe_layer_ratio;
  return std::floor((chunk_layer + 1) * r + 1e-9) > std::floor(chunk_layer * r + 1e-9);
}

uint32_t moe_layers_per_stage(const LlmModel& m, const Parallelism& par) {
  if (m.experts <= 1) return 0;
  return par.virtual_stages *
         static_cast<uint32_t>(std::floor(par.chunk_layers(m.layers) * m.moe_layer_ratio + 1e-9));
}

std::vector<uint32_t> group_ranks(const RankGroup& g, uint32_t rank) {
  std::vector<uint32_t> outer{rank};
  if (g.outer_size > 1) outer = strided_group(rank, g.outer_size, g.outer_stride);
  std::vector<uint32_t> out;
  out.reserve(g.members());
  for (uint32_t o : outer) {
    for (uint32_t r : strided_group(o, g.size, g.stride)) out.push_back(r);
  }
  return out;
}

const char* pattern_name(Pattern p) {
  switch (p) {
    case Pattern::kReduceScatterAllGather:
      return "RS/AG";
    case Pattern::kAllToAll:
      return "all-to-all";
    case Pattern::kAllReduce:
      return "all-reduce";
    default:
      return "p2p";
  }
}

std::vector<CommVolume> table4_volumes(const LlmModel& m, const Parallelism& par,
                                       bool embedding_at_ends, bool ring_attention) {
  const uint64_t T = par.tp, C = par.cp, E = par.ep, D = par.data();
  const uint64_t B = par.micro_batch, S = m.seq, H = m.hidden, K = m.top_k;
  // Uneven stages (Parallelism::stage_layers): the largest stage's counts.
  const double NB = par.micro_batches, Ls = par.max_stage_layers(m.layers);
  const double Lm = moe_layers_per_stage(m, par);
  const bool moe = m.experts > 1;
  // Layers whose FFN is "TP FFN"/"DP FFN" (experts, or every layer of a dense model), and the
  // dense layers of an MoE model.
  const double L_ffn = moe ? Lm : Ls, L_dense = moe ? Ls - Lm : 0;
  const uint64_t bpe = m.bytes_per_element;
  const auto T_ = static_cast<uint32_t>(T);
  const auto TC = static_cast<uint32_t>(T * C), TCE = static_cast<uint32_t>(T * C * E);
  const RankGroup g_t{T_, 1}, g_c{par.cp, T_}, g_e{par.ep, TC}, g_voc{par.data(), TC};
  const RankGroup g_qkv{par.cp * par.data(), T_}, g_ffn{par.cp, T_, par.dp, TCE};
  const RankGroup g_p{par.pp, static_cast<uint32_t>(T * C * D)};

  std::vector<CommVolume> rows;
  const auto add = [&](Dim dim, const char* label, Pattern pattern, RankGroup g, uint64_t num,
                       uint64_t den, double freq) {
    if (g.members() <= 1 || freq <= 0) return;
    rows.push_back({dim, label, pattern, g, ceil_div(num, den) * bpe, freq});
  };
  const auto rsag = Pattern::kReduceScatterAllGather, p2p = Pattern::kPointToPoint;
  const auto ar = Pattern::kAllReduce;
  add(Dim::kTP, "TP attention", rsag, g_t, B * S * H, 1, 4 * NB * Ls);
  add(Dim::kTP, "TP FFN", rsag, g_t, B * S * H * K, 1, 4 * NB * L_ffn);
  add(Dim::kTP, "TP FFN dense", rsag, g_t, B * S * H, 1, 4 * NB * L_dense);
  add(Dim::kCP, "CP", p2p, g_c, B * S * H * 2 * m.kv_heads, m.heads * T,
      (ring_attention ? 3.0 * (C - 1) : 2.0) * NB * Ls);
  add(Dim::kEP, "EP", Pattern::kAllToAll, g_e, B * S * H * K, T * C, 4 * NB * Lm);
  add(Dim::kDP, "DP VOC", ar, g_voc, (embedding_at_ends && par.pp > 1 ? 1 : 2) * H * m.vocab, T * C,
      1);
  add(Dim::kDP, "DP QKV", ar, g_qkv, (2 * m.heads + 2 * m.kv_heads) * H * H, m.heads * T, Ls);
  add(Dim::kDP, "DP FFN", ar, g_ffn, 3 * H * m.ffn, T, L_ffn);
  add(Dim::kDP, "DP FFN dense", ar, g_qkv, 3 * H * m.ffn, T, L_dense);
  add(Dim::kPP, "PP", p2p, g_p, B * S * H, T * C, 2 * NB);
  return rows;
}

double layer_forward_flops(const LlmModel& m, bool moe) {
  const double H = m.hidden, I = m.ffn, S = m.seq;
  const double qkv = H * (H + 2 * H * m.kv_heads / m.heads), out = H * H;
  const double ffn = m.ffn_matrices * H * I * (moe ? m.top_k : 1);
  // QK^T and (scores x V) over all S keys: the causal half is counted too, as Megatron's and
  // PaLM's MFU do.
  return 2 * (qkv + out + ffn) + 4 * S * H;
}

double logits_forward_flops(const LlmModel& m) { return 2.0 * m.hidden * m.vocab; }

double iteration_flops(const LlmModel& m, const Parallelism& par) {
  const double moe_layers = static_cast<double>(moe_layers_per_stage(m, par)) * par.pp;
  const double per_token = (m.layers - moe_layers) * layer_forward_flops(m, false) +
                           moe_layers * layer_forward_flops(m, true) + logits_forward_flops(m);
  const double tokens = static_cast<double>(par.micro_batch) * par.micro_batches * par.data() *
                        static_cast<double>(m.seq);
  return 3 * per_token * tokens;
}

}  // namespace hx::wl
