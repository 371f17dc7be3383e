// The analytical model of the rail-only paper (Wang et al., "Optimized Network Architectures for
// Large Language Model Training with Billions of Parameters"): §4's switch and transceiver counts
// and cost (Table 2), §3.2's iteration time (Eq. 1), optimal model-parallel size (Eq. 2) and ideal
// any-to-any iteration time (Eq. 3), and the curves of Figs. 5, 7 and 8 built from them. Pure
// arithmetic, no I/O: report() lays it out for `hxsim topo`.
//
// Table 2's counting (every row reproduces exactly):
//  - A full-bisection folded Clos of n endpoints from radix-k switches has the fewest tiers t with
//    k (k/2)^(t-1) >= n; tiers 1..t-1 have ceil(n / (k/2)) switches (half the ports down), the top
//    tier ceil(n / k) (all ports down). Each of its t n links (n to endpoints, n per tier above)
//    has a transceiver at both ends: 2 t n.
//  - State of the art (rail-optimized any-to-any): one such Clos of all N GPUs (the paper: rails
//    are "not physically separated in some cases").
//  - Rail-only: one Clos per rail, K rails of N/K GPUs. When a rail fits in one switch, a switch
//    holds floor(k / (N/K)) rails (radix 256, 128 GPUs per rail: two rails, 128 switches).
//  - Cost = #SW k $748 + #TR $374; Table 2 truncates the reduction to a whole percent (its 54%
//    is 6/11 = 54.5%, its 37% is 3/8 = 37.5%).
//
// Eq. 1-3, read so that the paper's stated results come out (tests/models/rail_only_analytic_test
// checks Figs. 5, 7, 8); every size is in bits and every bandwidth in bits/s:
//  - N GPUs, HB domain of K GPUs, K | N; N_Df = N / K; N_Ds = K / N_M.
//  - l, d_model: the preset's layers and hidden size (models/workloads/llm_model.h).
//  - S_T: one transformer block's weights, the attention and FFN matrices the preset's FLOPs
//    count (layer_forward_flops), x bytes_per_element (2, bf16) x 8.
//  - b: tokens per iteration, the global batch. The paper's: GPT-3 3.2M, OPT-175B 2M, PaLM-540B
//    512-2048 sequences of its 2,048 tokens.
//  - M_flop = 6 P b (forward + backward), P = l x block weights + vocabulary x d_model.
//  - M_cc: 8 for GPT-3 and OPT-175B, 12 for PaLM-540B (Table 1); no other preset has one.
//  - C: 989 TFLOP/s, H100 dense bf16, the LLM workload's chip_flops default. B_F = 7.2 Tbps,
//    B_S = 400 Gbps (GH200, §2.1).
//  - The MP term's b d_model activations are 8 bits each. Eq. 1 prints them with no size while
//    S_T is a size; with S_T in bits, 8 bits per activation is the one choice for which Eq. 2 as
//    printed, sqrt(N S_T) / (2 sqrt(2 b M_cc d_model)), is the minimiser of Eq. 1 (2 sqrt 2 =
//    sqrt 8), and the one with which Figs. 7 and 8 reproduce. With 16 bits, Fig. 8 gives 65% and
//    83% instead of 60% and 81%.
//  - N_M: the power of two dividing K nearest to Eq. 2's N_M* in log scale. Eq. 1 is
//    a / N_M + c N_M + const in N_M, whose minimum over powers of two moves from 2^j to 2^(j+1)
//    at 2^(j+1/2): this N_M is the one that minimises Eq. 1. Eq. 3 takes it with K = N.
// What comes out: Fig. 7's quoted gains (28%, 33%, 3.8%, 5.3%) are those of its N = 16,384
// panel (larger clusters gain more); Fig. 8's 60% and 81% and Fig. 5's 1.28x at printed
// precision; Fig. 5's 1.65x comes out 1.67x, 1 / Fig. 8's 60%.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/closed_forms.h"
#include "core/units.h"
#include "models/workloads/llm_model.h"

namespace hx::net::rail_only {

// ---- §4, Table 2: switches, transceivers, cost ----

struct Fabric {
  uint32_t tiers = 0;  // of the deepest Clos in it
  uint64_t switches = 0;
  uint64_t transceivers = 0;
};

/// The fewest tiers of radix-k switches that give n endpoints full bisection.
uint32_t clos_tiers(uint64_t endpoints, uint32_t radix);
/// The full-bisection folded Clos of n endpoints.
Fabric folded_clos(uint64_t endpoints, uint32_t radix);
/// The state-of-the-art rail-optimized any-to-any network: one Clos of all N GPUs.
Fabric rail_optimized_fabric(uint64_t gpus, uint32_t radix);
/// The rail-only network: K rails of N/K GPUs, a Clos each, or several per switch.
Fabric rail_only_fabric(uint64_t gpus, uint64_t hb_size, uint32_t radix);
/// #SW radix $748 + #TR $374, in dollars.
uint64_t cost_usd(const Fabric& f, uint32_t radix);

struct CostComparison {
  Fabric sota, rail;
  uint64_t sota_usd = 0, rail_usd = 0;
  double reduction = 0;           // 1 - rail / sota
  int32_t reduction_percent = 0;  // truncated towards zero, as Table 2 prints it
};
CostComparison compare_cost(uint64_t gpus, uint64_t hb_size, uint32_t radix);

/// §2.2's "33% of the links in an any-to-any 400 Gbps Clos network are removable": with the GPUs
/// of a rail contiguous under the rail-optimized Clos (t tiers, t N links), LLM traffic across
/// domains stays on one rail, inside the lowest subtree that holds a rail ((k/2)^j GPUs under a
/// tier-j switch); the links of the tiers above it, (t - j) / t of all, carry none. 32,768 GPUs,
/// K = 256, radix 64: t = 3, a rail of 128 in a two-tier pod of 1,024, 1/3.
double removable_link_fraction(uint64_t gpus, uint64_t hb_size, uint32_t radix);

struct Table2Row {
  uint64_t gpus = 0;
  uint32_t radix = 0;
};
/// Table 2's seven (N, radix) rows, in its order; the paper's K is 256.
std::vector<Table2Row> table2_rows();
constexpr uint64_t kTable2HbSize = 256;

// ---- §3.2: Eq. 1-3 ----

struct Hardware {
  Bandwidth hb = Bandwidth::bits_per_second(7.2e12);      // B_F
  Bandwidth network = Bandwidth::bits_per_second(400e9);  // B_S
  double chip_flops = 989e12;                             // C
};

/// One model and batch in Eq. 1's terms (the readings above).
struct Training {
  uint32_t layers = 0;  // l
  double d_model = 0;
  double block_bits = 0;    // S_T
  double batch_tokens = 0;  // b
  double flops = 0;         // M_flop
  uint32_t mp_rounds = 0;   // M_cc
  double activation_bits = 8;
};

/// The presets Table 1 gives M_cc for.
const std::vector<std::string>& paper_models();
/// The batch in tokens §3.3-3.4 give each (PaLM-540B: its first, 512 sequences).
double paper_batch_tokens(const std::string& model);
/// Weights of one transformer block, and of the whole model, of a preset.
double block_weights(const wl::LlmModel& m);
double model_weights(const wl::LlmModel& m);
/// A paper model at `batch_tokens`; InputError naming rail_only.llm or rail_only.batch_tokens.
Training training(const std::string& model, double batch_tokens);

struct IterationTime {   // seconds
  double compute = 0;    // T_c = M_flop / (N C)
  double dp_first = 0;   // T_Df, across HB domains on the rails
  double dp_second = 0;  // T_Ds, within the HB domain
  double mp = 0;         // T_M, within the HB domain
  double total() const { return compute + dp_first + dp_second + mp; }
};

/// Eq. 1 with model-parallel size N_M (InputError unless K | N and N_M | K).
IterationTime iteration_time(const Training& t, const Hardware& hw, uint64_t gpus, uint64_t hb_size,
                             uint64_t mp);
/// Eq. 2: N_M*, unrounded.
double optimal_mp_size(const Training& t, uint64_t gpus);
/// The N_M used: the power of two dividing K nearest to N_M* in log scale.
uint64_t mp_size(const Training& t, uint64_t gpus, uint64_t hb_size);
/// Eq. 3: every GPU on one B_F any-to-any fabric, N_M chosen as mp_size with K = N.
double ideal_iteration_time(const Training& t, const Hardware& hw, uint64_t gpus);

// ---- Figs. 5, 7, 8: the cluster at its own N_M ----

struct Point {
  uint64_t hb_size = 0;
  double batch_tokens = 0;
  uint64_t mp = 0;  // N_M used
  IterationTime rail;
  double ideal = 0;                                         // Eq. 3 [s]
  double relative() const { return ideal / rail.total(); }  // Fig. 8b
  double speedup() const { return rail.total() / ideal; }   // Fig. 5
};
Point evaluate(const Training& t, const Hardware& hw, uint64_t gpus, uint64_t hb_size);
/// Fig. 7: iteration time against K.
std::vector<Point> hb_size_sweep(const Training& t, const Hardware& hw, uint64_t gpus,
                                 std::span<const uint64_t> hb_sizes);
/// Fig. 8: iteration time and relative performance against the batch.
std::vector<Point> batch_sweep(const std::string& model, const Hardware& hw, uint64_t gpus,
                               uint64_t hb_size, std::span<const double> batch_tokens);
/// Fig. 5: each paper model at its paper batch, in paper_models() order.
std::vector<Point> model_sweep(const Hardware& hw, uint64_t gpus, uint64_t hb_size);

// ---- `hxsim topo` ----

struct Inputs {
  uint64_t gpus = 32768;   // N
  uint64_t hb_size = 256;  // K
  uint32_t radix = 64;     // k
  std::string model = "gpt3-175b";
  double batch_tokens = 0;  // b; 0: the paper's batch for the model
  Hardware hw;              // errors name rail_only.hb_bandwidth, network_bandwidth, chip_flops
};

/// Table 2 for this (N, K, radix) and the paper's grid; Eq. 1-3 for this model and batch; the
/// curves of Figs. 7 (K = 8..1,024), 8 (512..2,048 sequences) and 5. InputError on bad inputs.
ClosedForms report(const Inputs& in);

}  // namespace hx::net::rail_only
