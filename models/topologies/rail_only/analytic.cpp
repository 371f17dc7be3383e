// The rail-only paper's analytical model (analytic.h). The only numbers written here are the
// paper's inputs: prices, Table 2's grid, M_cc, the batches, and the hardware defaults in the
// header.
#include "models/topologies/rail_only/analytic.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>

#include "core/error.h"

namespace hx::net::rail_only {
namespace {

constexpr uint64_t kPortUsd = 748;         // per 400 Gbps switch port (TopoOpt, §4 footnote)
constexpr uint64_t kTransceiverUsd = 374;  // per 400 Gbps transceiver

void require(bool ok, const std::string& key, const std::string& value, const std::string& what) {
  if (!ok) throw InputError("rail_only." + key + " = " + value + ": " + what);
}

std::string show(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

void require_radix(uint32_t radix) {
  require(radix >= 4 && radix % 2 == 0, "radix", std::to_string(radix),
          "expected an even switch radix >= 4 (a Clos tier has half its ports down, half up)");
}

void require_cluster(uint64_t gpus, uint64_t hb_size) {
  require(gpus >= 1, "gpus", std::to_string(gpus), "expected at least one GPU");
  require(hb_size >= 1 && gpus % hb_size == 0, "hb_size", std::to_string(hb_size),
          "expected an HB domain size that divides rail_only.gpus = " + std::to_string(gpus));
}

// The attention's weight matrices as layer_forward_flops counts them: Q and O d x d, K and V
// d x (d kv_heads / heads).
double attention_weights(const wl::LlmModel& m) {
  const double h = static_cast<double>(m.hidden);
  return h * (h + 2 * h * m.kv_heads / m.heads) + h * h;
}

InputError unknown_model(const std::string& model) {
  std::string list;
  for (const std::string& n : paper_models()) list += (list.empty() ? "" : ", ") + n;
  return InputError("rail_only.llm = '" + model + "': expected one of the paper's models " + list +
                    " (Table 1 gives M_cc for these only)");
}

// Table 1's M_cc: one multi-head attention layer per block for GPT and OPT, two for PaLM.
uint32_t mp_rounds(const std::string& model) {
  if (model == "gpt3-175b" || model == "opt-175b") return 8;
  if (model == "palm-540b") return 12;
  throw unknown_model(model);
}

// Bits one MP collective round moves for the whole batch: b d_model activations.
double round_bits(const Training& t) { return t.batch_tokens * t.d_model * t.activation_bits; }

void require_hardware(const Hardware& hw) {
  require(hw.hb.bps() > 0, "hb_bandwidth", show(hw.hb.bps()) + "bps", "expected B_F > 0");
  require(hw.network.bps() > 0, "network_bandwidth", show(hw.network.bps()) + "bps",
          "expected B_S > 0");
  require(hw.chip_flops > 0, "chip_flops", show(hw.chip_flops), "expected C > 0 FLOP/s");
}

std::string key_of(std::string model) {
  std::replace(model.begin(), model.end(), '-', '_');
  std::replace(model.begin(), model.end(), '.', '_');
  return model;
}

}  // namespace

uint32_t clos_tiers(uint64_t endpoints, uint32_t radix) {
  require_radix(radix);
  const uint64_t half = radix / 2;
  uint32_t tiers = 1;
  // t tiers join k (k/2)^(t-1) endpoints; past `endpoints` the reach is clamped, not overflowed.
  for (uint64_t reach = radix; reach < endpoints; ++tiers) {
    reach = reach > endpoints / half ? endpoints : reach * half;
  }
  return tiers;
}

Fabric folded_clos(uint64_t endpoints, uint32_t radix) {
  const uint32_t t = clos_tiers(endpoints, radix);
  return {t, (t - 1) * ceil_div(endpoints, radix / 2) + ceil_div(endpoints, radix),
          2 * uint64_t{t} * endpoints};
}

Fabric rail_optimized_fabric(uint64_t gpus, uint32_t radix) {
  require(gpus >= 1, "gpus", std::to_string(gpus), "expected at least one GPU");
  return folded_clos(gpus, radix);
}

Fabric rail_only_fabric(uint64_t gpus, uint64_t hb_size, uint32_t radix) {
  require_cluster(gpus, hb_size);
  require_radix(radix);
  const uint64_t rail = gpus / hb_size;
  if (rail <= radix) return {1, ceil_div(hb_size, radix / rail), 2 * gpus};
  const Fabric one = folded_clos(rail, radix);
  return {one.tiers, hb_size * one.switches, hb_size * one.transceivers};
}

uint64_t cost_usd(const Fabric& f, uint32_t radix) {
  return f.switches * radix * kPortUsd + f.transceivers * kTransceiverUsd;
}

CostComparison compare_cost(uint64_t gpus, uint64_t hb_size, uint32_t radix) {
  CostComparison c;
  c.rail = rail_only_fabric(gpus, hb_size, radix);
  c.sota = rail_optimized_fabric(gpus, radix);
  c.sota_usd = cost_usd(c.sota, radix);
  c.rail_usd = cost_usd(c.rail, radix);
  c.reduction = 1 - static_cast<double>(c.rail_usd) / static_cast<double>(c.sota_usd);
  // In integers, so 37.5% truncates to 37 however a floating-point division rounds.
  const auto sota = static_cast<int64_t>(c.sota_usd), rail = static_cast<int64_t>(c.rail_usd);
  c.reduction_percent = static_cast<int32_t>(100 * (sota - rail) / sota);
  return c;
}

double removable_link_fraction(uint64_t gpus, uint64_t hb_size, uint32_t radix) {
  require_cluster(gpus, hb_size);
  const uint32_t t = clos_tiers(gpus, radix);
  // Below the top tier, the subtree under a tier-j switch holds (k/2)^j endpoints.
  const uint64_t rail = gpus / hb_size, half = radix / 2;
  uint32_t j = 1;
  for (uint64_t pod = half; j < t && pod < rail; ++j) pod *= half;
  return static_cast<double>(t - j) / t;
}

std::vector<Table2Row> table2_rows() {
  return {{32768, 32}, {32768, 64},  {32768, 128}, {32768, 256},
          {65536, 64}, {65536, 128}, {65536, 256}};
}

const std::vector<std::string>& paper_models() {
  static const std::vector<std::string> kModels = {"gpt3-175b", "opt-175b", "palm-540b"};
  return kModels;
}

double paper_batch_tokens(const std::string& model) {
  if (model == "gpt3-175b") return 3.2e6;
  if (model == "opt-175b") return 2e6;
  if (model == "palm-540b") return 512.0 * static_cast<double>(wl::llm_preset(model).seq);
  throw unknown_model(model);
}

double block_weights(const wl::LlmModel& m) {
  return attention_weights(m) +
         static_cast<double>(m.ffn_matrices) * static_cast<double>(m.hidden * m.ffn);
}

double model_weights(const wl::LlmModel& m) {
  return m.layers * block_weights(m) + static_cast<double>(m.vocab * m.hidden);
}

Training training(const std::string& model, double batch_tokens) {
  const uint32_t rounds = mp_rounds(model);
  require(batch_tokens > 0 && std::isfinite(batch_tokens), "batch_tokens", show(batch_tokens),
          "expected a positive number of tokens per iteration");
  const wl::LlmModel& m = wl::llm_preset(model);
  Training t;
  t.layers = m.layers;
  t.d_model = static_cast<double>(m.hidden);
  t.block_bits = block_weights(m) * m.bytes_per_element * 8;
  t.batch_tokens = batch_tokens;
  t.flops = 6 * model_weights(m) * batch_tokens;
  t.mp_rounds = rounds;
  return t;
}

IterationTime iteration_time(const Training& t, const Hardware& hw, uint64_t gpus, uint64_t hb_size,
                             uint64_t mp) {
  require_cluster(gpus, hb_size);
  require(mp >= 1 && hb_size % mp == 0, "hb_size", std::to_string(hb_size),
          "expected a multiple of the model-parallel size N_M = " + std::to_string(mp));
  const double n = static_cast<double>(gpus), k = static_cast<double>(hb_size);
  const double nm = static_cast<double>(mp), l = t.layers;
  const double bf = hw.hb.bps(), bs = hw.network.bps();
  const double n_df = n / k, n_ds = k / nm;
  return {t.flops / (n * hw.chip_flops), l * 2 * t.block_bits * (n_df - 1) / (n * bs),
          l * 2 * t.block_bits * (n_ds - 1) / k / bf,
          l * 2 * t.mp_rounds * round_bits(t) * (nm - 1) / n / bf};
}

double optimal_mp_size(const Training& t, uint64_t gpus) {
  // sqrt(N S_T / (8 b M_cc d_model)) at 8 bits per activation: Eq. 2 as printed.
  return std::sqrt(static_cast<double>(gpus) * t.block_bits / (t.mp_rounds * round_bits(t)));
}

uint64_t mp_size(const Training& t, uint64_t gpus, uint64_t hb_size) {
  require_cluster(gpus, hb_size);
  const uint64_t largest = hb_size & (~hb_size + 1);  // the largest power of two dividing K
  const double exponent = std::round(std::log2(std::max(optimal_mp_size(t, gpus), 1.0)));
  if (exponent >= std::log2(static_cast<double>(largest))) return largest;
  return uint64_t{1} << static_cast<int>(exponent);
}

double ideal_iteration_time(const Training& t, const Hardware& hw, uint64_t gpus) {
  const double n = static_cast<double>(gpus), l = t.layers;
  const double nm = static_cast<double>(mp_size(t, gpus, gpus));
  return t.flops / (n * hw.chip_flops) +
         l / (hw.hb.bps() * n) *
             (2 * t.block_bits * (n / nm - 1) + 2 * t.mp_rounds * round_bits(t) * (nm - 1));
}

Point evaluate(const Training& t, const Hardware& hw, uint64_t gpus, uint64_t hb_size) {
  const uint64_t mp = mp_size(t, gpus, hb_size);
  return {hb_size, t.batch_tokens, mp, iteration_time(t, hw, gpus, hb_size, mp),
          ideal_iteration_time(t, hw, gpus)};
}

std::vector<Point> hb_size_sweep(const Training& t, const Hardware& hw, uint64_t gpus,
                                 std::span<const uint64_t> hb_sizes) {
  std::vector<Point> points;
  for (const uint64_t k : hb_sizes) points.push_back(evaluate(t, hw, gpus, k));
  return points;
}

std::vector<Point> batch_sweep(const std::string& model, const Hardware& hw, uint64_t gpus,
                               uint64_t hb_size, std::span<const double> batch_tokens) {
  std::vector<Point> points;
  for (const double b : batch_tokens)
    points.push_back(evaluate(training(model, b), hw, gpus, hb_size));
  return points;
}

std::vector<Point> model_sweep(const Hardware& hw, uint64_t gpus, uint64_t hb_size) {
  std::vector<Point> points;
  for (const std::string& m : paper_models()) {
    points.push_back(evaluate(training(m, paper_batch_tokens(m)), hw, gpus, hb_size));
  }
  return points;
}

namespace {

using Add = std::function<void(std::string, std::string, FormCell)>;

void add_fabric(const Add& add, const std::string& key, const std::string& label,
                const CostComparison& c) {
  add(key + "sota_switches", label + "rail-optimized #SW", count_cell(c.sota.switches));
  add(key + "rail_switches", label + "rail-only #SW", count_cell(c.rail.switches));
  add(key + "sota_transceivers", label + "rail-optimized #TR", count_cell(c.sota.transceivers));
  add(key + "rail_transceivers", label + "rail-only #TR", count_cell(c.rail.transceivers));
  add(key + "reduction_pct", label + "cost reduction, truncated as Table 2 [%]",
      real_cell(c.reduction_percent));
}

void add_cost(const Add& add, const Inputs& in) {
  const CostComparison c = compare_cost(in.gpus, in.hb_size, in.radix);
  add("sota_tiers", "rail-optimized Clos tiers", count_cell(c.sota.tiers));
  add("rail_tiers", "rail-only tiers per rail", count_cell(c.rail.tiers));
  add_fabric(add, "", "", c);
  add("sota_usd", "rail-optimized cost, #SW k $748 + #TR $374 [$]", count_cell(c.sota_usd));
  add("rail_usd", "rail-only cost [$]", count_cell(c.rail_usd));
  add("reduction_exact_pct", "cost reduction, unrounded [%]", real_cell(100 * c.reduction));
  add("removable_links_pct", "Fig. 5 trimmed: rail-optimized links no LLM traffic uses [%]",
      real_cell(100 * removable_link_fraction(in.gpus, in.hb_size, in.radix)));
  for (const Table2Row& row : table2_rows()) {
    const std::string n = std::to_string(row.gpus), k = std::to_string(row.radix);
    add_fabric(add, "table2_n" + n + "_r" + k + "_", "Table 2 N=" + n + " radix " + k + ": ",
               compare_cost(row.gpus, kTable2HbSize, row.radix));
  }
}

void add_iteration(const Add& add, const Inputs& in, const Training& t) {
  const Point p = evaluate(t, in.hw, in.gpus, in.hb_size);
  add("batch_tokens", "b, tokens per iteration", real_cell(t.batch_tokens));
  add("block_bytes", "S_T, one transformer block's weights [bytes]", real_cell(t.block_bits / 8));
  add("flops", "M_flop = 6 P b [FLOP]", real_cell(t.flops));
  add("mp_rounds", "M_cc", count_cell(t.mp_rounds));
  add("eq2_mp_opt", "N_M* (Eq. 2)", real_cell(optimal_mp_size(t, in.gpus)));
  add("mp", "N_M used (power of two dividing K nearest N_M*)", count_cell(p.mp));
  add("dp_first", "N_Df = N / K", count_cell(in.gpus / in.hb_size));
  add("dp_second", "N_Ds = K / N_M", count_cell(in.hb_size / p.mp));
  add("eq1_compute_s", "Eq. 1 T_c = M_flop / (N C) [s]", real_cell(p.rail.compute));
  add("eq1_dp_first_s", "Eq. 1 T_Df, across HB domains [s]", real_cell(p.rail.dp_first));
  add("eq1_dp_second_s", "Eq. 1 T_Ds, within the HB domain [s]", real_cell(p.rail.dp_second));
  add("eq1_mp_s", "Eq. 1 T_M, within the HB domain [s]", real_cell(p.rail.mp));
  add("eq1_iter_s", "Eq. 1 T_iter, rail-only [s]", real_cell(p.rail.total()));
  add("eq3_ideal_s", "Eq. 3 T_iter, ideal any-to-any at B_F [s]", real_cell(p.ideal));
  add("ideal_speedup", "ideal speed-up T_iter / T_ideal (Fig. 5)", real_cell(p.speedup()));
  add("relative", "relative performance T_ideal / T_iter (Fig. 8b)", real_cell(p.relative()));
}

void add_curves(const Add& add, const Inputs& in, const Training& t) {
  for (uint64_t k = 8; k <= 1024 && k <= in.gpus; k *= 2) {
    if (in.gpus % k != 0) continue;
    const Point p = evaluate(t, in.hw, in.gpus, k);
    add("fig7_k" + std::to_string(k) + "_iter_s",
        "Fig. 7: T_iter at K=" + std::to_string(k) + " (N_M=" + std::to_string(p.mp) + ") [s]",
        real_cell(p.rail.total()));
  }
  const double seq = static_cast<double>(wl::llm_preset(in.model).seq);
  for (uint32_t s = 512; s <= 2048; s += 256) {
    const Point p = evaluate(training(in.model, s * seq), in.hw, in.gpus, in.hb_size);
    const std::string key = "fig8_b" + std::to_string(s);
    const std::string at = in.model + " at " + std::to_string(s) + " sequences";
    add(key + "_iter_s", "Fig. 8a: T_iter at " + at + " [s]", real_cell(p.rail.total()));
    add(key + "_ideal_s", "Fig. 8a: T_ideal at " + at + " [s]", real_cell(p.ideal));
    add(key + "_relative", "Fig. 8b: relative performance at " + at, real_cell(p.relative()));
  }
  const std::vector<Point> models = model_sweep(in.hw, in.gpus, in.hb_size);
  for (size_t i = 0; i < models.size(); ++i) {
    const std::string& m = paper_models()[i];
    add("fig5_" + key_of(m) + "_speedup", "Fig. 5: ideal speed-up, " + m + " at its paper batch",
        real_cell(models[i].speedup()));
  }
}

}  // namespace

ClosedForms report(const Inputs& in) {
  require_cluster(in.gpus, in.hb_size);
  require_radix(in.radix);
  require_hardware(in.hw);
  const double b = in.batch_tokens == 0 ? paper_batch_tokens(in.model) : in.batch_tokens;
  const Training t = training(in.model, b);
  ClosedForms r{"rail_only N=" + std::to_string(in.gpus) + " K=" + std::to_string(in.hb_size) +
                    " radix=" + std::to_string(in.radix) + " " + in.model + " b=" + show(b) +
                    " tokens",
                "Rail-only (Wang et al.): Table 2 counts and cost, Eq. 1-3 iteration times, the "
                "curves of Figs. 5, 7, 8; seconds, dollars",
                {"value"},
                {"value"},
                {}};
  const Add add = [&r](std::string key, std::string label, FormCell c) {
    r.rows.push_back({std::move(key), std::move(label), {std::move(c)}});
  };
  add_cost(add, in);
  add_iteration(add, in, t);
  add_curves(add, in, t);
  return r;
}

}  // namespace hx::net::rail_only
