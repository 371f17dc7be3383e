// Flow-trace files: CSV through wl::parse_trace_csv, HDF5 through the C API (serial reads; every
// rank opens the file itself).
#include "io/trace_file.h"

#include <hdf5.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "io/hdf5_errors.h"
#include "io/hdf5_handle.h"

namespace hx {
namespace {

class TraceReader {
 public:
  TraceReader(const std::string& path, hid_t group) : path_(path), group_(group) {}

  bool has(const char* name) const { return H5Lexists(group_, name, H5P_DEFAULT) > 0; }

  /// A 1-D integer dataset converted to T. Signed data read into an unsigned column must not be
  /// negative: HDF5's conversion would clip it to 0 without a word.
  template <class T>
  std::vector<T> column(const char* name) const {
    const std::string what = path_ + ": dataset /trace/" + name;
    if (!has(name)) throw InputError(what + " is missing");
    const Hdf5Handle dataset(H5Dopen2(group_, name, H5P_DEFAULT), H5Dclose);
    const Hdf5Handle type(H5Dget_type(dataset.get()), H5Tclose);
    const Hdf5Handle space(H5Dget_space(dataset.get()), H5Sclose);
    if (dataset.get() < 0 || type.get() < 0 || space.get() < 0) {
      throw InputError(what + " cannot be opened" + hdf5_detail());
    }
    if (H5Tget_class(type.get()) != H5T_INTEGER) {
      throw InputError(what + " does not hold integers");
    }
    if (H5Sget_simple_extent_ndims(space.get()) != 1) {
      throw InputError(what + " is not one-dimensional");
    }
    hsize_t rows = 0;
    H5Sget_simple_extent_dims(space.get(), &rows, nullptr);
    const bool check_sign = std::is_unsigned_v<T> && H5Tget_sign(type.get()) == H5T_SGN_2;
    std::vector<T> values(rows);
    std::vector<int64_t> signed_values(check_sign ? rows : 0);
    void* buffer = check_sign ? static_cast<void*>(signed_values.data()) : values.data();
    const hid_t memory_type =
        check_sign || std::is_signed_v<T> ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64;
    if (rows > 0 &&
        H5Dread(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer) < 0) {
      throw InputError(what + " cannot be read" + hdf5_detail());
    }
    for (size_t row = 0; row < signed_values.size(); ++row) {
      if (signed_values[row] < 0) {
        throw InputError(what + " row " + std::to_string(row) + " is negative (" +
                         std::to_string(signed_values[row]) + ")");
      }
      values[row] = static_cast<T>(signed_values[row]);
    }
    return values;
  }

  /// Endpoint indices must fit the flows' 32-bit fields.
  std::vector<uint32_t> endpoints(const char* name) const {
    const std::vector<uint64_t> wide = column<uint64_t>(name);
    std::vector<uint32_t> narrow(wide.size());
    for (size_t row = 0; row < wide.size(); ++row) {
      if (wide[row] > std::numeric_limits<uint32_t>::max()) {
        throw InputError(path_ + ": dataset /trace/" + name + " row " + std::to_string(row) + ": " +
                         std::to_string(wide[row]) +
                         " is not an endpoint index (at most 2^32 - 1)");
      }
      narrow[row] = static_cast<uint32_t>(wide[row]);
    }
    return narrow;
  }

  void same_length(const char* name, size_t rows, const char* reference, size_t expected) const {
    if (rows != expected) {
      throw InputError(path_ + ": dataset /trace/" + name + " has " + std::to_string(rows) +
                       " rows, but /trace/" + reference + " has " + std::to_string(expected));
    }
  }

 private:
  const std::string& path_;
  hid_t group_;
};

std::vector<wl::TraceFlow> read_hdf5(const std::string& path) {
  const QuietHdf5Errors quiet;
  const Hdf5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (file.get() < 0) throw InputError(path + ": cannot open as an HDF5 file" + hdf5_detail());
  if (H5Lexists(file.get(), "trace", H5P_DEFAULT) <= 0) {
    throw InputError(path + ": no group /trace");
  }
  const Hdf5Handle group(H5Gopen2(file.get(), "trace", H5P_DEFAULT), H5Gclose);
  if (group.get() < 0) throw InputError(path + ": /trace is not a group" + hdf5_detail());
  const TraceReader reader(path, group.get());

  const std::vector<uint64_t> id = reader.column<uint64_t>("id");
  const std::vector<uint32_t> src = reader.endpoints("src");
  const std::vector<uint32_t> dst = reader.endpoints("dst");
  const std::vector<uint64_t> bytes = reader.column<uint64_t>("bytes");
  const std::vector<int64_t> start_ps = reader.column<int64_t>("start_ps");
  reader.same_length("src", src.size(), "id", id.size());
  reader.same_length("dst", dst.size(), "id", id.size());
  reader.same_length("bytes", bytes.size(), "id", id.size());
  reader.same_length("start_ps", start_ps.size(), "id", id.size());
  std::vector<wl::TraceFlow> flows(id.size());
  for (size_t row = 0; row < flows.size(); ++row) {
    flows[row] = {id[row], src[row], dst[row], bytes[row], start_ps[row], {}, row};
  }

  // A trace without dependencies may leave out both dependency datasets.
  if (!reader.has("dep_flow") && !reader.has("dep_after")) return flows;
  const std::vector<uint64_t> dep_flow = reader.column<uint64_t>("dep_flow");
  const std::vector<uint64_t> dep_after = reader.column<uint64_t>("dep_after");
  reader.same_length("dep_after", dep_after.size(), "dep_flow", dep_flow.size());
  std::vector<std::pair<uint64_t, size_t>> rows(id.size());  // sorted (id, row)
  for (size_t row = 0; row < id.size(); ++row) rows[row] = {id[row], row};
  std::sort(rows.begin(), rows.end());
  for (size_t k = 0; k < dep_flow.size(); ++k) {
    const auto it = std::lower_bound(rows.begin(), rows.end(), std::pair(dep_flow[k], size_t{0}));
    if (it == rows.end() || it->first != dep_flow[k]) {
      throw InputError(path + ": dataset /trace/dep_flow row " + std::to_string(k) + ": " +
                       std::to_string(dep_flow[k]) + " is not a flow id in /trace/id");
    }
    flows[it->second].deps.push_back(dep_after[k]);
  }
  return flows;
}

}  // namespace

std::vector<wl::TraceFlow> read_trace_file(const std::string& path) {
  const std::string extension = std::filesystem::path(path).extension().string();
  if (extension == ".h5" || extension == ".hdf5") return read_hdf5(path);
  if (extension != ".csv") {
    throw InputError(path + ": unknown trace file type '" + extension +
                     "'; expected .csv, .h5 or .hdf5");
  }
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open the trace file (" + std::strerror(errno) + ")");
  return wl::parse_trace_csv(in, path);
}

}  // namespace hx
