// How each architecture's placement (cluster.cpp) decomposes so that a change costs little:
//
// - Big-Switch places by the fault count alone.
// - NVLink domains, TPUv4 cubes, TPUv4 slices (t below a cube) and SiP rings are independent
//   units of consecutive nodes, each placing by its own fault count, so a change re-counts one
//   unit. TPUv4 with t above a cube counts the GPUs of healthy full cubes and joins them at the
//   end, as place() does.
// - InfiniteHBD places floor(h / m) groups in each component of h healthy nodes, components being
//   split by runs of K or more faulty nodes (orchestration.cpp). Stretches of the line combine
//   associatively (Placer::combine), so a segment tree over the nodes keeps the whole line's
//   summary and a change recombines the log n stretches above its node. A run split between two
//   stretches is seen whole where they meet; a run counted as two cuts leaves an empty component
//   between them, which places nothing, so it changes no count.
#include "models/topologies/infinitehbd/placer.h"

#include <bit>
#include <string>

#include "core/error.h"

namespace hx::net::infinitehbd {
Placer::Placer(const HbdArch& arch, const Cluster& cluster, uint32_t tp)
    : arch_(arch), cluster_(cluster), tp_(tp), bad_(cluster.nodes, 0) {
  place(arch, cluster, {}, tp);  // the same checks and errors
  const uint32_t n = cluster.nodes, r = cluster.gpus_per_node;
  m_ = tp / r;
  const auto add_unit = [&](uint32_t from, uint32_t count) {
    for (uint32_t v = from; v < from + count; ++v) unit_of_[v] = unit_nodes_.size();
    unit_nodes_.push_back(count);
    unit_bad_.push_back(0);
    unit_placed_ += unit_gpus(static_cast<uint32_t>(unit_nodes_.size() - 1));
  };
  const uint32_t per = arch.domain_gpus / r;  // nodes per NVLink domain or TPUv4 cube
  switch (arch.kind) {
    case HbdKind::kBigSwitch:
      break;
    case HbdKind::kInfiniteHbd:
      leaves_ = std::bit_ceil(n);
      tree_.assign(2 * size_t{leaves_}, Stretch{});
      for (uint32_t v = 0; v < n; ++v) tree_[leaves_ + v] = {1, 0, 0, false, 1, 0, 0};
      for (uint32_t i = leaves_ - 1; i >= 1; --i)
        tree_[i] = combine(tree_[2 * i], tree_[2 * i + 1]);
      break;
    case HbdKind::kNvlink:
    case HbdKind::kTpuv4:
      unit_of_.assign(n, kNoUnit);
      for (uint32_t v = 0; v < n; v += per) {
        const uint32_t nodes = std::min(per, n - v);
        if (arch.kind == HbdKind::kTpuv4 && arch.slices && tp < arch.domain_gpus) {
          for (uint32_t s = v; s + m_ <= v + nodes; s += m_) add_unit(s, m_);  // slices
        } else {
          add_unit(v, nodes);
        }
      }
      break;
    case HbdKind::kSipRing:
      unit_of_.assign(n, kNoUnit);
      for (uint32_t v = 0; v + m_ <= n; v += m_) add_unit(v, m_);
      break;
  }
}

uint64_t Placer::unit_gpus(uint32_t unit) const {
  const uint32_t r = cluster_.gpus_per_node, nodes = unit_nodes_[unit], bad = unit_bad_[unit];
  const uint64_t size = uint64_t{nodes} * r;
  switch (arch_.kind) {
    case HbdKind::kNvlink:
      return nvlink_domain_placed(arch_, size, uint64_t{bad} * r, tp_);
    case HbdKind::kTpuv4:
      if (bad > 0) return 0;
      if (tp_ <= arch_.domain_gpus)
        return arch_.slices && tp_ < arch_.domain_gpus ? tp_  // a slice
                                                       : filled_gpus(size, 0, tp_);
      return size == arch_.domain_gpus ? size : 0;  // a healthy full cube, joined in usage()
    case HbdKind::kSipRing:
      return bad == 0 ? tp_ : 0;
    default:
      return 0;
  }
}

Placer::Stretch Placer::combine(const Stretch& a, const Stretch& b) const {
  if (a.nodes == 0) return b;
  if (b.nodes == 0) return a;
  Stretch s;
  s.nodes = a.nodes + b.nodes;
  s.lead = a.lead == a.nodes ? a.nodes + b.lead : a.lead;
  s.trail = b.trail == b.nodes ? b.nodes + a.trail : b.trail;
  s.inner = a.inner + b.inner;
  const uint32_t a_last = a.cut ? a.right : a.left;  // a's last component, open to the right
  if (a.trail + b.lead >= arch_.hops) {              // a cut where they meet
    s.cut = true;
    s.left = a.left;
    s.right = b.cut ? b.right : b.left;
    if (a.cut) s.inner += a_last / m_;
    if (b.cut) s.inner += b.left / m_;
    return s;
  }
  const uint32_t joined = a_last + b.left;  // a's last component goes on into b's first
  s.cut = a.cut || b.cut;
  if (a.cut && b.cut) {
    s.left = a.left;
    s.right = b.right;
    s.inner += joined / m_;
  } else if (a.cut) {
    s.left = a.left;
    s.right = joined;
  } else if (b.cut) {
    s.left = joined;
    s.right = b.right;
  } else {
    s.left = joined;
  }
  return s;
}

void Placer::set_faulty(uint32_t node, bool faulty) {
  if (node >= cluster_.nodes) {
    throw InputError("infinitehbd cluster (" + arch_.name + "): faulty node " +
                     std::to_string(node) + " is out of range: there are " +
                     std::to_string(cluster_.nodes) + " nodes, ids from 0");
  }
  if (bad_[node] == faulty) return;
  bad_[node] = faulty;
  bad_nodes_ += faulty ? 1 : -1;
  if (arch_.kind == HbdKind::kInfiniteHbd) {
    uint32_t i = leaves_ + node;
    tree_[i] =
        faulty ? Stretch{1, 1, 1, arch_.hops <= 1, 0, 0, 0} : Stretch{1, 0, 0, false, 1, 0, 0};
    for (i /= 2; i >= 1; i /= 2) tree_[i] = combine(tree_[2 * i], tree_[2 * i + 1]);
  } else if (!unit_of_.empty() && unit_of_[node] != kNoUnit) {
    const uint32_t unit = unit_of_[node];
    unit_placed_ -= unit_gpus(unit);
    unit_bad_[unit] += faulty ? 1 : -1;
    unit_placed_ += unit_gpus(unit);
  }
}

Usage Placer::usage() const {
  Usage u;
  u.gpus = cluster_.gpus();
  u.faulty = uint64_t{bad_nodes_} * cluster_.gpus_per_node;
  switch (arch_.kind) {
    case HbdKind::kBigSwitch:
      u.placed = filled_gpus(u.gpus, u.faulty, tp_);
      break;
    case HbdKind::kInfiniteHbd: {
      const Stretch& line = tree_[1];
      uint64_t groups = line.left / m_;
      if (line.cut) {
        // On a ring the first and last components meet unless the run across the wrap is a cut.
        const bool wrap_joins = arch_.ring && line.trail + line.lead < arch_.hops;
        groups = wrap_joins ? (line.left + line.right) / m_ + line.inner
                            : line.left / m_ + line.inner + line.right / m_;
      }
      u.placed = groups * tp_;
      break;
    }
    case HbdKind::kTpuv4:
      if (tp_ > arch_.domain_gpus) {
        u.placed = unit_placed_ / arch_.domain_gpus / (tp_ / arch_.domain_gpus) * tp_;
        break;
      }
      [[fallthrough]];
    case HbdKind::kNvlink:
    case HbdKind::kSipRing:
      u.placed = unit_placed_;
      break;
  }
  u.wasted = u.gpus - u.faulty - u.placed;
  return u;
}

}  // namespace hx::net::infinitehbd
