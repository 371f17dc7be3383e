// The message-DAG runtime of one endpoint: dependency counting, message matching, and the
// workload statistics.
#include "models/components/program_runner.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/error.h"
#include "core/units.h"
#include "models/components/state_io.h"

namespace hx::net {
namespace {

constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();

// Sentinels keep the int64 values they had before times were typed, so checkpoints keep their
// bytes; for the same reason the SimTime vectors below go out as raw bytes, one int64 each.
constexpr SimTime kNotStarted = SimTime::ps(-1);
constexpr SimTime kLongAgo = SimTime::ps(kI64Min);  // before any dependency could have finished
static_assert(sizeof(SimTime) == sizeof(int64_t));

// Column order of the tables below.
enum GroupColumn : std::size_t {
  kGStart,
  kGEnd,
  kGLast,
  kGCritical,
  kGOps,
  kGMessages,
  kGBytes,
  kGAnalytic,
  kGExposed
};
enum TotalsColumn : std::size_t { kTEndpoints, kTFinished, kTOps, kTCompute, kTEnd };

struct SavedArrival {
  uint64_t message;
  SimTime at;
  SimTime path_compute;
  uint32_t src;
};
struct SavedCount {
  uint64_t key;
  uint32_t count;
};
struct SavedPost {
  uint64_t message;
  uint32_t src;
  uint32_t op;
};

}  // namespace

std::vector<TableSpec> workload_tables(const wl::Workload& workload) {
  using T = ColumnType;
  TableSpec groups{
      "workload_groups",
      "group",
      "one row per operation group (a collective, a phase, an iteration); names in "
      "/workload_group_names",
      {{"start_ps", T::kI64, "ps", "earliest start of one of its ops", Reduce::kMin},
       {"end_ps", T::kI64, "ps", "latest end of one of its ops", Reduce::kMaxKey},
       {"last_endpoint", T::kU64, "1", "the endpoint where that latest op ran", Reduce::kWinner},
       {"critical_compute_ps", T::kI64, "ps",
        "compute time on the critical path from the program start to end_ps; the rest of end_ps "
        "was communication and waiting",
        Reduce::kOfWinner},
       {"ops", T::kU64, "1", "operations run"},
       {"messages", T::kU64, "1", "messages sent"},
       {"bytes", T::kU64, "bytes", "bytes sent"},
       {"analytic_ps", T::kI64, "ps", "alpha-beta model time of the collective (0: none)",
        Reduce::kMax},
       {"exposed_ps", T::kI64, "ps",
        "summed over endpoints: time no compute ran, charged to this group as for workload_dims"}},
      TableKind::kSummed,
      workload.groups().size()};
  TableSpec dims{"workload_dims",
                 "dim",
                 "one row per parallelism dimension: none, TP, CP, EP, DP, PP",
                 {{"exposed_ps", T::kI64, "ps",
                   "summed over endpoints: time no compute ran, each stretch charged to the "
                   "dimension of the operation that ended during it"},
                  {"messages", T::kU64, "1", "messages sent"},
                  {"bytes", T::kU64, "bytes", "bytes sent"}},
                 TableKind::kSummed,
                 static_cast<uint64_t>(wl::Dim::kCount)};
  TableSpec totals{
      "workload_totals",
      "id",
      "one row: the whole workload",
      {{"endpoints", T::kU64, "1", "endpoints with a program"},
       {"finished", T::kU64, "1", "endpoints whose program completed"},
       {"ops", T::kU64, "1", "operations started"},
       {"compute_ps", T::kI64, "ps", "compute time summed over endpoints"},
       {"end_ps", T::kI64, "ps", "end of the last operation anywhere", Reduce::kMaxKey},
       {"last_endpoint", T::kU64, "1", "the endpoint where it ran", Reduce::kWinner},
       {"critical_compute_ps", T::kI64, "ps", "compute time on the critical path to end_ps",
        Reduce::kOfWinner}},
      TableKind::kSummed,
      1};
  return {groups, dims, totals};
}

namespace {

// Model FLOPs over peak FLOPs for the workload's time; none without a model, or for a run
// stopped before its programs ended (sim.end_time): it did not do the FLOPs in that time.
std::optional<double> mfu(const Table& totals, const wl::Workload& workload) {
  const uint64_t endpoints = totals.u64(kTEndpoints)[0];
  const int64_t end = totals.i64(kTEnd)[0];
  if (workload.model_flops() <= 0 || workload.endpoint_flops() <= 0 || end <= 0 ||
      totals.u64(kTFinished)[0] != endpoints) {
    return std::nullopt;
  }
  const double peak = static_cast<double>(endpoints) * workload.endpoint_flops();
  return workload.model_flops() / (peak * static_cast<double>(end) * 1e-12);
}

}  // namespace

std::vector<SummaryValue> summarize_workload(const StatsRegistry& stats,
                                             const wl::Workload& workload) {
  const Table& totals = stats.table("workload_totals");
  const Table& dims = stats.table("workload_dims");
  const Table& groups = stats.table("workload_groups");
  const uint64_t endpoints = totals.u64(kTEndpoints)[0];
  const uint64_t finished = totals.u64(kTFinished)[0];
  const int64_t end = totals.i64(kTEnd)[0];
  const double per = endpoints > 0 ? 1.0 / static_cast<double>(endpoints) : 0.0;
  std::vector<SummaryValue> v = {
      {"workload_endpoints", endpoints, "1", "endpoints with a program"},
      {"workload_complete", int64_t{finished == endpoints ? 1 : 0}, "1",
       "1 if every program ran to its end (0: the run stopped first, or a recv never matched; "
       "see workload_finished)"},
      {"workload_finished", finished, "1", "endpoints whose program completed"},
      {"workload_end_ps", end, "ps", "end of the last operation: the workload's time"},
      {"workload_critical_compute_ps", totals.i64(6)[0], "ps",
       "compute on the critical path to workload_end_ps"},
      {"workload_compute_mean_ps", static_cast<double>(totals.i64(kTCompute)[0]) * per, "ps",
       "compute time per endpoint"},
  };
  for (std::size_t d = 0; d < dims.rows(); ++d) {
    const auto dim = static_cast<wl::Dim>(d);
    v.push_back({std::string("exposed_") + wl::dim_name(dim) + "_ps",
                 static_cast<double>(dims.i64(0)[d]) * per, "ps",
                 "per endpoint: time without compute waiting on this dimension's communication"});
  }
  int64_t analytic = 0;
  for (int64_t a : groups.i64(kGAnalytic)) analytic += a;
  // Against a pure communication workload only: the analytic times leave compute out.
  if (analytic > 0 && totals.i64(kTCompute)[0] == 0) {
    v.push_back({"workload_analytic_ps", analytic, "ps", "α–β model time of the collectives"});
    v.push_back({"workload_vs_analytic", static_cast<double>(end) / static_cast<double>(analytic),
                 "1", "workload_end_ps / workload_analytic_ps"});
  }
  if (const std::optional<double> m = mfu(totals, workload)) {
    v.push_back({"mfu", *m, "1", "model FLOPs / (endpoints x peak FLOP/s x workload_end_ps)"});
  }
  return v;
}

std::vector<std::string> report_workload(const StatsRegistry& stats, const wl::Workload& workload,
                                         const RunEnd& end) {
  const Table& totals = stats.table("workload_totals");
  const Table& groups = stats.table("workload_groups");
  const Table& dims = stats.table("workload_dims");
  const uint64_t endpoints = totals.u64(kTEndpoints)[0];
  const uint64_t finished = totals.u64(kTFinished)[0];
  auto time = [](int64_t ps) { return format_time(SimTime::ps(ps)); };
  std::vector<std::string> lines;
  // With events left the run was stopped (sim.end_time, a signal, the memory watch) before the
  // programs ended; with none left, what they wait for never comes.
  const std::string why =
      end.drained ? "a recv never matched"
                  : "the run stopped at " + format_time(end.reached) + ", before they ended";
  lines.push_back("workload: " + std::to_string(endpoints) + " endpoints, " +
                  (finished == endpoints ? std::string("all programs complete")
                                         : std::to_string(endpoints - finished) +
                                               " programs NOT complete (" + why + ")") +
                  ", time " + time(totals.i64(kTEnd)[0]));
  std::string exposed;
  for (std::size_t d = 1; d < dims.rows(); ++d) {
    if (dims.i64(0)[d] == 0) continue;
    exposed += std::string(exposed.empty() ? "" : ", ") + wl::dim_name(static_cast<wl::Dim>(d)) +
               " " + time(dims.i64(0)[d] / static_cast<int64_t>(std::max<uint64_t>(endpoints, 1)));
  }
  if (!exposed.empty()) lines.push_back("exposed communication per endpoint: " + exposed);
  if (const std::optional<double> m = mfu(totals, workload)) {
    char text[64];
    std::snprintf(text, sizeof text, "MFU %.1f%%", 100 * *m);
    lines.push_back(text);
  }
  // Each group: simulated span (first start to last end) next to its α–β time.
  constexpr std::size_t kMaxLines = 24;
  const auto& specs = workload.groups();
  for (std::size_t g = 0; g < specs.size() && g < kMaxLines; ++g) {
    if (groups.u64(kGOps)[g] == 0) continue;
    std::string line =
        "  " + specs[g].name + ": span " + time(groups.i64(kGEnd)[g] - groups.i64(kGStart)[g]) +
        ", exposed " +
        time(groups.i64(kGExposed)[g] / static_cast<int64_t>(std::max<uint64_t>(endpoints, 1))) +
        " per endpoint";
    const int64_t analytic = groups.i64(kGAnalytic)[g];
    if (analytic > 0) line += " (α–β " + time(analytic) + ")";
    lines.push_back(line);
  }
  if (specs.size() > kMaxLines) {
    lines.push_back("  ... " + std::to_string(specs.size() - kMaxLines) +
                    " more groups in /workload_groups");
  }
  return lines;
}

ProgramRunner::ProgramRunner(const wl::Workload& workload, uint32_t endpoint, StatsRegistry& stats,
                             bool traffic_matrix, uint32_t members, uint32_t smallest)
    : workload_(workload),
      endpoint_(endpoint),
      members_(members),
      smallest_(members > 1 ? smallest : endpoint),
      phases_(workload.phases(endpoint)),
      groups_(&stats.table("workload_groups")),
      dims_(&stats.table("workload_dims")),
      totals_(&stats.table("workload_totals")),
      tally_(workload.groups().size()),
      dim_tally_(static_cast<std::size_t>(wl::Dim::kCount)),
      exposed_(static_cast<std::size_t>(wl::Dim::kCount), SimTime::zero()),
      traffic_(traffic_matrix ? std::make_unique<TrafficTally>() : nullptr) {}

void ProgramRunner::start(SimTime now, ProgramHost& host) {
  const auto& groups = workload_.groups();
  for (uint32_t g = 0; g < groups.size(); ++g) {
    const auto analytic = static_cast<int64_t>(groups[g].analytic_s * 1e12 + 0.5);
    groups_->offer(g, {kI64Max, kI64Min, kU64Max, int64_t{0}, uint64_t{0}, uint64_t{0}, uint64_t{0},
                       analytic, int64_t{0}});
  }
  idle_mark_ = now;
  if (phases_ == 0) {
    finished_ = true;
    return;
  }
  begin_phase(now, host);
  run_ready(now, host);
}

// Generates the current phase and makes its root ops ready. Empty phases are skipped.
void ProgramRunner::begin_phase(SimTime now, ProgramHost& /*host*/) {
  for (; phase_ < phases_; ++phase_) {
    program_.clear();
    workload_.generate(endpoint_, phase_, program_);
    if (program_.size() > 0) break;
  }
  if (phase_ == phases_) {
    finished_ = true;
    return;
  }
  load_phase();
  for (uint32_t op = 0; op < program_.size(); ++op) {
    if (remaining_[op] > 0) continue;
    ready_at_[op] = now;
    ready_path_[op] = last_path_;
    ready_group_[op] = last_group_;
    ready_.push(op);
  }
}

// Successor lists and fresh per-op state for program_.
void ProgramRunner::load_phase() {
  const auto n = static_cast<uint32_t>(program_.size());
  succ_begin_.assign(n + 1, 0);
  remaining_.assign(n, 0);
  for (uint32_t op = 0; op < n; ++op) {
    remaining_[op] = program_.ops[op].dep_count;
    for (uint32_t d : program_.deps_of(op)) ++succ_begin_[d + 1];
  }
  for (uint32_t op = 0; op < n; ++op) succ_begin_[op + 1] += succ_begin_[op];
  succ_.assign(succ_begin_[n], 0);
  fill_.assign(succ_begin_.begin(), succ_begin_.end() - 1);
  for (uint32_t op = 0; op < n; ++op) {
    for (uint32_t d : program_.deps_of(op)) succ_[fill_[d]++] = op;
  }
  // Each send's (recv's) place among the run's sends to (recvs from) its peer with its tag,
  // for message_id(): ops of one (peer, tag) start in program order (program.h), so counting
  // here, in one pass over the phase, gives the numbers counting at each start would, without
  // a table look-up per message in the middle of the run.
  occurrence_.assign(n, 0);
  for (uint32_t op = 0; op < n; ++op) {
    const wl::Op& o = program_.ops[op];
    const uint64_t key = uint64_t{o.peer} << 32 | o.tag;
    if (o.kind == wl::OpKind::kSend) occurrence_[op] = sends_to_[key]++;
    if (o.kind == wl::OpKind::kRecv) occurrence_[op] = recvs_from_[key]++;
  }
  start_at_.assign(n, kNotStarted);
  ready_at_.assign(n, kLongAgo);
  ready_path_.assign(n, SimTime::zero());
  ready_group_.assign(n, 0);
  done_ = 0;
}

// Ops that became ready at the same instant start in program order.
void ProgramRunner::run_ready(SimTime now, ProgramHost& host) {
  while (!ready_.empty()) {
    const uint32_t op = ready_.top();
    ready_.pop();
    start_op(op, now, host);
  }
}

void ProgramRunner::start_op(uint32_t op, SimTime now, ProgramHost& host) {
  const wl::Op& o = program_.ops[op];
  start_at_[op] = now;
  ++ops_;
  switch (o.kind) {
    case wl::OpKind::kCompute:
      if (computing_ == 0) expose(ready_group_[op], now - idle_mark_);
      ++computing_;
      host.wake(SimTime::ps(o.compute_ps), op);
      break;
    case wl::OpKind::kDelay:
      host.wake(SimTime::ps(o.compute_ps), op);
      break;
    case wl::OpKind::kSend: {
      const uint64_t id = message_id(occurrence_[op], o.tag);
      if (o.peer == endpoint_) {  // a self-message arrives at once
        complete(op, now, ready_path_[op], host);
        message_arrived(endpoint_, id, ready_path_[op], now, host);
      } else {
        host.post_send(o.peer, o.bytes, id, op, ready_path_[op]);
      }
      break;
    }
    case wl::OpKind::kRecv: {
      const uint64_t id = message_id(occurrence_[op], o.tag);
      auto* arrival = arrived_.find(o.peer, id);
      if (arrival == nullptr) {
        bool added = false;
        posted_.find_or_add(o.peer, id, op, added);
        break;
      }
      // Already here: the later of its arrival and this op's dependencies is on the path.
      const Arrival a = arrival->value;
      const SimTime path = a.at >= ready_at_[op] ? a.path_compute : ready_path_[op];
      arrived_.erase(*arrival);
      complete(op, now, path, host);
      break;
    }
    case wl::OpKind::kWait:
      complete(op, now, ready_path_[op], host);
      break;
  }
}

// Time without compute that ended with an op of `group`.
void ProgramRunner::expose(uint32_t group, SimTime t) {
  if (t <= SimTime::zero()) return;
  exposed_[static_cast<std::size_t>(dim_of(group))] += t;
  tally_[group].exposed += t.count_ps();
}

void ProgramRunner::op_done(uint32_t op, SimTime now, ProgramHost& host) {
  const wl::Op& o = program_.ops[op];
  SimTime path = ready_path_[op];
  if (o.kind == wl::OpKind::kCompute) {
    path += SimTime::ps(o.compute_ps);
    compute_ += SimTime::ps(o.compute_ps);
    if (--computing_ == 0) idle_mark_ = now;
  }
  complete(op, now, path, host);
  run_ready(now, host);
}

void ProgramRunner::message_arrived(uint32_t src, uint64_t message, SimTime path_compute,
                                    SimTime now, ProgramHost& host) {
  auto* post = posted_.find(src, message);
  if (post == nullptr) {
    bool added = false;
    arrived_.find_or_add(src, message, Arrival{now, path_compute}, added);
    if (!added) {
      throw std::logic_error("endpoint " + std::to_string(endpoint_) +
                             ": two messages from endpoint " + std::to_string(src) +
                             " with the same id " + std::to_string(message));
    }
    return;
  }
  const uint32_t op = post->value;
  posted_.erase(*post);
  complete(op, now, path_compute, host);
  run_ready(now, host);
}

void ProgramRunner::complete(uint32_t op, SimTime now, SimTime path, ProgramHost& host) {
  const wl::Op& o = program_.ops[op];
  const bool send = o.kind == wl::OpKind::kSend;
  GroupTally& t = tally_[o.group];
  t.start = std::min(t.start, start_at_[op].count_ps());
  // The first op at the latest end keeps its path, as the table's offers would.
  if (now.count_ps() > t.end) {
    t.end = now.count_ps();
    t.critical = path.count_ps();
  }
  ++t.ops;
  if (send) {
    ++t.messages;
    t.bytes += o.bytes;
    DimTally& d = dim_tally_[static_cast<std::size_t>(dim_of(o.group))];
    ++d.messages;
    d.bytes += o.bytes;
    // A self-message never crosses the network: not traffic between endpoints.
    if (traffic_ && o.peer != endpoint_) traffic_->add(o.peer, workload_.traffic_type(o), o.bytes);
  }
  if (now > last_end_ || (now == last_end_ && path >= last_path_)) {
    last_end_ = now;
    last_path_ = path;
    last_group_ = o.group;
  }
  for (uint32_t i = succ_begin_[op]; i < succ_begin_[op + 1]; ++i) {
    const uint32_t s = succ_[i];
    if (now > ready_at_[s] || (now == ready_at_[s] && path > ready_path_[s])) {
      ready_at_[s] = now;
      ready_path_[s] = path;
      ready_group_[s] = o.group;
    }
    if (--remaining_[s] == 0) ready_.push(s);
  }
  // Time without compute is charged piece by piece to the ops that end during it.
  if (o.kind != wl::OpKind::kCompute && computing_ == 0) {
    expose(o.group, now - idle_mark_);
    idle_mark_ = now;
  }
  if (++done_ < program_.size()) return;
  ++phase_;
  begin_phase(now, host);
}

void ProgramRunner::finish() {
  const uint64_t m = members_;
  const auto m64 = static_cast<int64_t>(m);
  for (uint32_t g = 0; g < tally_.size(); ++g) {
    const GroupTally& t = tally_[g];
    if (t.ops == 0 && t.exposed == 0) continue;
    groups_->offer(g, {t.start, t.end, t.ops > 0 ? uint64_t{smallest_} : kU64Max, t.critical,
                       m * t.ops, m * t.messages, m * t.bytes, kI64Min, m64 * t.exposed});
  }
  for (std::size_t d = 0; d < exposed_.size(); ++d) {
    dims_->offer(d, {exposed_[d].count_ps() * m64, m * dim_tally_[d].messages,
                     m * dim_tally_[d].bytes});
  }
  totals_->offer(0, {m, finished_ ? m : uint64_t{0}, m * ops_,
                     compute_.count_ps() * int64_t{members_}, last_end_.count_ps(),
                     uint64_t{smallest_}, last_path_.count_ps()});
}

void ProgramRunner::serialize(StateArchive& ar) {
  ar & phase_ & done_ & last_end_ & last_path_ & last_group_ & computing_ & idle_mark_ &
      finished_ & compute_ & ops_;
  if (ar.loading()) {
    // The phase's ops are a pure function of (endpoint, phase): regenerate them.
    program_.clear();
    if (phase_ < phases_) {
      workload_.generate(endpoint_, phase_, program_);
      const uint32_t done = done_;
      load_phase();
      done_ = done;
    }
  }
  serialize_items(ar, remaining_);
  serialize_items(ar, occurrence_);  // load_phase() above counted from the tables not yet read
  serialize_items(ar, start_at_);
  serialize_items(ar, ready_at_);
  serialize_items(ar, ready_path_);
  serialize_items(ar, ready_group_);
  serialize_items(ar, exposed_);
  serialize_items(ar, tally_);
  serialize_items(ar, dim_tally_);
  bool traffic = traffic_ != nullptr;
  ar & traffic;
  if (traffic != (traffic_ != nullptr)) {
    throw InputError("endpoint " + std::to_string(endpoint_) +
                     ": the checkpoint was written with another workload.traffic_matrix");
  }
  if (traffic_) traffic_->serialize(ar);
  // The tables go as records sorted by (source, message), so equal states give equal bytes.
  const auto by_key = [](const auto& a, const auto& b) {
    return std::pair(a.src, a.message) < std::pair(b.src, b.message);
  };
  std::vector<SavedArrival> arrived;
  arrived_.for_each([&arrived](uint32_t src, uint64_t message, const Arrival& a) {
    arrived.push_back({message, a.at, a.path_compute, src});
  });
  std::sort(arrived.begin(), arrived.end(), by_key);
  serialize_items(ar, arrived);
  std::vector<SavedPost> posted;
  posted_.for_each([&posted](uint32_t src, uint64_t message, uint32_t op) {
    posted.push_back({message, src, op});
  });
  std::sort(posted.begin(), posted.end(), by_key);
  serialize_items(ar, posted);
  if (ar.loading()) {
    bool added = false;
    arrived_.clear();
    for (const SavedArrival& a : arrived)
      arrived_.find_or_add(a.src, a.message, Arrival{a.at, a.path_compute}, added);
    posted_.clear();
    for (const SavedPost& p : posted) posted_.find_or_add(p.src, p.message, p.op, added);
  }
  for (auto* counts : {&sends_to_, &recvs_from_}) {
    std::vector<SavedCount> sorted;
    counts->for_each([&sorted](uint64_t key, uint32_t n) { sorted.push_back({key, n}); });
    std::sort(sorted.begin(), sorted.end(),
              [](const SavedCount& a, const SavedCount& b) { return a.key < b.key; });
    serialize_items(ar, sorted);
    if (ar.loading()) {
      counts->clear();
      for (const SavedCount& c : sorted) (*counts)[c.key] = c.count;
    }
  }
}

}  // namespace hx::net
