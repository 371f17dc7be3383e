// Per-chip compute times of a layer's products (llm_compute.h).
#include "models/workloads/llm_compute.h"

#include <algorithm>
#include <cmath>

namespace hx::wl {

double GemmModel::seconds(double m, double n, double k, double batch) const {
  const double flops = 2 * m * n * k * batch;
  if (!roofline()) return flops / (chip_flops * efficiency);
  // Wave quantization: the tiles run in waves of `sms`; a last wave that fills only part of
  // the SMs costs a whole wave.
  double wave = 1;
  if (sms > 0) {
    const double tiles = std::ceil(m / tile_m) * std::ceil(n / tile_n) * batch;
    wave = tiles / (std::ceil(tiles / sms) * sms);
  }
  const double math = flops / (chip_flops * efficiency * wave);
  const double memory = (m * k + k * n + m * n) * batch * bytes_per_element / memory_bandwidth;
  return std::max(math, memory);
}

double GemmModel::attention(double queries, double keys, double width, double batch) const {
  const double flops = 4 * queries * keys * width * batch;
  if (!roofline()) return flops / (chip_flops * efficiency);
  double wave = 1;
  if (sms > 0) {
    const double tiles = std::ceil(queries / tile_m) * batch;
    wave = tiles / (std::ceil(tiles / sms) * sms);
  }
  const double math = flops / (chip_flops * efficiency * wave);
  const double memory = 2 * (queries + keys) * width * batch * bytes_per_element / memory_bandwidth;
  return std::max(math, memory);
}

double GemmModel::backward(double m, double n, double k, double batch) const {
  return seconds(m, k, n, batch) + seconds(k, n, m, batch);
}

namespace {

LayerCompute::Pass pass(const GemmModel& g, double m, double n, double k, double batch = 1) {
  return {g.forward(m, n, k, batch), g.backward(m, n, k, batch)};
}

LayerCompute::Pass operator+(LayerCompute::Pass a, LayerCompute::Pass b) {
  return {a.forward + b.forward, a.backward + b.backward};
}

// The flat model from the FLOPs, as every config without `gemm = "roofline"` has computed
// them (the backward twice the forward).
LayerCompute::Pass flat(const GemmModel& g, double flops) {
  const double s = flops / (g.chip_flops * g.efficiency);
  return {s, 2 * s};
}

}  // namespace

LayerCompute layer_compute(const LlmModel& m, const Parallelism& par, const GemmModel& g) {
  const double H = m.hidden, S = m.seq, T = par.tp;
  LayerCompute c;
  if (!g.roofline()) {
    // Per chip: B*S/C tokens through 1/T of every weight matrix (and of the attention heads).
    const double tokens = static_cast<double>(par.micro_batch) * m.seq / par.cp / par.tp;
    c.qkv = flat(g, 2 * tokens * H * (H + 2 * H * m.kv_heads / m.heads));
    c.attention = flat(g, tokens * (4 * S * H + 2 * H * H));
    c.ffn_dense = flat(g, 2 * tokens * m.ffn_matrices * H * m.ffn);
    c.ffn_moe = flat(g, 2 * tokens * m.ffn_matrices * H * m.ffn * m.top_k);
    c.logits = flat(g, tokens * logits_forward_flops(m));
    return c;
  }
  const double M = static_cast<double>(par.micro_batch) * m.seq / par.cp;
  const double head = H / m.heads, heads = static_cast<double>(par.micro_batch) * m.heads / T;
  c.qkv = pass(g, M, H * (1 + 2.0 * m.kv_heads / m.heads) / T, H);
  const double core = g.attention(S / par.cp, S, head, heads);
  c.attention = LayerCompute::Pass{core, 2 * core} + pass(g, M, H, H / T);
  const double I = static_cast<double>(m.ffn) / T;
  c.ffn_dense = pass(g, M, (m.ffn_matrices - 1) * I, H) + pass(g, M, H, I);
  const double local = static_cast<double>(m.experts) / par.ep;
  const LayerCompute::Pass one =
      expert_compute(m, par, g, M * m.top_k * par.ep / static_cast<double>(m.experts));
  c.ffn_moe = {one.forward * local, one.backward * local};
  c.logits = pass(g, M, static_cast<double>(m.vocab) / T, H);
  return c;
}

LayerCompute::Pass expert_compute(const LlmModel& m, const Parallelism& par, const GemmModel& g,
                                  double tokens) {
  const double H = m.hidden, I = static_cast<double>(m.ffn) / par.tp;
  if (tokens <= 0) return {};
  return pass(g, tokens, (m.ffn_matrices - 1) * I, H) + pass(g, tokens, H, I);
}

}  // namespace hx::wl
