// Flow traces: CSV parsing, validation (ids, endpoints, local dependencies, cycles) and the
// per-endpoint programs that replay them.
#include "models/workloads/trace.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/error.h"
#include "core/text.h"
#include "core/units.h"

namespace hx::wl {
namespace {

constexpr const char* kHeader = "id,src,dst,bytes,start,deps";
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
constexpr size_t kCycleIdsShown = 16;  // a cycle through a million flows is not a message
constexpr uint64_t kMaxFlits = std::numeric_limits<uint32_t>::max();  // in one message

// "NAME:ROW: ": CSV rows are line numbers, so messages point into the file like a compiler's.
std::string at(const std::string& name, uint64_t row) {
  return name + ":" + std::to_string(row) + ": ";
}

std::optional<uint64_t> parse_u64(const std::string& text) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || p != end) return std::nullopt;
  return v;
}

uint64_t integer(const std::string& text, const char* column, const std::string& where) {
  if (const auto v = parse_u64(text)) return *v;
  throw InputError(where + column + " '" + text + "' is not an integer in [0, 2^64)");
}

uint32_t endpoint(const std::string& text, const char* column, const std::string& where) {
  const uint64_t v = integer(text, column, where);
  if (v > std::numeric_limits<uint32_t>::max()) {
    throw InputError(where + column + " " + text + " is not an endpoint index (at most 2^32 - 1)");
  }
  return static_cast<uint32_t>(v);
}

// A whole number of bytes, or a count with a unit as config values take it ("64KiB").
uint64_t byte_count(const std::string& text, const std::string& where) {
  if (!text.empty() && text[0] == '-') {
    throw InputError(where + "bytes '" + text + "' is negative; expected a byte count > 0");
  }
  if (const auto v = parse_u64(text)) return *v;
  try {
    return parse_bytes("bytes", text).count();
  } catch (const InputError& e) {
    throw InputError(where + e.what());
  }
}

// A time with its unit, as config values are written. Only 0 may go without one: "10" could be
// picoseconds or nanoseconds, and guessing wrong shifts a whole trace silently.
int64_t start_time(const std::string& text, const std::string& where) {
  if (text == "0") return 0;
  if (text == "inf") throw InputError(where + "start 'inf' is not a finite time");
  if (text.ends_with("cycle") || text.ends_with("cycles")) {
    throw InputError(where + "start '" + text + "': a trace's times take ps, ns, us, ms or s");
  }
  try {
    return parse_time("start", text).count_ps();
  } catch (const InputError& e) {
    // parse_time's message offers cycles, which a trace does not take.
    std::string message = e.what();
    const std::string cycles = "ps, ns, us, ms, s or cycles";
    if (const std::size_t at = message.find(cycles); at != std::string::npos) {
      message.replace(at, cycles.size(), "ps, ns, us, ms or s");
    }
    throw InputError(where + message);
  }
}

std::vector<uint64_t> dep_list(const std::string& text, const std::string& where) {
  std::vector<uint64_t> deps;
  size_t begin = 0;
  while ((begin = text.find_first_not_of("; \t", begin)) != std::string::npos) {
    const size_t end = std::min(text.find_first_of("; \t", begin), text.size());
    deps.push_back(integer(text.substr(begin, end - begin), "dependency", where));
    begin = end;
  }
  return deps;
}

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields;
  size_t begin = 0;
  for (size_t comma; (comma = line.find(',', begin)) != std::string::npos; begin = comma + 1) {
    fields.push_back(trim(line.substr(begin, comma - begin)));
  }
  fields.push_back(trim(line.substr(begin)));
  return fields;
}

// Ids sorted, for lookups without a hash table (16 bytes per flow while it lives).
class IdIndex {
 public:
  explicit IdIndex(const std::vector<TraceFlow>& flows) {
    sorted_.reserve(flows.size());
    for (size_t i = 0; i < flows.size(); ++i) {
      sorted_.emplace_back(flows[i].id, static_cast<uint32_t>(i));
    }
    std::sort(sorted_.begin(), sorted_.end());
  }
  uint32_t find(uint64_t id) const {
    const auto it =
        std::lower_bound(sorted_.begin(), sorted_.end(), std::pair<uint64_t, uint32_t>(id, 0));
    return it != sorted_.end() && it->first == id ? it->second : kNone;
  }
  /// Indices of two flows with the same id (the earlier first), if there are any.
  std::optional<std::pair<uint32_t, uint32_t>> duplicate() const {
    for (size_t k = 1; k < sorted_.size(); ++k) {
      if (sorted_[k].first == sorted_[k - 1].first) {
        return std::pair(sorted_[k - 1].second, sorted_[k].second);
      }
    }
    return std::nullopt;
  }

 private:
  std::vector<std::pair<uint64_t, uint32_t>> sorted_;
};

// Dependencies as flow indices (kNone for an unknown id): flow f waits for
// deps[begin[f], begin[f + 1]).
struct DepGraph {
  std::vector<uint64_t> begin;
  std::vector<uint32_t> deps;
};

DepGraph resolve(const std::vector<TraceFlow>& flows, const IdIndex& index) {
  DepGraph g;
  g.begin.reserve(flows.size() + 1);
  g.begin.push_back(0);
  for (const TraceFlow& f : flows) {
    for (uint64_t id : f.deps) g.deps.push_back(index.find(id));
    g.begin.push_back(g.deps.size());
  }
  return g;
}

// Flows after their dependencies (Kahn's algorithm, first in first out, starting from the flows
// without dependencies in list order): deterministic and without recursion. Shorter than the
// flows when there is a cycle; then `pending` is > 0 exactly for the flows not ordered.
std::vector<uint32_t> topological_order(const DepGraph& g, std::vector<uint32_t>& pending) {
  const size_t n = g.begin.size() - 1;
  std::vector<uint64_t> after_begin(n + 1, 0);  // CSR of the flows that wait for each flow
  for (uint32_t d : g.deps) ++after_begin[d + 1];
  for (size_t f = 0; f < n; ++f) after_begin[f + 1] += after_begin[f];
  std::vector<uint32_t> after(g.deps.size());
  std::vector<uint64_t> fill(after_begin.begin(), after_begin.end() - 1);
  pending.assign(n, 0);
  for (size_t f = 0; f < n; ++f) {
    pending[f] = static_cast<uint32_t>(g.begin[f + 1] - g.begin[f]);
    for (uint64_t k = g.begin[f]; k < g.begin[f + 1]; ++k) {
      after[fill[g.deps[k]]++] = static_cast<uint32_t>(f);
    }
  }
  std::vector<uint32_t> order;
  order.reserve(n);
  for (size_t f = 0; f < n; ++f) {
    if (pending[f] == 0) order.push_back(static_cast<uint32_t>(f));
  }
  for (size_t head = 0; head < order.size(); ++head) {
    const uint32_t f = order[head];
    for (uint64_t k = after_begin[f]; k < after_begin[f + 1]; ++k) {
      if (--pending[after[k]] == 0) order.push_back(after[k]);
    }
  }
  return order;
}

// One cycle among the pending flows: each waits for another pending flow, so following such
// dependencies must come back to a flow already on the path. Returns the path's loop, first
// flow repeated at the end.
std::vector<uint32_t> find_cycle(const DepGraph& g, const std::vector<uint32_t>& pending) {
  std::vector<uint32_t> step(pending.size(), kNone);
  std::vector<uint32_t> path;
  auto f = static_cast<uint32_t>(
      std::find_if(pending.begin(), pending.end(), [](uint32_t p) { return p > 0; }) -
      pending.begin());
  while (step[f] == kNone) {
    step[f] = static_cast<uint32_t>(path.size());
    path.push_back(f);
    uint64_t k = g.begin[f];
    while (pending[g.deps[k]] == 0) ++k;
    f = g.deps[k];
  }
  std::vector<uint32_t> cycle(path.begin() + step[f], path.end());
  cycle.push_back(f);
  return cycle;
}

std::string cycle_text(const std::vector<TraceFlow>& flows, const std::vector<uint32_t>& cycle) {
  std::string text;
  for (size_t k = 0; k < cycle.size(); ++k) {
    if (k == kCycleIdsShown && k + 1 < cycle.size()) {
      text += " -> ... (" + std::to_string(cycle.size() - 1) + " flows)";
      k = cycle.size() - 1;
    }
    text += (k == 0 ? "" : " -> ") + std::to_string(flows[cycle[k]].id);
  }
  return text;
}

}  // namespace

std::vector<TraceFlow> parse_trace_csv(std::istream& in, const std::string& name) {
  std::vector<TraceFlow> flows;
  bool header = false;
  uint64_t line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    const std::string text = trim(line);
    if (text.empty() || text[0] == '#') continue;
    const std::string where = at(name, line_number);
    std::vector<std::string> fields = split_fields(text);
    if (!header) {
      std::string joined;
      for (const std::string& field : fields) joined += (joined.empty() ? "" : ",") + field;
      if (joined != kHeader) {
        throw InputError(where + "expected the header line '" + kHeader + "', found '" + text +
                         "'");
      }
      header = true;
      continue;
    }
    if (fields.size() != 6) {
      throw InputError(where + "expected 6 fields (" + kHeader + "), found " +
                       std::to_string(fields.size()) + "; leave deps empty with a trailing comma");
    }
    TraceFlow flow;
    flow.id = integer(fields[0], "id", where);
    flow.src = endpoint(fields[1], "src", where);
    flow.dst = endpoint(fields[2], "dst", where);
    flow.bytes = byte_count(fields[3], where);
    flow.start_ps = start_time(fields[4], where);
    flow.deps = dep_list(fields[5], where);
    flow.row = line_number;
    flows.push_back(std::move(flow));
  }
  if (in.bad()) throw InputError(name + ": read error after line " + std::to_string(line_number));
  if (!header) throw InputError(name + ": no header line '" + kHeader + "'");
  return flows;
}

void validate_trace(std::vector<TraceFlow>& flows, uint32_t endpoints, uint64_t flit_bytes,
                    const std::string& name) {
  if (flows.size() > kNone) {
    throw InputError(name + ": " + std::to_string(flows.size()) +
                     " flows; a trace holds at most 2^32 - 1 (message tags are flow indices)");
  }
  auto fail = [&](const TraceFlow& f, const std::string& reason) {
    throw InputError(at(name, f.row) + "flow " + std::to_string(f.id) + ": " + reason);
  };
  const std::string range = "; the network has " + std::to_string(endpoints) + " endpoints (0 to " +
                            std::to_string(static_cast<int64_t>(endpoints) - 1) + ")";
  for (TraceFlow& f : flows) {
    if (f.src >= endpoints) fail(f, "src " + std::to_string(f.src) + " is not an endpoint" + range);
    if (f.dst >= endpoints) fail(f, "dst " + std::to_string(f.dst) + " is not an endpoint" + range);
    if (f.bytes == 0) fail(f, "bytes is 0; a flow carries at least 1 byte");
    // Endpoints round a message up to whole flits and count them in 32 bits; rounding bytes near
    // 2^64 up would wrap to 0 flits. Divide first, so the check cannot wrap itself.
    if (f.bytes / flit_bytes + (f.bytes % flit_bytes != 0) > kMaxFlits) {
      fail(f, "bytes " + std::to_string(f.bytes) + " is more than a message carries: at most " +
                  std::to_string(kMaxFlits) + " flits of " + std::to_string(flit_bytes) +
                  " bytes; split the flow");
    }
    if (f.start_ps < 0) fail(f, "start " + format_time(SimTime::ps(f.start_ps)) + " is negative");
    std::sort(f.deps.begin(), f.deps.end());
    f.deps.erase(std::unique(f.deps.begin(), f.deps.end()), f.deps.end());
  }
  const IdIndex index(flows);
  if (const auto dup = index.duplicate()) {
    fail(flows[dup->second], "duplicate id; flow " + std::to_string(flows[dup->first].id) +
                                 " at row " + std::to_string(flows[dup->first].row) +
                                 " has it too");
  }
  const DepGraph g = resolve(flows, index);
  for (size_t i = 0; i < flows.size(); ++i) {
    const TraceFlow& f = flows[i];
    for (uint64_t k = g.begin[i]; k < g.begin[i + 1]; ++k) {
      const uint64_t dep = f.deps[k - g.begin[i]];
      if (g.deps[k] == kNone) {
        fail(f, "depends on flow " + std::to_string(dep) + ", which is not in the trace");
      }
      if (g.deps[k] == i) fail(f, "depends on itself");
      const TraceFlow& d = flows[g.deps[k]];
      if (d.src != f.src && d.dst != f.src) {
        fail(f, "depends on flow " + std::to_string(dep) + " (row " + std::to_string(d.row) + ", " +
                    std::to_string(d.src) + " -> " + std::to_string(d.dst) +
                    "), which neither starts nor ends at its source endpoint " +
                    std::to_string(f.src) +
                    "; an endpoint can only wait for flows it sends (done when their last flit "
                    "has left) or receives (done when they have fully arrived)");
      }
    }
  }
  std::vector<uint32_t> pending;
  if (topological_order(g, pending).size() < flows.size()) {
    const std::vector<uint32_t> cycle = find_cycle(g, pending);
    fail(flows[cycle[0]],
         "dependency cycle: " + cycle_text(flows, cycle) + " (each flow waits for the next)");
  }
}

TraceWorkload::TraceWorkload(const std::vector<TraceFlow>& flows, uint32_t endpoints)
    : local_begin_(static_cast<size_t>(endpoints) + 1, 0), groups_{OpGroup{"trace"}} {
  DepGraph g = resolve(flows, IdIndex(flows));
  std::vector<uint32_t> pending;
  const std::vector<uint32_t> order = topological_order(g, pending);
  if (order.size() < flows.size() ||
      std::find(g.deps.begin(), g.deps.end(), kNone) != g.deps.end()) {
    throw std::logic_error("TraceWorkload: the flows did not pass validate_trace");
  }
  flows_.reserve(flows.size());
  for (const TraceFlow& f : flows) {
    flows_.push_back({f.src, f.dst, f.bytes, f.start_ps});
    ++local_begin_[f.src + 1];
    if (f.dst != f.src) ++local_begin_[f.dst + 1];
  }
  for (size_t e = 0; e < endpoints; ++e) local_begin_[e + 1] += local_begin_[e];
  // Each flow's position in its source's and destination's local lists.
  local_.resize(local_begin_.back());
  std::vector<uint64_t> fill(local_begin_.begin(), local_begin_.end() - 1);
  std::vector<uint32_t> pos_src(flows.size());
  std::vector<uint32_t> pos_dst(flows.size());
  auto place = [&](uint32_t e, uint32_t f) {
    local_[fill[e]] = f;
    return static_cast<uint32_t>(fill[e]++ - local_begin_[e]);
  };
  for (uint32_t f : order) {
    pos_src[f] = place(flows_[f].src, f);
    pos_dst[f] = flows_[f].dst == flows_[f].src ? pos_src[f] : place(flows_[f].dst, f);
  }
  // A dependency is the flow's source's send or recv of that flow (validate_trace made sure).
  for (size_t f = 0; f < flows.size(); ++f) {
    for (uint64_t k = g.begin[f]; k < g.begin[f + 1]; ++k) {
      const uint32_t d = g.deps[k];
      g.deps[k] = flows_[d].src == flows_[f].src ? pos_src[d] : pos_dst[d];
    }
  }
  dep_begin_ = std::move(g.begin);
  dep_pos_ = std::move(g.deps);
}

uint32_t TraceWorkload::phases(uint32_t e) const {
  return e < local_begin_.size() - 1 && local_begin_[e + 1] > local_begin_[e] ? 1 : 0;
}

void TraceWorkload::generate(uint32_t e, uint32_t /*phase*/, Program& out) const {
  const uint64_t begin = local_begin_[e];
  // op_of[pos]: the op that marks the flow at local position pos done for this endpoint.
  std::vector<uint32_t> op_of(local_begin_[e + 1] - begin);
  std::vector<uint32_t> after;
  for (uint32_t pos = 0; pos < op_of.size(); ++pos) {
    const uint32_t f = local_[begin + pos];
    const Flow& flow = flows_[f];
    if (flow.src == e) {
      after.clear();
      if (flow.start_ps > 0) {
        Op delay;
        delay.kind = OpKind::kDelay;
        delay.compute_ps = flow.start_ps;
        after.push_back(out.add(delay));
      }
      for (uint64_t k = dep_begin_[f]; k < dep_begin_[f + 1]; ++k) {
        after.push_back(op_of[dep_pos_[k]]);
      }
      op_of[pos] = out.send(flow.dst, flow.bytes, f, 0, after);
    }
    if (flow.dst == e) {
      const uint32_t recv = out.recv(flow.src, flow.bytes, f, 0);
      if (flow.src != e) op_of[pos] = recv;
    }
  }
}

}  // namespace hx::wl
