// Collective algorithms as message-DAG generators (docs/WORKLOADS.md, "Collectives"); their α–β
// model times are in collective_times.cpp. Composite algorithms (2D ring, 2D direct, hierarchical)
// are built from stages that are themselves collectives on sub-groups: a row, a column, a node, the
// nodes' equal local ranks. Every stage takes a contiguous block of tags, sized from the group
// shape alone, so all members agree on the tags without knowing each other's position.
#include "models/workloads/collectives.h"

#include <algorithm>
#include <bit>
#include <span>
#include <stdexcept>

#include "core/error.h"
#include "models/workloads/collective_stages.h"

namespace hx::wl {
namespace {

using detail::global_stage;
using detail::is_grid;
using detail::size_of;
using detail::stage;
using Ops = std::vector<uint32_t>;

// Part i of v bytes split into n parts: sizes differ by at most one byte and sum to v.
uint64_t chunk(uint64_t v, uint32_t n, uint32_t i) { return v / n + (i < v % n ? 1 : 0); }

// All-to-all: bytes of group rank src's block for dst (chunk dst of V, or the spec's blocks).
uint64_t block(const CollectiveSpec& s, uint32_t src, uint32_t dst) {
  const auto p = static_cast<uint32_t>(s.members.size());
  return s.blocks.empty() ? chunk(s.bytes, p, dst) : s.blocks[std::size_t{src} * p + dst];
}

// Program::send rejects empty messages: a chunk of a vector shorter than the group (or a share
// of one) travels as a 1-byte message.
uint64_t wire(uint64_t bytes) { return std::max<uint64_t>(bytes, 1); }

std::vector<uint32_t> row_of(const CollectiveSpec& s, uint32_t row) {
  std::vector<uint32_t> m;
  for (uint32_t c = 0; c < s.cols; ++c) m.push_back(s.members[row * s.cols + c]);
  return m;
}

std::vector<uint32_t> col_of(const CollectiveSpec& s, uint32_t col) {
  std::vector<uint32_t> m;
  for (uint32_t r = 0; r < s.rows; ++r) m.push_back(s.members[r * s.cols + col]);
  return m;
}

// Ring position q read backwards: the counter-clockwise ring is the clockwise ring of the
// reversed member list.
uint32_t reverse_pos(uint32_t q, uint32_t p) { return (p - q) % p; }

// What member q holds after a reduce-scatter of v bytes (and starts an all-gather with): a ring
// leaves chunk q+1 at position q, the bidirectional ring one such chunk of each half, direct
// chunk q.
uint64_t share(Algorithm a, uint64_t v, uint32_t p, uint32_t q) {
  switch (a) {
    case Algorithm::kRing:
      return chunk(v, p, (q + 1) % p);
    case Algorithm::kBidirRing:
      return chunk(chunk(v, 2, 0), p, (q + 1) % p) +
             chunk(chunk(v, 2, 1), p, (reverse_pos(q, p) + 1) % p);
    default:
      return chunk(v, p, q);
  }
}

// The algorithm of one grid dimension: 2D ring = bidirectional rings, 2D direct = direct.
Algorithm dim_algorithm(Algorithm a) {
  return a == Algorithm::kRing2D ? Algorithm::kBidirRing : Algorithm::kDirect;
}

uint32_t tags_of(const CollectiveSpec& s);

// Tags of one half of a grid collective: dimension 1 (n1 members) first, dimension 2 second.
uint32_t half_tags(const CollectiveSpec& s, uint32_t n1, uint32_t n2) {
  const Algorithm d = dim_algorithm(s.algorithm);
  auto t = [&](Collective op, uint32_t n) {
    return tags_of(stage(s, d, op, 1, std::vector<uint32_t>(n)));
  };
  if (s.op == Collective::kAllReduce) {
    return t(Collective::kReduceScatter, n1) + t(Collective::kAllReduce, n2) +
           t(Collective::kAllGather, n1);
  }
  return t(s.op, n1) + t(s.op, n2);
}

uint32_t tags_of(const CollectiveSpec& s) {
  const uint32_t p = size_of(s);
  const uint32_t passes = s.op == Collective::kAllReduce ? 2 : 1;  // AR = RS + AG
  if (s.op == Collective::kAllToAll) return 1;  // each pair exchanges at most once
  if (is_grid(s)) {
    return half_tags(s, s.cols, s.rows) + half_tags(s, s.rows, s.cols);
  }
  switch (s.algorithm) {
    case Algorithm::kRing:
      return passes * (p - 1);  // the same neighbour pair at every step
    case Algorithm::kBidirRing:
    case Algorithm::kRing2D:
      return 2 * passes * (p - 1);
    case Algorithm::kHierarchical: {
      const CollectiveSpec in_node = stage(s, s.local_algorithm, Collective::kReduceScatter, 1,
                                           std::vector<uint32_t>(s.local));
      const CollectiveSpec g = global_stage(s, s.op, 1, std::vector<uint32_t>(p / s.local));
      return tags_of(in_node) * passes + tags_of(g);
    }
    default:
      return passes;  // direct: every pair once per pass
  }
}

// Emits one member's ops; `pos` is its group rank in the (sub-)spec. Returns the ops whose
// completion means this member's data is ready for whatever follows.
class Emitter {
 public:
  explicit Emitter(Program& out) : out_(out) {}

  Ops run(const CollectiveSpec& s, uint32_t pos, uint32_t tag, const Ops& after) {
    if (size_of(s) == 1) return after;
    if (s.op == Collective::kAllToAll) return all_to_all(s, pos, tag, after);
    if (is_grid(s)) return grid(s, pos, tag, after);
    switch (s.algorithm) {
      case Algorithm::kRing:
        return ring(s, pos, tag, after);
      case Algorithm::kBidirRing:
      case Algorithm::kRing2D:
        return bidir(s, pos, tag, after);
      case Algorithm::kHierarchical:
        return hierarchical(s, pos, tag, after);
      default:
        return direct(s, pos, tag, after);
    }
  }

 private:
  // A member's view of a unidirectional ring: its position and its two neighbours. The
  // counter-clockwise ring of a bidirectional pair is the same ring read backwards, so it needs
  // no reversed copy of the member list (that would cost O(p) per member).
  struct Ring {
    uint32_t p, q, next, prev, group;
  };

  // One pass around a unidirectional ring: at step t member q sends chunk (q + first - t) to
  // q+1 and receives chunk (q + first - t - 1) from q-1; a send forwards (reduce-scatter: after
  // reducing) the chunk received at the step before. RS starts from chunk q (first = 0), AG from
  // the chunk the RS left at q (first = 1).
  // Steps after the first wait for the receive before them: one op, held without a vector (a
  // vector per step was most of the cost of generating a phase).
  Ops ring_pass(const Ring& r, uint32_t first, uint64_t v, uint32_t tag, const Ops& after) {
    const uint32_t p = r.p, q = r.q;
    if (p < 2) return after;
    uint32_t received = 0;  // the receive of the step before
    for (uint32_t step = 0; step + 1 < p; ++step) {
      const uint32_t out_chunk = (q + first + 2 * p - step) % p;
      const uint32_t in_chunk = (q + first + 2 * p - step - 1) % p;
      const std::span<const uint32_t> ready =
          step == 0 ? std::span<const uint32_t>(after) : std::span<const uint32_t>(&received, 1);
      out_.send(r.next, wire(chunk(v, p, out_chunk)), tag + step, r.group, ready);
      received = out_.recv(r.prev, wire(chunk(v, p, in_chunk)), tag + step, r.group, ready);
    }
    return {received};
  }

  Ops ring(Collective op, const Ring& r, uint64_t v, uint32_t tag, const Ops& after) {
    const uint32_t steps = r.p - 1;
    switch (op) {
      case Collective::kReduceScatter:
        return ring_pass(r, 0, v, tag, after);
      case Collective::kAllGather:
        return ring_pass(r, 1, v, tag, after);
      default:
        return ring_pass(r, 1, v, tag + steps, ring_pass(r, 0, v, tag, after));
    }
  }

  Ops ring(const CollectiveSpec& s, uint32_t q, uint32_t tag, const Ops& after) {
    const uint32_t p = size_of(s);
    return ring(s.op, Ring{p, q, s.members[(q + 1) % p], s.members[(q + p - 1) % p], s.group},
                s.bytes, tag, after);
  }

  // Half of the data clockwise, the other half counter-clockwise, concurrently.
  Ops bidir(const CollectiveSpec& s, uint32_t q, uint32_t tag, const Ops& after) {
    const uint32_t p = size_of(s);
    const uint32_t next = s.members[(q + 1) % p], prev = s.members[(q + p - 1) % p];
    const uint32_t passes = s.op == Collective::kAllReduce ? 2 : 1;
    Ops ready = ring(s.op, Ring{p, q, next, prev, s.group}, chunk(s.bytes, 2, 0), tag, after);
    const Ops other = ring(s.op, Ring{p, reverse_pos(q, p), prev, next, s.group},
                           chunk(s.bytes, 2, 1), tag + passes * (p - 1), after);
    ready.insert(ready.end(), other.begin(), other.end());
    return ready;
  }

  // All pairs at once: RS sends chunk j to member j, AG sends the own chunk q to everyone.
  Ops direct_pass(const CollectiveSpec& s, uint32_t q, bool gather, uint32_t tag,
                  const Ops& after) {
    const uint32_t p = size_of(s);
    for (uint32_t j = 0; j < p; ++j) {
      if (j == q) continue;
      out_.send(s.members[j], wire(chunk(s.bytes, p, gather ? q : j)), tag, s.group, after);
    }
    Ops ready;
    for (uint32_t j = 0; j < p; ++j) {
      if (j == q) continue;
      ready.push_back(
          out_.recv(s.members[j], wire(chunk(s.bytes, p, gather ? j : q)), tag, s.group, after));
    }
    return ready;
  }

  Ops direct(const CollectiveSpec& s, uint32_t q, uint32_t tag, const Ops& after) {
    switch (s.op) {
      case Collective::kReduceScatter:
        return direct_pass(s, q, false, tag, after);
      case Collective::kAllGather:
        return direct_pass(s, q, true, tag, after);
      default:
        return direct_pass(s, q, true, tag + 1, direct_pass(s, q, false, tag, after));
    }
  }

  // Half A row then column, half B column then row, concurrently (RailX Eq. 7, 13); AG runs the
  // dimensions in the reverse order of RS. With join_halves a member starts a stage of either
  // half only once both halves' stage before it is done there, so the halves stay in step.
  Ops grid(const CollectiveSpec& s, uint32_t q, uint32_t tag, const Ops& after) {
    const uint32_t row = q / s.cols, col = q % s.cols;
    const Half a = half(s, chunk(s.bytes, 2, 0), row_of(s, row), col, col_of(s, col), row, tag);
    const Half b = half(s, chunk(s.bytes, 2, 1), col_of(s, col), row, row_of(s, row), col,
                        tag + half_tags(s, s.cols, s.rows));
    Ops ready_a = after, ready_b = after;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (s.join_halves && i > 0) {
        ready_a.insert(ready_a.end(), ready_b.begin(), ready_b.end());
        ready_b = ready_a;
      }
      ready_a = run(a[i].spec, a[i].pos, a[i].tag, ready_a);
      ready_b = run(b[i].spec, b[i].pos, b[i].tag, ready_b);
    }
    ready_a.insert(ready_a.end(), ready_b.begin(), ready_b.end());
    return ready_a;
  }

  // One stage of a grid half: a collective along one dimension, this member's place and tags.
  struct Step {
    CollectiveSpec spec;
    uint32_t pos, tag;
  };
  using Half = std::vector<Step>;

  // The stages of one half of a grid collective on v bytes: dimension 1 (members m1, position
  // q1) first.
  Half half(const CollectiveSpec& s, uint64_t v, std::vector<uint32_t> m1, uint32_t q1,
            std::vector<uint32_t> m2, uint32_t q2, uint32_t tag) {
    const Algorithm d = dim_algorithm(s.algorithm);
    const auto n1 = static_cast<uint32_t>(m1.size());
    const uint64_t v2 = share(d, v, n1, q1);
    if (s.op == Collective::kAllGather) {
      CollectiveSpec second = stage(s, d, s.op, v2, std::move(m2));
      const uint32_t next = tag + tags_of(second);
      return {{std::move(second), q2, tag}, {stage(s, d, s.op, v, std::move(m1)), q1, next}};
    }
    CollectiveSpec first = stage(s, d, Collective::kReduceScatter, v, std::move(m1));
    CollectiveSpec second = stage(s, d, s.op, v2, std::move(m2));
    const uint32_t first_tags = tags_of(first), second_tags = tags_of(second);
    Half steps{{first, q1, tag}, {std::move(second), q2, tag + first_tags}};
    if (s.op == Collective::kReduceScatter) return steps;
    first.op = Collective::kAllGather;
    steps.push_back({std::move(first), q1, tag + first_tags + second_tags});
    return steps;
  }

  // Local (bidirectional) ring inside the node, the global step among equal local ranks on this
  // member's share (RailX Eq. 8, Fig. 11). Its ops carry their stage (program.h, Stage).
  Ops hierarchical(const CollectiveSpec& s, uint32_t q, uint32_t tag, const Ops& after) {
    const uint32_t node = q / s.local, l = q % s.local;
    std::vector<uint32_t> local(s.members.begin() + node * s.local,
                                s.members.begin() + (node + 1) * s.local);
    std::vector<uint32_t> equals;
    for (uint32_t i = l; i < size_of(s); i += s.local) equals.push_back(s.members[i]);
    const uint64_t v2 = share(s.local_algorithm, s.bytes, s.local, l);
    if (s.op == Collective::kAllGather) {
      const CollectiveSpec global = global_stage(s, s.op, v2, std::move(equals));
      const Ops ready = run_stage(Stage::kGlobal, global, node, tag, after);
      return run_stage(Stage::kLocal, stage(s, s.local_algorithm, s.op, s.bytes, std::move(local)),
                       l, tag + tags_of(global), ready);
    }
    CollectiveSpec in_node =
        stage(s, s.local_algorithm, Collective::kReduceScatter, s.bytes, std::move(local));
    const CollectiveSpec global = global_stage(s, s.op, v2, std::move(equals));
    Ops ready = run_stage(Stage::kLocal, in_node, l, tag, after);
    ready = run_stage(Stage::kGlobal, global, node, tag + tags_of(in_node), ready);
    if (s.op == Collective::kReduceScatter) return ready;
    in_node.op = Collective::kAllGather;
    return run_stage(Stage::kLocal, in_node, l, tag + tags_of(in_node) + tags_of(global), ready);
  }

  // run() on a stage of a two-stage collective, its ops marked with `which`.
  Ops run_stage(Stage which, const CollectiveSpec& s, uint32_t pos, uint32_t tag,
                const Ops& after) {
    const std::size_t first = out_.size();
    Ops ready = run(s, pos, tag, after);
    for (std::size_t i = first; i < out_.size(); ++i) out_.ops[i].stage = which;
    return ready;
  }

  // Block (q, d) to each member d: V/p, or the spec's blocks.
  Ops all_to_all(const CollectiveSpec& s, uint32_t q, uint32_t tag, const Ops& after) {
    const uint32_t p = size_of(s);
    if (s.algorithm == Algorithm::kBinaryExchange) return binary_exchange(s, q, tag, after);
    if (s.algorithm == Algorithm::kHierarchical) return two_stage_all_to_all(s, q, tag, after);
    if (s.algorithm == Algorithm::kDirect) {
      Ops ready;
      for (uint32_t k = 1; k < p; ++k) {
        const uint32_t to = (q + k) % p;
        ready.push_back(out_.send(s.members[to], wire(block(s, q, to)), tag, s.group, after));
      }
      for (uint32_t k = 1; k < p; ++k) {
        const uint32_t from = (q + p - k) % p;
        ready.push_back(out_.recv(s.members[from], wire(block(s, from, q)), tag, s.group, after));
      }
      return ready;
    }
    Ops ready = after;  // pairwise: a round starts when the previous one is done
    for (uint32_t k = 1; k < p; ++k) {
      const uint32_t to = (q + k) % p, from = (q + p - k) % p;
      const uint32_t sent = out_.send(s.members[to], wire(block(s, q, to)), tag, s.group, ready);
      const uint32_t got = out_.recv(s.members[from], wire(block(s, from, q)), tag, s.group, ready);
      ready = {sent, got};
    }
    return ready;
  }

  // Member q = node * L + l (L = s.local): first, inside its node, it gives each other member l'
  // the blocks of every member with local rank l' (its node's GPU on that rail); then, among equal
  // local ranks (along its rail), it gives each other node the L blocks its node holds for that
  // node's member l. Each block crosses the network once, between equal local ranks; pairs of
  // the two stages are disjoint, so one tag serves both (rail-only §3.1's forwarding, as a
  // collective).
  Ops two_stage_all_to_all(const CollectiveSpec& s, uint32_t q, uint32_t tag, const Ops& after) {
    const uint32_t p = size_of(s), lanes = s.local, nodes = p / lanes;
    const uint32_t node = q / lanes, l = q % lanes;
    // Stage one: member `src`'s blocks for every node's member `lane`.
    const auto lane_bytes = [&](uint32_t src, uint32_t lane) {
      uint64_t sum = 0;
      for (uint32_t n = 0; n < nodes; ++n) sum += block(s, src, n * lanes + lane);
      return sum;
    };
    // Stage two: the blocks node `from`'s members hold for member `dst` after stage one.
    const auto node_bytes = [&](uint32_t from, uint32_t dst) {
      uint64_t sum = 0;
      for (uint32_t k = 0; k < lanes; ++k) sum += block(s, from * lanes + k, dst);
      return sum;
    };
    const std::size_t first = out_.size();
    Ops local;
    for (uint32_t k = 1; k < lanes; ++k) {
      const uint32_t to = (l + k) % lanes, from = (l + lanes - k) % lanes;
      local.push_back(
          out_.send(s.members[node * lanes + to], wire(lane_bytes(q, to)), tag, s.group, after));
      local.push_back(out_.recv(s.members[node * lanes + from],
                                wire(lane_bytes(node * lanes + from, l)), tag, s.group, after));
    }
    for (std::size_t i = first; i < out_.size(); ++i) out_.ops[i].stage = Stage::kLocal;
    const Ops& ready = local.empty() ? after : local;
    const std::size_t second = out_.size();
    Ops done;
    for (uint32_t k = 1; k < nodes; ++k) {
      const uint32_t to = (node + k) % nodes, from = (node + nodes - k) % nodes;
      done.push_back(out_.send(s.members[to * lanes + l], wire(node_bytes(node, to * lanes + l)),
                               tag, s.group, ready));
      done.push_back(
          out_.recv(s.members[from * lanes + l], wire(node_bytes(from, q)), tag, s.group, ready));
    }
    for (std::size_t i = second; i < out_.size(); ++i) out_.ops[i].stage = Stage::kGlobal;
    return done.empty() ? ready : done;
  }

  Ops binary_exchange(const CollectiveSpec& s, uint32_t q, uint32_t tag, const Ops& after) {
    const uint32_t p = size_of(s);
    const auto rounds = static_cast<uint32_t>(std::countr_zero(p));
    Ops ready = after;
    for (uint32_t k = 1; k <= rounds; ++k) {
      const uint32_t partner = q ^ (1u << (rounds - k));
      const uint32_t sent =
          out_.send(s.members[partner], round_bytes(s, q, k), tag, s.group, ready);
      const uint32_t got =
          out_.recv(s.members[partner], round_bytes(s, partner, k), tag, s.group, ready);
      ready = {sent, got};  // forwarded blocks must have arrived before the next round
    }
    return ready;
  }

  // Bytes member i sends in round k. Before round k, i holds the blocks (src, dst) with src equal
  // to i below the bits already exchanged and dst equal to i on them.
  static uint64_t round_bytes(const CollectiveSpec& s, uint32_t i, uint32_t k) {
    const uint32_t p = size_of(s);
    const auto rounds = static_cast<uint32_t>(std::countr_zero(p));
    const uint32_t low = (1u << (rounds - k + 1)) - 1;  // bits not exchanged yet
    std::vector<Block> held;
    for (uint32_t src = 0; src < p; ++src) {
      if ((src & low) != (i & low)) continue;
      for (uint32_t dst = 0; dst < p; ++dst) {
        if ((dst & ~low) == (i & ~low)) held.push_back({src, dst});
      }
    }
    uint64_t bytes = 0;
    for (const Block& b : binary_exchange_sends(p, i, k, held)) bytes += block(s, b.src, b.dst);
    return wire(bytes);
  }

  Program& out_;
};

}  // namespace

uint32_t collective_tags(const CollectiveSpec& spec) { return tags_of(spec); }

uint32_t append_collective(const CollectiveSpec& spec, uint32_t rank, Program& out,
                           std::span<const uint32_t> after) {
  if (rank >= spec.members.size()) {
    throw std::logic_error("append_collective: rank " + std::to_string(rank) + " of a group of " +
                           std::to_string(spec.members.size()));
  }
  const auto first = static_cast<uint32_t>(out.size());
  Emitter(out).run(spec, rank, spec.tag_base, Ops(after.begin(), after.end()));
  // The wait joins the ops nothing else waits for (the last sends and receives), so it is done
  // when all of the member's ops are.
  std::vector<bool> waited(out.size() - first, false);
  for (uint32_t i = first; i < out.size(); ++i) {
    for (uint32_t d : out.deps_of(i)) {
      if (d >= first) waited[d - first] = true;
    }
  }
  Ops sinks;
  for (uint32_t i = first; i < out.size(); ++i) {
    if (!waited[i - first]) sinks.push_back(i);
  }
  return out.wait(spec.group, sinks.empty() ? Ops(after.begin(), after.end()) : sinks);
}

bool is_windowed_ring(const CollectiveSpec& spec) {
  return spec.op != Collective::kAllToAll && size_of(spec) > 1 &&
         (spec.algorithm == Algorithm::kRing ||
          (spec.algorithm == Algorithm::kBidirRing && spec.rows == 0));
}

uint32_t ring_steps(const CollectiveSpec& spec) {
  return (spec.op == Collective::kAllReduce ? 2 : 1) * (size_of(spec) - 1);
}

uint32_t append_ring_steps(const CollectiveSpec& spec, uint32_t rank, uint32_t begin, uint32_t end,
                           Program& out, std::span<const uint32_t> after) {
  if (!is_windowed_ring(spec) || rank >= size_of(spec) || begin >= end || end > ring_steps(spec)) {
    throw std::logic_error("append_ring_steps: steps [" + std::to_string(begin) + ", " +
                           std::to_string(end) + ") of rank " + std::to_string(rank));
  }
  const uint32_t p = size_of(spec), total = ring_steps(spec);
  const uint32_t next = spec.members[(rank + 1) % p], prev = spec.members[(rank + p - 1) % p];
  // The directions: clockwise on the whole vector (ring) or on its first half (bidirectional),
  // counter-clockwise on the second half at the mirrored position.
  struct Direction {
    uint32_t q, to, from, tag;
    uint64_t v;
  };
  std::vector<Direction> dirs;
  if (spec.algorithm == Algorithm::kRing) {
    dirs.push_back({rank, next, prev, 0, spec.bytes});
  } else {
    dirs.push_back({rank, next, prev, 0, chunk(spec.bytes, 2, 0)});
    dirs.push_back({reverse_pos(rank, p), prev, next, total, chunk(spec.bytes, 2, 1)});
  }
  // An all-gather alone starts from the chunk a reduce-scatter leaves (first = 1), as in ring().
  const uint32_t first_pass = spec.op == Collective::kAllGather ? 1 : 0;
  for (const Direction& d : dirs) {
    Ops ready(after.begin(), after.end());
    for (uint32_t t = begin; t < end; ++t) {
      const uint32_t step = t % (p - 1);
      const uint32_t first = first_pass + t / (p - 1);  // the AR's second pass is its AG
      const uint32_t out_chunk = (d.q + first + 2 * p - step) % p;
      const uint32_t in_chunk = (d.q + first + 2 * p - step - 1) % p;
      out.send(d.to, wire(chunk(d.v, p, out_chunk)), d.tag + t, spec.group, ready);
      const Ops recv_after = t == begin ? Ops(after.begin(), after.end()) : ready;
      ready = {out.recv(d.from, wire(chunk(d.v, p, in_chunk)), d.tag + t, spec.group, recv_after)};
    }
  }
  // Join every op of the window nothing else waits for: the last receives and the last sends.
  Ops sinks;
  const auto first_op =
      static_cast<uint32_t>(out.size()) - (end - begin) * 2 * static_cast<uint32_t>(dirs.size());
  std::vector<bool> waited(out.size() - first_op, false);
  for (uint32_t i = first_op; i < out.size(); ++i) {
    for (uint32_t d : out.deps_of(i)) {
      if (d >= first_op) waited[d - first_op] = true;
    }
  }
  for (uint32_t i = first_op; i < out.size(); ++i) {
    if (!waited[i - first_op]) sinks.push_back(i);
  }
  return out.wait(spec.group, sinks);
}

std::vector<Block> binary_exchange_sends(uint32_t p, uint32_t rank, uint32_t round,
                                         std::span<const Block> held) {
  const auto rounds = static_cast<uint32_t>(std::countr_zero(p));
  if (!std::has_single_bit(p) || round == 0 || round > rounds || rank >= p) {
    throw std::logic_error("binary_exchange_sends: round " + std::to_string(round) + ", rank " +
                           std::to_string(rank) + " of " + std::to_string(p));
  }
  const uint32_t bit = 1u << (rounds - round);
  const uint32_t partner = rank ^ bit;
  std::vector<Block> out;
  for (const Block& b : held) {
    if ((b.dst & bit) == (partner & bit)) out.push_back(b);
  }
  return out;
}

}  // namespace hx::wl
