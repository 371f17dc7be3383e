// Writes the run's HDF5 file with parallel HDF5: tables redistributed by id, attributes, texts.
#include "io/hdf5_output.h"

#include <fcntl.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "io/collective.h"
#include "io/hdf5_errors.h"
#include "io/row_blocks.h"

namespace hx {
namespace {

// 64 Ki rows of 8 bytes = 512 KiB per chunk: big enough for gzip and for few, large collective
// writes; small enough to fit HDF5's default 1 MiB chunk cache, so readers slicing a column do
// not decompress the same chunk over and over.
constexpr uint64_t kChunkRows = 65536;
constexpr unsigned kGzipLevel = 1;
// Room a dataset may take in the file besides its values: object header, attributes, chunk index
// (about 2.5 KiB in practice), and what HDF5's space aggregators hold in reserve.
constexpr uint64_t kMetadataBytes = 16 * 1024;

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what + hdf5_detail()); }

void check(herr_t status, const std::string& what) {
  if (status < 0) fail(what);
}

/// Owns one hid_t and closes it with the matching H5?close.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer, const std::string& what) : id_(id), closer_(closer) {
    if (id < 0) fail(what);
  }
  Handle(Handle&& other) noexcept
      : id_(std::exchange(other.id_, H5I_INVALID_HID)), closer_(other.closer_) {}
  Handle& operator=(Handle other) noexcept {
    std::swap(id_, other.id_);
    std::swap(closer_, other.closer_);
    return *this;
  }
  ~Handle() { reset(); }

  hid_t get() const { return id_; }
  void reset() {
    if (id_ >= 0) closer_(id_);
    id_ = H5I_INVALID_HID;
  }
  /// Closing the file is where buffered data reaches the disk, so its failure must be seen.
  void close(const std::string& what) {
    const herr_t status = closer_(std::exchange(id_, H5I_INVALID_HID));
    check(status, what);
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

/// Collective: runs `body` on every rank and returns the agreed error, "" if all succeeded.
template <class F>
std::string step(MPI_Comm comm, F&& body) {
  std::string error;
  try {
    body();
  } catch (const std::exception& e) {
    error = *e.what() != '\0' ? e.what() : "unknown error";
  }
  return agree(comm, error);
}

struct Types {
  hid_t memory;
  hid_t file;
  MPI_Datatype mpi;
};

template <class T>
Types types_of() {
  if constexpr (std::is_same_v<T, uint64_t>)
    return {H5T_NATIVE_UINT64, H5T_STD_U64LE, MPI_UINT64_T};
  if constexpr (std::is_same_v<T, int64_t>) return {H5T_NATIVE_INT64, H5T_STD_I64LE, MPI_INT64_T};
  return {H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, MPI_DOUBLE};
}

std::string absolute(const std::string& path) { return path.starts_with('/') ? path : "/" + path; }

/// Creates an empty `<path>.<8 hex digits>.partial` that no other run has (O_EXCL) and returns
/// its name; "" with errno set if it cannot. Two runs writing the same output then each write
/// their own file, so whichever renames last leaves one whole run's file under `path`.
std::string create_partial(const std::string& path) {
  std::random_device random;
  for (int attempt = 0; attempt < 100; ++attempt) {
    char suffix[24];
    std::snprintf(suffix, sizeof suffix, ".%08x.partial", static_cast<unsigned>(random()));
    const std::string name = path + suffix;
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd >= 0) {
      ::close(fd);
      return name;
    }
    if (errno != EEXIST) break;
  }
  return "";
}

/// Rank 0 only: why `path` cannot be written, or "" if it looks writable. `inputs`: files the
/// output must not replace.
std::string diagnose_path(const std::string& path, const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  if (path.empty()) return "the output path is empty";
  std::error_code ec;
  const fs::path dir = fs::path(path).parent_path();
  const std::string dir_name = dir.empty() ? "." : dir.string();
  if (!dir.empty()) {
    const fs::file_status status = fs::status(dir, ec);
    if (!fs::exists(status)) return "directory '" + dir_name + "' does not exist";
    if (!fs::is_directory(status)) return "'" + dir_name + "' is not a directory";
  }
  const fs::file_status target = fs::status(path, ec);
  if (fs::is_directory(target)) return "'" + path + "' is a directory";
  // The finished file is renamed over `path`, which would replace a device (as root, even
  // /dev/null) or a pipe with a regular file.
  if (fs::exists(target) && !fs::is_regular_file(target)) {
    return "'" + path + "' exists and is not a regular file";
  }
  for (const std::string& input : inputs) {
    if (fs::equivalent(path, input, ec)) {
      return "'" + path + "' is the input file '" + input + "'; name another output with -o";
    }
  }
  const std::string probe = create_partial(path);
  if (probe.empty()) {
    return "cannot create files in directory '" + dir_name + "' (" + std::strerror(errno) + ")";
  }
  fs::remove(probe, ec);
  return {};
}

Handle string_type(std::size_t size) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose, "creating a string type");
  check(H5Tset_size(type.get(), size), "setting a string size");
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "setting a string encoding");
  return type;
}

Handle scalar_space() { return Handle(H5Screate(H5S_SCALAR), H5Sclose, "creating a dataspace"); }

// Later attributes replace earlier ones of the same name (e.g. the caller's long_name on a
// table group wins over the table's help text).
Handle fresh_attribute(hid_t object, const std::string& name, hid_t type) {
  const htri_t exists = H5Aexists(object, name.c_str());
  check(exists, "looking up attribute '" + name + "'");
  if (exists > 0) check(H5Adelete(object, name.c_str()), "replacing attribute '" + name + "'");
  const Handle space = scalar_space();
  return Handle(H5Acreate2(object, name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                H5Aclose, "creating attribute '" + name + "'");
}

// Variable-length UTF-8: h5py returns a python str and xarray shows it as-is.
void write_string_attribute(hid_t object, const std::string& name, const std::string& value) {
  const Handle type = string_type(H5T_VARIABLE);
  const Handle attr = fresh_attribute(object, name, type.get());
  const char* text = value.c_str();
  check(H5Awrite(attr.get(), type.get(), &text), "writing attribute '" + name + "'");
}

template <class T>
void write_number_attribute(hid_t object, const std::string& name, T value) {
  const Handle attr = fresh_attribute(object, name, types_of<T>().file);
  check(H5Awrite(attr.get(), types_of<T>().memory, &value), "writing attribute '" + name + "'");
}

// Creation order is tracked so h5py, pandas and xarray list columns in declaration order (id
// first) instead of alphabetically; netCDF readers also expect it.
Handle group_creation_plist() {
  Handle plist(H5Pcreate(H5P_GROUP_CREATE), H5Pclose, "creating group properties");
  const unsigned order = H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED;
  check(H5Pset_link_creation_order(plist.get(), order), "setting link creation order");
  check(H5Pset_attr_creation_order(plist.get(), order), "setting attribute creation order");
  return plist;
}

/// Opens the object at `path` (group or dataset), creating missing groups along the way.
Handle open_or_create(hid_t file, const std::string& path) {
  const Handle gcpl = group_creation_plist();
  for (std::size_t end = path.find('/', 1);; end = path.find('/', end + 1)) {
    const std::string prefix = path.substr(0, end);
    if (prefix.size() > 1) {
      const htri_t exists = H5Lexists(file, prefix.c_str(), H5P_DEFAULT);
      check(exists, "looking up '" + prefix + "'");
      if (exists == 0) {
        Handle(H5Gcreate2(file, prefix.c_str(), H5P_DEFAULT, gcpl.get(), H5P_DEFAULT), H5Gclose,
               "creating group '" + prefix + "'");
      }
    }
    if (end == std::string::npos) break;
  }
  return Handle(H5Oopen(file, path.c_str(), H5P_DEFAULT), H5Oclose, "opening '" + path + "'");
}

struct Context {
  MPI_Comm comm;
  int rank;
  int ranks;
  hid_t file;
  hid_t dxpl;  // collective transfer: HDF5 1.10 writes filtered datasets collectively only
  // The file being written and its directory, for check_room().
  std::string partial;
  std::string dir;
};

std::string size_text(uint64_t bytes) {
  static const char* const kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  for (; value >= 1024 && unit + 1 < std::size(kUnits); ++unit) value /= 1024;
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, kUnits[unit]);
  return text;
}

/// Collective: "" if the file has room for a dataset of `value_bytes` of values, else why not:
/// not enough free disk space, or over the file size limit (`ulimit -f`, RLIMIT_FSIZE; a write
/// beyond it kills the writer with SIGXFSZ).
///
/// Why check rather than write and report the failure: HDF5 1.10 cannot back out of a failed
/// write. Closing the file fails as well, ranks that failed at different points then wait for
/// each other inside H5Fclose forever, and the file id it leaves behind crashes MPI_Finalize
/// (HDFFV-11052; later HDF5 releases fix the crash). Checked first, the file can still be closed
/// and removed.
///
/// The bound is the dataset's uncompressed size, so a dataset that compression would have
/// squeezed in can be refused, but only within about one dataset's size of the limit. Space that
/// others take between the check and the write is not caught.
std::string check_room(const Context& ctx, uint64_t value_bytes, const std::string& what) {
  // Rank 0 measures for all: the bytes written so far (from the file system, as the MPI-IO
  // driver does not track the file size) and the metadata HDF5 still holds in its cache.
  std::string measure_error;
  uint64_t sizes[2] = {0, 0};  // written, cached
  if (ctx.rank == 0) {
    struct stat status {};
    std::size_t max_size = 0, min_clean_size = 0, cached = 0;
    int entries = 0;
    if (::stat(ctx.partial.c_str(), &status) != 0) {
      measure_error = "cannot stat '" + ctx.partial + "' (" + std::strerror(errno) + ")";
    } else if (H5Fget_mdc_size(ctx.file, &max_size, &min_clean_size, &cached, &entries) < 0) {
      measure_error = "cannot get the size of HDF5's metadata cache" + hdf5_detail();
    }
    sizes[0] = static_cast<uint64_t>(status.st_size);
    sizes[1] = cached;
  }
  MPI_Bcast(sizes, 2, MPI_UINT64_T, 0, ctx.comm);
  // zlib expands incompressible data by well under 0.1%.
  const uint64_t pending = sizes[1] + value_bytes + value_bytes / 1024 + kMetadataBytes;
  const uint64_t file_size = sizes[0] + pending;
  return step(ctx.comm, [&] {
    if (!measure_error.empty()) throw std::runtime_error(measure_error);
    rlimit limit{};  // each rank's own
    if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        file_size > limit.rlim_cur) {
      throw std::runtime_error(what + " could take the file to " + size_text(file_size) +
                               ", over the file size limit (ulimit -f) of " +
                               size_text(limit.rlim_cur));
    }
    // Rank 0 only: thousands of ranks asking a parallel file system would load it.
    struct statvfs fs {};
    if (ctx.rank == 0 && statvfs(ctx.dir.c_str(), &fs) == 0) {
      // f_bavail, as df shows it: blocks reserved for root are not counted on.
      const uint64_t available = static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
      if (pending > available) {
        throw std::runtime_error("not enough disk space: " + what + " needs up to " +
                                 size_text(pending) + " and '" + ctx.dir + "' has " +
                                 size_text(available) + " available");
      }
    }
  });
}

void write_attribute(const Context& ctx, const Attribute& attribute) {
  const Handle object = open_or_create(ctx.file, absolute(attribute.group));
  // Ranks may disagree on values such as a wall-clock end time; parallel HDF5 needs identical
  // metadata everywhere, so rank 0's value is written.
  std::visit(
      [&](auto value) {
        using T = decltype(value);
        if constexpr (std::is_same_v<T, std::string>) {
          write_string_attribute(object.get(), attribute.name, broadcast(ctx.comm, value, 0));
        } else {
          MPI_Bcast(&value, 1, types_of<T>().mpi, 0, ctx.comm);
          write_number_attribute(object.get(), attribute.name, value);
        }
      },
      attribute.value);
}

// Fixed-length: parallel HDF5 1.10 cannot write variable-length data to datasets.
void write_text(const Context& ctx, const std::string& path, const std::string& local_text) {
  const std::string text = broadcast(ctx.comm, local_text, 0);
  const std::string where = "text dataset '" + path + "'";
  // The stored terminator keeps netCDF-C (xarray's netcdf4 engine) from reading past the end.
  const Handle type = string_type(text.size() + 1);
  const Handle file_space = scalar_space();
  const Handle memory_space = scalar_space();
  const std::string full = absolute(path);
  const std::size_t slash = full.rfind('/');
  const Handle parent = open_or_create(ctx.file, slash == 0 ? "/" : full.substr(0, slash));
  const Handle dataset(H5Dcreate2(parent.get(), full.substr(slash + 1).c_str(), type.get(),
                                  file_space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                       H5Dclose, "creating " + where);
  if (ctx.rank != 0) {
    check(H5Sselect_none(file_space.get()), "selecting nothing");
    check(H5Sselect_none(memory_space.get()), "selecting nothing");
  }
  check(H5Dwrite(dataset.get(), type.get(), memory_space.get(), file_space.get(), ctx.dxpl,
                 text.data()),
        "writing " + where);
}

Handle create_dataset(hid_t group, const std::string& name, hid_t file_type,
                      const RowBlocks& blocks) {
  const hsize_t dims[1] = {blocks.rows};
  const Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose, "creating a dataspace");
  const Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "creating dataset properties");
  check(H5Pset_attr_creation_order(dcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED),
        "setting attribute creation order");
  // Empty tables stay contiguous: a chunk must have at least one element and fit in the extent.
  if (blocks.chunk > 0) {
    const hsize_t chunk[1] = {blocks.chunk};
    check(H5Pset_chunk(dcpl.get(), 1, chunk), "setting the chunk size");
    check(H5Pset_shuffle(dcpl.get()), "enabling the shuffle filter");
    check(H5Pset_deflate(dcpl.get(), kGzipLevel), "enabling gzip");
  }
  return Handle(
      H5Dcreate2(group, name.c_str(), file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
      H5Dclose, "creating dataset '" + name + "'");
}

template <class T>
void write_block(const Context& ctx, hid_t dataset, const RowBlocks& blocks,
                 const std::vector<T>& block, const std::string& what) {
  if (blocks.rows == 0) return;
  const hsize_t count[1] = {block.size()};
  const hsize_t start[1] = {blocks.begin(ctx.rank)};
  const Handle file_space(H5Dget_space(dataset), H5Sclose, "getting a dataspace");
  const Handle memory_space(H5Screate_simple(1, count, nullptr), H5Sclose, "creating a dataspace");
  if (block.empty()) {
    // Ranks without rows still join the collective write.
    check(H5Sselect_none(file_space.get()), "selecting nothing");
    check(H5Sselect_none(memory_space.get()), "selecting nothing");
  } else {
    check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr),
          "selecting rows");
  }
  const T dummy{};
  check(H5Dwrite(dataset, types_of<T>().memory, memory_space.get(), file_space.get(), ctx.dxpl,
                 block.empty() ? &dummy : block.data()),
        "writing " + what);
}

template <class T>
void write_column(const Context& ctx, hid_t group, hid_t scale, const RowBlocks& blocks,
                  const RowRouting& routing, const ColumnSpec& column, const std::vector<T>& local,
                  const std::string& where) {
  const std::string what = "column '" + column.name + "' of " + where;
  const Handle dataset = create_dataset(group, column.name, types_of<T>().file, blocks);
  if (routing.in_place) {  // no copy: a long time series' tables are most of a run's memory
    write_block(ctx, dataset.get(), blocks, local, what);
  } else {
    write_block(ctx, dataset.get(), blocks, redistribute_rows(ctx.comm, routing, local), what);
  }
  write_string_attribute(dataset.get(), "units", column.unit);
  write_string_attribute(dataset.get(), "long_name", column.help);
  check(H5DSattach_scale(dataset.get(), scale, 0), "attaching the id scale to " + what);
}

/// The group with its id dataset, which is the dimension scale of every column.
Handle write_ids(const Context& ctx, hid_t group, const TableSpec& spec, const RowBlocks& blocks) {
  Handle scale = create_dataset(group, spec.id_name, H5T_STD_U64LE, blocks);
  std::vector<uint64_t> ids(blocks.size(ctx.rank));
  for (std::size_t k = 0; k < ids.size(); ++k) ids[k] = blocks.begin(ctx.rank) + k;
  write_block(ctx, scale.get(), blocks, ids, "the ids of table '" + spec.name + "'");
  check(H5DSset_scale(scale.get(), spec.id_name.c_str()), "making the id a dimension scale");
  write_string_attribute(scale.get(), "units", "1");
  write_string_attribute(scale.get(), "long_name", "row id");
  return scale;
}

/// Collective; returns the agreed error message, "" on success.
std::string write_table(const Context& ctx, const Table& table) {
  const TableSpec& spec = table.spec();
  const std::string path = absolute(spec.name);
  uint64_t local_rows = table.rows(), rows = 0;
  MPI_Allreduce(&local_rows, &rows, 1, MPI_UINT64_T, MPI_SUM, ctx.comm);
  const RowBlocks blocks(rows, ctx.ranks, kChunkRows, spec.kind == TableKind::kSummed);
  RowRouting routing;
  if (std::string error = plan_row_routing(ctx.comm, table, blocks, routing); !error.empty())
    return error;

  const uint64_t column_bytes = rows * sizeof(uint64_t);  // every column type takes 8 bytes
  Handle group, scale;
  std::string error = check_room(ctx, column_bytes, "the ids of table '" + path + "'");
  if (error.empty()) {
    error = step(ctx.comm, [&] {
      group = open_or_create(ctx.file, path);
      write_string_attribute(group.get(), "long_name", spec.help);
      scale = write_ids(ctx, group.get(), spec, blocks);
    });
  }
  for (std::size_t c = 0; c < spec.columns.size() && error.empty(); ++c) {
    const auto write = [&](const auto& values) {
      write_column(ctx, group.get(), scale.get(), blocks, routing, spec.columns[c], values,
                   "table '" + path + "'");
    };
    error = check_room(ctx, column_bytes,
                       "column '" + spec.columns[c].name + "' of table '" + path + "'");
    if (!error.empty()) break;
    error = step(ctx.comm, [&] {
      switch (spec.columns[c].type) {
        case ColumnType::kU64:
          write(table.u64(c));
          break;
        case ColumnType::kI64:
          write(table.i64(c));
          break;
        case ColumnType::kF64:
          write(table.f64(c));
          break;
        case ColumnType::kWide:  // float64: the exact sum rounded once
          write(std::vector<double>(table.wide(c).begin(), table.wide(c).end()));
          break;
      }
    });
  }
  return error;
}

Handle create_file(MPI_Comm comm, const std::string& partial) {
  const Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "creating file access properties");
  check(H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL), "selecting MPI-IO");
  const Handle fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose, "creating file properties");
  const unsigned order = H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED;
  check(H5Pset_link_creation_order(fcpl.get(), order), "setting link creation order");
  check(H5Pset_attr_creation_order(fcpl.get(), order), "setting attribute creation order");
  const hid_t file = H5Fcreate(partial.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get());
  if (file < 0) throw std::runtime_error("cannot create '" + partial + "'" + hdf5_detail());
  return Handle(file, H5Fclose, "");
}

}  // namespace

void write_output(MPI_Comm comm, const std::string& path, const OutputContent& content) {
  const QuietHdf5Errors quiet;
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);

  // Rank 0 creates the partial file under a name of this run's own; all ranks then open it.
  std::string partial, error;
  if (rank == 0) {
    partial = create_partial(path);
    if (partial.empty()) {
      const std::string why = std::strerror(errno);
      const std::string reason = diagnose_path(path, {});
      error = "cannot create '" + path + ".*.partial': " + (reason.empty() ? why : reason);
    }
  }
  partial = broadcast(comm, partial, 0);
  error = broadcast(comm, error, 0);
  {
    Handle file, dxpl;
    if (error.empty()) {
      error = step(comm, [&] {
        file = create_file(comm, partial);
        dxpl = Handle(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "creating transfer properties");
        check(H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE), "selecting collective I/O");
      });
    }
    const std::string dir = std::filesystem::path(path).parent_path().string();
    const Context ctx{comm, rank, ranks, file.get(), dxpl.get(), partial, dir.empty() ? "." : dir};
    for (const auto& [text_path, text] : content.texts) {
      if (error.empty()) error = check_room(ctx, text.size() + 1, "text '" + text_path + "'");
      if (error.empty()) error = step(comm, [&] { write_text(ctx, text_path, text); });
    }
    for (const Table* table : content.tables) {
      if (error.empty()) error = write_table(ctx, *table);
    }
    // Attributes last, so that they can decorate groups and datasets written above. They are
    // small: the metadata allowance of one dataset covers them all.
    if (error.empty()) error = check_room(ctx, 0, "writing the attributes");
    for (const Attribute& attribute : content.attributes) {
      if (error.empty()) error = step(comm, [&] { write_attribute(ctx, attribute); });
    }
    if (error.empty()) error = step(comm, [&] { file.close("closing the file"); });
  }  // on failure the file handle closes here, collectively

  MPI_Barrier(comm);
  if (error.empty()) {
    std::string rename_error;
    if (rank == 0 && std::rename(partial.c_str(), path.c_str()) != 0) {
      rename_error =
          "cannot rename '" + partial + "' to '" + path + "' (" + std::strerror(errno) + ")";
    }
    error = broadcast(comm, rename_error, 0);
  }
  if (!error.empty()) {
    if (rank == 0 && !partial.empty()) std::remove(partial.c_str());
    throw OutputError("cannot write output '" + path + "': " + error);
  }
}

std::vector<std::string> leftover_partials(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path out(path);
  const std::string prefix = out.filename().string() + ".";
  const std::string suffix = ".partial";
  std::vector<std::string> found;
  std::error_code ec;
  for (fs::directory_iterator it(out.parent_path().empty() ? "." : out.parent_path(), ec), end;
       !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() != prefix.size() + 8 + suffix.size() || !name.starts_with(prefix) ||
        !name.ends_with(suffix)) {
      continue;
    }
    const std::string digits = name.substr(prefix.size(), 8);
    if (digits.find_first_not_of("0123456789abcdef") != std::string::npos) continue;
    found.push_back((out.parent_path() / name).string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

void check_output_path(MPI_Comm comm, const std::string& path,
                       const std::vector<std::string>& inputs) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const std::string error =
      broadcast(comm, rank == 0 ? diagnose_path(path, inputs) : std::string(), 0);
  if (!error.empty()) throw OutputError("cannot write output '" + path + "': " + error);
}

}  // namespace hx
