// Column definitions and the single row each rank contributes to /engine and /partition.
#include "engine/output_tables.h"

namespace hx {

RunTables make_run_tables(int rank, std::size_t components, const EngineStats& s,
                          const RankCut& cut, const std::string& work_unit) {
  std::vector<ColumnSpec> engine_columns{
      {"events", ColumnType::kU64, "1", "events handled"},
      {"remote_sent", ColumnType::kU64, "1", "events sent to other ranks"},
      {"remote_received", ColumnType::kU64, "1", "events received from other ranks"},
      {"windows", ColumnType::kU64, "1", "synchronisation windows (0 on one rank)"},
      {"exchanges", ColumnType::kU64, "1",
       "neighbour exchanges: after a window that sent across ranks, and when outboxes held events"},
      {"mpi_init_s", ColumnType::kF64, "s",
       "wall time in MPI_Init (run and bench; 0 for sweep and search points)"},
      {"config_s", ColumnType::kF64, "s",
       "wall time reading and resolving the config (run and bench)"},
      {"build_s", ColumnType::kF64, "s", "wall time to build and set up components"},
      {"start_s", ColumnType::kF64, "s", "wall time from the process's start to its first event"},
      {"run_s", ColumnType::kF64, "s", "wall time in the executor"},
      {"exchange_s", ColumnType::kF64, "s", "wall time exchanging events between ranks"},
      {"reduce_s", ColumnType::kF64, "s", "wall time in window reductions, waiting included"},
      {"events_per_s", ColumnType::kF64, "1/s", "events / run_s"},
      {"checkpoints", ColumnType::kU64, "1", "checkpoints written"},
      {"checkpoint_s", ColumnType::kF64, "s", "wall time writing checkpoints (part of run_s)"},
      {"peak_rss_bytes", ColumnType::kU64, "bytes",
       "the rank's resident memory peak (before the output was written)"},
  };
  if (!work_unit.empty()) {
    engine_columns.push_back({work_unit, ColumnType::kU64, "1",
                              "the model's unit of work done by this rank's components"});
    engine_columns.push_back(
        {work_unit + "_per_s", ColumnType::kF64, "1/s", work_unit + " / run_s"});
  }
  RunTables t{
      Table(TableSpec{"engine", "rank", "per-rank engine statistics", std::move(engine_columns)}),
      Table(TableSpec{
          "partition",
          "rank",
          "what the partitioner gave each rank",
          {
              {"components", ColumnType::kU64, "1", "components owned"},
              {"weight", ColumnType::kU64, "1", "sum of the components' weights"},
              {"ports", ColumnType::kU64, "1", "link ends on this rank"},
              {"cut_ports", ColumnType::kU64, "1", "link ends whose peer is on another rank"},
              {"neighbours", ColumnType::kU64, "1", "ranks this rank exchanges events with"},
          }}),
  };
  const auto id = static_cast<uint64_t>(rank);
  const auto per_s = [&s](uint64_t n) {
    return s.run_s > 0 ? static_cast<double>(n) / s.run_s : 0.0;
  };
  std::vector<Cell> row{s.events,        s.remote_sent, s.remote_received, s.windows,
                        s.exchanges,     s.mpi_init_s,  s.config_s,        s.build_s,
                        s.start_s,       s.run_s,       s.exchange_s,      s.reduce_s,
                        per_s(s.events), s.checkpoints, s.checkpoint_s,    s.peak_rss};
  if (!work_unit.empty()) {
    row.push_back(s.work);
    row.push_back(per_s(s.work));
  }
  t.engine.add_row(id, row);
  t.partition.add_row(id, {static_cast<uint64_t>(components), cut.weight, cut.ports, cut.cut_ports,
                           static_cast<uint64_t>(cut.neighbours.size())});
  return t;
}

}  // namespace hx
