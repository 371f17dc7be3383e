// `hxsim validate` and `hxsim list`: everything about a config or a model short of running it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "app/commands.h"
#include "core/error.h"
#include "engine/memory.h"
#include "engine/run.h"
#include "io/config_file.h"
#include "partition/cut_report.h"
#include "partition/partitioner.h"

namespace hx {
namespace {

void print_params(std::ostream& out, const std::string& section, const std::vector<ParamSpec>& ps) {
  out << "  [" << section << "]\n";
  for (const ParamSpec& p : ps) {
    out << "    " << p.name << " (" << param_type_name(p.type);
    if (p.type == ParamType::kChoice) {
      out << ":";
      for (const std::string& c : p.choices) out << " " << c;
    } else if (p.type == ParamType::kList) {
      out << " of " << param_type_name(p.elements.front().type);
    } else if (p.type == ParamType::kTables) {
      out << " with keys";
      for (const ParamSpec& k : p.elements) out << " " << k.name;
    }
    out << ") = " << p.default_value;
    if (std::isfinite(p.min) || std::isfinite(p.max))
      out << "  range [" << p.min << ", " << p.max << "]";
    out << "\n        " << p.help << "\n";
  }
}

void print_tables(std::ostream& out, const std::vector<TableSpec>& tables) {
  for (const TableSpec& t : tables) {
    out << "  output /" << t.name << " (one row per " << t.id_name << "): " << t.help << "\n";
    for (const ColumnSpec& c : t.columns) {
      out << "    " << c.name << " [" << c.unit << "]: " << c.help << "\n";
    }
  }
}

}  // namespace

int command_validate(MPI_Comm comm, const Registry& registry, const std::string& path,
                     const std::vector<std::string>& overrides, int ranks) {
  Config config = load_config_file(path);
  for (const std::string& s : overrides) apply_override(config, s);
  const ResolvedConfig resolved = resolve_config(registry, config);
  const int rank = comm_rank(comm);
  if (ranks == 0) ranks = comm_size(comm);
  // Every rank checks (so every rank fails alike on bad input); rank 0 prints.
  const Model& model = *resolved.model;
  const auto partition = make_partition(resolved.sim.text("partitioner"), model, ranks);
  std::vector<RankCut> cuts;
  for (int r = 0; r < ranks; ++r) cuts.push_back(analyse_rank(model, *partition, r));
  const CutReport cut = combine(std::move(cuts));
  if (cut.links_cut > 0 && cut.lookahead <= SimTime::zero()) {
    throw InputError("a link cut by the partition has zero latency; ranks could not run ahead");
  }
  // Built on every rank alike (a bad model fails everywhere); small: one group at most 20,000,
  // whose set-up stops at 1 GiB or half the node's memory (the figure is then a lower bound).
  // The sample holds the summed tables too (a long time series), so it is not built past that.
  std::string source;
  const uint64_t cap = std::min<uint64_t>(available_memory_bytes(source) / 2, uint64_t{1} << 30);
  const uint64_t tables = summed_table_bytes(model);
  BuildMemorySample memory;
  if (tables <= cap) {
    memory =
        sample_build_memory(model, static_cast<uint64_t>(resolved.sim.integer("seed")),
                            [cap](const BuildMemorySample& so_far) { return so_far.bytes > cap; });
  }
  if (rank != 0) return 0;

  std::printf("# %s is valid (config hash %s)\n%s\n", path.c_str(), resolved.hash.c_str(),
              resolved.text.c_str());
  std::printf("# partition for %d rank(s): %s\n", ranks, partition->describe().c_str());
  std::printf("#   components %llu, links %llu, links cut %llu, lookahead %s, imbalance %.3f\n",
              static_cast<unsigned long long>(model.num_components()),
              static_cast<unsigned long long>(cut.links),
              static_cast<unsigned long long>(cut.links_cut), format_time(cut.lookahead).c_str(),
              cut.imbalance);
  for (int r = 0; r < ranks; ++r) {
    const RankCut& c = cut.per_rank[static_cast<std::size_t>(r)];
    std::printf(
        "#   rank %d: %llu components, weight %llu, %llu cut link ends, %zu neighbour ranks\n", r,
        static_cast<unsigned long long>(c.components), static_cast<unsigned long long>(c.weight),
        static_cast<unsigned long long>(c.cut_ports), c.neighbours.size());
  }
  // The estimate scales the sample by each rank's components: it holds the first phase's programs
  // and sends, and leaves out later phases, events in flight, which grow with the load, and the
  // output rows written at the end.
  const double per = memory.per_component();
  uint64_t largest = 0;
  for (const RankCut& c : cut.per_rank) largest = std::max(largest, c.components);
  if (tables > cap) {
    std::printf(
        "# build memory: not sampled: the tables every rank holds take %.1f MiB, above this "
        "command's %.1f MiB\n",
        static_cast<double>(tables) / 1048576.0, static_cast<double>(cap) / 1048576.0);
    return 0;
  }
  std::printf(
      "# build memory: %s%.0f bytes per component (measured on %s, built and set up%s: %llu "
      "components), so %s %.1f MiB on the largest rank and %.1f MiB in all",
      memory.partial ? "at least " : "", per, memory.group.c_str(),
      memory.partial ? " in part" : "", static_cast<unsigned long long>(memory.components),
      memory.partial ? "at least" : "about", per * static_cast<double>(largest) / 1048576.0,
      per * static_cast<double>(model.num_components()) / 1048576.0);
  if (model.endpoints() > 0) {
    std::printf(", %.1f KiB per endpoint", per * static_cast<double>(model.num_components()) /
                                               1024.0 / static_cast<double>(model.endpoints()));
  }
  if (tables > 0) {
    std::printf("; and %.1f MiB of tables on every rank", static_cast<double>(tables) / 1048576.0);
  }
  std::printf("; later phases, events in flight and output rows come on top\n");
  return 0;
}

int command_list(MPI_Comm comm, const Registry& registry, const std::string& model) {
  const int rank = comm_rank(comm);
  if (!model.empty()) registry.find(model);  // InputError for an unknown name, on every rank
  if (rank != 0) return 0;
  std::ostringstream out;
  if (model.empty()) {
    out << "run parameters\n";
    print_params(out, "sim", sim_params(registry));
  }
  for (const ModelInfo& m : registry.models()) {
    if (!model.empty() && m.name != model) continue;
    out << "\nmodel " << m.name << ": " << m.help << "\n";
    print_params(out, m.name, m.params);
    for (const SectionSpec& s : m.extra_sections) print_params(out, s.name, s.params);
    print_tables(out, m.tables);
  }
  std::cout << out.str();
  return 0;
}

}  // namespace hx
