// Fault-schedule files in HDF5: written here with the C API (fixed- and variable-length element
// strings) and read back; each malformed layout rejected with the file and the dataset's name.
#include "io/fault_file.h"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/input_error.h"

namespace hx {
namespace {

using testing::error_of;
namespace fs = std::filesystem;

class FaultFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hx_fault_file_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes /faults with the given columns (leaving out the one named `skip`, and `to` when
  // empty); `variable`: the elements as variable-length strings, else fixed-length ones exactly
  // as wide as the longest.
  std::string write(const std::vector<int64_t>& time, const std::vector<int32_t>& fail,
                    const std::vector<std::string>& element, bool variable,
                    const std::string& skip = "", const std::vector<std::string>& to = {}) {
    const std::string path = (dir_ / "faults.h5").string();
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t group = H5Gcreate2(file, "faults", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    auto put = [&](const char* name, hid_t type, const void* data, hsize_t rows) {
      if (skip == name) return;
      const hid_t space = H5Screate_simple(1, &rows, nullptr);
      const hid_t d = H5Dcreate2(group, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      if (rows > 0) H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
      H5Dclose(d);
      H5Sclose(space);
    };
    put("time_ps", H5T_NATIVE_INT64, time.data(), time.size());
    put("fail", H5T_NATIVE_INT32, fail.data(), fail.size());
    const hid_t text = H5Tcopy(H5T_C_S1);
    if (variable) {
      H5Tset_size(text, H5T_VARIABLE);
      std::vector<const char*> items;
      for (const std::string& e : element) items.push_back(e.c_str());
      put("element", text, items.data(), items.size());
    } else {
      std::size_t width = 1;
      for (const std::string& e : element) width = std::max(width, e.size());
      H5Tset_size(text, width);
      H5Tset_strpad(text, H5T_STR_NULLPAD);
      std::vector<char> buffer(width * element.size(), '\0');
      for (std::size_t i = 0; i < element.size(); ++i) {
        element[i].copy(buffer.data() + i * width, width);
      }
      put("element", text, buffer.data(), element.size());
    }
    if (!to.empty()) {
      const hid_t vlen = H5Tcopy(H5T_C_S1);
      H5Tset_size(vlen, H5T_VARIABLE);
      std::vector<const char*> items;
      for (const std::string& e : to) items.push_back(e.c_str());
      put("to", vlen, items.data(), items.size());
      H5Tclose(vlen);
    }
    H5Tclose(text);
    H5Gclose(group);
    H5Fclose(file);
    return path;
  }

  fs::path dir_;
};

TEST_F(FaultFile, ReadsFixedAndVariableLengthElements) {
  for (const bool variable : {false, true}) {
    const std::string path = write({200000, 600000}, {1, 0}, {"router 3 port 12", "router 3 port 12"},
                                   variable);
    const std::vector<net::FaultRow> rows = read_fault_hdf5(path);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].at, SimTime::ns(200));
    EXPECT_TRUE(rows[0].fail);
    EXPECT_FALSE(rows[1].fail);
    EXPECT_EQ(rows[0].element, "router 3 port 12");  // fills its field: nothing cut
    EXPECT_EQ(rows[1].origin, path + " row 1");
  }
}

// The optional /faults/to: a reconfiguration's configuration, empty for fails and repairs.
TEST_F(FaultFile, ReadsTheConfigurationOfReconfigurations) {
  const std::string path =
      write({100, 200}, {1, 1}, {"x-ocs 1", "router 2"}, true, "", {"hyperx:8", ""});
  const std::vector<net::FaultRow> rows = read_fault_hdf5(path);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].to, "hyperx:8");
  EXPECT_EQ(rows[1].to, "");
  EXPECT_NE(error_of([&] {
              read_fault_hdf5(write({100}, {0}, {"x-ocs"}, true, "", {"hyperx:8"}));
            }).find("row 0: /faults/to is 'hyperx:8', a reconfiguration, which takes /faults/fail = 1"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              read_fault_hdf5(write({100, 200}, {1, 1}, {"a", "b"}, true, "", {"x"}));
            }).find("dataset /faults/to has 1 rows"),
            std::string::npos);
}

TEST_F(FaultFile, RejectsBadLayoutsNamingTheDataset) {
  const std::vector<int64_t> t = {1, 2};
  const std::vector<int32_t> f = {1, 0};
  const std::vector<std::string> e = {"router 1", "router 1"};
  EXPECT_NE(error_of([&] { read_fault_hdf5(write(t, f, e, true, "fail")); })
                .find("dataset /faults/fail is missing"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_fault_hdf5(write(t, {1}, e, true)); }).find("must be equal"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_fault_hdf5(write(t, {1, 2}, e, true)); })
                .find("row 1: /faults/fail is 2; expected 1 (fail) or 0 (repair)"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_fault_hdf5((dir_ / "none.h5").string()); })
                .find("cannot open as an HDF5 file"),
            std::string::npos);
}

}  // namespace
}  // namespace hx
