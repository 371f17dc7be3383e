// Placement rules per architecture, with the choices the paper leaves open:
//
// - A TP group needs t GPUs that can form its ring. Big-Switch, NVLink domains and TPUv4 cubes
//   switch (or route) between any of their GPUs, so t need not be whole nodes there; InfiniteHBD
//   (m = t / R nodes per group, §4.2), SiP-Ring (rings of nodes) and TPUv4 slices need t a
//   multiple of R.
// - Waste is §2.1's: healthy GPUs left outside TP groups, over all GPUs of the cluster; a domain
//   wastes (HBD_size - N_fault) mod TP (fragment_waste) unless its fault radius takes more.
// - NVL-36/72: §6.2 "1/9 of GPUs are reserved for redundant backups", so a full domain of S GPUs
//   keeps s = S/9 spares (4, 8) that stand in for failed GPUs; it is an HBD of S - s GPUs with
//   max(0, f - s) uncovered faults. At zero faults that wastes 1/9 for every t (TP-8 included,
//   as §6.2's fault-waiting text has it). For t = 16, 32 (and 64 on NVL-72) it is the same as
//   no spares, S mod t = S/9, which is why §6.2 can say "11% for TP sizes of 16 or larger"; only
//   t = 8 on NVL-72 (72 mod 8 = 0) tells the two readings apart. nvlink_domain(name, S, 0) gives
//   the other one. NVL-36x2 is one 72-GPU domain and keeps NVL-72's 8 spares.
// - NVL-576 keeps no spares: §6.2 credits it with "less fragmentation, benefiting from its
//   larger size", and 64 spares would waste the same 1/9 as NVL-72.
// - Domains are consecutive nodes from node 0. Nodes left over at the end form one smaller
//   domain under the same rules (§7 sized the paper's cluster, 2,880 GPUs, to avoid that): a
//   partial NVLink domain keeps floor(s * its GPUs / S) spares; a partial TPUv4 cube is a
//   smaller cube; a partial SiP ring (fewer than t GPUs) is no ring and wastes its GPUs.
// - TPUv4 (§2.2 "cube-level fault explosion radius"): a cube with a faulty GPU is lost whole.
//   For t <= 64 a group lies within one healthy cube (a sub-cube slice), each holding
//   floor(cube / t); for t > 64 the OCS joins t / 64 healthy full cubes, any of them (one OCS
//   pool over the cluster; TPUv4's 4,096-chip limit is not imposed), so t must be a multiple of
//   64 and a partial cube takes no part. The paper tests t = 8..64 only.
//   That is the brief's and §2.2's reading, but it makes TPUv4's waste the same for every t
//   dividing 64 (a healthy cube is always filled), where §6.2 has TPUv4 "perform well at ...
//   small TP sizes" and degrade with larger ones, and it wastes about 16% at the trace's mean
//   4-GPU node fault ratio (1.17%, App. A) where §1 reports 7.56% at TP-32. tpuv4(true) is the
//   reading that fits both: groups of t < 64 are slices of t / R consecutive nodes aligned
//   within a cube (2x2x2, 2x2x4, 2x4x4 sub-cubes), and a faulty node loses only its slice,
//   (1 - p) - (1 - p)^(t/R) of the GPUs, 7.8% at TP-32 and p = 1.17%. At t >= 64 the two agree.
//   For t dividing 64 that is exactly SiP-Ring's placement (aligned rings of t); they differ
//   above 64 (any healthy cubes against aligned rings) and in a partial cube.
// - SiP-Ring: static rings of t / R consecutive nodes; a ring with a faulty node is lost whole.
// - t may not exceed what a full domain can hold: S - s on NVLink, the cluster's GPUs everywhere
//   (Big-Switch, InfiniteHBD and SiP-Ring have no smaller domain; TPUv4 joins cubes).
#include "models/topologies/infinitehbd/cluster.h"

#include <algorithm>
#include <string>
#include <utility>

#include "core/error.h"
#include "models/topologies/infinitehbd/analytic.h"
#include "models/topologies/infinitehbd/orchestration.h"

namespace hx::net::infinitehbd {
namespace {

using std::to_string;

[[noreturn]] void fail(const HbdArch& a, const std::string& what) {
  throw InputError("infinitehbd cluster (" + a.name + "): " + what);
}

std::string tp_text(uint32_t tp) { return "TP size t = " + to_string(tp); }

void require_whole_nodes(const HbdArch& a, uint32_t tp, uint32_t r, const char* why) {
  if (tp % r != 0) {
    fail(a, tp_text(tp) + " is not a multiple of R = " + to_string(r) + " GPUs per node; " + why +
                " takes whole nodes");
  }
}

void require_fits(const HbdArch& a, uint32_t tp, uint64_t limit, const std::string& what) {
  if (tp > limit) fail(a, tp_text(tp) + " is larger than " + what + " (" + to_string(limit) + ")");
}

void check(const HbdArch& a, const Cluster& c, uint32_t tp) {
  if (c.nodes == 0) fail(a, "the cluster has 0 nodes; expected >= 1");
  if (c.gpus_per_node == 0) fail(a, "R = 0 GPUs per node; expected >= 1");
  if (tp == 0) fail(a, "TP size t = 0; expected t >= 1");
  const uint32_t r = c.gpus_per_node;
  if (a.kind == HbdKind::kNvlink || a.kind == HbdKind::kTpuv4) {
    if (a.domain_gpus == 0 || a.domain_gpus % r != 0) {
      fail(a, "a domain of " + to_string(a.domain_gpus) +
                  " GPUs is not whole nodes of R = " + to_string(r) + " GPUs");
    }
    if (a.spare_gpus >= a.domain_gpus) {
      fail(a, to_string(a.spare_gpus) + " spare GPUs leave nothing of a " +
                  to_string(a.domain_gpus) + "-GPU domain");
    }
  }
  switch (a.kind) {
    case HbdKind::kBigSwitch:
      break;
    case HbdKind::kInfiniteHbd:
      if (a.hops == 0) fail(a, "K = 0 hops; expected K >= 1");
      require_whole_nodes(a, tp, r, "InfiniteHBD (m = t / R nodes per ring)");
      break;
    case HbdKind::kNvlink:
      require_fits(a, tp, a.domain_gpus - a.spare_gpus,
                   "a " + to_string(a.domain_gpus) + "-GPU NVLink domain less its " +
                       to_string(a.spare_gpus) + " spares");
      break;
    case HbdKind::kTpuv4:
      if (a.slices) require_whole_nodes(a, tp, r, "TPUv4 with slices (of nodes)");
      if (tp > a.domain_gpus && tp % a.domain_gpus != 0) {
        fail(a, tp_text(tp) + " is above a " + to_string(a.domain_gpus) +
                    "-GPU cube but not a multiple of it; the OCS joins whole cubes");
      }
      break;
    case HbdKind::kSipRing:
      require_whole_nodes(a, tp, r, "SiP-Ring (static rings of nodes)");
      break;
  }
  require_fits(a, tp, c.gpus(), "the cluster's GPUs");
}

std::vector<uint8_t> fault_bitmap(const HbdArch& a, uint32_t nodes,
                                  const std::vector<uint32_t>& faulty) {
  std::vector<uint8_t> bad(nodes, 0);
  for (const uint32_t v : faulty) {
    if (v >= nodes) {
      fail(a, "faulty node " + to_string(v) + " is out of range: there are " + to_string(nodes) +
                  " nodes, ids from 0");
    }
    bad[v] = 1;
  }
  return bad;
}

uint32_t count_bad(const std::vector<uint8_t>& bad, uint32_t from, uint32_t count) {
  return static_cast<uint32_t>(std::count(bad.begin() + from, bad.begin() + from + count, 1));
}

uint64_t place_nvlink(const HbdArch& a, const Cluster& c, const std::vector<uint8_t>& bad,
                      uint32_t tp) {
  const uint32_t r = c.gpus_per_node, per = a.domain_gpus / r;
  uint64_t placed = 0;
  for (uint32_t v = 0; v < c.nodes; v += per) {
    const uint32_t nodes = std::min(per, c.nodes - v);
    placed +=
        nvlink_domain_placed(a, uint64_t{nodes} * r, uint64_t{count_bad(bad, v, nodes)} * r, tp);
  }
  return placed;
}

uint64_t place_tpuv4(const HbdArch& a, const Cluster& c, const std::vector<uint8_t>& bad,
                     uint32_t tp) {
  const uint32_t r = c.gpus_per_node, per = a.domain_gpus / r;
  uint64_t placed = 0, healthy_full = 0;
  for (uint32_t v = 0; v < c.nodes; v += per) {
    const uint32_t nodes = std::min(per, c.nodes - v);
    if (a.slices && tp < a.domain_gpus) {  // a fault loses its slice only
      const uint32_t m = tp / r;
      for (uint32_t s = v; s + m <= v + nodes; s += m) {
        if (count_bad(bad, s, m) == 0) placed += tp;
      }
      continue;
    }
    if (count_bad(bad, v, nodes) > 0) continue;  // the cube's fault radius
    if (tp <= a.domain_gpus) placed += filled_gpus(uint64_t{nodes} * r, 0, tp);
    if (nodes == per) ++healthy_full;
  }
  if (tp > a.domain_gpus) placed = healthy_full / (tp / a.domain_gpus) * tp;
  return placed;
}

uint64_t place_sip_ring(const Cluster& c, const std::vector<uint8_t>& bad, uint32_t tp) {
  const uint32_t m = tp / c.gpus_per_node;
  uint64_t placed = 0;
  for (uint32_t v = 0; v + m <= c.nodes; v += m) {
    if (count_bad(bad, v, m) == 0) placed += tp;
  }
  return placed;
}

}  // namespace

HbdArch big_switch() { return {"big_switch", HbdKind::kBigSwitch, 0, 0, 0, false, false}; }
HbdArch infinitehbd(uint32_t k, bool ring) {
  std::string name = "infinitehbd_k" + to_string(k) + (ring ? "_ring" : "");
  return {std::move(name), HbdKind::kInfiniteHbd, 0, 0, k, ring, false};
}
HbdArch nvl36() { return nvlink_domain("nvl36", 36, 4); }
HbdArch nvl72() { return nvlink_domain("nvl72", 72, 8); }
HbdArch nvl36x2() { return nvlink_domain("nvl36x2", 72, 8); }
HbdArch nvl576() { return nvlink_domain("nvl576", 576, 0); }
HbdArch tpuv4(bool slices) {
  return {slices ? "tpuv4_slices" : "tpuv4", HbdKind::kTpuv4, 64, 0, 0, false, slices};
}
HbdArch sip_ring() { return {"sip_ring", HbdKind::kSipRing, 0, 0, 0, false, false}; }
HbdArch nvlink_domain(std::string name, uint32_t gpus, uint32_t spare_gpus) {
  return {std::move(name), HbdKind::kNvlink, gpus, spare_gpus, 0, false, false};
}

std::vector<HbdArch> compared_architectures() {
  return {big_switch(),
          infinitehbd(2),
          infinitehbd(3),
          nvl36(),
          nvl72(),
          nvl576(),
          tpuv4(),
          sip_ring(),
          nvl36x2(),
          infinitehbd(2, true),
          infinitehbd(3, true),
          tpuv4(true)};
}

uint64_t filled_gpus(uint64_t gpus, uint64_t faults, uint32_t tp) {
  return gpus - faults - fragment_waste(Hbd{gpus, faults}, tp);
}

uint64_t nvlink_domain_placed(const HbdArch& arch, uint64_t gpus, uint64_t faulty_gpus,
                              uint32_t tp) {
  const uint64_t spare = uint64_t{arch.spare_gpus} * gpus / arch.domain_gpus;
  return filled_gpus(gpus - spare, faulty_gpus > spare ? faulty_gpus - spare : 0, tp);
}

double Usage::waste_ratio() const {
  return gpus == 0 ? 0.0 : static_cast<double>(wasted) / static_cast<double>(gpus);
}

Usage place(const HbdArch& arch, const Cluster& cluster, const std::vector<uint32_t>& faulty_nodes,
            uint32_t tp) {
  check(arch, cluster, tp);
  const std::vector<uint8_t> bad = fault_bitmap(arch, cluster.nodes, faulty_nodes);
  Usage u;
  u.gpus = cluster.gpus();
  u.faulty = uint64_t{count_bad(bad, 0, cluster.nodes)} * cluster.gpus_per_node;
  switch (arch.kind) {
    case HbdKind::kBigSwitch:
      u.placed = filled_gpus(u.gpus, u.faulty, tp);
      break;
    case HbdKind::kInfiniteHbd:
      u.placed = orchestrate_dcn_free({cluster.nodes, arch.hops, arch.ring}, faulty_nodes,
                                      {tp, cluster.gpus_per_node})
                     .gpus;
      break;
    case HbdKind::kNvlink:
      u.placed = place_nvlink(arch, cluster, bad, tp);
      break;
    case HbdKind::kTpuv4:
      u.placed = place_tpuv4(arch, cluster, bad, tp);
      break;
    case HbdKind::kSipRing:
      u.placed = place_sip_ring(cluster, bad, tp);
      break;
  }
  u.wasted = u.gpus - u.faulty - u.placed;
  return u;
}

std::vector<uint32_t> sample_faulty_nodes(uint32_t nodes, double ratio, Rng& rng) {
  if (!(ratio >= 0 && ratio <= 1)) {  // NaN fails too
    throw InputError("infinitehbd cluster: node fault ratio " + std::to_string(ratio) +
                     " is outside [0, 1]");
  }
  std::vector<uint32_t> faulty;
  for (uint32_t v = 0; v < nodes; ++v) {
    if (rng.bernoulli(ratio)) faulty.push_back(v);
  }
  return faulty;
}

std::vector<MeanUsage> expected_usage(std::span<const HbdArch> archs, const Cluster& cluster,
                                      uint32_t tp, double ratio, uint32_t samples, Rng& rng) {
  if (samples == 0) throw InputError("infinitehbd cluster: samples = 0; expected >= 1");
  for (const HbdArch& a : archs) check(a, cluster, tp);
  sample_faulty_nodes(0, ratio, rng);  // checks the ratio; no nodes, no draws
  std::vector<MeanUsage> mean(archs.size());
  for (uint32_t s = 0; s < samples; ++s) {
    const std::vector<uint32_t> faulty = sample_faulty_nodes(cluster.nodes, ratio, rng);
    for (size_t i = 0; i < archs.size(); ++i) {
      const Usage u = place(archs[i], cluster, faulty, tp);
      mean[i].waste_ratio += u.waste_ratio();
      mean[i].placed += static_cast<double>(u.placed);
    }
  }
  for (MeanUsage& m : mean) {  // sums in sample order, so the same seed gives the same bits
    m.waste_ratio /= samples;
    m.placed /= samples;
  }
  return mean;
}

}  // namespace hx::net::infinitehbd
