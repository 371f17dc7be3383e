// For GoogleTest executables run under mpiexec (tests/mpi/mpi_gtest_main.cpp): this rank, the
// world's size, and a scratch path of a test's own.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <filesystem>
#include <string>
#include <vector>

namespace hx::testing {

inline int comm_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

inline int comm_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

/// `<dir>/<name>_np<ranks>`, where ctest passes the build's scratch directory as the first
/// argument (else the system's temporary directory): the rank count keeps the np1..np4 runs of
/// a test apart when ctest runs them side by side.
inline std::string scratch(const std::string& name) {
  const std::vector<std::string> argv = ::testing::internal::GetArgvs();
  const std::string dir =
      argv.size() > 1 ? argv[1] : std::filesystem::temp_directory_path().string();
  return dir + "/" + name + "_np" + std::to_string(comm_size());
}

}  // namespace hx::testing
