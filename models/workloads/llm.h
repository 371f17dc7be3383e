// One training iteration of a transformer under 5D parallelism as a message-DAG workload
// (RailX §5, Table 4): per-layer TP/CP/EP communication interleaved with compute, pipeline
// sends between stages, data-parallel all-reduces at the end (docs/workloads/llm.md).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/params.h"
#include "models/workloads/collectives.h"
#include "models/workloads/domains.h"
#include "models/workloads/llm_compute.h"
#include "models/workloads/llm_memory.h"
#include "models/workloads/llm_model.h"
#include "models/workloads/mapping.h"
#include "models/workloads/program.h"
#include "models/workloads/symmetry.h"

namespace hx::wl {

/// Pipeline schedule: 1F1B (stage p runs min(P-1-p, N_B) forwards, then alternates one forward
/// and one backward) or GPipe (all forwards, then all backwards).
enum class Schedule { kOneFOneB, kGPipe };

struct LlmConfig {
  LlmModel model;
  Parallelism par;
  /// The chip's rate and how a GEMM's time follows its size (chip_flops: H100 dense bf16,
  /// InfiniteHBD §6.1; flat, or a roofline with `memory_bandwidth`).
  GemmModel gemm;
  /// (max - min) / max of the tokens the experts of an MoE layer receive (InfiniteHBD Table 4),
  /// drawn per layer, micro-batch and data-parallel replica from streams of `seed`; 0: balanced.
  double expert_imbalance = 0;
  uint64_t seed = 0;
  /// Activation recomputation (llm.recompute): kFull re-runs each layer's forward compute at
  /// the start of its backward; kNone and kSelective add nothing (flash attention recomputes
  /// its scores inside its backward). The memory model follows it (llm_memory.h).
  Recompute recompute = Recompute::kSelective;
  /// TP collectives beside the GEMMs next to them (llm.tp_overlap, Megatron's TP communication
  /// overlap at its best): the all-gather before the QKV and up products and the
  /// reduce-scatter after the output and down products run with them (backward: mirrored);
  /// false: each in turn.
  bool tp_overlap = false;
  /// After the DP all-reduces, each GPU's Adam step over its shard of the parameters (the
  /// distributed optimizer's), memory-bound at `memory_bandwidth` (llm.optimizer_step).
  bool optimizer_step = false;
  double memory_bandwidth = 3.35e12;  // bytes/s of a chip's memory (H100 SXM HBM3)
  Algorithm tp_algorithm = Algorithm::kBidirRing;
  Algorithm ep_algorithm = Algorithm::kDirect;
  Algorithm dp_algorithm = Algorithm::kRing;
  /// kHierarchical DP: members of a DP group per node, the second stage's group; 0: those in one
  /// HB domain (the DomainOf the workload is given).
  uint32_t dp_local = 0;
  Schedule schedule = Schedule::kOneFOneB;
  /// The DP all-reduces beside the last backward passes, each as soon as its gradients are
  /// final (llm.cpp, overlapped_backward); false: after the whole backward pass.
  bool dp_overlap = false;
  /// Bytes of gradients a DP all-reduce carries at least (llm.dp_bucket, Megatron's bucket
  /// size): consecutive layers of one Table 4 row share a bucket until it holds this many, and
  /// it is reduced once its last layer is done; 0: one bucket per layer and row.
  uint64_t dp_bucket_bytes = 0;
  /// The embedding on the first stage and the output layer on the last, so only they all-reduce
  /// DP VOC (llm.embedding = "ends"); false: Table 4's DP VOC on every stage ("table4").
  bool embedding_at_ends = false;
  /// CP as ring attention (llm.cp_algorithm = "ring", llm.cpp attention()); false: one
  /// exchange of the K/V shard per layer and direction ("exchange").
  bool ring_attention = false;
  double alpha_s = 0;          // α for the analytic times, seconds
  double bandwidth = 0;        // B for the analytic times, bytes/s; 0: analytic times are 0
  double local_bandwidth = 0;  // B_F of the two-stage DP all-reduce, bytes/s; 0: B
};

/// InputError naming the [llm] key when the model or parallelism cannot be run as Table 4 needs
/// (chips != ranks, T not dividing heads or hidden, experts not a multiple of E, ...).
void check_llm(const LlmConfig& c, uint32_t ranks);

class LlmWorkload : public Workload {
 public:
  /// Rank r runs on mapping.endpoint(r); ranks are ordered [T, C, E, D_e, P], T innermost.
  /// `domain` gives the HB domains of a hierarchical DP all-reduce without config.dp_local
  /// (consulted while constructing only).
  LlmWorkload(LlmConfig config, Mapping mapping, const DomainOf& domain = {});
  // The symmetry points at mapping_: a copy would point at the original's.
  LlmWorkload(const LlmWorkload&) = delete;
  LlmWorkload& operator=(const LlmWorkload&) = delete;

  uint32_t phases(uint32_t e) const override;
  void generate(uint32_t e, uint32_t phase, Program& out) const override;
  /// groups()[i] accounts volumes()[i]; then "compute forward", "compute backward" and, with
  /// optimizer_step, "compute optimizer".
  const std::vector<OpGroup>& groups() const override { return groups_; }
  double model_flops() const override { return iteration_flops(config_.model, config_.par); }
  double endpoint_flops() const override { return config_.gemm.chip_flops; }
  /// "MP" (TP and CP), "EP", "PP", "DP" (a DP all-reduce that is not hierarchical), "DP1" and
  /// "DP2" (the first stage of a hierarchical one, across HB domains, and its second, inside).
  std::vector<std::string> traffic_types() const override;
  uint32_t traffic_type(const Op& send) const override;
  /// Shifts of the TP, CP and DP digits (a two-stage DP all-reduce's split into DP2, the place
  /// in the HB domain, and DP1, the domain) that provably leave the programs equivariant
  /// (llm.cpp, folds()); nullptr when none does or the mapping leaves an endpoint of
  /// [0, ranks) without a rank.
  const Symmetry* symmetry() const override { return symmetry_ ? &*symmetry_ : nullptr; }

  const std::vector<CommVolume>& volumes() const { return volumes_; }
  /// The DP group of a Table 4 row ("DP QKV", ...) as a hierarchical all-reduce runs it: its
  /// members per node (HB domain); 0 for a row that is absent, not DP or not hierarchical.
  uint32_t dp_local(const std::string& label) const;
  const LlmConfig& config() const { return config_; }

 private:
  enum Row { kTpAttn, kTpFfn, kTpFfnDense, kCp, kEp, kDpVoc, kDpQkv, kDpFfn, kDpFfnDense, kPp };
  static constexpr int kRows = kPp + 1;
  // The ops of a phase, each after the previous one.
  struct Chain {
    Program& out;
    uint32_t tag = 0;  // next free tag of the phase
    bool started = false;
    uint32_t last = 0;
    std::span<const uint32_t> after() const {
      return started ? std::span<const uint32_t>(&last, 1) : std::span<const uint32_t>();
    }
    void then(uint32_t op) {
      last = op;
      started = true;
    }
  };

  // One pipeline step of a stage: the forward or backward of a micro-batch through a chunk.
  struct Step {
    bool forward = true;
    uint32_t micro_batch = 0, chunk = 0;
    uint32_t first_phase = 0;
  };

  // A DP all-reduce: `layers` consecutive layers of one row, ready once the backward pass has
  // done layer `ready` of the stage (counting the chunks' layers one after the other).
  struct Bucket {
    Row row;
    uint32_t layers = 1, ready = 0;
  };

  void schedule_stage(uint32_t stage);
  bool final_backward(const Step& s) const;
  std::size_t first_final_backward(std::span<const Step> steps) const;
  bool receives(uint32_t stage, const Step& s) const;
  bool sends(uint32_t stage, const Step& s) const;
  // Compute of one micro-batch on one chip, picoseconds.
  struct Pass {
    int64_t forward = 0, backward = 0;
  };
  // An expert layer of one micro-batch on one rank: its experts' compute, and the blocks of
  // the all-to-alls to the experts and back (empty when balanced).
  struct ExpertLayer {
    Pass compute;
    std::vector<uint64_t> dispatch, combine;
  };

  // `layer` counts in the step's chunk; `logits`: the model's last layer.
  void forward_layer(uint32_t rank, const Step& s, uint32_t layer, bool logits, Program& out) const;
  void backward_layer(uint32_t rank, const Step& s, uint32_t layer, bool logits,
                      Chain& chain) const;
  ExpertLayer expert_layer(uint32_t rank, const Step& s, uint32_t layer) const;
  void overlapped_backward(uint32_t rank, Program& out) const;
  uint32_t pipeline_transfer(uint32_t rank, const Step& s, bool send, Program& out,
                             std::span<const uint32_t> after = {}) const;
  // `blocks`: an all-to-all's unequal blocks (CollectiveSpec::blocks).
  void collective(Row row, Collective op, uint32_t rank, Chain& chain,
                  std::vector<uint64_t> blocks = {}) const;
  void all_reduce(const Bucket& b, uint32_t rank, Chain& chain) const;
  // `s` after the chain's ops, with the chain's next tags.
  void append(Row row, CollectiveSpec s, uint32_t rank, Chain& chain) const;
  void set_dp_buckets();
  void cp_exchange(uint32_t rank, bool forward, Chain& chain) const;
  void attention(uint32_t rank, bool forward, int64_t attention_ps, Chain& chain) const;
  void compute(int64_t ps, bool forward, Chain& chain) const;
  void beside(Row row, Collective op, uint32_t rank, int64_t ps, bool forward, Chain& chain) const;
  void overlapped_layer(uint32_t rank, bool forward, bool logits, Chain& chain) const;
  void set_dp_locals(const DomainOf& domain);
  CollectiveSpec spec(Row row, Collective op, uint32_t rank) const;
  Algorithm algorithm(Row row) const;
  Pass pass_ps(const LayerCompute::Pass& p) const;
  uint32_t stage_of(uint32_t rank) const;
  uint32_t chunk_layers(uint32_t stage) const;
  bool has_voc(uint32_t stage) const;
  bool folds(const Digit& d) const;
  bool folds_two_stage(const CommVolume& v, uint32_t local, const Digit& d) const;
  uint32_t dp_fold_local() const;

  LlmConfig config_;
  Mapping mapping_;
  std::vector<CommVolume> volumes_;
  int row_[kRows];              // index into volumes_ and groups_, -1 when the row is absent
  uint32_t local_[kRows] = {};  // kHierarchical DP rows: members per node
  std::vector<OpGroup> groups_;
  uint32_t compute_forward_ = 0, compute_backward_ = 0;  // group indices
  uint32_t compute_optimizer_ = 0;                       //   (optimizer_step only)
  std::vector<int64_t> optimizer_ps_;                    // per stage (optimizer_step)
  std::vector<std::vector<Step>> steps_;  // per stage, in order, then one marking the end
  // Per stage, the DP all-reduces in the order the backward pass readies them: the phases at
  // the end of the iteration, or the streams beside the last backward pass (dp_overlap).
  std::vector<std::vector<Bucket>> dp_buckets_;
  // Per chip and micro-batch: QKV projection, attention scores/context + output projection,
  // FFN of a dense layer, FFN of an expert layer (balanced), logits (last stage).
  Pass qkv_, attention_, ffn_dense_, ffn_moe_, logits_;
  Pass projection_, ffn_up_;          // parts of attention_ and ffn_dense_ (tp_overlap)
  std::optional<Symmetry> symmetry_;  // refers to mapping_
};

/// The [llm] section: preset, model overrides (0: the preset's value), parallelism, chip rate,
/// efficiency, schedule and the TP/EP/DP collective algorithms.
std::vector<ParamSpec> llm_params();

/// The preset and overrides of `llm` as a config (no α, B or seed); InputError naming
/// llm.preset for an unknown preset. Not checked: check_llm does that.
LlmConfig llm_config(const ParamSet& llm);

/// Resolves the preset and overrides of `llm` into an LlmWorkload; InputError naming the key
/// for an unknown preset or an inconsistent model, parallelism or mapping.
/// `local_bandwidth` is B_F of a two-stage DP all-reduce (0: `bandwidth`); `domain` the HB
/// domains its second stage runs in (llm.dp_local = 0); `seed` the run's (sim.seed), for the
/// expert loads.
std::unique_ptr<LlmWorkload> make_llm_workload(const ParamSet& llm, Mapping mapping, double alpha_s,
                                               double bandwidth, double local_bandwidth = 0,
                                               const DomainOf& domain = {}, uint64_t seed = 0);

}  // namespace hx::wl
