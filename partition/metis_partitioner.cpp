// METIS partitioner: clusters of links too short to cut, then METIS k-way on the clusters.
#include "partition/metis_partitioner.h"

#include <metis.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "core/error.h"

namespace hx {
namespace {

struct Link {
  ComponentId a = 0, b = 0;
  int64_t latency_ps = 0;
};

// Union-find over component ids, path halving.
class Clusters {
 public:
  explicit Clusters(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  uint32_t find(uint32_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void join(uint32_t a, uint32_t b) {
    a = find(a), b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);  // the smaller id roots: deterministic
  }

 private:
  std::vector<uint32_t> parent_;
};

// Cluster of every component when the links shorter than `threshold` are kept whole, numbered
// 0.. in order of their smallest component; their weights in `weights`.
std::vector<uint32_t> cluster_ids(std::size_t n, const std::vector<Link>& links, int64_t threshold,
                                  const std::vector<uint64_t>& component_w,
                                  std::vector<uint64_t>& weights) {
  Clusters c(n);
  for (const Link& l : links) {
    if (l.latency_ps < threshold) c.join(l.a, l.b);
  }
  std::vector<uint32_t> id(n), number(n, UINT32_MAX);
  weights.clear();
  for (uint32_t v = 0; v < n; ++v) {
    const uint32_t root = c.find(v);
    if (number[root] == UINT32_MAX) {
      number[root] = static_cast<uint32_t>(weights.size());
      weights.push_back(0);
    }
    id[v] = number[root];
    weights[id[v]] += component_w[v];
  }
  return id;
}

std::string latency_text(int64_t ps) {
  return ps % 1000 == 0 ? std::to_string(ps / 1000) + "ns" : std::to_string(ps) + "ps";
}

// METIS k-way over the clusters: vertices weighted by `weights` (of `total`), edges by the
// links between clusters. The part of each cluster; `cut` the links cut.
std::vector<idx_t> metis_parts(const std::vector<Link>& links, const std::vector<uint32_t>& cluster,
                               const std::vector<uint64_t>& weights, uint64_t total, int ranks,
                               idx_t& cut) {
  // The cluster graph in CSR form, each pair of clusters one edge weighted by its links.
  std::vector<std::pair<uint32_t, uint32_t>> ends;
  for (const Link& l : links) {
    const uint32_t a = cluster[l.a], b = cluster[l.b];
    if (a == b) continue;
    ends.emplace_back(a, b);
    ends.emplace_back(b, a);
  }
  std::sort(ends.begin(), ends.end());
  const std::size_t nc = weights.size();
  std::vector<idx_t> xadj(nc + 1, 0), adjncy, adjwgt, vwgt(nc);
  for (std::size_t i = 0; i < ends.size();) {
    std::size_t j = i;
    while (j < ends.size() && ends[j] == ends[i]) ++j;
    adjncy.push_back(static_cast<idx_t>(ends[i].second));
    adjwgt.push_back(static_cast<idx_t>(j - i));
    ++xadj[ends[i].first + 1];
    i = j;
  }
  for (std::size_t c = 0; c < nc; ++c) xadj[c + 1] += xadj[c];
  // METIS takes idx_t weights: scale them down if the total would not fit.
  const uint64_t scale = total / (uint64_t{1} << 30) + 1;
  for (std::size_t c = 0; c < nc; ++c) vwgt[c] = static_cast<idx_t>(weights[c] / scale + 1);

  std::vector<idx_t> part(nc, 0);
  cut = 0;
  if (ranks == 1) return part;
  idx_t nvtxs = static_cast<idx_t>(nc), ncon = 1, nparts = ranks;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;  // every rank computes the same partition
  options[METIS_OPTION_NUMBERING] = 0;
  const int status =
      METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.empty() ? nullptr : adjncy.data(),
                          vwgt.data(), nullptr, adjwgt.empty() ? nullptr : adjwgt.data(), &nparts,
                          nullptr, nullptr, options, &cut, part.data());
  if (status != METIS_OK) {
    throw std::runtime_error("METIS_PartGraphKway failed (status " + std::to_string(status) +
                             ") on " + std::to_string(nc) + " clusters");
  }
  return part;
}

// Gives every empty rank a component: the highest-id one of the rank holding the most (the
// lowest such rank). METIS's last resort, when even single components leave a part empty (a
// hub far heavier than the rest). make_partition has checked that there are enough. Returns
// how many moved.
std::size_t fill_empty_ranks(std::vector<int32_t>& rank, int ranks) {
  std::vector<std::size_t> count(static_cast<std::size_t>(ranks), 0);
  for (const int32_t r : rank) ++count[static_cast<std::size_t>(r)];
  std::size_t moved = 0;
  for (std::size_t empty = 0; empty < count.size(); ++empty) {
    if (count[empty] > 0) continue;
    const auto most =
        static_cast<int32_t>(std::max_element(count.begin(), count.end()) - count.begin());
    std::size_t id = rank.size() - 1;
    while (rank[id] != most) --id;
    rank[id] = static_cast<int32_t>(empty);
    --count[static_cast<std::size_t>(most)];
    count[empty] = 1;
    ++moved;
  }
  return moved;
}

}  // namespace

MetisPartition::MetisPartition(const Model& model, int ranks) : MappedPartition(ranks) {
  const std::size_t n = model.num_components();
  std::vector<uint64_t> component_w(n);
  std::vector<Link> links;
  std::vector<PortSpec> ports;
  for (ComponentId id = 0; id < n; ++id) {
    component_w[id] = model.weight(id);
    ports.clear();
    model.ports(id, ports);
    for (const PortSpec& p : ports) {
      if (p.peer > id) links.push_back({id, p.peer, p.latency.count_ps()});
    }
  }
  const uint64_t total = std::accumulate(component_w.begin(), component_w.end(), uint64_t{0});
  const double room = static_cast<double>(total) / ranks * 1.1;

  // The largest threshold (a link latency) whose clusters are at least `ranks` and none above
  // `room`: every link shorter than it stays inside a rank. The smallest latency keeps nothing
  // whole, which always fits.
  std::vector<int64_t> latencies;
  for (const Link& l : links) latencies.push_back(l.latency_ps);
  std::sort(latencies.begin(), latencies.end());
  latencies.erase(std::unique(latencies.begin(), latencies.end()), latencies.end());
  // Fewer, heavier clusters as the threshold grows, so the feasible thresholds are a prefix of
  // the latencies: binary search for its end. latencies[0] keeps nothing whole and always fits.
  std::vector<uint64_t> weights;
  const auto fits = [&](int64_t threshold) {
    cluster_ids(n, links, threshold, component_w, weights);
    return weights.size() >= static_cast<std::size_t>(ranks) &&
           static_cast<double>(*std::max_element(weights.begin(), weights.end())) <= room;
  };
  std::size_t lo = 0, hi = latencies.size();  // latencies[lo] fits (or is the last resort)
  while (hi > lo + 1) {
    const std::size_t mid = (lo + hi) / 2;
    (fits(latencies[mid]) ? lo : hi) = mid;
  }
  // Every rank needs a component (the engine's rule), and METIS may leave a part empty when
  // the clusters are few (4 equal ones over 3 ranks): then one latency fewer is kept whole, for
  // more, smaller clusters, down to none kept, and then components move to the empty ranks.
  for (std::size_t at = lo;; --at) {
    const int64_t kept = latencies.empty() ? 0 : latencies[at];  // shorter links stay whole
    const std::vector<uint32_t> cluster = cluster_ids(n, links, kept, component_w, weights);
    idx_t cut = 0;
    const std::vector<idx_t> part = metis_parts(links, cluster, weights, total, ranks, cut);
    std::vector<int32_t> rank(n);
    for (ComponentId id = 0; id < n; ++id) rank[id] = static_cast<int32_t>(part[cluster[id]]);
    std::string description =
        "metis: " + std::to_string(weights.size()) + " clusters" +
        (at > 0 ? " (links under " + latency_text(kept) + " kept whole)" : "") + ", k-way, " +
        std::to_string(cut) + " links cut";
    if (at == 0) {
      const std::size_t moved = fill_empty_ranks(rank, ranks);
      if (moved > 0) description += ", then " + std::to_string(moved) + " moved to empty ranks";
    }
    if (assign(std::move(rank), description)) return;
    if (at == 0) throw std::logic_error("MetisPartition: a rank left empty");
  }
}

}  // namespace hx
