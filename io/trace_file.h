// Reading flow-trace files (CSV or HDF5) into plain flows for models/workloads/trace.h, which
// validates them: HDF5 stays on this side of the models/ boundary.
#pragma once

#include <string>
#include <vector>

#include "models/workloads/trace.h"

namespace hx {

/// Reads the trace at `path` by its extension: ".csv" (wl::parse_trace_csv) or ".h5"/".hdf5"
/// (group /trace with 1-D integer datasets id, src, dst, bytes, start_ps, dep_flow, dep_after;
/// docs/workloads/traces.md). Every rank reads the file itself, serially. The flows are not
/// validated; rows are CSV line numbers or HDF5 row indices. InputError naming the file and, for
/// HDF5, the dataset on any problem.
std::vector<wl::TraceFlow> read_trace_file(const std::string& path);

}  // namespace hx
