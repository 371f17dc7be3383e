// Trace files: HDF5 traces written here with the C API and read back, each malformed layout
// rejected with the dataset's name, and CSV traces (the shipped example) through the same call.
#include "io/trace_file.h"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "support/input_error.h"

namespace hx {
namespace {

using testing::error_of;
namespace fs = std::filesystem;

void write(hid_t group, const char* name, hid_t type, const void* data, hsize_t rows) {
  const hid_t space = H5Screate_simple(1, &rows, nullptr);
  const hid_t dataset = H5Dcreate2(group, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(dataset, 0) << name;
  // HDF5 refuses a null buffer even for 0 rows.
  if (rows > 0) {
    ASSERT_GE(H5Dwrite(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), 0) << name;
  }
  H5Dclose(dataset);
  H5Sclose(space);
}

template <class T>
void write(hid_t group, const char* name, hid_t type, const std::vector<T>& values) {
  write(group, name, type, values.data(), values.size());
}

// The columns of a valid three-flow trace; tests break one before writing.
struct Columns {
  std::vector<uint64_t> id = {10, 20, 30};
  std::vector<uint32_t> src = {0, 1, 1};  // 32-bit, as the layout allows
  std::vector<uint64_t> dst = {1, 2, 0};
  std::vector<int64_t> bytes = {100, 200, 300};  // signed, as h5py writes numpy's default
  std::vector<int64_t> start_ps = {0, 5000, 0};
  std::vector<uint64_t> dep_flow = {20, 30, 30};
  std::vector<uint64_t> dep_after = {10, 20, 10};
};

class TraceFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hx_trace_file_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes /trace with the columns (leaving out the one named `skip`); returns the path.
  std::string write_trace(const Columns& c, const std::string& skip = "") {
    const std::string path = (dir_ / "trace.h5").string();
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t group = H5Gcreate2(file, "trace", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    auto put = [&](const char* name, hid_t type, const auto& values) {
      if (skip != name) write(group, name, type, values);
    };
    put("id", H5T_NATIVE_UINT64, c.id);
    put("src", H5T_NATIVE_UINT32, c.src);
    put("dst", H5T_NATIVE_UINT64, c.dst);
    put("bytes", H5T_NATIVE_INT64, c.bytes);
    put("start_ps", H5T_NATIVE_INT64, c.start_ps);
    put("dep_flow", H5T_NATIVE_UINT64, c.dep_flow);
    put("dep_after", H5T_NATIVE_UINT64, c.dep_after);
    H5Gclose(group);
    H5Fclose(file);
    return path;
  }

  fs::path dir_;
};

TEST_F(TraceFile, ReadsHdf5) {
  const std::string path = write_trace(Columns());
  std::vector<wl::TraceFlow> flows = read_trace_file(path);
  ASSERT_EQ(flows.size(), 3u);
  EXPECT_EQ(flows[1].id, 20u);
  EXPECT_EQ(flows[1].src, 1u);
  EXPECT_EQ(flows[1].dst, 2u);
  EXPECT_EQ(flows[1].bytes, 200u);
  EXPECT_EQ(flows[1].start_ps, 5000);
  EXPECT_EQ(flows[1].row, 1u);
  EXPECT_TRUE(flows[0].deps.empty());
  EXPECT_EQ(flows[1].deps, std::vector<uint64_t>{10});
  EXPECT_EQ(flows[2].deps, (std::vector<uint64_t>{20, 10}));
  EXPECT_EQ(error_of([&] { wl::validate_trace(flows, 3, 8, path); }), "");
}

TEST_F(TraceFile, DependenciesMayBeLeftOutTogether) {
  Columns c;
  c.dep_flow.clear();
  c.dep_after.clear();
  EXPECT_EQ(read_trace_file(write_trace(c)).size(), 3u);
  const std::string path = write_trace(Columns(), "dep_flow");
  EXPECT_CONTAINS(error_of([&] { read_trace_file(path); }), "dataset /trace/dep_flow is missing");
  const std::string no_deps = write_trace(Columns(), "dep_after");
  // Both absent: a trace without dependencies.
  const hid_t file = H5Fopen(no_deps.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  H5Ldelete(file, "trace/dep_flow", H5P_DEFAULT);
  H5Fclose(file);
  EXPECT_TRUE(read_trace_file(no_deps)[2].deps.empty());
}

TEST_F(TraceFile, RejectsBadLayouts) {
  auto error = [&](const Columns& c, const std::string& skip = "") {
    const std::string path = write_trace(c, skip);
    return error_of([&] { read_trace_file(path); });
  };
  EXPECT_CONTAINS(error(Columns(), "bytes"), "trace.h5: dataset /trace/bytes is missing");
  Columns short_dst;
  short_dst.dst.pop_back();
  EXPECT_CONTAINS(error(short_dst), "dataset /trace/dst has 2 rows, but /trace/id has 3");
  Columns short_after;
  short_after.dep_after.pop_back();
  EXPECT_CONTAINS(error(short_after),
                  "dataset /trace/dep_after has 2 rows, but /trace/dep_flow has 3");
  Columns negative;
  negative.bytes[1] = -5;
  EXPECT_CONTAINS(error(negative), "dataset /trace/bytes row 1 is negative (-5)");
  Columns unknown;
  unknown.dep_flow[2] = 99;
  EXPECT_CONTAINS(error(unknown), "dataset /trace/dep_flow row 2: 99 is not a flow id");

  const std::string path = write_trace(Columns(), "start_ps");
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t group = H5Gopen2(file, "trace", H5P_DEFAULT);
  write(group, "start_ps", H5T_NATIVE_DOUBLE, std::vector<double>{0, 1, 2});
  H5Gclose(group);
  H5Fclose(file);
  EXPECT_CONTAINS(error_of([&] { read_trace_file(path); }),
                  "dataset /trace/start_ps does not hold integers");
}

TEST_F(TraceFile, RejectsMissingFilesAndOtherTypes) {
  const std::string h5 = (dir_ / "none.h5").string();
  EXPECT_CONTAINS(error_of([&] { read_trace_file(h5); }), "none.h5: cannot open as an HDF5 file");
  const std::string csv = (dir_ / "none.csv").string();
  EXPECT_CONTAINS(error_of([&] { read_trace_file(csv); }), "none.csv: cannot open the trace file");
  EXPECT_CONTAINS(error_of([] { read_trace_file("t.txt"); }),
                  "t.txt: unknown trace file type '.txt'; expected .csv, .h5 or .hdf5");
  const std::string empty = (dir_ / "empty.hdf5").string();
  H5Fclose(H5Fcreate(empty.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  EXPECT_CONTAINS(error_of([&] { read_trace_file(empty); }), "empty.hdf5: no group /trace");
}

TEST_F(TraceFile, ReadsCsv) {
  const fs::path example = fs::path(__FILE__).parent_path() / "../../configs/traces/ring4.csv";
  std::vector<wl::TraceFlow> flows = read_trace_file(example.string());
  ASSERT_GE(flows.size(), 4u);
  EXPECT_EQ(error_of([&] { wl::validate_trace(flows, 4, 8, example.string()); }), "");
  const std::string bad = (dir_ / "bad.csv").string();
  std::ofstream(bad) << "id,src,dst,bytes,start,deps\n1,0,1,10ns,0,\n";
  EXPECT_CONTAINS(error_of([&] { read_trace_file(bad); }), "bad.csv:2: bytes: '10ns'");
}

}  // namespace
}  // namespace hx
