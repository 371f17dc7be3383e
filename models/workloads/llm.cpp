// The LLM iteration generator (docs/workloads/llm.md): phases are pipeline steps (one layer
// of one micro-batch, or one pipeline send or receive) followed by the data-parallel
// all-reduces, so an endpoint never holds more than one layer's ops. llm_layers.cpp has a
// layer's ops, llm_config.cpp the [llm] section and its checks, llm_folding.cpp the digits the
// programs fold on.
#include "models/workloads/llm.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/error.h"

namespace hx::wl {
namespace {

// Table 4's labels, in LlmWorkload::Row order.
const char* const kLabels[] = {"TP attention", "TP FFN", "TP FFN dense", "CP",           "EP",
                               "DP VOC",       "DP QKV", "DP FFN",       "DP FFN dense", "PP"};

// /traffic_matrix types (LlmWorkload::traffic_types), in this order.
enum Traffic : uint32_t {
  kTrafficMP,
  kTrafficEP,
  kTrafficPP,
  kTrafficDP,
  kTrafficDP1,
  kTrafficDP2
};
const char* const kTrafficNames[] = {"MP", "EP", "PP", "DP", "DP1", "DP2"};

}  // namespace

LlmWorkload::LlmWorkload(LlmConfig config, Mapping mapping, const DomainOf& domain)
    : config_(std::move(config)), mapping_(std::move(mapping)) {
  check_llm(config_, mapping_.ranks());
  const LlmModel& m = config_.model;
  const Parallelism& par = config_.par;
  volumes_ = table4_volumes(m, par, config_.embedding_at_ends, config_.ring_attention);
  std::fill(std::begin(row_), std::end(row_), -1);
  for (int r = 0; r < kRows; ++r) {
    for (std::size_t i = 0; i < volumes_.size(); ++i) {
      if (volumes_[i].label == kLabels[r]) row_[r] = static_cast<int>(i);
    }
  }
  set_dp_locals(domain);
  set_dp_buckets();

  const double alpha = config_.alpha_s, bw = config_.bandwidth;
  const double bw_local = config_.local_bandwidth > 0 ? config_.local_bandwidth : bw;
  for (int r = 0; r < kRows; ++r) {
    if (row_[r] < 0) continue;
    const CommVolume& v = volumes_[row_[r]];
    const std::string key = std::string("llm.") +
                            (v.dim == Dim::kTP   ? "tp"
                             : v.dim == Dim::kEP ? "ep"
                                                 : "dp") +
                            "_algorithm";
    double once = 0;  // one occurrence
    if (v.pattern == Pattern::kPointToPoint) {
      once = bw > 0 ? alpha + static_cast<double>(v.bytes) / bw : 0;
    } else if (v.pattern == Pattern::kReduceScatterAllGather) {
      const CollectiveSpec rs = spec(Row(r), Collective::kReduceScatter, 0);
      const CollectiveSpec ag = spec(Row(r), Collective::kAllGather, 0);
      check_collective(rs, key);
      check_collective(ag, key);
      // RS and AG alternate: half the occurrences are each.
      if (bw > 0)
        once = (alpha_beta_seconds(rs, alpha, bw) + alpha_beta_seconds(ag, alpha, bw)) / 2;
    } else {
      CollectiveSpec s =
          spec(Row(r),
               v.pattern == Pattern::kAllToAll ? Collective::kAllToAll : Collective::kAllReduce, 0);
      check_collective(s, key);
      const auto seconds = [&](uint64_t bytes) {
        s.bytes = bytes;
        if (bw > 0 && s.algorithm == Algorithm::kHierarchical && v.dim == Dim::kDP) {
          const auto p = static_cast<uint32_t>(s.members.size());
          return two_stage_all_reduce_seconds(s.local, p / s.local, static_cast<double>(bytes),
                                              alpha, bw, bw_local);
        }
        return bw > 0 ? alpha_beta_seconds(s, alpha, bw) : 0.0;
      };
      once = seconds(v.bytes);
      if (config_.dp_bucket_bytes > 0 && v.dim == Dim::kDP) {
        // The stage whose buckets of this row take longest.
        double most = 0;
        for (const std::vector<Bucket>& stage : dp_buckets_) {
          double sum = 0;
          for (const Bucket& b : stage) {
            if (b.row == r) sum += seconds(v.bytes * b.layers);
          }
          most = std::max(most, sum);
        }
        groups_.push_back({v.label + " " + pattern_name(v.pattern), v.dim, most});
        continue;
      }
    }
    groups_.push_back({v.label + " " + pattern_name(v.pattern), v.dim, once * v.frequency});
  }
  compute_forward_ = static_cast<uint32_t>(groups_.size());
  groups_.push_back({"compute forward", Dim::kNone, 0});
  compute_backward_ = static_cast<uint32_t>(groups_.size());
  groups_.push_back({"compute backward", Dim::kNone, 0});
  if (config_.optimizer_step) {
    compute_optimizer_ = static_cast<uint32_t>(groups_.size());
    groups_.push_back({"compute optimizer", Dim::kNone, 0});
    // Adam on the GPU's shard (dense parameters over C E D_e GPUs, experts over C D_e): read the
    // bf16 gradient, read and write the fp32 master weight, m and v, write the bf16 weight.
    constexpr double kBytesPerParameter = 2 + 2 * 12 + 2;
    for (uint32_t p = 0; p < par.pp; ++p) {
      const StageParams sp = stage_params(m, par, p);
      const double shard = sp.dense / (par.cp * par.ep * par.dp) + sp.expert / (par.cp * par.dp);
      optimizer_ps_.push_back(
          std::llround(shard * kBytesPerParameter / config_.memory_bandwidth * 1e12));
    }
  }

  for (uint32_t p = 0; p < par.pp; ++p) schedule_stage(p);

  const LayerCompute lc = layer_compute(m, par, config_.gemm);
  qkv_ = pass_ps(lc.qkv);
  attention_ = pass_ps(lc.attention);
  ffn_dense_ = pass_ps(lc.ffn_dense);
  ffn_moe_ = pass_ps(lc.ffn_moe);
  logits_ = pass_ps(lc.logits);
  projection_ = pass_ps(lc.projection);
  ffn_up_ = pass_ps(lc.ffn_up);

  // Fold a digit only where folds() proves the programs equivariant. Never P: stages run
  // different programs. Never E: the DP VOC and QKV rings span E and D_e, E inner, so an E shift
  // alone breaks them. With ep > 1 the D_e digit is offered (a shift rotates those rings by E,
  // the DP FFN rings are D_e itself, and the EP all-to-alls keep their groups and positions),
  // but not with two-stage DP all-reduces. A two-stage DP all-reduce of L members per HB domain
  // splits D into the member's place in its domain (DP2, the domain's ring) and its domain (DP1,
  // the rail's ring).
  std::vector<Digit> candidates = {{"TP", 1, par.tp}, {"CP", par.tp, par.cp}};
  // (With CP the domain's members span C and D: not split, the DP FFN group refuses it anyway.)
  const uint32_t L = dp_fold_local();
  if (par.ep == 1 && par.cp == 1 && L > 0 && par.dp % L == 0) {
    candidates.push_back({"DP2", par.tp * par.cp, L});
    candidates.push_back({"DP1", par.tp * par.cp * L, par.dp / L});
  } else if (par.ep == 1) {
    candidates.push_back({"DP", par.tp * par.cp, par.dp});
  } else if (L == 0) {
    candidates.push_back({"DP", par.tp * par.cp * par.ep, par.dp});
  }
  std::vector<Digit> digits;
  for (const Digit& d : candidates) {
    if (d.size >= 2 && folds(d)) digits.push_back(d);
  }
  bool placed = true;
  for (uint32_t e = 0; e < mapping_.ranks(); ++e) {
    if (mapping_.rank_of(e) == Mapping::kNone) placed = false;
  }
  if (!digits.empty() && placed) symmetry_.emplace(std::move(digits), mapping_);
}

// The second stage's group of each hierarchical DP row (rail-only §2.2): llm.dp_local members,
// or the members in one HB domain. Every DP group must split alike, so a member's node is a
// function of its group position and the generated programs stay alike across groups.
void LlmWorkload::set_dp_locals(const DomainOf& domain) {
  if (config_.dp_algorithm != Algorithm::kHierarchical) return;
  for (const Row r : {kDpVoc, kDpQkv, kDpFfn, kDpFfnDense}) {
    if (row_[r] < 0) continue;
    const CommVolume& v = volumes_[row_[r]];
    const uint32_t p = v.group.members();
    if (config_.dp_local > 0) {
      if (p % config_.dp_local != 0) {
        throw InputError("llm.dp_local: " + std::to_string(config_.dp_local) +
                         " does not divide the " + std::to_string(p) + " members of the " +
                         v.label + " group evenly");
      }
      local_[r] = config_.dp_local;
    } else if (domain) {
      local_[r] = members_per_domain(v.group, mapping_, domain, "llm.dp_algorithm", v.label);
    } else {
      throw InputError(
          "llm.dp_algorithm = \"hierarchical\": no HB domains known; set llm.dp_local");
    }
  }
}

// Each stage's DP all-reduces in the order the backward pass readies the gradients: per layer
// from the last, QKV, then the FFN's row; DP VOC after layer 0. With dp_bucket_bytes, a row's
// consecutive layers join one bucket until it holds that many bytes (the last may hold fewer);
// the rows fill separate buckets, so each bucket is one Table 4 row's all-reduce.
void LlmWorkload::set_dp_buckets() {
  const LlmModel& m = config_.model;
  const Parallelism& par = config_.par;
  for (uint32_t p = 0; p < par.pp; ++p) {
    std::vector<Bucket>& buckets = dp_buckets_.emplace_back();
    int open[kRows];  // index of the row's bucket still filling, or -1
    std::fill(std::begin(open), std::end(open), -1);
    const auto add = [&](Row row, uint32_t ready) {
      if (row_[row] < 0) return;
      const uint64_t bytes = volumes_[row_[row]].bytes;
      if (open[row] >= 0) {
        Bucket& b = buckets[open[row]];
        ++b.layers;
        b.ready = ready;
      } else {
        open[row] = static_cast<int>(buckets.size());
        buckets.push_back({row, 1, ready});
      }
      if (bytes * buckets[open[row]].layers >= config_.dp_bucket_bytes) open[row] = -1;
    };
    const uint32_t layers = chunk_layers(p);
    for (uint32_t j = layers * par.virtual_stages; j-- > 0;) {
      add(kDpQkv, j);
      add(m.experts == 1 || is_moe_layer(m, j % layers) ? kDpFfn : kDpFfnDense, j);
    }
    if (has_voc(p)) add(kDpVoc, 0);
    // A bucket still filling is reduced once its last layer is done: order the buckets by when
    // they close, as the stream of a real DDP does.
    std::stable_sort(buckets.begin(), buckets.end(),
                     [](const Bucket& a, const Bucket& b) { return a.ready > b.ready; });
  }
}

uint32_t LlmWorkload::dp_local(const std::string& label) const {
  for (const Row r : {kDpVoc, kDpQkv, kDpFfn, kDpFfnDense}) {
    if (row_[r] >= 0 && volumes_[row_[r]].label == label) return local_[r];
  }
  return 0;
}

std::vector<std::string> LlmWorkload::traffic_types() const {
  return {std::begin(kTrafficNames), std::end(kTrafficNames)};
}

// CP counts as MP: like TP it moves activations of every layer inside the model-parallel group
// (T·C ranks), which the rail-only paper's N_M stands for.
uint32_t LlmWorkload::traffic_type(const Op& send) const {
  switch (groups_[send.group].dim) {
    case Dim::kEP:
      return kTrafficEP;
    case Dim::kPP:
      return kTrafficPP;
    case Dim::kDP:
      return send.stage == Stage::kGlobal  ? kTrafficDP1
             : send.stage == Stage::kLocal ? kTrafficDP2
                                           : kTrafficDP;
    default:
      return kTrafficMP;
  }
}

// Flat: the backward exactly twice the forward, as the FLOPs are.
LlmWorkload::Pass LlmWorkload::pass_ps(const LayerCompute::Pass& p) const {
  const int64_t forward = std::llround(p.forward * 1e12);
  return {forward, config_.gemm.roofline() ? std::llround(p.backward * 1e12) : 2 * forward};
}

Algorithm LlmWorkload::algorithm(Row row) const {
  switch (volumes_[row_[row]].dim) {
    case Dim::kTP:
      return config_.tp_algorithm;
    case Dim::kEP:
      return config_.ep_algorithm;
    default:
      return config_.dp_algorithm;
  }
}

CollectiveSpec LlmWorkload::spec(Row row, Collective op, uint32_t rank) const {
  const CommVolume& v = volumes_[row_[row]];
  CollectiveSpec s;
  s.op = op;
  s.algorithm = algorithm(row);
  s.bytes = v.bytes;
  for (uint32_t r : group_ranks(v.group, rank)) s.members.push_back(mapping_.endpoint(r));
  s.group = static_cast<uint32_t>(row_[row]);
  if (s.algorithm == Algorithm::kHierarchical && local_[row] > 0) {
    // The rail-only two-stage all-reduce: rings inside each HB domain and along each rail.
    s.local = local_[row];
    s.local_algorithm = Algorithm::kRing;
    s.global_algorithm = Algorithm::kRing;
  }
  return s;
}

// A model chunk's layers on `stage`: L / (P v), or the stage's own count when stages are uneven
// (no virtual stages then).
uint32_t LlmWorkload::chunk_layers(uint32_t stage) const {
  const Parallelism& par = config_.par;
  return par.virtual_stages > 1 ? par.chunk_layers(config_.model.layers)
                                : par.stage_layers(config_.model.layers, stage);
}

// Whether stage p all-reduces the embedding's or output layer's gradients (DP VOC).
bool LlmWorkload::has_voc(uint32_t stage) const {
  return !config_.embedding_at_ends || stage == 0 || stage + 1 == config_.par.pp;
}

uint32_t LlmWorkload::stage_of(uint32_t rank) const {
  return rank / (config_.par.chips() / config_.par.pp);
}

// Stage p's pipeline steps in order, each the forward or backward of one micro-batch through
// one model chunk (model stage chunk * P + p). Without virtual stages: 1F1B's min(P-1-p, N_B)
// warm-up forwards, then a forward and a backward alternately, then the remaining backwards;
// GPipe's forwards, then backwards. With v chunks, Megatron's interleaved 1F1B: forward k of
// the N_B v runs chunk (k mod Pv) / P of micro-batch (k div Pv) P + k mod P, backward k chunk
// v - 1 - (k mod Pv) / P of the same micro-batch, after (P-p-1) 2 + (v-1) P warm-up forwards.
void LlmWorkload::schedule_stage(uint32_t p) {
  const uint32_t P = config_.par.pp, NB = config_.par.micro_batches;
  const uint32_t v = config_.par.virtual_stages, total = NB * v;
  const uint32_t warmup = config_.schedule == Schedule::kGPipe ? total
                          : v == 1                             ? std::min(P - 1 - p, NB)
                                   : std::min((P - p - 1) * 2 + (v - 1) * P, total);
  const auto step = [&](bool forward, uint32_t k) {
    const uint32_t group = k % (P * v);
    const uint32_t chunk = v == 1 ? 0 : forward ? group / P : v - 1 - group / P;
    return Step{forward, v == 1 ? k : k / (P * v) * P + k % P, chunk, 0};
  };
  std::vector<Step>& steps = steps_.emplace_back();
  for (uint32_t k = 0; k < warmup; ++k) steps.push_back(step(true, k));
  for (uint32_t i = 0; i < total - warmup; ++i) {
    steps.push_back(step(true, warmup + i));
    steps.push_back(step(false, i));
  }
  for (uint32_t i = total - warmup; i < total; ++i) steps.push_back(step(false, i));
  // Phases: a receive unless the model stage is the first (forward) or last (backward), one per
  // layer, a send unless it is the last (forward) or first (backward); with dp_overlap the
  // steps from the first chunk's last backward on are one phase.
  const std::size_t merged = config_.dp_overlap ? first_final_backward(steps) : steps.size();
  uint32_t phase = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    steps[i].first_phase = phase;
    if (i < merged) {
      phase += chunk_layers(p) + receives(p, steps[i]) + sends(p, steps[i]);
    } else if (i + 1 == steps.size()) {
      ++phase;
    }
  }
  steps.push_back({false, 0, 0, phase});  // the end
}

// The step after which a chunk's gradients are final: the backward of the last micro-batch
// through it. The chunks finish in order v - 1, ..., 0, and only backwards follow the first.
bool LlmWorkload::final_backward(const Step& s) const {
  return !s.forward && s.micro_batch + 1 == config_.par.micro_batches;
}

std::size_t LlmWorkload::first_final_backward(std::span<const Step> steps) const {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (final_backward(steps[i])) return i;
  }
  return steps.size();
}

bool LlmWorkload::receives(uint32_t stage, const Step& s) const {
  const uint32_t model_stage = s.chunk * config_.par.pp + stage;
  return s.forward ? model_stage > 0
                   : model_stage + 1 < config_.par.pp * config_.par.virtual_stages;
}

bool LlmWorkload::sends(uint32_t stage, const Step& s) const {
  const uint32_t model_stage = s.chunk * config_.par.pp + stage;
  return s.forward ? model_stage + 1 < config_.par.pp * config_.par.virtual_stages
                   : model_stage > 0;
}

uint32_t LlmWorkload::phases(uint32_t e) const {
  const uint32_t rank = mapping_.rank_of(e);
  if (rank == Mapping::kNone) return 0;
  return steps_[stage_of(rank)].back().first_phase +
         (config_.dp_overlap ? 0 : static_cast<uint32_t>(dp_buckets_[stage_of(rank)].size())) +
         (config_.optimizer_step ? 1 : 0);
}

void LlmWorkload::generate(uint32_t e, uint32_t phase, Program& out) const {
  const uint32_t rank = mapping_.rank_of(e);
  const uint32_t stage = stage_of(rank);
  const std::vector<Step>& steps = steps_[stage];
  const uint32_t passes = steps.back().first_phase;
  if (config_.optimizer_step && phase + 1 == phases(e)) {  // the step, after everything
    out.compute(optimizer_ps_[stage], compute_optimizer_, {});
    return;
  }
  if (phase >= passes) {
    Chain chain{out};
    all_reduce(dp_buckets_[stage][phase - passes], rank, chain);
    return;
  }
  const auto it = std::upper_bound(steps.begin(), steps.end(), phase,
                                   [](uint32_t ph, const Step& s) { return ph < s.first_phase; }) -
                  1;
  if (config_.dp_overlap && it + 2 == steps.end()) return overlapped_backward(rank, out);
  const Step& s = *it;
  const uint32_t k = phase - s.first_phase;
  const bool in = receives(stage, s);
  if (in && k == 0) {
    pipeline_transfer(rank, s, false, out);
    return;
  }
  const uint32_t layer = k - (in ? 1 : 0);
  const uint32_t layers = chunk_layers(stage);
  if (layer == layers) {
    pipeline_transfer(rank, s, true, out);
    return;
  }
  // The model's last layer computes the logits.
  const bool last =
      s.chunk * config_.par.pp + stage + 1 == config_.par.pp * config_.par.virtual_stages &&
      (s.forward ? layer : layers - 1 - layer) + 1 == layers;
  if (s.forward) return forward_layer(rank, s, layer, last, out);
  Chain chain{out};
  backward_layer(rank, s, layers - 1 - layer, last, chain);
}

// The backward passes from the first chunk's last one on, with the DP all-reduces beside them
// (dp_overlap): the passes are one chain (each its receive, its layers from the last, its send),
// and each bucket's all-reduce starts once its last layer's gradients are final and the
// previous all-reduce is done, as Megatron's overlapped gradient reduction does on one
// communication stream. No pass waits for an all-reduce.
void LlmWorkload::overlapped_backward(uint32_t rank, Program& out) const {
  const uint32_t stage = stage_of(rank);
  const uint32_t model_stages = config_.par.pp * config_.par.virtual_stages;
  const std::span<const Step> steps(steps_[stage].data(), steps_[stage].size() - 1);
  Chain pass{out};
  const uint32_t layers = chunk_layers(stage);
  std::vector<uint32_t> done(layers * config_.par.virtual_stages);
  for (std::size_t i = first_final_backward(steps); i < steps.size(); ++i) {
    const Step& s = steps[i];
    if (receives(stage, s)) pass.then(pipeline_transfer(rank, s, false, out, pass.after()));
    const bool last_stage = s.chunk * config_.par.pp + stage + 1 == model_stages;
    for (uint32_t j = layers; j-- > 0;) {
      backward_layer(rank, s, j, last_stage && j + 1 == layers, pass);
      if (final_backward(s)) done[s.chunk * layers + j] = pass.last;
    }
    if (sends(stage, s)) {
      const uint32_t send = pipeline_transfer(rank, s, true, out, pass.after());
      if (i + 1 < steps.size()) pass.then(send);  // the next pass after it, as phases are
    }
  }
  Chain dp{out};
  dp.tag = pass.tag;  // the phase's tags above the passes'
  for (const Bucket& b : dp_buckets_[stage]) {
    const uint32_t after[2] = {done[b.ready], dp.last};
    dp.then(out.wait(static_cast<uint32_t>(row_[b.row]),
                     std::span<const uint32_t>(after, dp.started ? 2 : 1)));
    all_reduce(b, rank, dp);
  }
}

// To the next stage (forward send, backward receive) or the previous one, round the ring of
// stages with virtual stages: the last stage's chunk c feeds the first stage's chunk c + 1.
// Tags are distinct per direction, micro-batch and the sender's chunk (the chunks a pair of
// stages exchange), so a message can only match its own receive.
uint32_t LlmWorkload::pipeline_transfer(uint32_t rank, const Step& s, bool send, Program& out,
                                        std::span<const uint32_t> after) const {
  const CommVolume& v = volumes_[row_[kPp]];
  const uint32_t P = config_.par.pp, NB = config_.par.micro_batches, chips = config_.par.chips();
  const uint32_t stride = v.group.stride;  // T*C*D: the same rank one stage further
  const uint32_t stage = stage_of(rank);
  const bool to_next = s.forward == send;
  const uint32_t peer = to_next ? (stage + 1 < P ? rank + stride : rank + stride - chips)
                                : (stage > 0 ? rank - stride : rank + chips - stride);
  uint32_t chunk = s.chunk;  // the sender's
  if (!send && s.forward && stage == 0) --chunk;
  if (!send && !s.forward && stage + 1 == P) ++chunk;
  const uint32_t tag =
      (s.forward ? 0 : NB * config_.par.virtual_stages) + chunk * NB + s.micro_batch;
  const auto group = static_cast<uint32_t>(row_[kPp]);
  return send ? out.send(mapping_.endpoint(peer), v.bytes, tag, group, after)
              : out.recv(mapping_.endpoint(peer), v.bytes, tag, group, after);
}

}  // namespace hx::wl
