// Shared by the LLM workload's unit tests: a small MoE model and parallelism, Table 4's rows by
// label, an abstract interpreter that runs every endpoint's generated programs, and
// check_iteration, which holds a whole iteration to Table 4's bytes and the model's FLOPs.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "models/workloads/llm.h"

namespace hx::wl::testing {

// L=4 H=64 I=256 h_A=8 h_KV=2 V=1000 S=32, 4 experts top-2 on every layer, SwiGLU, bf16.
inline LlmModel small_moe() { return {"small", 4, 64, 256, 8, 2, 1000, 32, 4, 2, 1, 3, 2}; }
// T=2 C=2 E=2 D_e=2 P=2, B=1, N_B=2: 32 chips.
inline Parallelism small_par() { return {2, 2, 2, 2, 2, 1, 2}; }

inline const CommVolume& row(const std::vector<CommVolume>& rows, const std::string& label) {
  for (const CommVolume& v : rows) {
    if (v.label == label) return v;
  }
  throw std::logic_error("no row " + label);
}

inline bool has_row(const std::vector<CommVolume>& rows, const std::string& label) {
  for (const CommVolume& v : rows) {
    if (v.label == label) return true;
  }
  return false;
}

// Runs every endpoint's phases: an op runs when its dependencies are done; a recv completes
// once the matching (src, dst, tag) send has been issued (the k-th recv matches the k-th send).
struct Interpreter {
  const Workload& w;
  uint32_t endpoints;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> bytes;  // (group, endpoint) -> bytes sent
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> sends;  // (group, endpoint) -> sends
  std::map<uint32_t, double> compute_ps;                    // group -> total
  size_t max_phase_ops = 0;
  std::map<std::tuple<uint32_t, uint32_t, std::string>, uint64_t> traffic;  // (src, dst, type)

  bool run() {
    std::vector<uint32_t> phase(endpoints, 0);
    std::vector<Program> prog(endpoints);
    std::vector<std::vector<char>> done(endpoints);
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::deque<uint64_t>> in_flight;
    for (bool progress = true; progress;) {
      progress = false;
      for (uint32_t e = 0; e < endpoints; ++e) {
        while (phase[e] < w.phases(e)) {
          Program& p = prog[e];
          if (done[e].empty()) {
            p.clear();
            w.generate(e, phase[e], p);
            done[e].assign(p.size(), 0);
            max_phase_ops = std::max(max_phase_ops, p.size());
          }
          for (uint32_t i = 0; i < p.size(); ++i) {
            if (done[e][i]) continue;
            bool ready = true;
            for (uint32_t d : p.deps_of(i)) ready = ready && done[e][d];
            if (!ready) continue;
            const Op& op = p.ops[i];
            if (op.kind == OpKind::kSend) {
              in_flight[{e, op.peer, op.tag}].push_back(op.bytes);
              bytes[{op.group, e}] += op.bytes;
              ++sends[{op.group, e}];
              traffic[{e, op.peer, w.traffic_types().at(w.traffic_type(op))}] += op.bytes;
            } else if (op.kind == OpKind::kRecv) {
              auto& q = in_flight[{op.peer, e, op.tag}];
              if (q.empty()) continue;
              EXPECT_TRUE(op.bytes == 0 || op.bytes == q.front());
              q.pop_front();
            } else if (op.kind == OpKind::kCompute) {
              compute_ps[op.group] += static_cast<double>(op.compute_ps);
            }
            done[e][i] = 1;
            progress = true;
          }
          if (std::find(done[e].begin(), done[e].end(), 0) != done[e].end()) break;
          done[e].clear();
          ++phase[e];
          progress = true;
        }
      }
    }
    for (uint32_t e = 0; e < endpoints; ++e) {
      if (phase[e] < w.phases(e)) return false;
    }
    return true;
  }
};

// Ranks on scattered endpoints of a larger network: endpoint = (7r + 3) mod 40.
inline Mapping scattered(uint32_t ranks) {
  std::vector<uint32_t> eps;
  for (uint32_t r = 0; r < ranks; ++r) eps.push_back((7 * r + 3) % 40);
  return Mapping::list(eps, 40);
}

// Bytes a member sends in one occurrence of a row: (p-1)/p V for RS, AG and all-to-all, twice
// that for all-reduce, V for a point-to-point send.
inline double member_bytes(const CommVolume& v) {
  const double p = v.group.members(), V = static_cast<double>(v.bytes);
  switch (v.pattern) {
    case Pattern::kAllReduce:
      return 2 * (p - 1) / p * V;
    case Pattern::kPointToPoint:
      return V;
    default:
      return (p - 1) / p * V;
  }
}

// `max_ops`: the most ops a phase may hold (an overlapped last backward pass holds the stage's
// layers and its DP all-reduces).
inline void check_iteration(const LlmConfig& c, size_t max_ops = 200) {
  const uint32_t chips = c.par.chips();
  const Mapping mapping = scattered(chips);
  const LlmWorkload w(c, mapping);
  Interpreter run{w, 40, {}, {}, {}, 0, {}};
  ASSERT_TRUE(run.run()) << "deadlock";
  EXPECT_LT(run.max_phase_ops, max_ops);
  const std::vector<CommVolume>& rows = w.volumes();
  ASSERT_EQ(w.groups().size(), rows.size() + 2);
  for (uint32_t g = 0; g < rows.size(); ++g) {
    const CommVolume& v = rows[g];
    SCOPED_TRACE(v.label);
    EXPECT_EQ(w.groups()[g].dim, v.dim);
    uint64_t pp_sends = 0;
    for (uint32_t r = 0; r < chips; ++r) {
      const uint32_t e = mapping.endpoint(r);
      if (v.label == "PP") {
        pp_sends += run.sends[{g, e}];
      } else {
        // Per-layer rows on uneven stages: F counts the largest stage's layers. DP VOC with the
        // embedding at the ends: on the first and last stages only.
        const uint32_t stage = r / (chips / c.par.pp);
        const bool voc_here = !c.embedding_at_ends || stage == 0 || stage + 1 == c.par.pp;
        const double layers = v.label == "DP VOC"
                                  ? (voc_here ? 1 : 0)
                                  : static_cast<double>(c.par.stage_layers(c.model.layers, stage)) /
                                        c.par.max_stage_layers(c.model.layers);
        EXPECT_DOUBLE_EQ(static_cast<double>(run.bytes[{g, e}]),
                         v.frequency * layers * member_bytes(v));
      }
      if (v.label == "CP") {
        EXPECT_EQ(run.sends[std::make_pair(g, e)], v.frequency);
      }
    }
    // F = 2 N_B transfers across each of the P v - 1 boundaries between model stages of each
    // pipeline; rank 0 (stage 0) sends forward from each of its v chunks and backward from all
    // but the first.
    if (v.label == "PP") {
      const uint32_t vs = c.par.virtual_stages;
      EXPECT_EQ(pp_sends, v.frequency * (c.par.pp * vs - 1) * (chips / c.par.pp));
      EXPECT_EQ(run.bytes[std::make_pair(g, mapping.endpoint(0))],
                c.par.micro_batches * (2 * vs - 1) * v.bytes);
    }
  }
  // Compute adds up to the model FLOPs: forward a third, backward two thirds.
  const double flops_per_ps = c.gemm.chip_flops * c.gemm.efficiency * 1e-12;
  const auto fwd = static_cast<uint32_t>(rows.size()), bwd = fwd + 1;
  EXPECT_EQ(w.groups()[fwd].name, "compute forward");
  EXPECT_NEAR(run.compute_ps[fwd] * flops_per_ps, w.model_flops() / 3, w.model_flops() * 1e-6);
  EXPECT_NEAR(run.compute_ps[bwd] * flops_per_ps, w.model_flops() * 2 / 3, w.model_flops() * 1e-6);
  for (uint32_t e = 0; e < 40; ++e) {
    if (mapping.rank_of(e) == Mapping::kNone) {
      EXPECT_EQ(w.phases(e), 0u);
    }
  }
}

inline LlmConfig small_config() {
  LlmConfig c;
  c.model = small_moe();
  c.par = small_par();
  c.gemm.chip_flops = 1e9;  // slow enough that no compute op rounds to a few picoseconds
  return c;
}

// small_config() as a dense model.
inline LlmConfig small_dense_config() {
  LlmConfig c = small_config();
  c.model.experts = 1;
  c.model.top_k = 1;
  return c;
}

}  // namespace hx::wl::testing
