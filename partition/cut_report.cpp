// Cut analysis of one rank, and the combination of all ranks' results.
#include "partition/cut_report.h"

#include <algorithm>
#include <set>

namespace hx {

RankCut analyse_rank(const Model& model, const Partition& partition, int rank) {
  RankCut cut;
  std::set<int> neighbours;
  std::vector<PortSpec> ports;
  for (ComponentId id : partition.components_of(rank)) {
    ++cut.components;
    cut.weight += model.weight(id);
    ports.clear();
    model.ports(id, ports);
    cut.ports += ports.size();
    for (const PortSpec& p : ports) {
      const int peer_rank = partition.rank_of(p.peer);
      if (peer_rank == rank) continue;
      ++cut.cut_ports;
      cut.min_cut_latency = std::min(cut.min_cut_latency, p.latency);
      neighbours.insert(peer_rank);
    }
  }
  cut.neighbours.assign(neighbours.begin(), neighbours.end());
  return cut;
}

CutReport combine(std::vector<RankCut> ranks) {
  CutReport report;
  report.ranks = static_cast<int>(ranks.size());
  uint64_t ports = 0, cut_ports = 0, total_weight = 0, max_weight = 0;
  for (const RankCut& r : ranks) {
    ports += r.ports;
    cut_ports += r.cut_ports;
    total_weight += r.weight;
    max_weight = std::max(max_weight, r.weight);
    report.lookahead = std::min(report.lookahead, r.min_cut_latency);
  }
  report.links = ports / 2;
  report.links_cut = cut_ports / 2;
  if (total_weight > 0) {
    report.imbalance = static_cast<double>(max_weight) * static_cast<double>(ranks.size()) /
                       static_cast<double>(total_weight);
  }
  report.per_rank = std::move(ranks);
  return report;
}

}  // namespace hx
