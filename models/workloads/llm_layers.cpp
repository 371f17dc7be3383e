// One layer's ops (llm.h, docs/workloads/llm.md "Schedule and phases"): its chain of TP
// collectives, attention with its CP traffic, FFN or experts with their all-to-alls, in
// Megatron's order, or with TP overlap; and the experts' unequal loads.
#include <algorithm>
#include <utility>

#include "core/rng.h"
#include "models/workloads/expert_loads.h"
#include "models/workloads/llm.h"

namespace hx::wl {

// The experts' loads of one layer and micro-batch in one data-parallel replica (the EP group
// and its TP and CP peers see the same tokens), keyed by the replica's C and D_e digits, the
// model layer and the micro-batch, so every rank of the partition draws the same. EP rank j
// holds experts [j n/E, (j+1) n/E); every member sends each EP rank the share of its buffer
// that rank's experts receive (dispatch) and gets the same back (combine).
LlmWorkload::ExpertLayer LlmWorkload::expert_layer(uint32_t rank, const Step& s,
                                                   uint32_t layer) const {
  // With E = 1 every chip holds every expert and computes all its group's tokens: unequal
  // loads would change only the grouped kernel's tiles, which is left out.
  if (config_.expert_imbalance <= 0 || config_.par.ep == 1) return {ffn_moe_, {}, {}};
  const LlmModel& m = config_.model;
  const Parallelism& par = config_.par;
  const uint32_t T = par.tp, C = par.cp, E = par.ep;
  const uint32_t c = rank / T % C, e = rank / (T * C) % E, d = rank / (T * C * E) % par.dp;
  const uint32_t stage = stage_of(rank);
  const uint64_t model_layer = uint64_t{s.chunk * par.pp + stage} * chunk_layers(stage) + layer;
  Rng rng(config_.seed, uint64_t{c + C * d} << 32 | model_layer,
          static_cast<uint64_t>(RngPurpose::kModel) | uint64_t{s.micro_batch} << 8);
  const std::vector<double> w = expert_shares(m.experts, config_.expert_imbalance, rng);
  const uint32_t local = m.experts / E;
  // Tokens the EP group routes: M = B S / C per member, K experts each.
  const double routed = static_cast<double>(par.micro_batch) * m.seq / C * m.top_k * E;
  std::vector<double> held(E, 0.0);  // the share of each EP rank's experts
  std::vector<double> tokens;        // of this rank's experts
  for (uint32_t x = 0; x < m.experts; ++x) {
    held[x / local] += w[x];
    if (x / local == e) tokens.push_back(routed * w[x]);
  }
  ExpertLayer out{pass_ps(expert_compute(m, par, config_.gemm, tokens)), {}, {}};
  if (row_[kEp] < 0) return out;
  const uint64_t bpe = m.bytes_per_element;
  const std::vector<uint64_t> parts = apportion(volumes_[row_[kEp]].bytes / bpe, held);
  out.dispatch.resize(std::size_t{E} * E);
  out.combine.resize(std::size_t{E} * E);
  for (uint32_t src = 0; src < E; ++src) {
    for (uint32_t dst = 0; dst < E; ++dst) {
      out.dispatch[std::size_t{src} * E + dst] = parts[dst] * bpe;
      out.combine[std::size_t{src} * E + dst] = parts[src] * bpe;
    }
  }
  return out;
}

void LlmWorkload::collective(Row row, Collective op, uint32_t rank, Chain& chain,
                             std::vector<uint64_t> blocks) const {
  if (row_[row] < 0) return;
  CollectiveSpec s = spec(row, op, rank);
  s.blocks = std::move(blocks);
  append(row, std::move(s), rank, chain);
}

// A DP bucket: its row's all-reduce over the bytes of its layers.
void LlmWorkload::all_reduce(const Bucket& b, uint32_t rank, Chain& chain) const {
  CollectiveSpec s = spec(b.row, Collective::kAllReduce, rank);
  s.bytes *= b.layers;
  append(b.row, std::move(s), rank, chain);
}

void LlmWorkload::append(Row row, CollectiveSpec s, uint32_t rank, Chain& chain) const {
  const std::vector<uint32_t> ranks = group_ranks(volumes_[row_[row]].group, rank);
  const auto position =
      static_cast<uint32_t>(std::find(ranks.begin(), ranks.end(), rank) - ranks.begin());
  s.tag_base = chain.tag;
  chain.tag += collective_tags(s);
  chain.then(append_collective(s, position, chain.out, chain.after()));
}

void LlmWorkload::compute(int64_t ps, bool forward, Chain& chain) const {
  chain.then(chain.out.compute(ps, forward ? compute_forward_ : compute_backward_, chain.after()));
}

// Each rank sends its K/V shard to one CP-ring neighbour and receives the other's (forward:
// to the next, backward: the gradients to the previous).
void LlmWorkload::cp_exchange(uint32_t rank, bool forward, Chain& chain) const {
  if (row_[kCp] < 0) return;
  const CommVolume& v = volumes_[row_[kCp]];
  const std::vector<uint32_t> ring = group_ranks(v.group, rank);
  const auto c = static_cast<uint32_t>(std::find(ring.begin(), ring.end(), rank) - ring.begin());
  const auto C = static_cast<uint32_t>(ring.size());
  const uint32_t next = ring[(c + 1) % C], prev = ring[(c + C - 1) % C];
  const uint32_t to = mapping_.endpoint(forward ? next : prev);
  const uint32_t from = mapping_.endpoint(forward ? prev : next);
  const auto group = static_cast<uint32_t>(row_[kCp]);
  const uint32_t s = chain.out.send(to, v.bytes, chain.tag, group, chain.after());
  const uint32_t r = chain.out.recv(from, v.bytes, chain.tag, group, chain.after());
  ++chain.tag;
  chain.then(chain.out.wait(group, std::vector<uint32_t>{s, r}));
}

// The attention of a layer with its CP traffic. Without ring attention: forward, the exchange
// and then the attention; backward, the attention and then the exchange. With it (Liu et al.,
// Ring Attention; Megatron's context parallelism): the C K/V shards pass round the CP ring in
// C - 1 steps; a rank computes the attention of its block first, and each step's block once it
// has arrived and the previous block is done, so passing a block on overlaps with computing
// the one before. Forward, each step passes the block (V); backward, the block and its
// gradient (two messages of V). The attention splits evenly over the C blocks.
void LlmWorkload::attention(uint32_t rank, bool forward, int64_t attention_ps, Chain& chain) const {
  if (!config_.ring_attention || row_[kCp] < 0) {
    if (forward) cp_exchange(rank, true, chain);
    compute(attention_ps, forward, chain);
    if (!forward) cp_exchange(rank, false, chain);
    return;
  }
  const CommVolume& v = volumes_[row_[kCp]];
  const std::vector<uint32_t> ring = group_ranks(v.group, rank);
  const auto c = static_cast<uint32_t>(std::find(ring.begin(), ring.end(), rank) - ring.begin());
  const auto C = static_cast<uint32_t>(ring.size());
  const uint32_t to = mapping_.endpoint(ring[(c + 1) % C]);
  const uint32_t from = mapping_.endpoint(ring[(c + C - 1) % C]);
  const auto group = static_cast<uint32_t>(row_[kCp]);
  const uint32_t work = forward ? compute_forward_ : compute_backward_;
  const int64_t part = attention_ps / C;
  Program& out = chain.out;
  uint32_t computed = out.compute(attention_ps - (C - 1) * part, work, chain.after());
  std::vector<uint32_t> held(chain.after().begin(), chain.after().end());  // the block to pass on
  std::vector<uint32_t> sent;
  for (uint32_t step = 1; step < C; ++step) {
    std::vector<uint32_t> got;
    for (uint32_t k = 0; k < (forward ? 1u : 2u); ++k, ++chain.tag) {
      sent.push_back(out.send(to, v.bytes, chain.tag, group, held));
      got.push_back(out.recv(from, v.bytes, chain.tag, group, held));
    }
    held = got;
    got.push_back(computed);
    computed = out.compute(part, work, got);
  }
  sent.push_back(computed);
  chain.then(out.wait(group, sent));
}

// A TP collective and a compute op that start together; the chain goes on when both are done.
void LlmWorkload::beside(Row row, Collective op, uint32_t rank, int64_t ps, bool forward,
                         Chain& chain) const {
  Chain comm = chain;  // the same start and tags
  collective(row, op, rank, comm);
  const uint32_t work =
      chain.out.compute(ps, forward ? compute_forward_ : compute_backward_, chain.after());
  chain.tag = comm.tag;
  const uint32_t both[2] = {comm.last, work};
  chain.then(chain.out.wait(static_cast<uint32_t>(row_[row]), both));
}

// A dense layer with tp_overlap: forward, the all-gather beside the QKV (up) product and the
// reduce-scatter beside the output (down) product; backward, the all-gather beside the down
// (output) product's gradients and the reduce-scatter beside the up (QKV) ones. The attention
// core and its CP traffic stay in between.
void LlmWorkload::overlapped_layer(uint32_t rank, bool forward, bool logits, Chain& chain) const {
  const auto part = [&](const Pass& p) { return forward ? p.forward : p.backward; };
  const Row ffn = config_.model.experts == 1 ? kTpFfn : kTpFfnDense;
  const int64_t core = part(attention_) - part(projection_);
  const int64_t down = part(ffn_dense_) - part(ffn_up_);
  if (forward) {
    beside(kTpAttn, Collective::kAllGather, rank, qkv_.forward, true, chain);
    attention(rank, true, core, chain);
    beside(kTpAttn, Collective::kReduceScatter, rank, projection_.forward, true, chain);
    beside(ffn, Collective::kAllGather, rank, ffn_up_.forward, true, chain);
    beside(ffn, Collective::kReduceScatter, rank, down, true, chain);
    if (logits) compute(logits_.forward, true, chain);
    return;
  }
  if (logits) compute(logits_.backward, false, chain);
  beside(ffn, Collective::kAllGather, rank, down, false, chain);
  beside(ffn, Collective::kReduceScatter, rank, ffn_up_.backward, false, chain);
  beside(kTpAttn, Collective::kAllGather, rank, projection_.backward, false, chain);
  attention(rank, false, core, chain);
  beside(kTpAttn, Collective::kReduceScatter, rank, qkv_.backward, false, chain);
}

// Megatron order with sequence parallelism: all-gather before each block, reduce-scatter after.
void LlmWorkload::forward_layer(uint32_t rank, const Step& s, uint32_t layer, bool logits,
                                Program& out) const {
  const LlmModel& m = config_.model;
  const bool moe = is_moe_layer(m, layer);
  const Row ffn = m.experts == 1 || moe ? kTpFfn : kTpFfnDense;
  const ExpertLayer x = moe ? expert_layer(rank, s, layer) : ExpertLayer{};
  Chain chain{out};
  if (config_.tp_overlap && !moe && row_[kTpAttn] >= 0) {
    return overlapped_layer(rank, true, logits, chain);
  }
  collective(kTpAttn, Collective::kAllGather, rank, chain);
  compute(qkv_.forward, true, chain);
  attention(rank, true, attention_.forward, chain);
  collective(kTpAttn, Collective::kReduceScatter, rank, chain);
  collective(ffn, Collective::kAllGather, rank, chain);
  if (moe) collective(kEp, Collective::kAllToAll, rank, chain, x.dispatch);
  compute(moe ? x.compute.forward : ffn_dense_.forward, true, chain);
  if (moe) collective(kEp, Collective::kAllToAll, rank, chain, x.combine);
  collective(ffn, Collective::kReduceScatter, rank, chain);
  if (logits) compute(logits_.forward, true, chain);
}

// The mirror of forward_layer: an all-gather's gradient is a reduce-scatter and vice versa; the
// combine's gradients go to the experts, the dispatch's come back.
void LlmWorkload::backward_layer(uint32_t rank, const Step& s, uint32_t layer, bool logits,
                                 Chain& chain) const {
  const LlmModel& m = config_.model;
  const bool moe = is_moe_layer(m, layer);
  const Row ffn = m.experts == 1 || moe ? kTpFfn : kTpFfnDense;
  const ExpertLayer x = moe ? expert_layer(rank, s, layer) : ExpertLayer{};
  if (config_.recompute == Recompute::kFull) {  // the forward again, from the layer's input
    compute(qkv_.forward + attention_.forward + (moe ? x.compute.forward : ffn_dense_.forward),
            false, chain);
  }
  if (config_.tp_overlap && !moe && row_[kTpAttn] >= 0) {
    return overlapped_layer(rank, false, logits, chain);
  }
  if (logits) compute(logits_.backward, false, chain);
  collective(ffn, Collective::kAllGather, rank, chain);
  if (moe) collective(kEp, Collective::kAllToAll, rank, chain, x.dispatch);
  compute(moe ? x.compute.backward : ffn_dense_.backward, false, chain);
  if (moe) collective(kEp, Collective::kAllToAll, rank, chain, x.combine);
  collective(ffn, Collective::kReduceScatter, rank, chain);
  collective(kTpAttn, Collective::kAllGather, rank, chain);
  attention(rank, false, attention_.backward, chain);
  compute(qkv_.backward, false, chain);
  collective(kTpAttn, Collective::kReduceScatter, rank, chain);
}

}  // namespace hx::wl
