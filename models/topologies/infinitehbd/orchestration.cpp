// Algorithms 2-5 of InfiniteHBD's Appendix D, with the choices the pseudo-code leaves open.
//
// Algorithm 2's DFS is a linear scan. On a K-hop line, the nodes strictly between the two ends
// of an edge (u, v), |u - v| <= K, are within K of both, so a healthy w among them splits the
// edge into (u, w), (w, v). Hence two healthy nodes are connected iff each pair of consecutive
// healthy nodes between them is at most K apart (fewer than K faulty nodes in each gap): a
// component is such a run, already in HBD order, and popping m at a time from it is emitting a
// group whenever m nodes have gathered. O(n), where the DFS is O(n K).
// That is optimal: a group's nodes lie in one component, so no placement beats the sum of
// floor(|component| / m). On a ring the same holds cyclically; the scan starts after a run of K
// faulty nodes, if any, so that no component is cut where the scan wraps.
#include "models/topologies/infinitehbd/orchestration.h"

#include <algorithm>
#include <iterator>
#include <string>

#include "core/error.h"

namespace hx::net::infinitehbd {
namespace {

using Bitmap = std::vector<uint8_t>;

Bitmap fault_bitmap(uint32_t nodes, const std::vector<uint32_t>& faulty) {
  Bitmap bad(nodes, 0);
  for (const uint32_t v : faulty) {
    if (v >= nodes) {
      throw InputError("infinitehbd orchestration: faulty node " + std::to_string(v) +
                       " is out of range: there are " + std::to_string(nodes) +
                       " nodes, ids from 0");
    }
    bad[v] = 1;
  }
  return bad;
}

void check_hops(uint32_t hops) {
  if (hops < 1) throw InputError("infinitehbd orchestration: K (hops) = 0; expected K >= 1");
}

void check_tree(const FatTree& tree) {
  check_hops(tree.hops);
  const std::string n = std::to_string(tree.nodes), p = std::to_string(tree.nodes_per_tor),
                    d = std::to_string(tree.domain_nodes);
  if (tree.nodes_per_tor == 0) {
    throw InputError("infinitehbd orchestration: nodes_per_tor (p) = 0; expected p >= 1");
  }
  // The paper's pop(l) cuts the deployed line into whole (sub-line, domain) segments only then.
  if (tree.domain_nodes == 0 || tree.domain_nodes % tree.nodes_per_tor != 0 ||
      tree.nodes % tree.domain_nodes != 0) {
    throw InputError("infinitehbd orchestration: domain_nodes (d) = " + d +
                     "; expected a positive multiple of nodes_per_tor (p = " + p +
                     ") dividing the node count (n = " + n + ")");
  }
}

// Algorithm 2 on `order` (node ids) as a K-hop line, appending its groups (see the file comment).
void scan_line(std::span<const uint32_t> order, const Bitmap& bad, uint32_t hops, uint32_t m,
               std::vector<Group>& out) {
  Group pending;
  size_t last = 0;
  bool any = false;
  for (size_t q = 0; q < order.size(); ++q) {
    const uint32_t v = order[q];
    if (bad[v]) continue;
    if (any && q - last > hops) pending.clear();  // a gap of K faulty nodes: a new component
    pending.push_back(v);
    last = q;
    any = true;
    if (pending.size() == m) {
      out.push_back(pending);
      pending.clear();
    }
  }
}

// Algorithm 4 on a prepared order and fault bitmap (the binary search calls it log n times).
Placement place(const FatTree& tree, const std::vector<uint32_t>& order, Bitmap bad,
                const TpShape& shape, uint32_t constraints) {
  const uint32_t m = nodes_per_group(shape), p = tree.nodes_per_tor, d = tree.domain_nodes;
  const uint32_t segment = d / p, segments = tree.nodes / d * p;
  // Segment s is positions [s l, s l + l) of the deployed line, l = d/p (Algorithm 5's l, not
  // Algorithm 3's n/p): sub-line s / (n/d) inside domain s % (n/d), as S_deploy.pop(l) takes
  // them. The paper's n_maxsubline = floor(n d / p) cannot be: (n/d) p segments of d/p nodes
  // cover the n nodes. Constraints are dropped from the end: alignment of the last domain first,
  // then the segments from the end of the line, which join the rest. Alignment applies to
  // domains 0..n_align-1 (the paper's sid = i d + j, j = 1..d, counts nodes from 1).
  const uint32_t align =
      std::min(constraints > segments ? constraints - segments : 0, tree.nodes / d);
  const uint32_t split = std::min(constraints, segments);
  for (uint32_t v = 0; v < align * d; ++v) {
    if (!bad[v]) continue;
    const uint32_t tor = v / p * p;  // one faulty node fails its whole ToR (§D, alignment)
    std::fill(bad.begin() + tor, bad.begin() + tor + p, uint8_t{1});
    v = tor + p - 1;
  }
  Placement out;
  const std::span<const uint32_t> line(order);
  for (uint32_t s = 0; s < split; ++s) {
    scan_line(line.subspan(size_t{s} * segment, segment), bad, tree.hops, m, out.groups);
  }
  // "Orchestration-Ideal" is taken to be Algorithm 2 on what remains of the deployed line, as a
  // line: the optional ring link N_1 - N_D (Fig. 7) is not used, as it joins two free nodes only
  // when no segment is split off.
  scan_line(line.subspan(size_t{split} * segment), bad, tree.hops, m, out.groups);
  out.gpus = out.groups.size() * uint64_t{shape.tp};
  return out;
}

// Orders groups by the ToRs of their nodes (lexicographically).
bool tor_less(const Group& a, const Group& b, uint32_t p) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                      [p](uint32_t x, uint32_t y) { return x / p < y / p; });
}

}  // namespace

uint32_t nodes_per_group(const TpShape& shape) {
  if (shape.gpus_per_node == 0) {
    throw InputError("infinitehbd orchestration: gpus_per_node (r) = 0; expected r >= 1");
  }
  if (shape.tp % shape.gpus_per_node != 0) {
    throw InputError(
        "infinitehbd orchestration: TP size t = " + std::to_string(shape.tp) +
        " is not a multiple of gpus_per_node r = " + std::to_string(shape.gpus_per_node));
  }
  if (shape.tp == 0) {
    throw InputError(
        "infinitehbd orchestration: TP size t = 0 gives m = t / r = 0 nodes per "
        "group; expected t >= r");
  }
  return shape.tp / shape.gpus_per_node;
}

Placement orchestrate_dcn_free(const HopLine& line, const std::vector<uint32_t>& faulty,
                               const TpShape& shape) {
  check_hops(line.hops);
  const uint32_t m = nodes_per_group(shape), n = line.nodes;
  const Bitmap bad = fault_bitmap(n, faulty);
  uint32_t start = 0;
  if (line.ring) {  // start after K faulty nodes in a row; none: the healthy nodes are one run
    uint32_t run = 0;
    for (uint64_t q = 0; q < 2 * uint64_t{n} && run < line.hops; ++q) {
      run = bad[q % n] ? run + 1 : 0;
      if (run == line.hops) start = static_cast<uint32_t>((q + 1) % n);
    }
  }
  std::vector<uint32_t> order(n);
  for (uint32_t q = 0; q < n; ++q) order[q] = (start + q) % n;
  Placement out;
  scan_line(order, bad, line.hops, m, out.groups);
  out.gpus = out.groups.size() * uint64_t{shape.tp};
  return out;
}

std::vector<uint32_t> deployment_order(uint32_t nodes, uint32_t nodes_per_tor) {
  if (nodes_per_tor == 0) {
    throw InputError("infinitehbd orchestration: nodes_per_tor (p) = 0; expected p >= 1");
  }
  // Algorithm 3's triple loop "add i + j p + k" adds p l p entries and repeats nodes. This is
  // the text's reading instead: nodes with the same index under each ToR form sub-line i, and the
  // p sub-lines are joined end to end (Fig. 7: N_n's main links go to N_{n±p}, and the start of
  // one sub-line, N_n for 1 < n <= p, to the end of the one before, N_{D+n-p-1}). If p does not
  // divide n, the first n mod p sub-lines hold one node more (the paper's l is "the shortest").
  std::vector<uint32_t> order;
  order.reserve(nodes);
  for (uint32_t i = 0; i < nodes_per_tor; ++i) {
    for (uint64_t v = i; v < nodes; v += nodes_per_tor) order.push_back(static_cast<uint32_t>(v));
  }
  return order;
}

uint32_t max_constraints(const FatTree& tree) {
  check_tree(tree);
  const uint32_t domains = tree.nodes / tree.domain_nodes;
  return domains + domains * tree.nodes_per_tor;  // Algorithm 5's high = n_domain + n_maxsubline
}

Placement place_fat_tree(const FatTree& tree, const std::vector<uint32_t>& faulty,
                         const TpShape& shape, uint32_t constraints) {
  check_tree(tree);
  return place(tree, deployment_order(tree.nodes, tree.nodes_per_tor),
               fault_bitmap(tree.nodes, faulty), shape, constraints);
}

std::optional<FatTreePlan> orchestrate_fat_tree(const FatTree& tree,
                                                const std::vector<uint32_t>& faulty,
                                                const TpShape& shape, uint64_t job_gpus) {
  const uint32_t high_start = max_constraints(tree);
  const std::vector<uint32_t> order = deployment_order(tree.nodes, tree.nodes_per_tor);
  const Bitmap bad = fault_bitmap(tree.nodes, faulty);
  // Algorithm 5 as printed returns the placement of the last mid tried, which fails whenever the
  // last probe did (its final "if" also sits inside the loop): keep the best that fit instead.
  // More constraints never place more (a cut or a fault only splits components), so the search
  // finds the largest count that fits.
  std::optional<FatTreePlan> best;
  int64_t low = 0, high = high_start;
  while (low <= high) {
    const auto mid = static_cast<uint32_t>((low + high) / 2);
    Placement placement = place(tree, order, bad, shape, mid);
    if (placement.gpus >= job_gpus) {
      best = FatTreePlan{std::move(placement), mid};
      low = int64_t{mid} + 1;
    } else {
      high = int64_t{mid} - 1;
    }
  }
  if (best) order_ranks(best->placement.groups, tree.nodes_per_tor, tree.nodes_per_tor);
  return best;
}

Placement greedy_placement(const FatTree& tree, const std::vector<uint32_t>& faulty,
                           const TpShape& shape, uint64_t job_gpus, Rng& rng) {
  check_tree(tree);
  const uint32_t m = nodes_per_group(shape), n = tree.nodes, k = tree.hops;
  const std::vector<uint32_t> order = deployment_order(n, tree.nodes_per_tor);
  Bitmap busy = fault_bitmap(n, faulty);  // faulty or already in a group
  std::vector<uint32_t> tries;            // positions of healthy nodes, then shuffled
  for (uint32_t q = 0; q < n; ++q) {
    if (!busy[order[q]]) tries.push_back(q);
  }
  for (size_t i = 0; i + 1 < tries.size(); ++i) {
    std::swap(tries[i], tries[i + rng.below(tries.size() - i)]);
  }
  Placement out;
  std::vector<uint32_t> chain;  // positions
  for (const uint32_t q : tries) {
    if (out.gpus >= job_gpus) break;
    if (busy[order[q]]) continue;
    chain.assign(1, q);
    // "The first permutation that meets the requirements": forward from q, each next free node
    // within K of the last taken, then backward from q; q stays free if that finds too few.
    for (uint32_t at = q, x = q + 1; chain.size() < m && x < n && x - at <= k; ++x) {
      if (!busy[order[x]]) chain.push_back(at = x);
    }
    for (uint32_t at = q, x = q; chain.size() < m && x > 0 && at - (x - 1) <= k; --x) {
      if (!busy[order[x - 1]]) chain.insert(chain.begin(), at = x - 1);
    }
    if (chain.size() < m) continue;
    Group group;
    for (const uint32_t c : chain) {
      busy[order[c]] = 1;
      group.push_back(order[c]);
    }
    out.groups.push_back(std::move(group));
    out.gpus += shape.tp;
  }
  return out;
}

void order_ranks(std::vector<Group>& groups, uint32_t nodes_per_tor, uint32_t parallel_size) {
  if (nodes_per_tor == 0 || parallel_size == 0) {
    throw InputError(
        "infinitehbd orchestration: nodes_per_tor (p) = " + std::to_string(nodes_per_tor) +
        ", parallel_size = " + std::to_string(parallel_size) + "; expected both >= 1");
  }
  const uint32_t p = nodes_per_tor;
  std::stable_sort(groups.begin(), groups.end(),
                   [p](const Group& a, const Group& b) { return tor_less(a, b, p); });
  // Whole parallel groups of one ToR sequence first, so that no short run of groups on other
  // ToRs shifts the cut of every parallel group after it; the leftovers after them, still sorted.
  std::vector<Group> whole, rest;
  for (size_t first = 0, last = 0; first < groups.size(); first = last) {
    while (last < groups.size() && !tor_less(groups[first], groups[last], p)) ++last;
    const size_t keep = first + (last - first) / parallel_size * parallel_size;
    for (size_t g = first; g < last; ++g) (g < keep ? whole : rest).push_back(std::move(groups[g]));
  }
  groups = std::move(whole);
  groups.insert(groups.end(), std::make_move_iterator(rest.begin()),
                std::make_move_iterator(rest.end()));
}

CrossTor cross_tor_traffic(std::span<const Group> groups, uint32_t nodes_per_tor,
                           uint32_t parallel_size) {
  if (nodes_per_tor == 0) {
    throw InputError("infinitehbd orchestration: nodes_per_tor (p) = 0; expected p >= 1");
  }
  if (parallel_size == 0) {
    throw InputError("infinitehbd orchestration: parallel_size = 0; expected >= 1");
  }
  CrossTor out;
  for (size_t first = 0; first < groups.size(); first += parallel_size) {
    const size_t c = std::min<size_t>(parallel_size, groups.size() - first);
    const size_t edges = c < 3 ? c - 1 : c;  // a ring of 2 is one edge, of 1 none
    for (size_t e = 0; e < edges; ++e) {
      const Group& a = groups[first + e];
      const Group& b = groups[first + (e + 1) % c];
      if (a.size() != b.size()) {
        throw InputError("infinitehbd orchestration: TP groups of " + std::to_string(a.size()) +
                         " and " + std::to_string(b.size()) + " nodes in one parallel group");
      }
      for (size_t k = 0; k < a.size(); ++k) {
        out.cross += a[k] / nodes_per_tor != b[k] / nodes_per_tor;
      }
      out.pairs += a.size();
    }
  }
  return out;
}

}  // namespace hx::net::infinitehbd
