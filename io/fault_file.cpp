// Fault-schedule files in HDF5, through the C API (serial reads; every rank opens the file
// itself). The CSV form is read by models/network/faults.cpp.
#include "io/fault_file.h"

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/hdf5_errors.h"
#include "io/hdf5_handle.h"

namespace hx {
namespace {

// /faults/<name>: opened, and checked to be 1-D of the expected class.
struct Dataset {
  Dataset(hid_t group, const std::string& path, const char* name, H5T_class_t expected,
          const char* what)
      : dataset(H5Lexists(group, name, H5P_DEFAULT) > 0 ? H5Dopen2(group, name, H5P_DEFAULT) : -1,
                H5Dclose),
        type(dataset.get() >= 0 ? H5Dget_type(dataset.get()) : -1, H5Tclose),
        space(dataset.get() >= 0 ? H5Dget_space(dataset.get()) : -1, H5Sclose) {
    const std::string where = path + ": dataset /faults/" + name;
    if (H5Lexists(group, name, H5P_DEFAULT) <= 0) throw InputError(where + " is missing");
    if (dataset.get() < 0 || type.get() < 0 || space.get() < 0) {
      throw InputError(where + " cannot be opened" + hdf5_detail());
    }
    if (H5Tget_class(type.get()) != expected) throw InputError(where + " does not hold " + what);
    if (H5Sget_simple_extent_ndims(space.get()) != 1) {
      throw InputError(where + " is not one-dimensional");
    }
    H5Sget_simple_extent_dims(space.get(), &rows, nullptr);
  }
  Hdf5Handle dataset, type, space;
  hsize_t rows = 0;
};

std::vector<int64_t> integers(hid_t group, const std::string& path, const char* name) {
  const Dataset d(group, path, name, H5T_INTEGER, "integers");
  std::vector<int64_t> values(d.rows);
  if (d.rows > 0 && H5Dread(d.dataset.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                            values.data()) < 0) {
    throw InputError(path + ": dataset /faults/" + name + " cannot be read" + hdf5_detail());
  }
  return values;
}

std::vector<std::string> strings(hid_t group, const std::string& path, const char* name) {
  const Dataset d(group, path, name, H5T_STRING, "strings");
  std::vector<std::string> out(d.rows);
  if (d.rows == 0) return out;
  const std::string what = path + ": dataset /faults/" + name + " cannot be read";
  // Read in the file's character set (h5py writes UTF-8, the C library ASCII by default).
  const H5T_cset_t cset = H5Tget_cset(d.type.get());
  if (H5Tis_variable_str(d.type.get()) > 0) {
    const Hdf5Handle memory(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(memory.get(), H5T_VARIABLE);
    H5Tset_cset(memory.get(), cset);
    std::vector<char*> text(d.rows, nullptr);
    if (H5Dread(d.dataset.get(), memory.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()) < 0) {
      throw InputError(what + hdf5_detail());
    }
    for (hsize_t i = 0; i < d.rows; ++i) out[i] = text[i] != nullptr ? text[i] : "";
    H5Dvlen_reclaim(memory.get(), d.space.get(), H5P_DEFAULT, text.data());
    return out;
  }
  // Fixed length: one more byte than the file's, so a string that fills its field keeps its
  // last character (the memory type ends each with a NUL).
  const std::size_t width = H5Tget_size(d.type.get()) + 1;
  const Hdf5Handle memory(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(memory.get(), width);
  H5Tset_cset(memory.get(), cset);
  std::vector<char> buffer(width * d.rows);
  if (H5Dread(d.dataset.get(), memory.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()) < 0) {
    throw InputError(what + hdf5_detail());
  }
  for (hsize_t i = 0; i < d.rows; ++i) {
    const char* begin = buffer.data() + i * width;
    std::size_t n = 0;
    while (n < width && begin[n] != '\0') ++n;
    out[i] = std::string(begin, n);
  }
  return out;
}

std::vector<net::FaultRow> read_hdf5(const std::string& path) {
  const QuietHdf5Errors quiet;
  const Hdf5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (file.get() < 0) throw InputError(path + ": cannot open as an HDF5 file" + hdf5_detail());
  if (H5Lexists(file.get(), "faults", H5P_DEFAULT) <= 0) {
    throw InputError(path + ": no group /faults");
  }
  const Hdf5Handle group(H5Gopen2(file.get(), "faults", H5P_DEFAULT), H5Gclose);
  if (group.get() < 0) throw InputError(path + ": /faults is not a group" + hdf5_detail());
  const std::vector<int64_t> time = integers(group.get(), path, "time_ps");
  const std::vector<int64_t> fail = integers(group.get(), path, "fail");
  const std::vector<std::string> element = strings(group.get(), path, "element");
  if (fail.size() != time.size() || element.size() != time.size()) {
    throw InputError(path + ": datasets /faults/time_ps, fail and element have " +
                     std::to_string(time.size()) + ", " + std::to_string(fail.size()) + " and " +
                     std::to_string(element.size()) + " rows; they must be equal");
  }
  // Optional: the configuration of each reconfiguration, empty for a fail or repair.
  std::vector<std::string> to(time.size());
  if (H5Lexists(group.get(), "to", H5P_DEFAULT) > 0) {
    to = strings(group.get(), path, "to");
    if (to.size() != time.size()) {
      throw InputError(path + ": dataset /faults/to has " + std::to_string(to.size()) +
                       " rows; time_ps has " + std::to_string(time.size()));
    }
  }
  std::vector<net::FaultRow> rows(time.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string origin = path + " row " + std::to_string(i);
    if (fail[i] != 0 && fail[i] != 1) {
      throw InputError(origin + ": /faults/fail is " + std::to_string(fail[i]) +
                       "; expected 1 (fail) or 0 (repair)");
    }
    if (!to[i].empty() && fail[i] != 1) {
      throw InputError(origin + ": /faults/to is '" + to[i] +
                       "', a reconfiguration, which takes /faults/fail = 1");
    }
    rows[i] = {SimTime::ps(time[i]), fail[i] == 1, element[i], to[i], origin};
  }
  return rows;
}

}  // namespace

std::vector<net::FaultRow> read_fault_hdf5(const std::string& path) { return read_hdf5(path); }

}  // namespace hx
