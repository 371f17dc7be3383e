// What a checkpoint holds besides the files' framing: component records (Simulation::save)
// and, per rank, the statistics tables and the run's counters.
#include "engine/checkpoint.h"

#include <algorithm>
#include <boost/archive/archive_exception.hpp>
#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/serialization/string.hpp>
#include <istream>
#include <ostream>
#include <sstream>
#include <streambuf>

#include "core/error.h"
#include "core/text.h"
#include "io/collective.h"

namespace hx {
namespace {

template <class T>
void save_column(boost::archive::binary_oarchive& ar, const std::vector<T>& v, uint64_t begin,
                 uint64_t end) {
  const uint64_t n = end - begin;
  ar << n;
  if (n) ar.save_binary(v.data() + begin, n * sizeof(T));
}

template <class T>
void load_column(boost::archive::binary_iarchive& ar, std::vector<T>& v) {
  uint64_t n = 0;
  ar >> n;
  v.resize(n);
  if (n) ar.load_binary(v.data(), n * sizeof(T));
}

// Tables are saved as this rank holds them: rows added so far (flows, histograms) are results a
// restarted run must still write. Restoring adds them back on some rank, which is all the
// engine needs: kSummed tables are summed across ranks anyway, and the other kinds are written
// by row id, whichever rank holds a row. So the rows go in `parts` records of about
// kPartBytes, part p holding the p-th slice of every table's rows (and the summed tables whole
// in part 0), and the restarting ranks share the parts: a run stopped for memory and restarted
// with more ranks spreads its rows too.
constexpr uint64_t kPartBytes = uint64_t{8} << 20;

uint64_t table_parts(const StatsRegistry& stats) {
  return std::max<uint64_t>(1, (stats.row_bytes() + kPartBytes - 1) / kPartBytes);
}

void save_tables(const StatsRegistry& stats, std::ostream& bytes, uint64_t part, uint64_t parts) {
  boost::archive::binary_oarchive ar(bytes, boost::archive::no_header);
  const uint64_t count = stats.tables().size();
  ar << count;
  for (const auto& [name, table] : stats.tables()) {
    ar << name;
    uint64_t begin = part * table->rows() / parts, end = (part + 1) * table->rows() / parts;
    if (table->spec().kind == TableKind::kSummed) {
      begin = 0;
      end = part == 0 ? table->rows() : 0;
    }
    save_column(ar, table->ids(), begin, end);
    for (std::size_t c = 0; c < table->spec().columns.size(); ++c) {
      switch (table->spec().columns[c].type) {
        case ColumnType::kU64:
          save_column(ar, table->u64(c), begin, end);
          break;
        case ColumnType::kI64:
          save_column(ar, table->i64(c), begin, end);
          break;
        case ColumnType::kF64:
          save_column(ar, table->f64(c), begin, end);
          break;
        case ColumnType::kWide:
          save_column(ar, table->wide(c), begin, end);
          break;
      }
    }
  }
}

// Reads a record where it lies: an istringstream would copy it, and a record holding a long
// run's rows is most of a restarting rank's memory.
class RecordView final : public std::streambuf {
 public:
  explicit RecordView(const std::string& record) {
    char* begin = const_cast<char*>(record.data());  // only ever read
    setg(begin, begin, begin + record.size());
  }
};

// True when every cell of rows [begin, end) is 0.
bool rows_are_zero(const Table& t, uint64_t begin, uint64_t end) {
  for (std::size_t c = 0; c < t.spec().columns.size(); ++c) {
    const auto zero = [&](const auto& column) {
      return std::all_of(column.begin() + static_cast<std::ptrdiff_t>(begin),
                         column.begin() + static_cast<std::ptrdiff_t>(end),
                         [](const auto& v) { return v == std::decay_t<decltype(v)>{}; });
    };
    bool ok = true;
    switch (t.spec().columns[c].type) {
      case ColumnType::kU64:
        ok = zero(t.u64(c));
        break;
      case ColumnType::kI64:
        ok = zero(t.i64(c));
        break;
      case ColumnType::kF64:
        ok = zero(t.f64(c));
        break;
      case ColumnType::kWide:
        ok = zero(t.wide(c));
        break;
    }
    if (!ok) return false;
  }
  return true;
}

void merge_tables(const std::string& record, StatsRegistry& stats, const std::string& where) {
  RecordView view(record);
  std::istream bytes(&view);
  boost::archive::binary_iarchive ar(bytes, boost::archive::no_header);
  uint64_t count = 0;
  ar >> count;
  if (count != stats.tables().size()) {
    throw InputError(where + " holds " + std::to_string(count) + " tables, the model has " +
                     std::to_string(stats.tables().size()));
  }
  for (uint64_t t = 0; t < count; ++t) {
    std::string name;
    ar >> name;
    if (!stats.tables().count(name))
      throw InputError(where + " holds an unknown table '" + name + "'");
    Table& into = stats.table(name);
    // Rows come straight into a table that has none yet (the usual case): no copy to merge.
    const bool direct = into.rows() == 0 && into.spec().kind != TableKind::kSummed;
    Table copy(direct ? TableSpec{} : into.spec());
    Table& saved = direct ? into : copy;
    load_column(ar, saved.ids_mutable());
    for (std::size_t c = 0; c < into.spec().columns.size(); ++c) {
      std::size_t rows = 0;
      switch (into.spec().columns[c].type) {
        case ColumnType::kU64:
          load_column(ar, saved.u64_mutable(c));
          rows = saved.u64(c).size();
          break;
        case ColumnType::kI64:
          load_column(ar, saved.i64_mutable(c));
          rows = saved.i64(c).size();
          break;
        case ColumnType::kF64:
          load_column(ar, saved.f64_mutable(c));
          rows = saved.f64(c).size();
          break;
        case ColumnType::kWide:
          load_column(ar, saved.wide_mutable(c));
          rows = saved.wide(c).size();
          break;
      }
      if (rows != saved.rows()) throw InputError(where + ": table '" + name + "' is damaged");
    }
    // A time series' last bin holds what its run recorded past that bin's start (a packet's
    // flits cut ahead of time): a restart with more bins cannot tell which of them it belongs to.
    const uint64_t k = into.spec().bin_rows;
    if (k > 0 && saved.rows() >= k && saved.rows() < into.rows() &&
        !rows_are_zero(saved, saved.rows() - k, saved.rows())) {
      throw InputError(where + ": table '" + name +
                       "' holds traffic its run recorded past the "
                       "start of its last bin, which a restart with a later end cannot place in "
                       "its own bins; restart it with an end time no later than its run's");
    }
    if (!direct) into.merge(saved);
  }
}

}  // namespace

std::string restart_config_hash(const std::string& resolved_config_text) {
  std::istringstream in(resolved_config_text);
  std::string line, section, kept;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '[') section = line;
    const bool may_change = section == "[sim]" && (line.rfind("end_time =", 0) == 0 ||
                                                   line.rfind("partitioner =", 0) == 0);
    if (!may_change) kept += line + "\n";
  }
  return fnv1a_hex(kept);
}

std::string save_checkpoint(MPI_Comm comm, const CheckpointTarget& target, const Simulation& sim,
                            const StatsRegistry& stats, SimTime time, uint64_t events) {
  CheckpointManifest manifest = this_build_identity();
  manifest.config_hash = target.config_hash;
  manifest.time_ps = time.count_ps();
  manifest.output = target.output;
  int64_t last = sim.last_work_time().count_ps();
  MPI_Allreduce(&last, &manifest.last_work_ps, 1, MPI_INT64_T, MPI_MAX, comm);
  MPI_Allreduce(&events, &manifest.events, 1, MPI_UINT64_T, MPI_SUM, comm);
  return write_checkpoint(comm, target.dir, target.keep, manifest, target.config_text,
                          [&](CheckpointRankWriter& writer) {
                            sim.save(writer);
                            const uint64_t parts = table_parts(stats);
                            for (uint64_t p = 0; p < parts; ++p) {
                              writer.add_rank_record(
                                  [&](std::ostream& out) { save_tables(stats, out, p, parts); });
                            }
                          });
}

void restore_checkpoint(MPI_Comm comm, CheckpointReader& reader, Simulation& sim,
                        StatsRegistry& stats) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  std::string error;
  try {
    sim.restore(reader, SimTime::ps(reader.manifest().last_work_ps));
    // Rank record i goes to rank i mod ranks: any placement gives the same output.
    for (std::size_t i = static_cast<std::size_t>(rank); i < reader.rank_records();
         i += static_cast<std::size_t>(ranks)) {
      const std::string where =
          "checkpoint " + reader.path() + ", rank record " + std::to_string(i);
      try {
        merge_tables(reader.rank_record(i), stats, where);
      } catch (const boost::archive::archive_exception& e) {
        throw InputError(where + ": the tables cannot be read (" + e.what() + ")");
      }
    }
  } catch (const InputError& e) {
    error = e.what();
  }
  // A damaged record is seen only by the rank reading it: all ranks must leave together.
  error = agree(comm, error);
  if (!error.empty()) throw InputError(error);
}

}  // namespace hx
