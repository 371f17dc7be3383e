// Node fault traces (Appendix A): checking and reading them, the faulty set over time, the
// 8-to-4-GPU split and the synthetic generator.
#include "models/topologies/infinitehbd/fault_trace.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <numeric>

#include "core/error.h"
#include "core/text.h"

namespace hx::net::infinitehbd {
namespace {

constexpr uint64_t kBurstStream = uint64_t{1} << 40;  // above every node id

std::string span(const FaultInterval& f) {
  return "[" + format_trace_time(f.start) + ", " + format_trace_time(f.end) + ")";
}

// The intervals checked, each named by where(i) in errors, sorted by (node, start).
std::vector<FaultInterval> checked(uint32_t nodes, TraceTime duration, std::vector<FaultInterval> v,
                                   const std::function<std::string(size_t)>& where) {
  if (nodes == 0) throw InputError("fault trace: a cluster of 0 nodes");
  if (duration <= TraceTime()) {
    throw InputError("fault trace: duration " + format_trace_time(duration) + " is not positive");
  }
  for (size_t i = 0; i < v.size(); ++i) {
    const FaultInterval& f = v[i];
    const std::string at = where(i) + ": node " + std::to_string(f.node) + ": ";
    if (f.node >= nodes) {
      throw InputError(at + "unknown node; the cluster has nodes 0.." + std::to_string(nodes - 1));
    }
    if (f.start < TraceTime()) throw InputError(at + "fault " + span(f) + " starts before 0");
    if (f.end <= f.start) {
      throw InputError(at + "fault " + span(f) + " does not end after it starts");
    }
    if (f.end > duration) {
      throw InputError(at + "fault " + span(f) + " ends past the trace's duration " +
                       format_trace_time(duration));
    }
  }
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::pair(v[a].node, v[a].start) < std::pair(v[b].node, v[b].start);
  });
  std::vector<FaultInterval> out;
  out.reserve(v.size());
  for (size_t k = 0; k < order.size(); ++k) {
    const FaultInterval& f = v[order[k]];
    if (k > 0 && v[order[k - 1]].node == f.node && f.start < v[order[k - 1]].end) {
      const FaultInterval& g = v[order[k - 1]];
      throw InputError(where(order[k]) + ": node " + std::to_string(f.node) + ": fault " + span(f) +
                       " overlaps its fault " + span(g) + " at " + where(order[k - 1]));
    }
    out.push_back(f);
  }
  return out;
}

}  // namespace

SimTime TraceTime::to_sim_time() const {
  constexpr int64_t kPs = 1'000'000'000'000;
  if (s_ > std::numeric_limits<int64_t>::max() / kPs || s_ < 0) {
    throw InputError("trace time " + format_trace_time(*this) +
                     " is outside simulated time's 0..2^63 ps (about 106 days)");
  }
  return SimTime::ps(s_ * kPs);
}

TraceTime parse_trace_time(std::string_view key, std::string_view text) {
  const std::string s(text);
  const auto fail = [&](const std::string& why) -> TraceTime {
    throw InputError(std::string(key) + " = '" + s + "': " + why);
  };
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !std::isfinite(v)) return fail("expected <number><unit>, e.g. 36h");
  const std::string unit = end;
  double unit_s = 0;
  if (unit == "s") unit_s = 1;
  if (unit == "min") unit_s = 60;
  if (unit == "h") unit_s = 3600;
  if (unit == "d") unit_s = 86400;
  if (unit_s == 0) return fail("unit '" + unit + "': expected s, min, h or d");
  const double seconds = v * unit_s;
  if (std::abs(seconds) > 9e18) return fail("out of range");
  const double whole = std::round(seconds);
  if (std::abs(seconds - whole) > 1e-6 * std::max(1.0, std::abs(seconds))) {
    return fail("not a whole number of seconds (the trace's resolution)");
  }
  return TraceTime::seconds(static_cast<int64_t>(whole));
}

std::string format_trace_time(TraceTime t) {
  const int64_t s = t.count_s();
  if (s != 0 && s % 86400 == 0) return std::to_string(s / 86400) + "d";
  if (s != 0 && s % 3600 == 0) return std::to_string(s / 3600) + "h";
  if (s != 0 && s % 60 == 0) return std::to_string(s / 60) + "min";
  return std::to_string(s) + "s";
}

FaultTrace::FaultTrace(uint32_t nodes, TraceTime duration, std::vector<FaultInterval> intervals)
    : nodes_(nodes),
      duration_(duration),
      intervals_(checked(nodes, duration, std::move(intervals),
                         [](size_t i) { return "fault trace: interval " + std::to_string(i); })) {}

std::vector<uint32_t> FaultTrace::faulty_at(TraceTime t) const {
  std::vector<uint32_t> out;
  for (const FaultInterval& f : intervals_) {  // sorted by node, at most one holds t per node
    if (f.start <= t && t < f.end) out.push_back(f.node);
  }
  return out;
}

std::vector<TraceTime> FaultTrace::change_times() const {
  std::vector<TraceTime> out;
  for (const FaultInterval& f : intervals_) {
    out.push_back(f.start);
    out.push_back(f.end);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<FaultStep> FaultTrace::faulty_counts() const {
  std::vector<std::pair<TraceTime, int>> deltas;
  for (const FaultInterval& f : intervals_) {
    deltas.emplace_back(f.start, 1);
    deltas.emplace_back(f.end, -1);
  }
  std::sort(deltas.begin(), deltas.end());
  std::vector<FaultStep> out{{TraceTime(), 0}};
  int64_t count = 0;
  for (size_t i = 0; i < deltas.size();) {
    const TraceTime t = deltas[i].first;
    for (; i < deltas.size() && deltas[i].first == t; ++i) count += deltas[i].second;
    if (t >= duration_) break;  // ends at the duration close the last step
    if (out.back().from == t) {
      out.back().faulty = static_cast<uint32_t>(count);
    } else if (out.back().faulty != count) {  // adjacent faults of a node change nothing
      out.push_back({t, static_cast<uint32_t>(count)});
    }
  }
  return out;
}

RatioStats FaultTrace::ratio_stats() const {
  std::vector<std::pair<uint32_t, int64_t>> pieces;  // (faulty, seconds)
  const std::vector<FaultStep> steps = faulty_counts();
  for (size_t i = 0; i < steps.size(); ++i) {
    const TraceTime to = i + 1 < steps.size() ? steps[i + 1].from : duration_;
    pieces.emplace_back(steps[i].faulty, to.count_s() - steps[i].from.count_s());
  }
  std::sort(pieces.begin(), pieces.end());
  RatioStats r;
  const double n = nodes_, total = static_cast<double>(duration_.count_s());
  __extension__ using I128 = __int128;  // 99 * 2^63 s would overflow int64
  I128 covered = 0;
  bool p99_set = false;
  for (const auto& [faulty, seconds] : pieces) {
    r.mean += faulty / n * (static_cast<double>(seconds) / total);
    r.max = faulty / n;
    covered += seconds;
    if (!p99_set && covered * 100 >= I128{99} * duration_.count_s()) {
      r.p99 = faulty / n;
      p99_set = true;
    }
  }
  return r;
}

FaultTrace parse_fault_trace_csv(std::istream& in, const std::string& name, uint32_t nodes,
                                 TraceTime duration) {
  std::vector<FaultInterval> rows;
  std::vector<uint64_t> lines;
  bool header = false;
  uint64_t n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    const std::string text = trim(line);
    if (text.empty() || text[0] == '#') continue;
    const std::string where = name + ":" + std::to_string(n);
    const std::vector<std::string> fields = csv_fields(text);
    if (!header) {
      if (fields != std::vector<std::string>{"node", "start", "end"}) {
        throw InputError(where + ": expected the header line 'node,start,end', found '" + text +
                         "'");
      }
      header = true;
      continue;
    }
    if (fields.size() != 3 || text.back() == ',') {
      throw InputError(where + ": expected 3 fields (node,start,end), found '" + text + "'");
    }
    const std::string& id = fields[0];
    if (id.empty() || id.size() > 9 ||
        !std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      throw InputError(where + ": node '" + id + "': expected a node number");
    }
    FaultInterval f;
    f.node = static_cast<uint32_t>(std::stoul(id));
    try {
      f.start = parse_trace_time("start", fields[1]);
      f.end = parse_trace_time("end", fields[2]);
    } catch (const InputError& e) {
      throw InputError(where + ": node " + id + ": " + e.what());
    }
    rows.push_back(f);
    lines.push_back(n);
  }
  if (in.bad()) throw InputError(name + ": read error after line " + std::to_string(n));
  if (!header) throw InputError(name + ": no header line 'node,start,end'");
  const std::vector<FaultInterval> sorted =
      checked(nodes, duration, std::move(rows),
              [&](size_t i) { return name + ":" + std::to_string(lines[i]); });
  return FaultTrace(nodes, duration, sorted);
}

void write_fault_trace_csv(std::ostream& out, const FaultTrace& trace) {
  out << "node,start,end\n";
  for (const FaultInterval& f : trace.intervals()) {
    out << f.node << ',' << format_trace_time(f.start) << ',' << format_trace_time(f.end) << '\n';
  }
}

double half_fault_probability(double node8_faulty_ratio) {
  if (!(node8_faulty_ratio > 0 && node8_faulty_ratio < 1)) {
    throw InputError("half_fault_probability: 8-GPU node faulty ratio " +
                     std::to_string(node8_faulty_ratio) + " is outside (0, 1)");
  }
  // P8 = 1 - (1 - P4)^2, so P4 / P8 = 1 / (2 - P4) with 1 - P4 = sqrt(1 - P8).
  return 1.0 / (1.0 + std::sqrt(1.0 - node8_faulty_ratio));
}

FaultTrace to_four_gpu_nodes(const FaultTrace& trace8, Rng& rng, double half) {
  if (!(half >= 0.5 && half <= 1)) {
    throw InputError("to_four_gpu_nodes: half fault probability " + std::to_string(half) +
                     " is outside [0.5, 1]: below 1/2 no split keeps every 8-GPU fault");
  }
  std::vector<FaultInterval> out;
  for (const FaultInterval& f : trace8.intervals()) {
    // P(both) = 2h - 1, P(low only) = P(high only) = 1 - h: each half h, never neither.
    const double u = rng.uniform();
    const bool low = u < half, high = u < 2 * half - 1 || u >= half;
    if (low) out.push_back({2 * f.node, f.start, f.end});
    if (high) out.push_back({2 * f.node + 1, f.start, f.end});
  }
  return FaultTrace(2 * trace8.nodes(), trace8.duration(), std::move(out));
}

double mean_up_seconds(const TraceModel& m) {
  return static_cast<double>(m.mean_repair.count_s()) * (1 - m.faulty_ratio) / m.faulty_ratio;
}

FaultTrace generate_fault_trace(const TraceModel& m, uint64_t seed) {
  if (!(m.faulty_ratio > 0 && m.faulty_ratio < 1)) {
    throw InputError("fault trace model: faulty_ratio " + std::to_string(m.faulty_ratio) +
                     " is outside (0, 1)");
  }
  if (m.mean_repair <= TraceTime()) throw InputError("fault trace model: mean_repair must be > 0");
  if (!(m.burst_share >= 0 && m.burst_share <= 1)) {
    throw InputError("fault trace model: burst_share " + std::to_string(m.burst_share) +
                     " is outside [0, 1]");
  }
  if (!(m.burst_hit > 0 && m.burst_hit <= 1)) {
    throw InputError("fault trace model: burst_hit " + std::to_string(m.burst_hit) +
                     " is outside (0, 1]");
  }
  const double horizon = static_cast<double>(m.duration.count_s());
  const double rate = 1.0 / mean_up_seconds(m),
               repair = static_cast<double>(m.mean_repair.count_s());
  const double own_rate = (1 - m.burst_share) * rate;
  // A burst hits a node with probability burst_hit: its hits on one node are Poisson at
  // burst_share * rate, independent of the node's own arrivals.
  std::vector<std::vector<double>> hits(m.nodes);
  if (m.burst_share > 0) {
    Rng bursts(seed, kBurstStream, static_cast<uint64_t>(RngPurpose::kFaults));
    const double gap = 1.0 / (m.burst_share * rate / m.burst_hit);
    for (double t = bursts.exponential(gap); t < horizon; t += bursts.exponential(gap)) {
      for (uint32_t n = 0; n < m.nodes; ++n) {
        if (bursts.bernoulli(m.burst_hit)) hits[n].push_back(t);
      }
    }
  }
  std::vector<FaultInterval> out;
  for (uint32_t n = 0; n < m.nodes; ++n) {
    Rng rng(seed, n, static_cast<uint64_t>(RngPurpose::kFaults));
    const auto add = [&](double from, double to) {
      const auto a = static_cast<int64_t>(std::llround(from));
      const auto b = static_cast<int64_t>(std::llround(std::min(to, horizon)));
      if (b > a) out.push_back({n, TraceTime::seconds(a), TraceTime::seconds(b)});
    };
    double t = 0;
    if (rng.bernoulli(m.faulty_ratio)) {  // stationary start; the residual repair is memoryless
      t = rng.exponential(repair);
      add(0, t);
    }
    auto hit = hits[n].begin();
    while (t < horizon) {
      // Memoryless: the own arrival is redrawn from each up time's start.
      const double own = own_rate > 0 ? t + rng.exponential(1 / own_rate) : horizon;
      hit = std::lower_bound(hit, hits[n].end(), t);  // hits while down are ignored
      const double fault = std::min(own, hit != hits[n].end() ? *hit : horizon);
      if (fault >= horizon) break;
      t = fault + rng.exponential(repair);
      add(fault, t);
    }
  }
  return FaultTrace(m.nodes, m.duration, std::move(out));
}

std::vector<uint32_t> bernoulli_faults(uint32_t nodes, double q, Rng& rng) {
  if (!(q >= 0 && q <= 1)) {
    throw InputError("bernoulli_faults: probability " + std::to_string(q) + " is outside [0, 1]");
  }
  std::vector<uint32_t> out;
  for (uint32_t n = 0; n < nodes; ++n) {
    if (rng.bernoulli(q)) out.push_back(n);
  }
  return out;
}

}  // namespace hx::net::infinitehbd
