// Compute time of a transformer layer's pieces on one chip (docs/workloads/llm.md "FLOPs and
// compute time"): every matrix product at one fraction of the chip's peak (flat), or each GEMM
// on a roofline with wave quantization, so that splitting GEMMs over more TP ranks makes them
// less efficient (InfiniteHBD §6.3, after NVIDIA's "Matrix Multiplication Background" guide).
#pragma once

#include <cstdint>
#include <span>

#include "models/workloads/llm_model.h"

namespace hx::wl {

/// One product C[m x n] = A[m x k] B[k x n].
struct Gemm {
  double m = 0, n = 0, k = 0;
};

struct GemmModel {
  double chip_flops = 989e12;  // FLOP/s of one chip
  /// Flat: the fraction of chip_flops every product achieves. Roofline: the math-bound ceiling.
  double efficiency = 1;
  /// Roofline when > 0: bytes/s of the chip's memory (H100 SXM HBM3: 3.35e12).
  double memory_bandwidth = 0;
  uint32_t sms = 132;     // roofline: streaming multiprocessors a wave of tiles fills
  uint32_t tile_m = 128;  // roofline: output tile of one thread block, rows
  uint32_t tile_n = 256;  //   and columns (CUTLASS's H100 bf16 tile)
  uint32_t bytes_per_element = 2;

  bool roofline() const { return memory_bandwidth > 0; }
  /// Seconds of `batch` products C[m x n] = A[m x k] B[k x n]. Flat: 2mnk·batch / (chip_flops ·
  /// efficiency). Roofline: the larger of the math time, 2mnk·batch / (chip_flops · efficiency
  /// · wave), where wave = tiles / (waves · sms) is the busy fraction of the last wave's SMs,
  /// and the memory time, (mk + kn + mn)·batch·bytes_per_element / memory_bandwidth.
  double seconds(double m, double n, double k, double batch = 1) const;
  /// The forward product and its backward: dA = dC·Bᵀ (m x k over n) and dB = Aᵀ·dC (k x n
  /// over m). Flat: the backward is twice the forward.
  double forward(double m, double n, double k, double batch = 1) const {
    return seconds(m, n, k, batch);
  }
  double backward(double m, double n, double k, double batch = 1) const;
  /// Products run as one grouped kernel (an MoE layer's local experts, as grouped-GEMM kernels
  /// run them): their tiles share the waves and their FLOPs and bytes add up.
  double grouped(std::span<const Gemm> products) const;
  /// Seconds of `batch` fused attentions (flash attention) of `queries` queries over `keys`
  /// keys of width `width`: 4 · queries · keys · width FLOPs per head (all keys: the causal
  /// half is counted as the model FLOPs count it); roofline: thread blocks of tile_m queries,
  /// memory Q, K, V and the output only (the scores stay on chip).
  double attention(double queries, double keys, double width, double batch) const;
};

/// Seconds of one micro-batch on one chip, forward and backward, of the pieces a layer runs
/// (llm.cpp): M = B·S/C tokens through 1/T of each weight matrix and of the heads.
struct LayerCompute {
  struct Pass {
    double forward = 0, backward = 0;
  };
  Pass qkv;         // the Q, K, V projections: M x H(1 + 2h_KV/h_A)/T over H
  Pass attention;   // scores and context fused (B·h_A/T heads of S/C queries over S keys; the
                    // backward twice the forward), then the output projection: M x H over H/T
  Pass ffn_dense;   // up (and gate) M x (m-1)I/T over H, then down M x H over I/T
  Pass projection;  // of `attention`: the output projection alone
  Pass ffn_up;      // of `ffn_dense`: the up (and gate) product alone
  Pass ffn_moe;     // an expert layer under balanced routing: experts/E local experts of
                    //   M·K·E/experts tokens each (expert_compute)
  Pass logits;      // the output layer: M x V/T over H
};
LayerCompute layer_compute(const LlmModel& m, const Parallelism& par, const GemmModel& g);

/// The FFNs of a chip's local experts, expert i over tokens[i] tokens (1/T of its weights): up
/// (and gate), then down, each one grouped kernel over the experts; backward, their data and
/// weight gradients likewise. The balanced load of an expert is M·K·E / experts tokens.
LayerCompute::Pass expert_compute(const LlmModel& m, const Parallelism& par, const GemmModel& g,
                                  std::span<const double> tokens);

}  // namespace hx::wl
