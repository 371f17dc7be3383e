// Reading fault-schedule files in HDF5 into rows for models/network/faults.h, which reads the CSV
// form itself and checks both against the topology: HDF5 stays on this side of the models/
// boundary.
#pragma once

#include <string>
#include <vector>

#include "models/network/faults.h"

namespace hx {

/// Reads the schedule in HDF5 file `path`: group /faults with 1-D datasets time_ps (integers,
/// ps), fail (integers: 1 fail, 0 repair) and element (strings, fixed or variable length);
/// docs/FAULTS.md. Every rank reads the file itself. InputError naming the file and the dataset
/// on any problem.
std::vector<net::FaultRow> read_fault_hdf5(const std::string& path);

}  // namespace hx
