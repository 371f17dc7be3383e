// The run's single HDF5 file (DESIGN §8), written by all ranks together with parallel HDF5.
// Every call here is collective over `comm`: all ranks call it with the same arguments except
// for their own table rows.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/stats.h"

namespace hx {

using AttrValue = std::variant<int64_t, uint64_t, double, std::string>;

struct Attribute {
  std::string group;  // "/" for the root, else e.g. "/partition"
  std::string name;
  AttrValue value;
};

struct OutputContent {
  std::vector<Attribute> attributes;
  /// Scalar string datasets, path -> text (e.g. "/config"); rank 0's text is written.
  std::vector<std::pair<std::string, std::string>> texts;
  /// Tables, each written as a group of one 1-D dataset per column plus the id dimension scale.
  /// Every rank passes the same tables in the same order, each holding that rank's rows.
  std::vector<const Table*> tables;
};

/// Writes `content` to `<path>.<8 hex digits>.partial`, a new file of this call's own, then renames
/// it to `path` once every rank has closed it. On any failure the partial file is removed and
/// OutputError is thrown on every rank.
void write_output(MPI_Comm comm, const std::string& path, const OutputContent& content);

/// Checks before a run that `path` can be created: its directory exists and is writable, and
/// `path` is not a directory, a device or another file that is not a regular file, nor one of
/// `inputs` (the config, a trace: compared as files, so other names of them count too). Throws
/// OutputError on every rank if not.
void check_output_path(MPI_Comm comm, const std::string& path,
                       const std::vector<std::string>& inputs);

/// The partial files of `path` (`<path>.<8 hex digits>.partial`) that exist now: left by a run
/// killed while it wrote, or being written by another run with the same output.
std::vector<std::string> leftover_partials(const std::string& path);

}  // namespace hx
