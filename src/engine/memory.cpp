// Peak RSS and build-memory sampling.
#include "engine/memory.h"

#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>

#include "core/stats.h"
#include "engine/simulation.h"
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

// Bytes in use on the heap, including blocks large enough to be mapped on their own.
std::size_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

}  // namespace

uint64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

BuildMemorySample sample_build_memory(const Model& model, uint64_t seed,
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
    sample.bytes = heap_in_use() - before;
  }
  return sample;
}

}  // namespace hx
