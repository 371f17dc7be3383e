// MPI tests of the parallel HDF5 writer: the same file must come out at any rank count.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/stats.h"
#include "io/hdf5_output.h"
#include "support/mpi_world.h"

namespace hx {
namespace {

namespace fs = std::filesystem;

using testing::comm_rank;
using testing::comm_size;

// The file of test `name` in the scratch directory: check_readable.py compares the files the
// np1..np4 runs leave there.
std::string scratch(const std::string& name) { return testing::scratch(name) + ".h5"; }

// The partial files of `path` there are: `<path>.<8 hex digits>.partial`.
std::vector<std::string> partials(const std::string& path) {
  std::vector<std::string> found;
  const fs::path dir = fs::path(path).parent_path();
  const std::string prefix = fs::path(path).filename().string() + ".";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(prefix) && name.ends_with(".partial")) found.push_back(name);
  }
  return found;
}

void remove_both(const std::string& path) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (comm_rank() == 0) {
    fs::remove(path);
    for (const std::string& name : partials(path)) fs::remove(fs::path(path).parent_path() / name);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

constexpr uint64_t kLinks = 150001;  // three chunks, the last one partial
constexpr uint64_t kLonely = 1000;
constexpr uint64_t kCounts = 140000;  // three chunks

TableSpec links_spec() {
  return {"net/links",
          "id",
          "per-link counters",
          {{"bytes", ColumnType::kU64, "bytes", "bytes sent over the link"},
           {"delta", ColumnType::kI64, "ps", "signed difference"},
           {"ratio", ColumnType::kF64, "1", "a fraction"}}};
}

/// Rows dealt round-robin over the ranks, each rank's in shuffled order.
Table make_links() {
  Table table(links_spec());
  std::vector<uint64_t> ids;
  for (uint64_t id = comm_rank(); id < kLinks; id += comm_size()) ids.push_back(id);
  std::shuffle(ids.begin(), ids.end(), std::mt19937(comm_rank() + 17));
  for (const uint64_t id : ids) {
    table.add_row(id, {id * 3, static_cast<int64_t>(1000) - static_cast<int64_t>(id), id * 0.5});
  }
  return table;
}

/// Every row on the last rank, in descending order.
Table make_lonely() {
  Table table({"lonely", "link", "all rows on one rank", {{"x", ColumnType::kU64, "1", "x"}}});
  if (comm_rank() == comm_size() - 1) {
    for (uint64_t id = kLonely; id-- > 0;) table.add_row(id, {id * id});
  }
  return table;
}

/// A summed table as it is written: reduced, its rows kept on rank 0 only, in order. One rank
/// writes it where it lies (no exchange).
Table make_counts() {
  Table table({"counts",
               "bin",
               "summed counters",
               {{"n", ColumnType::kU64, "1", "n"}},
               TableKind::kSummed,
               kCounts});
  for (uint64_t id = 0; id < kCounts; ++id) table.add_to(id, 0, id * 7);
  if (comm_rank() != 0) table.clear_rows();
  return table;
}

Table make_empty() {
  return Table({"empty", "id", "no rows", {{"v", ColumnType::kF64, "ps", "nothing"}}});
}

// Reading side: serial HDF5 on rank 0.
struct H5 {
  hid_t id;
  herr_t (*closer)(hid_t);
  ~H5() {
    if (id >= 0) closer(id);
  }
};

std::string string_attribute(hid_t object, const char* name) {
  H5 attr{H5Aopen(object, name, H5P_DEFAULT), H5Aclose};
  if (attr.id < 0) return "<missing attribute " + std::string(name) + ">";
  H5 type{H5Aget_type(attr.id), H5Tclose};
  EXPECT_TRUE(H5Tis_variable_str(type.id) > 0) << name;
  EXPECT_EQ(H5Tget_cset(type.id), H5T_CSET_UTF8) << name;
  char* text = nullptr;
  H5 memory{H5Tcopy(H5T_C_S1), H5Tclose};
  H5Tset_size(memory.id, H5T_VARIABLE);
  H5Tset_cset(memory.id, H5T_CSET_UTF8);
  EXPECT_GE(H5Aread(attr.id, memory.id, &text), 0);
  std::string value = text != nullptr ? text : "";
  H5free_memory(text);
  return value;
}

template <class T>
T number_attribute(hid_t object, const char* name, hid_t memory_type) {
  T value{};
  H5 attr{H5Aopen(object, name, H5P_DEFAULT), H5Aclose};
  EXPECT_GE(attr.id, 0) << name;
  EXPECT_GE(H5Aread(attr.id, memory_type, &value), 0) << name;
  return value;
}

template <class T>
std::vector<T> read_column(hid_t group, const char* name, hid_t memory_type) {
  H5 dataset{H5Dopen2(group, name, H5P_DEFAULT), H5Dclose};
  EXPECT_GE(dataset.id, 0) << name;
  H5 space{H5Dget_space(dataset.id), H5Sclose};
  EXPECT_EQ(H5Sget_simple_extent_ndims(space.id), 1);
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space.id, &n, nullptr);
  std::vector<T> values(n);
  if (n > 0) {
    EXPECT_GE(H5Dread(dataset.id, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  }
  return values;
}

/// The id scale, its attachment to every column, and units/long_name of every column.
void check_table_layout(hid_t file, const TableSpec& spec, uint64_t rows) {
  SCOPED_TRACE(spec.name);
  H5 group{H5Gopen2(file, spec.name.c_str(), H5P_DEFAULT), H5Gclose};
  ASSERT_GE(group.id, 0);
  EXPECT_EQ(string_attribute(group.id, "long_name"), spec.help);
  const std::vector<uint64_t> ids =
      read_column<uint64_t>(group.id, spec.id_name.c_str(), H5T_NATIVE_UINT64);
  ASSERT_EQ(ids.size(), rows);
  for (uint64_t i = 0; i < rows; ++i) ASSERT_EQ(ids[i], i);
  H5 scale{H5Dopen2(group.id, spec.id_name.c_str(), H5P_DEFAULT), H5Dclose};
  EXPECT_GT(H5DSis_scale(scale.id), 0);
  char scale_name[64] = {};
  EXPECT_GT(H5DSget_scale_name(scale.id, scale_name, sizeof scale_name), 0);
  EXPECT_EQ(std::string(scale_name), spec.id_name);
  for (const ColumnSpec& column : spec.columns) {
    SCOPED_TRACE(column.name);
    H5 dataset{H5Dopen2(group.id, column.name.c_str(), H5P_DEFAULT), H5Dclose};
    ASSERT_GE(dataset.id, 0);
    EXPECT_GT(H5DSis_attached(dataset.id, scale.id, 0), 0);
    EXPECT_EQ(string_attribute(dataset.id, "units"), column.unit);
    EXPECT_EQ(string_attribute(dataset.id, "long_name"), column.help);
    H5 dcpl{H5Dget_create_plist(dataset.id), H5Pclose};
    if (rows > 0) {
      EXPECT_EQ(H5Pget_layout(dcpl.id), H5D_CHUNKED);
      EXPECT_EQ(H5Pget_nfilters(dcpl.id), 2);  // shuffle + gzip
    }
  }
}

void check_written_file(const std::string& path) {
  EXPECT_TRUE(fs::exists(path));
  EXPECT_TRUE(partials(path).empty());
  H5 file{H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  ASSERT_GE(file.id, 0);

  EXPECT_EQ(number_attribute<int64_t>(file.id, "seed", H5T_NATIVE_INT64), -7);
  EXPECT_EQ(number_attribute<uint64_t>(file.id, "big", H5T_NATIVE_UINT64), (uint64_t{1} << 63) + 5);
  EXPECT_EQ(number_attribute<double>(file.id, "fraction", H5T_NATIVE_DOUBLE), 0.25);
  EXPECT_EQ(string_attribute(file.id, "name"), "h\u00e9llo \u2713");
  EXPECT_EQ(string_attribute(file.id, "end_time"), "rank 0 time");
  EXPECT_EQ(number_attribute<int64_t>(file.id, "ranks", H5T_NATIVE_INT64), 0);
  {
    H5 group{H5Gopen2(file.id, "/partition", H5P_DEFAULT), H5Gclose};
    EXPECT_EQ(string_attribute(group.id, "description"), "round robin");
    H5 links{H5Gopen2(file.id, "/net/links", H5P_DEFAULT), H5Gclose};
    EXPECT_EQ(number_attribute<double>(links.id, "scale", H5T_NATIVE_DOUBLE), 1.5);
  }
  {
    H5 dataset{H5Dopen2(file.id, "/config", H5P_DEFAULT), H5Dclose};
    ASSERT_GE(dataset.id, 0);
    H5 type{H5Dget_type(dataset.id), H5Tclose};
    std::string text(H5Tget_size(type.id), '\0');
    EXPECT_GE(H5Dread(dataset.id, type.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()), 0);
    // Stored with its terminating NUL, which C readers and netCDF rely on.
    ASSERT_EQ(text.size(), 17u);
    EXPECT_EQ(text.back(), '\0');
    EXPECT_EQ(text.c_str(), std::string("[sim]\nseed = -7\n"));
  }

  check_table_layout(file.id, links_spec(), kLinks);
  check_table_layout(file.id, make_lonely().spec(), kLonely);
  check_table_layout(file.id, make_empty().spec(), 0);
  check_table_layout(file.id, make_counts().spec(), kCounts);

  H5 links{H5Gopen2(file.id, "/net/links", H5P_DEFAULT), H5Gclose};
  const auto bytes = read_column<uint64_t>(links.id, "bytes", H5T_NATIVE_UINT64);
  const auto delta = read_column<int64_t>(links.id, "delta", H5T_NATIVE_INT64);
  const auto ratio = read_column<double>(links.id, "ratio", H5T_NATIVE_DOUBLE);
  ASSERT_EQ(bytes.size(), kLinks);
  ASSERT_EQ(delta.size(), kLinks);
  ASSERT_EQ(ratio.size(), kLinks);
  for (uint64_t id = 0; id < kLinks; ++id) {
    ASSERT_EQ(bytes[id], id * 3) << id;
    ASSERT_EQ(delta[id], 1000 - static_cast<int64_t>(id)) << id;
    ASSERT_EQ(ratio[id], id * 0.5) << id;
  }
  H5 lonely{H5Gopen2(file.id, "/lonely", H5P_DEFAULT), H5Gclose};
  const auto x = read_column<uint64_t>(lonely.id, "x", H5T_NATIVE_UINT64);
  ASSERT_EQ(x.size(), kLonely);
  for (uint64_t id = 0; id < kLonely; ++id) ASSERT_EQ(x[id], id * id);
  H5 counts{H5Gopen2(file.id, "/counts", H5P_DEFAULT), H5Gclose};
  const auto n = read_column<uint64_t>(counts.id, "n", H5T_NATIVE_UINT64);
  ASSERT_EQ(n.size(), kCounts);
  for (uint64_t id = 0; id < kCounts; ++id) ASSERT_EQ(n[id], id * 7);
}

TEST(Hdf5Output, WritesTablesAttributesAndTextsIdenticallyAtAnyRankCount) {
  const std::string path = scratch("hdf5_output");
  remove_both(path);
  const Table links = make_links();
  const Table lonely = make_lonely();
  const Table empty = make_empty();
  const Table counts = make_counts();
  const int rank = comm_rank();
  OutputContent content;
  content.attributes = {
      {"/", "seed", int64_t{-7}},
      {"/", "big", (uint64_t{1} << 63) + 5},
      {"/", "fraction", 0.25},
      {"/", "name", std::string("h\u00e9llo \u2713")},
      // Ranks disagree (like wall-clock times); rank 0's value must win.
      {"/", "end_time", rank == 0 ? std::string("rank 0 time") : "rank " + std::to_string(rank)},
      {"/", "ranks", int64_t{rank}},
      {"/partition", "description", std::string("round robin")},
      {"/net/links", "scale", 1.5},
  };
  content.texts = {{"/config", rank == 0 ? "[sim]\nseed = -7\n" : "other rank's text"}};
  content.tables = {&links, &empty, &lonely, &counts};

  EXPECT_NO_THROW(write_output(MPI_COMM_WORLD, path, content));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) check_written_file(path);
  MPI_Barrier(MPI_COMM_WORLD);
  // The file stays behind for check_readable.py.
}

void expect_output_error(const std::string& path, const OutputContent& content,
                         const std::string& expected_text) {
  remove_both(path);
  try {
    write_output(MPI_COMM_WORLD, path, content);
    ADD_FAILURE() << "no OutputError on rank " << comm_rank();
  } catch (const OutputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(expected_text), std::string::npos) << message;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(partials(path).empty());
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(Hdf5Output, MissingDirectoryThrowsOnEveryRankAndLeavesNoFile) {
  const Table links = make_links();
  OutputContent content;
  content.tables = {&links};
  const std::string dir = scratch("no_such_directory");
  expect_output_error(dir + "/out.h5", content, "directory '" + dir + "' does not exist");
}

TEST(Hdf5Output, DuplicateIdsThrowOnEveryRankAndLeaveNoFile) {
  Table table({"dup", "id", "", {{"v", ColumnType::kU64, "1", ""}}});
  // Every rank claims ids 0 and 1; with one rank, id 0 twice.
  table.add_row(0, {uint64_t{1}});
  table.add_row(comm_size() == 1 ? 0 : 1, {uint64_t{2}});
  OutputContent content;
  content.tables = {&table};
  expect_output_error(scratch("duplicate_ids"), content, "table 'dup'");
}

TEST(Hdf5Output, OutOfRangeIdsThrowOnEveryRankAndLeaveNoFile) {
  Table table({"gap", "id", "", {{"v", ColumnType::kF64, "1", ""}}});
  if (comm_rank() == comm_size() - 1) table.add_row(5, {1.0});
  OutputContent content;
  content.tables = {&table};
  expect_output_error(scratch("out_of_range_ids"), content, "row id 5 is out of range");
}

TEST(Hdf5Output, CheckOutputPathAcceptsWritablePathAndLeavesNothing) {
  const std::string path = scratch("check_ok");
  remove_both(path);
  EXPECT_NO_THROW(check_output_path(MPI_COMM_WORLD, path, {}));
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(partials(path).empty());
}

// Two runs with the same output: each writes a partial file of its own, so neither truncates nor
// renames away the other's, and the file under the final name is one whole run's.
TEST(Hdf5Output, LeavesAnotherRunsPartialFileAlone) {
  const std::string path = scratch("shared_output");
  remove_both(path);
  const std::string others = path + ".partial";  // the name every run used before
  const std::string others_text = "another run, still writing";
  if (comm_rank() == 0) std::ofstream(others) << others_text;
  MPI_Barrier(MPI_COMM_WORLD);
  const Table links = make_links();
  OutputContent content;
  content.tables = {&links};
  EXPECT_NO_THROW(write_output(MPI_COMM_WORLD, path, content));
  MPI_Barrier(MPI_COMM_WORLD);
  if (comm_rank() == 0) {
    std::ifstream in(others);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, others_text);
    EXPECT_GT(fs::file_size(path), others_text.size());
    EXPECT_EQ(partials(path), std::vector<std::string>{fs::path(others).filename().string()});
    fs::remove(others);
  }
  remove_both(path);
}

TEST(Hdf5Output, CheckOutputPathRejectsDirectoryAndMissingParent) {
  const std::string dir = fs::path(scratch("x")).parent_path().string();
  EXPECT_THROW(
      {
        try {
          check_output_path(MPI_COMM_WORLD, dir, {});
        } catch (const OutputError& e) {
          EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
          throw;
        }
      },
      OutputError);
  const std::string missing = scratch("missing_parent") + "/out.h5";
  EXPECT_THROW(check_output_path(MPI_COMM_WORLD, missing, {}), OutputError);
}

}  // namespace
}  // namespace hx
