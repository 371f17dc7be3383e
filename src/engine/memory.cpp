// Peak RSS and build-memory sampling.
#include "engine/memory.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/error.h"
#include "core/stats.h"
#include "engine/heap.h"
#include "engine/memory_watch.h"
#include "engine/simulation.h"
#include "io/collective.h"
#include "partition/partitioner.h"

namespace hx {
namespace {

// Rank 0 owns [begin, end); everything else is "rank 1", so the sample's links to the rest of
// the model are built as cut links, exactly as on a real rank.
class SamplePartition final : public Partition {
 public:
  SamplePartition(ComponentId begin, ComponentId end) : begin_(begin), end_(end) {}
  int ranks() const override { return 2; }
  int rank_of(ComponentId id) const override { return id >= begin_ && id < end_ ? 0 : 1; }
  std::vector<ComponentId> components_of(int rank) const override {
    std::vector<ComponentId> ids;
    if (rank == 0) {
      for (ComponentId id = begin_; id < end_; ++id) ids.push_back(id);
    }
    return ids;  // rank 1's list is never asked for
  }
  uint32_t local_index(ComponentId id) const override { return id - begin_; }
  std::string describe() const override { return "sample"; }

 private:
  ComponentId begin_, end_;
};

// The number a /proc or cgroup file starts with; none for "max" (no limit) or a missing file.
std::optional<uint64_t> read_number(const std::string& path) {
  std::ifstream in(path);
  uint64_t v = 0;
  if (in >> v) return v;
  return std::nullopt;
}

// MemAvailable in /proc/meminfo, in bytes (the kernel's estimate of what can be allocated
// without swapping, page cache it can drop included).
std::optional<uint64_t> mem_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  while (in >> key >> kib) {
    if (key == "MemAvailable:") return kib * 1024;
    in.ignore(256, '\n');
  }
  return std::nullopt;
}

std::string size_text(double bytes) {
  static const char* const kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
  std::size_t unit = 0;
  for (; bytes >= 1024 && unit + 1 < std::size(kUnits); ++unit) bytes /= 1024;
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, kUnits[unit]);
  return text;
}

}  // namespace

// Cgroup v2 memory.max, v1 memory.limit_in_bytes.
NodeMemory node_memory() {
  namespace fs = std::filesystem;
  NodeMemory node;
  node.available = mem_available().value_or(UINT64_MAX);
  // Lines "0::/path" (cgroup v2) or "4:memory:/path" (v1); a limit on any group above this
  // process's own applies to it too.
  std::ifstream groups("/proc/self/cgroup");
  std::string line;
  while (std::getline(groups, line)) {
    const std::size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = "," + line.substr(a + 1, b - a - 1) + ",";
    fs::path root = "/sys/fs/cgroup";
    std::string file = "memory.max";
    if (controllers.find(",memory,") != std::string::npos) {
      root /= "memory";
      file = "memory.limit_in_bytes";
    } else if (controllers != ",,") {
      continue;
    }
    for (fs::path dir = root.string() + line.substr(b + 1);; dir = dir.parent_path()) {
      const std::optional<uint64_t> limit = read_number((dir / file).string());
      if (limit && *limit < node.cgroup_limit) {
        node.cgroup_limit = *limit;
        node.cgroup_file = (dir / file).string();
      }
      if (dir.string().size() <= root.string().size()) break;
    }
  }
  return node;
}

uint64_t available_memory_bytes(std::string& source) {
  const NodeMemory node = node_memory();
  source = "MemAvailable in /proc/meminfo";
  if (node.cgroup_limit >= node.available) return node.available;
  source = "cgroup limit " + node.cgroup_file;
  return node.cgroup_limit;
}

int ranks_on_node(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_ranks = 1;
  MPI_Comm_size(node, &node_ranks);
  MPI_Comm_free(&node);
  return node_ranks;
}

uint64_t summed_table_bytes(const Model& model) {
  uint64_t bytes = 0;
  for (const TableSpec& t : model.tables()) {
    if (t.kind != TableKind::kSummed) continue;
    uint64_t row = sizeof(uint64_t);  // the id
    for (const ColumnSpec& c : t.columns) {
      row += c.type == ColumnType::kWide ? sizeof(Wide) : sizeof(uint64_t);
    }
    bytes += t.size * row;
  }
  return bytes;
}

uint64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

BuildMemorySample sample_build_memory(const Model& model, uint64_t seed,
                                      const std::function<bool(const BuildMemorySample&)>& enough,
                                      uint64_t max_components) {
  BuildMemorySample sample;
  ComponentRange range{0, static_cast<ComponentId>(
                              std::min<uint64_t>(model.num_components(), max_components))};
  sample.group = "components [0, " + std::to_string(range.end) + ")";
  const std::vector<GroupLevel> levels = model.group_levels();
  for (std::size_t level = 0; level < levels.size(); ++level) {  // coarsest first
    const ComponentRange g = model.group_range(level, 0);
    if (g.end - g.begin <= max_components && g.end > g.begin) {
      range = g;
      sample.group = levels[level].name + " 0";
      break;
    }
  }
  StatsRegistry stats;
  for (const TableSpec& spec : model.tables()) stats.declare(spec);
  const SamplePartition partition(range.begin, range.end);
  const std::size_t before = heap_in_use();
  {
    Simulation sim(model, partition, 0, seed, stats);
    sample.components = sim.component_count();
    // setup() too: workloads generate their first phase's programs and post its sends there,
    // which for a direct all-to-all grows with the square of the endpoints. Measuring the heap can
    // be slow (glibc's mallinfo2 walks its free lists: 240 us a call in a sample of 18,436
    // HammingMesh components: 4.5 s for the sample), so before each component the resident growth
    // since the build stands in for the heap's, and the heap is measured only to confirm a stop.
    // What the resident size misses is memory already resident, which threatens nothing.
    const std::size_t built = heap_in_use() - before;
    const uint64_t resident = resident_bytes();
    std::size_t set_up = 0;
    sim.setup([&] {
      if (enough && set_up > 0) {
        const uint64_t now = resident_bytes();
        sample.bytes = built + (now > resident ? now - resident : 0);
        if (enough(sample)) {
          sample.bytes = heap_in_use() - before;
          if (enough(sample)) return false;
        }
      }
      ++set_up;
      return true;
    });
    sample.partial = set_up < sample.components;
    sample.bytes = heap_in_use() - before;
  }
  return sample;
}

void check_build_memory(MPI_Comm comm, const Model& model, uint64_t seed, uint64_t rank_limit) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const int node_ranks = ranks_on_node(comm);
  std::string source;
  double available = static_cast<double>(available_memory_bytes(source)) / node_ranks;
  if (rank_limit > 0) {
    available = static_cast<double>(rank_limit);
    source = "--memory-limit";
  }
  const double components = static_cast<double>(model.num_components());
  // Every rank holds the summed tables whole (a time series: its bins), and so does the sample.
  // Counted twice: writing them adds an id column and HDF5's buffers, and the run its own state.
  // The quickstart with 3,000,000 bins of 1 ps holds 1.9 GiB of tables and peaks at 2.8 GiB.
  const double held = static_cast<double>(summed_table_bytes(model)), tables = 2 * held;

  // Rank 0's sample stops setting up once its bytes per component would fail its own node, and
  // is not built at all if the tables alone would. Input its set-up refuses (a workload's) fails
  // every rank alike.
  BuildMemorySample sample;
  std::string refused;
  if (rank == 0 && held <= available) {
    try {
      sample = sample_build_memory(model, seed, [&](const BuildMemorySample& so_far) {
        return so_far.per_component() * components / ranks + tables > available;
      });
    } catch (const InputError& e) {
      refused = e.what();
    }
  }
  refused = agree(comm, refused);
  if (!refused.empty()) throw InputError(refused);
  double figures[2] = {sample.per_component(), sample.partial || tables > available ? 1.0 : 0.0};
  MPI_Bcast(figures, 2, MPI_DOUBLE, 0, comm);
  const double per_component = figures[0];
  const bool partial = figures[1] != 0;

  const double need = per_component * components / ranks + tables;  // per rank
  std::string error;
  if (need > available) {
    std::ostringstream m;
    m << "building this model needs " << (partial ? "at least " : "about ")
      << size_text(need * ranks) << " (" << size_text(need) << " on each of " << ranks
      << " rank(s): ";
    if (per_component > 0) {  // else the tables alone were too much to build a sample
      m << static_cast<uint64_t>(per_component) << " bytes for each of " << model.num_components()
        << " components, measured on a sample built and set up" << (partial ? " in part" : "")
        << (tables > 0 ? ", and " : "");
    }
    if (tables > 0) m << size_text(tables) << " for tables (twice what they hold)";
    if (rank_limit > 0) {
      m << "), but each rank may use " << size_text(available) << " (" << source << ")";
    } else {
      m << "), but this node offers " << size_text(available) << " to each of its " << node_ranks
        << " rank(s) (" << source << ")";
    }
    m << "; use more nodes or a smaller model, or pass --ignore-memory-check to try anyway";
    error = m.str();
  }
  error = agree(comm, error);
  if (!error.empty()) throw InputError(error);
}

}  // namespace hx
