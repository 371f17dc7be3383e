// Checkpoint files without MPI: manifests, one rank's record files, reading them back, and
// refusing damaged or foreign checkpoints with a message that says why.
#include "io/checkpoint.h"

#include <gtest/gtest.h>

#include <boost/archive/binary_oarchive.hpp>
#include <boost/serialization/string.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "support/input_error.h"

namespace hx {
namespace {

using testing::error_of;
namespace fs = std::filesystem;

class CheckpointFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() /
            ("hx_checkpoint_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // One rank's checkpoint: components 5 and 2, two rank records, and a manifest from this build.
  CheckpointManifest write_one_rank() {
    CheckpointRankWriter writer(dir_, 0);
    writer.add_component(5, "five");
    writer.add_component(2, std::string("t\0wo", 4));
    writer.add_rank_record([](std::ostream& out) { out << "tables"; });
    writer.add_rank_record([](std::ostream& out) { out << "more"; });
    CheckpointManifest m = this_build_identity();
    m.config_hash = "abc";
    m.time_ps = 1000;
    m.ranks = 1;
    m.index_hashes = {writer.finish()};
    std::ofstream(dir_ + "/manifest") << m.to_text();
    std::ofstream(dir_ + "/config.toml") << "[sim]\n";
    return m;
  }
  std::string dir_;
};

// The rank record goes to the file in 64 KiB pieces, hashed on the way: written and flushed in
// pieces of odd sizes, larger than a piece in all, it reads back whole and its hash checks.
TEST_F(CheckpointFiles, RankRecordStreamsAndHashesAsOneRecord) {
  std::string record;
  for (int i = 0; record.size() < 200001; ++i) record += static_cast<char>(i * 31 % 251);
  CheckpointRankWriter writer(dir_, 0);
  writer.add_component(1, "one");
  writer.add_rank_record([&](std::ostream& out) {
    std::size_t at = 0;
    for (std::size_t piece : {7, 65537, 3, 1}) {
      out.write(record.data() + at, static_cast<std::streamsize>(piece));
      out.flush();  // the hash sees a piece of this size
      at += piece;
    }
    for (; at < record.size(); ++at) out.put(record[at]);
  });
  CheckpointManifest m = this_build_identity();
  m.config_hash = "abc";
  m.ranks = 1;
  m.index_hashes = {writer.finish()};
  std::ofstream(dir_ + "/manifest") << m.to_text();
  std::ofstream(dir_ + "/config.toml") << "[sim]\n";
  CheckpointReader reader(dir_);
  ASSERT_EQ(reader.rank_records(), 1u);
  EXPECT_EQ(reader.rank_record(0), record);
  EXPECT_EQ(reader.component(1), "one");
}

// A disk that fills while a Boost archive writes a rank record (the stats tables): the write
// fails with an OutputError naming the file, whether it fails within the record or at its end,
// where the archive's destructor flushes the stream and an exception would end the process.
// /dev/full stands in for the full disk.
TEST_F(CheckpointFiles, AFullDiskUnderAnArchiveIsAnOutputError) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const std::string bin = dir_ + "/rank-00000.bin";
  fs::create_symlink("/dev/full", bin);
  for (std::size_t size : {std::size_t{16} << 10, std::size_t{200} << 10}) {
    CheckpointRankWriter writer(dir_, 0);
    std::string error;
    try {
      writer.add_rank_record([size](std::ostream& out) {
        boost::archive::binary_oarchive ar(out, boost::archive::no_header);
        const std::string bytes(size, 'x');
        ar << bytes;
      });
    } catch (const OutputError& e) {
      error = e.what();
    }
    EXPECT_CONTAINS(error, "cannot write '" + bin + "'") << size << " bytes";
    EXPECT_CONTAINS(error, std::strerror(ENOSPC)) << size << " bytes";
  }
}

TEST(CheckpointManifest, RoundTripsThroughText) {
  CheckpointManifest m = this_build_identity();
  m.config_hash = "0123";
  m.time_ps = 42;
  m.last_work_ps = 40;
  m.events = 1234567;
  m.ranks = 2;
  m.output = "out.h5";
  m.written = "2026-01-01T00:00:00Z";
  m.index_hashes = {"a", "b"};
  const CheckpointManifest back = CheckpointManifest::parse(m.to_text(), "m");
  EXPECT_EQ(back.to_text(), m.to_text());
  EXPECT_EQ(back.events, 1234567u);
  EXPECT_EQ(back.index_hashes, (std::vector<std::string>{"a", "b"}));
}

TEST(CheckpointManifest, NamesWhatIsMissingOrMalformed) {
  CheckpointManifest m = this_build_identity();
  m.ranks = 1;
  m.index_hashes = {"a"};
  std::string text = m.to_text();
  EXPECT_CONTAINS(error_of([&] { CheckpointManifest::parse("format = 1\n", "M"); }), "lacks");
  const std::string bad = text.replace(text.find("time_ps = 0"), 11, "time_ps = x");
  EXPECT_CONTAINS(error_of([&] { CheckpointManifest::parse(bad, "M"); }), "time_ps = 'x'");
}

TEST_F(CheckpointFiles, ReadsBackEveryRecord) {
  write_one_rank();
  CheckpointReader reader(dir_);
  EXPECT_EQ(reader.manifest().time_ps, 1000);
  EXPECT_EQ(reader.component(5), "five");
  EXPECT_EQ(reader.component(2), std::string("t\0wo", 4));
  ASSERT_EQ(reader.rank_records(), 2u);
  EXPECT_EQ(reader.rank_record(0), "tables");
  EXPECT_EQ(reader.rank_record(1), "more");
  EXPECT_EQ(reader.config_text(), "[sim]\n");
  EXPECT_CONTAINS(error_of([&] { reader.component(3); }), "no record of component 3");
}

TEST_F(CheckpointFiles, FollowsLatestInACheckpointDirectory) {
  write_one_rank();
  const std::string parent = dir_ + "_parent";
  fs::remove_all(parent);
  fs::create_directories(parent);
  fs::rename(dir_, parent + "/ckpt-1");
  std::ofstream(parent + "/latest") << "ckpt-1\n";
  CheckpointReader reader(parent);
  EXPECT_EQ(reader.path(), parent + "/ckpt-1");
  EXPECT_EQ(reader.component(5), "five");
  fs::remove_all(parent);
}

TEST_F(CheckpointFiles, RefusesADamagedRecord) {
  write_one_rank();
  {
    std::fstream f(dir_ + "/rank-00000.bin", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(1);
    f.put('X');  // inside "five"
  }
  CheckpointReader reader(dir_);
  EXPECT_EQ(reader.component(2), std::string("t\0wo", 4));  // records are checked one by one
  EXPECT_CONTAINS(error_of([&] { reader.component(5); }), "does not match its hash");
}

TEST_F(CheckpointFiles, RefusesADamagedIndex) {
  write_one_rank();
  fs::resize_file(dir_ + "/rank-00000.idx", 30);
  EXPECT_CONTAINS(error_of([&] { CheckpointReader r(dir_); }), "does not match the manifest");
}

TEST_F(CheckpointFiles, RefusesAnIncompleteCheckpoint) {
  write_one_rank();
  fs::remove(dir_ + "/manifest");
  EXPECT_CONTAINS(error_of([&] { CheckpointReader r(dir_); }), "no manifest");
}

TEST(CheckpointCompatibility, RefusesOtherBuildsAndConfigs) {
  CheckpointManifest m = this_build_identity();
  m.config_hash = "abc";
  EXPECT_EQ(error_of([&] { check_compatible(m, "abc", "P"); }), "");
  EXPECT_CONTAINS(error_of([&] { check_compatible(m, "abd", "P"); }), "another config");
  m.boost_version = "1_0";
  const std::string message = error_of([&] { check_compatible(m, "abc", "P"); });
  EXPECT_CONTAINS(message, "another build");
  EXPECT_CONTAINS(message, "Boost version: '1_0'");
}

}  // namespace
}  // namespace hx
