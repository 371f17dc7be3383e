// The message-DAG program of one endpoint (DESIGN §7): send, recv, compute and wait operations
// with dependencies on earlier operations of the same program. Messages tie the programs of
// different endpoints together: a recv completes when the matching send's message has fully
// arrived. Collectives, LLM iterations and flow traces are generators of such programs.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

namespace hx::wl {

class Symmetry;

enum class OpKind : uint8_t {
  kSend,     // send `bytes` to endpoint `peer`; done when its last flit has left the endpoint
  kRecv,     // done when the message (peer -> this endpoint, tag) has fully arrived
  kCompute,  // done `compute_ps` after it starts
  kWait,     // done as soon as its dependencies are (joins several ops into one)
  kDelay,    // done `compute_ps` after it starts, without counting as compute (a trace's
             // earliest start time)
};

/// Which part of a two-stage collective an op belongs to (the hierarchical algorithm; others are
/// kWhole). The rail-only paper numbers the stages by the network level, not by time: its first
/// stage is the global step among the nodes (HB domains), across them along a rail; its second
/// the local reduce-scatter and all-gather inside a node. /traffic_matrix tells them apart.
enum class Stage : uint8_t { kWhole, kGlobal, kLocal };

struct Op {
  OpKind kind = OpKind::kWait;
  Stage stage = Stage::kWhole;
  uint32_t peer = 0;       // kSend: destination endpoint; kRecv: source endpoint
  uint32_t tag = 0;        // the k-th send of a (source, destination, tag) matches its k-th recv
  uint32_t group = 0;      // operation group (Workload::groups()) it is accounted to
  uint64_t bytes = 0;      // kSend: message size (> 0); kRecv: expected size, 0 = any
  int64_t compute_ps = 0;  // kCompute, kDelay: duration
  uint32_t dep_begin = 0;  // dependencies: Program::deps[dep_begin, dep_begin + dep_count),
  uint32_t dep_count = 0;  // indices of earlier ops of the same program
};

/// One phase of an endpoint's program: ops in dependency order (every dependency names an earlier
/// op). Sends and recvs match like MPI's non-overtaking rule: the k-th send from A to B with tag
/// t, counted in A's program order over all phases, matches the k-th recv at B from A with tag
/// t, counted in B's. Tags may repeat across phases; within a phase, ops with the same (peer,
/// tag) must be ordered by dependencies, so that program order is the order they start in.
struct Program {
  std::vector<Op> ops;
  std::vector<uint32_t> deps;

  uint32_t add(Op op, std::span<const uint32_t> after);
  uint32_t add(Op op, std::initializer_list<uint32_t> after = {}) {
    return add(op, std::span<const uint32_t>(after.begin(), after.size()));
  }
  uint32_t send(uint32_t dst, uint64_t bytes, uint32_t tag, uint32_t group,
                std::span<const uint32_t> after = {});
  uint32_t recv(uint32_t src, uint64_t bytes, uint32_t tag, uint32_t group,
                std::span<const uint32_t> after = {});
  uint32_t compute(int64_t ps, uint32_t group, std::span<const uint32_t> after = {});
  uint32_t wait(uint32_t group, std::span<const uint32_t> after);
  std::span<const uint32_t> deps_of(uint32_t op) const {
    return {deps.data() + ops[op].dep_begin, ops[op].dep_count};
  }
  std::size_t size() const { return ops.size(); }
  void clear() {
    ops.clear();
    deps.clear();
  }
};

/// Parallelism dimension an operation group belongs to, for exposed-communication accounting.
enum class Dim : uint8_t { kNone, kTP, kCP, kEP, kDP, kPP, kCount };
const char* dim_name(Dim d);  // "none", "TP", "CP", "EP", "DP", "PP"

/// A named set of operations timed together in /workload_groups: a collective, a phase, an
/// iteration. The same list on every rank.
struct OpGroup {
  std::string name;
  Dim dim = Dim::kNone;
  double analytic_s = 0;  // α–β model time of the collective, 0 when there is none
};

/// All endpoints' programs, generated lazily: phase by phase, only for the endpoints a rank
/// owns, so no rank ever holds every program. An endpoint starts phase k + 1 when every op of
/// its phase k is done. Implementations are immutable after construction and shared by all the
/// endpoints of a rank (generate() is const and must not keep per-endpoint state).
class Workload {
 public:
  virtual ~Workload() = default;
  /// Phases of endpoint `e`'s program; 0 for an endpoint that takes no part.
  virtual uint32_t phases(uint32_t e) const = 0;
  /// Appends phase `phase` of endpoint `e`'s program to `out` (which the caller cleared).
  virtual void generate(uint32_t e, uint32_t phase, Program& out) const = 0;
  virtual const std::vector<OpGroup>& groups() const = 0;
  /// Floating-point operations of the whole workload (all endpoints), for MFU; 0: not a model.
  virtual double model_flops() const { return 0; }
  /// Peak FLOP/s of one endpoint, for MFU; 0: not a model.
  virtual double endpoint_flops() const { return 0; }
  /// Relabellings of endpoints the programs are equivariant under, so a simulator may run one
  /// endpoint per orbit; nullptr: none known. Equivariance, with g(e) = apply(g, e): for every
  /// endpoint e the symmetry covers, element g and phase k, phases(g(e)) == phases(e) and
  /// generate(g(e), k) produces exactly the ops of generate(e, k) with every send's and recv's
  /// peer p replaced by g(p): same kinds, stages, tags, groups, bytes, compute_ps and
  /// dependencies, in the same order. Lives as long as the workload.
  virtual const Symmetry* symmetry() const { return nullptr; }
  /// Names of the traffic types /traffic_matrix labels its rows with (docs/OUTPUT.md), and the
  /// type of a send op of this workload (an index into them). Default: the op groups' names,
  /// each send typed by its group. Types must be the same under symmetry() (a folded endpoint's
  /// sends stand for its images').
  virtual std::vector<std::string> traffic_types() const;
  virtual uint32_t traffic_type(const Op& send) const { return send.group; }
};

}  // namespace hx::wl
