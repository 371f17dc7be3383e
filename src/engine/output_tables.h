// The per-rank tables every run writes: /engine (what each rank's engine did) and /partition
// (what each rank got). Both are keyed by rank, so they legitimately differ between rank counts.
#pragma once

#include "core/stats.h"
#include "engine/executor.h"
#include "partition/cut_report.h"

namespace hx {

struct RunTables {
  Table engine;
  Table partition;
};

/// `work_unit`: the model's (Model::work_unit); when not empty, /engine gets its count and
/// rate as two more columns, named after it.
RunTables make_run_tables(int rank, std::size_t components, const EngineStats& stats,
                          const RankCut& cut, const std::string& work_unit);

}  // namespace hx
