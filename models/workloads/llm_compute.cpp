// Per-chip compute times of a layer's products (llm_compute.h).
#include "models/workloads/llm_compute.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace hx::wl {

namespace {

// The roofline of work of `flops` FLOPs in `tiles` thread-block tiles moving `bytes`: the tiles
// run in waves of `sms`, and a last wave that fills only part of the SMs costs a whole wave.
double roofline_seconds(const GemmModel& g, double flops, double tiles, double bytes) {
  const double wave = g.sms > 0 && tiles > 0 ? tiles / (std::ceil(tiles / g.sms) * g.sms) : 1;
  return std::max(flops / (g.chip_flops * g.efficiency * wave), bytes / g.memory_bandwidth);
}

}  // namespace

double GemmModel::seconds(double m, double n, double k, double batch) const {
  const double flops = 2 * m * n * k * batch;
  if (!roofline()) return flops / (chip_flops * efficiency);
  return roofline_seconds(*this, flops, std::ceil(m / tile_m) * std::ceil(n / tile_n) * batch,
                          (m * k + k * n + m * n) * batch * bytes_per_element);
}

double GemmModel::grouped(std::span<const Gemm> products) const {
  double flops = 0, tiles = 0, bytes = 0;
  for (const Gemm& p : products) {
    flops += 2 * p.m * p.n * p.k;
    tiles += std::ceil(p.m / tile_m) * std::ceil(p.n / tile_n);
    bytes += (p.m * p.k + p.k * p.n + p.m * p.n) * bytes_per_element;
  }
  if (!roofline()) return flops / (chip_flops * efficiency);
  return roofline_seconds(*this, flops, tiles, bytes);
}

double GemmModel::attention(double queries, double keys, double width, double batch) const {
  const double flops = 4 * queries * keys * width * batch;
  if (!roofline()) return flops / (chip_flops * efficiency);
  return roofline_seconds(*this, flops, std::ceil(queries / tile_m) * batch,
                          2 * (queries + keys) * width * batch * bytes_per_element);
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
    c.projection = flat(g, tokens * 2 * H * H);
    c.ffn_up = flat(g, 2 * tokens * (m.ffn_matrices - 1) * H * m.ffn);
    c.ffn_moe = flat(g, 2 * tokens * m.ffn_matrices * H * m.ffn * m.top_k);
    c.logits = flat(g, tokens * logits_forward_flops(m));
    return c;
  }
  const double M = static_cast<double>(par.micro_batch) * m.seq / par.cp;
  const double head = H / m.heads, heads = static_cast<double>(par.micro_batch) * m.heads / T;
  c.qkv = pass(g, M, H * (1 + 2.0 * m.kv_heads / m.heads) / T, H);
  const double core = g.attention(S / par.cp, S, head, heads);
  c.projection = pass(g, M, H, H / T);
  c.attention = LayerCompute::Pass{core, 2 * core} + c.projection;
  const double I = static_cast<double>(m.ffn) / T;
  c.ffn_up = pass(g, M, (m.ffn_matrices - 1) * I, H);
  c.ffn_dense = c.ffn_up + pass(g, M, H, I);
  const std::vector<double> tokens(m.experts / par.ep,
                                   M * m.top_k * par.ep / static_cast<double>(m.experts));
  c.ffn_moe = expert_compute(m, par, g, tokens);
  c.logits = pass(g, M, static_cast<double>(m.vocab) / T, H);
  return c;
}

LayerCompute::Pass expert_compute(const LlmModel& m, const Parallelism& par, const GemmModel& g,
                                  std::span<const double> tokens) {
  const double H = m.hidden, I = static_cast<double>(m.ffn) / par.tp;
  const double up = (m.ffn_matrices - 1) * I;
  // Forward: each expert's up (m x up over H) and down (m x H over I) product; backward: their
  // data gradients (m x H over up, m x I over H) and weight gradients (H x up, I x H over m).
  std::vector<Gemm> f_up, f_down, d_up, d_down, w_up, w_down;
  for (const double t : tokens) {
    if (t <= 0) continue;
    f_up.push_back({t, up, H});
    f_down.push_back({t, H, I});
    d_up.push_back({t, H, up});
    d_down.push_back({t, I, H});
    w_up.push_back({H, up, t});
    w_down.push_back({I, H, t});
  }
  return {g.grouped(f_up) + g.grouped(f_down),
          g.grouped(d_up) + g.grouped(w_up) + g.grouped(d_down) + g.grouped(w_down)};
}

}  // namespace hx::wl
