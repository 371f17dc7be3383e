// Checkpoint directories (DESIGN §3.9). A checkpoint is a directory DIR/ckpt-<time in ps>:
//
//   rank-<R>.bin   records written by rank R: one per component (its state, send counter and
//                  pending events, as a Boost binary archive the engine composes) and some for
//                  the rank itself (its statistics tables, in parts that restarting ranks share)
//   rank-<R>.idx   where each record is: (component id, offset, length, hash), sorted by id
//   config.toml    the resolved config, so `hxsim run --restart DIR` needs no config file
//   manifest       written last: the build and config it belongs to, the simulated time, and a
//                  hash of every index
//
// Records are keyed by global component id, never by rank, so a checkpoint written by R ranks
// restarts on any number of ranks: each reads the indexes and fetches only its own components.
// A checkpoint is written under DIR/.ckpt-<time>.partial and renamed when every rank has
// finished, and DIR/latest (a one-line file) is replaced atomically afterwards, so a crash
// during a checkpoint leaves the previous one as the latest.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace hx {

/// What a checkpoint records about itself (the `manifest` file, "key = value" lines).
struct CheckpointManifest {
  std::string format = "2";  // 2: several rank records per rank
  std::string hxsim_version;
  std::string git_hash;
  std::string boost_version;
  std::string platform;
  std::string config_hash;   // of the config without sim.end_time and sim.partitioner
  int64_t time_ps = 0;       // every event before this time was handled, none at or after it
  int64_t last_work_ps = 0;  // time of the last foreground event handled (anywhere)
  uint64_t events = 0;       // events handled before the checkpoint, all ranks together
  int ranks = 0;             // how many ranks wrote it
  std::string output;        // the run's output file, the default when restarting
  std::string written;       // UTC wall-clock time
  std::vector<std::string> index_hashes;  // one per rank

  std::string to_text() const;
  /// InputError naming `where` when a key is missing or malformed.
  static CheckpointManifest parse(const std::string& text, const std::string& where);
};

/// This build's identity: version, git hash, Boost version, platform (other fields empty).
CheckpointManifest this_build_identity();

/// InputError, naming every difference, when the checkpoint at `path` was written by another
/// build (Boost binary archives are not portable across versions) or for another config.
void check_compatible(const CheckpointManifest& found, const std::string& config_hash,
                      const std::string& path);

/// One rank's files of a checkpoint being written. MPI-free.
class CheckpointRankWriter {
 public:
  /// Opens `dir`/rank-<rank>.bin. OutputError if it cannot.
  CheckpointRankWriter(const std::string& dir, int rank);
  ~CheckpointRankWriter();
  CheckpointRankWriter(const CheckpointRankWriter&) = delete;
  CheckpointRankWriter& operator=(const CheckpointRankWriter&) = delete;

  void add_component(uint64_t id, std::string_view record);
  /// Adds a record of the rank's own (a part of its tables), which `write` writes to the stream
  /// it is given: it goes to the file as it is written, never held whole in memory (the tables
  /// of a long run can be most of a checkpoint, written when memory runs short).
  void add_rank_record(const std::function<void(std::ostream&)>& write);
  /// Writes the index and flushes both files to disk; returns the index's hash. OutputError
  /// on any failed write (a full disk among them).
  std::string finish();

 private:
  struct Entry {
    uint64_t id, offset, length, hash;
  };
  void append(std::string_view bytes);

  std::string dir_;
  int rank_;
  std::FILE* file_ = nullptr;
  uint64_t offset_ = 0;
  std::vector<Entry> index_;
  std::vector<Entry> rank_records_;
};

/// Collective over `comm`: writes a checkpoint into `dir` (created if needed); `fill` adds this
/// rank's records. `manifest` has every field but `ranks` and `index_hashes`, which this fills.
/// Keeps the newest `keep` checkpoints in `dir`. Returns the new checkpoint's path. OutputError
/// on every rank if any rank fails; the partial checkpoint is then removed and the previous
/// checkpoints are untouched.
std::string write_checkpoint(MPI_Comm comm, const std::string& dir, int keep,
                             CheckpointManifest manifest, const std::string& config_text,
                             const std::function<void(CheckpointRankWriter&)>& fill);

/// A checkpoint opened for restart: every rank opens its own. MPI-free.
class CheckpointReader {
 public:
  /// `path`: a checkpoint, or a checkpoint directory whose `latest` names one. Reads the
  /// manifest and every index (checking their hashes). InputError when missing or damaged.
  explicit CheckpointReader(const std::string& path);
  ~CheckpointReader();

  const std::string& path() const { return path_; }
  const CheckpointManifest& manifest() const { return manifest_; }
  std::string config_text() const;
  /// The record of component `id`. InputError if there is none or it is damaged.
  std::string component(uint64_t id);
  /// The rank records of every writing rank, in rank order (and the order each added them).
  std::size_t rank_records() const { return rank_records_.size(); }
  /// Rank record `i` (< rank_records()). InputError if it is damaged.
  std::string rank_record(std::size_t i);

 private:
  struct Entry {
    uint64_t id, offset, length, hash;
    int rank;
  };
  std::string read(const Entry& e, const std::string& what);

  std::string path_;
  CheckpointManifest manifest_;
  std::vector<Entry> components_;  // sorted by id
  std::vector<Entry> rank_records_;  // by writing rank, then as added
  std::vector<std::unique_ptr<std::ifstream>> files_;
};

}  // namespace hx
