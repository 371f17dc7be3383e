// Restoring a checkpoint into components it does not fit is an input error naming the record:
// pending events of a kind the component does not handle, and a record of another length than
// the state the component reads back.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/model.h"
#include "core/state_archive.h"
#include "engine/simulation.h"
#include "io/checkpoint.h"
#include "partition/partitioner.h"
#include "support/input_error.h"

namespace hx {
namespace {

namespace fs = std::filesystem;
using testing::error_of;

// Each component schedules one event of kind `kind` far ahead and has `fields` numbers of state.
class Waiter final : public Component {
 public:
  Waiter(ComponentId id, uint16_t kind, int fields) : Component(id), kind_(kind), fields_(fields) {}
  void setup() override { schedule(SimTime::us(1), kind_, uint8_t{0}); }
  void handle(const Event&) override {}
  void serialize(StateArchive& ar) override {
    for (int i = 0; i < fields_; ++i) ar & value_;
  }
  bool knows_event(uint16_t kind) const override { return kind == kind_; }

 private:
  uint16_t kind_;
  int fields_;
  uint64_t value_ = 7;
};

class Waiters final : public Model {
 public:
  Waiters(uint16_t kind, int fields) : kind_(kind), fields_(fields) {}
  ComponentId num_components() const override { return 4; }
  std::vector<GroupLevel> group_levels() const override { return {{"all", 1}}; }
  ComponentRange group_range(std::size_t, uint64_t) const override { return {0, 4}; }
  void ports(ComponentId, std::vector<PortSpec>&) const override {}
  std::vector<TableSpec> tables() const override { return {}; }
  std::unique_ptr<Component> create(ComponentId id, const BuildContext&) const override {
    return std::make_unique<Waiter>(id, kind_, fields_);
  }

 private:
  uint16_t kind_;
  int fields_;
};

class Restore : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() /
            ("hx_restore_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A checkpoint of `model` right after setup, in the form write_checkpoint leaves.
  void save(const Model& model) {
    const auto partition = make_partition("group", model, 1);
    StatsRegistry stats;
    Simulation sim(model, *partition, 0, 1, stats);
    sim.setup();
    CheckpointRankWriter writer(dir_, 0);
    sim.save(writer);
    CheckpointManifest m = this_build_identity();
    m.ranks = 1;
    m.index_hashes = {writer.finish()};
    std::ofstream(dir_ + "/manifest") << m.to_text();
    std::ofstream(dir_ + "/config.toml") << "[sim]\n";
  }
  std::string restore_error(const Model& model) {
    const auto partition = make_partition("group", model, 1);
    StatsRegistry stats;
    Simulation sim(model, *partition, 0, 1, stats);
    CheckpointReader reader(dir_);
    return error_of([&] { sim.restore(reader, SimTime::zero()); });
  }
  std::string dir_;
};

TEST_F(Restore, TheSameModelRestores) {
  save(Waiters(3, 1));
  EXPECT_EQ(restore_error(Waiters(3, 1)), "");
}

TEST_F(Restore, PendingEventsOfAnUnknownKindAreRefused) {
  save(Waiters(3, 1));
  EXPECT_CONTAINS(restore_error(Waiters(4, 1)), "pending event (kind 3) it cannot handle");
}

TEST_F(Restore, ARecordOfAnotherShapeIsRefused) {
  save(Waiters(3, 2));  // one field more than the reader reads
  EXPECT_CONTAINS(restore_error(Waiters(3, 1)), "the record of component 0");
  save(Waiters(3, 1));  // one field less
  EXPECT_CONTAINS(restore_error(Waiters(3, 2)), "the record of component 0");
}

}  // namespace
}  // namespace hx
