// `hxsim verify`: checks that a configured network's routing is free of routing deadlock, by
// building its channel dependency graph over every source-destination pair and looking for a
// cycle (models/verification/channel_graph.h). Exploring N^2 pairs is the cost, so the sources are
// dealt out over the ranks; rank 0 combines the dependencies, looks for a cycle and prints.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "app/commands.h"
#include "core/error.h"
#include "core/text.h"
#include "engine/progress.h"
#include "engine/run.h"
#include "io/config_file.h"
#include "models/network/faults.h"
#include "models/network/network_model.h"
#include "models/verification/channel_graph.h"

namespace hx {
namespace {

// Every rank's dependencies, combined on rank 0 (elsewhere: empty). The collectors' bit sets
// share one layout, so OR-ing them is the union: a few hundred KB for a 1K-endpoint network,
// where gathering edge lists would move every edge once per rank.
net::ChannelDependencies combine(MPI_Comm comm, net::DependencyCollector& local) {
  const int rank = comm_rank(comm);
  const uint64_t counts[2] = {local.pairs(), local.states_without_escape()};
  uint64_t sums[2] = {counts[0], counts[1]};
  const int non_escape = local.saw_non_escape() ? 1 : 0;
  int any_non_escape = non_escape;
  if (comm_size(comm) > 1) {
    std::vector<uint64_t>& bits = local.bits();
    constexpr std::size_t kChunk = std::size_t{1} << 26;  // MPI counts are ints
    for (std::size_t at = 0; at < bits.size(); at += kChunk) {
      const int count = static_cast<int>(std::min(kChunk, bits.size() - at));
      MPI_Reduce(rank == 0 ? MPI_IN_PLACE : bits.data() + at, bits.data() + at, count, MPI_UINT64_T,
                 MPI_BOR, 0, comm);
    }
    MPI_Reduce(counts, sums, 2, MPI_UINT64_T, MPI_SUM, 0, comm);
    MPI_Reduce(&non_escape, &any_non_escape, 1, MPI_INT, MPI_LOR, 0, comm);
  }
  if (rank != 0) return {};
  net::ChannelDependencies all = local.dependencies();
  all.pairs = sums[0];
  all.states_without_escape = sums[1];
  all.saw_non_escape = any_non_escape != 0;
  return all;
}

// Rank 0's share of the sources explored so far, as a live line on a terminal or a line every
// `interval_s` in a batch log: a 16K-endpoint network takes a minute or more. Rank 0 stands
// for all: the sources are dealt round-robin, so every rank's share advances alike.
class VerifyProgress {
 public:
  VerifyProgress(ProgressMode mode, double interval_s, uint64_t total)
      : mode_(mode), interval_s_(interval_s), total_(total) {
    if (mode_ == ProgressMode::kAuto) {
      mode_ = isatty(fileno(stderr)) ? ProgressMode::kTty : ProgressMode::kLines;
    }
    if (mode_ == ProgressMode::kTty) interval_s_ = 0.5;
  }
  void source_done() {
    ++done_;
    if (mode_ == ProgressMode::kOff) return;
    const Clock::time_point now = Clock::now();
    if (std::chrono::duration<double>(now - last_).count() < interval_s_) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double share = static_cast<double>(done_) / static_cast<double>(total_);
    const auto eta = static_cast<int64_t>(elapsed * (1 - share) / share);
    std::fprintf(stderr,
                 "%shxsim verify: %.1f%% of the sources explored, %.0f s, ETA %d:%02d:%02d%s",
                 mode_ == ProgressMode::kTty ? "\r" : "", 100 * share, elapsed,
                 static_cast<int>(eta / 3600), static_cast<int>(eta / 60 % 60),
                 static_cast<int>(eta % 60), mode_ == ProgressMode::kTty ? "" : "\n");
    std::fflush(stderr);
    printed_ = true;
  }
  void finish() {
    if (printed_ && mode_ == ProgressMode::kTty) std::fputc('\n', stderr);
  }

 private:
  using Clock = std::chrono::steady_clock;
  ProgressMode mode_;
  double interval_s_;
  uint64_t total_;
  uint64_t done_ = 0;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_ = start_;
  bool printed_ = false;
};

}  // namespace

int command_verify(MPI_Comm comm, const Registry& registry, const std::string& path,
                   const std::vector<std::string>& overrides, ProgressMode progress,
                   double progress_interval_s) {
  Config config = load_config_file(path);
  for (const std::string& s : overrides) apply_override(config, s);
  const ResolvedConfig resolved = resolve_config(registry, config);
  const net::NetworkModel* network = net::as_network(*resolved.model);
  if (network == nullptr) {
    throw InputError("model '" + resolved.info->name + "' has no routing to verify");
  }
  const int rank = comm_rank(comm), size = comm_size(comm);
  const net::Topology& topology = network->topology();
  const net::Routing& routing = network->routing();
  const uint8_t vcs = network->vcs();

  // Sources dealt round-robin: neighbouring sources cost alike, so every rank gets a fair share.
  // With a fault schedule, the graph is the union of those of every fault state (before the
  // first action and after each instant that changes a link): a packet routed in one state may
  // still wait in the next, and an acyclic union makes every state deadlock-free.
  std::vector<SimTime> states = {SimTime::zero()};
  if (const net::Faults* faults = network->faults()) {
    for (const SimTime t : faults->change_times()) {
      if (t > SimTime::zero()) states.push_back(t);
    }
  }
  net::DependencyCollector local(topology, routing, vcs);
  const uint64_t sources = topology.num_endpoints();
  const uint64_t share = sources / size + (static_cast<uint64_t>(rank) < sources % size ? 1 : 0);
  VerifyProgress meter(rank == 0 ? progress : ProgressMode::kOff, progress_interval_s,
                       std::max<uint64_t>(1, share * states.size()));
  uint32_t broken_source = std::numeric_limits<uint32_t>::max();
  try {
    for (const SimTime t : states) {
      const net::LinksAt view(network->faults(), t);
      local.set_view(network->faults() ? &view : nullptr);
      local.explore(static_cast<uint32_t>(rank), topology.num_endpoints(),
                    static_cast<uint32_t>(size), [&meter] { meter.source_done(); });
    }
    meter.finish();
    local.set_view(nullptr);
  } catch (const net::BrokenRouting& e) {
    meter.finish();
    broken_source = e.src;
  }
  // A broken routing is reported for its lowest broken source, whichever rank met it, so the
  // message is the same at any rank count; rank 0 explores that source again for the message.
  uint32_t first_broken = broken_source;
  if (size > 1) MPI_Allreduce(&broken_source, &first_broken, 1, MPI_UINT32_T, MPI_MIN, comm);
  if (first_broken != std::numeric_limits<uint32_t>::max()) {
    if (rank == 0) {
      std::string message = "(no message)";
      try {
        net::collect_channel_dependencies(topology, routing, vcs, first_broken, first_broken + 1);
      } catch (const net::BrokenRouting& e) {
        message = e.what();
      }
      std::cerr << "hxsim: error: " << resolved.info->name << " routing " << routing.name()
                << " is broken: " << message << "\n";
    }
    return static_cast<int>(ExitCode::kInternal);
  }

  const net::ChannelDependencies all = combine(comm, local);
  int code = static_cast<int>(ExitCode::kOk);
  if (rank == 0) {
    const net::ChannelGraphReport report = net::analyse_channel_graph(all);
    std::printf(
        "hxsim verify: %s routing %s, %u VC%s: %s channels, %s dependencies over %s pairs: "
        "%s%s\n",
        resolved.info->name.c_str(), routing.name().c_str(), unsigned{vcs}, vcs == 1 ? "" : "s",
        with_commas(report.channels).c_str(), with_commas(report.dependencies).c_str(),
        with_commas(report.pairs).c_str(), report.acyclic ? "acyclic" : "CYCLIC",
        report.escape_only ? " (escape candidates only)" : "");
    if (states.size() > 1 || network->faults() != nullptr) {
      std::printf(
          "  under faults: the union over %zu fault states of the schedule (pairs "
          "counted once per state)\n",
          states.size());
    }
    for (net::ChannelId channel : report.cycle) {
      std::printf("  %s\n", net::describe_channel(topology, vcs, channel).c_str());
    }
    if (report.states_without_escape > 0) {
      std::printf(
          "  but %s packet states are offered no escape candidate: a packet there can "
          "wait on adaptive channels alone\n",
          with_commas(report.states_without_escape).c_str());
    }
    std::fflush(stdout);
    if (!report.deadlock_free()) code = static_cast<int>(ExitCode::kDeadlock);
  }
  if (size > 1) MPI_Bcast(&code, 1, MPI_INT, 0, comm);
  return code;
}

}  // namespace hx
