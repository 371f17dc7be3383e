// Component::end_of_instant(): called once after a component's last event at a time, when one
// of that instant's handlers asked for it, however the run is cut into run_until calls.
#include <gtest/gtest.h>

#include <map>
#include <utility>

#include "core/model.h"
#include "engine/simulation.h"
#include "partition/partitioner.h"

namespace hx {
namespace {

// What one run saw: per (time ps, component) the events handled and the end_of_instant calls,
// and any event handled after that instant's end_of_instant.
struct Log {
  std::map<std::pair<int64_t, ComponentId>, int> events, ends;
  int late_events = 0;
};

// Each event is forwarded to the next component on a ring after 1 ns, plus a zero-delay event
// to itself on every third event, so several events share each (time, component). Every
// handler asks for end_of_instant(), which sends nothing.
class Forwarder final : public Component {
 public:
  Forwarder(ComponentId id, Log* log) : Component(id), log_(log) {}
  void setup() override {
    for (int i = 0; i < 3; ++i) schedule(SimTime::ns(i % 2), 0, uint8_t{0});
  }
  void handle(const Event& e) override {
    const auto key = std::make_pair(now().count_ps(), id());
    ++log_->events[key];
    if (log_->ends.count(key)) ++log_->late_events;
    if (e.key.seq % 3 == 0) schedule(SimTime::zero(), 0, uint8_t{1});
    if (e.payload_as<uint8_t>() == 0) send(0, 0, uint8_t{0});
    request_end_of_instant();
  }
  void end_of_instant() override { ++log_->ends[std::make_pair(now().count_ps(), id())]; }
  void serialize(StateArchive&) override {}

 private:
  Log* log_;
};

class ForwarderRing final : public Model {
 public:
  explicit ForwarderRing(Log* log) : log_(log) {}
  ComponentId num_components() const override { return 8; }
  std::vector<GroupLevel> group_levels() const override { return {{"all", 1}}; }
  ComponentRange group_range(std::size_t, uint64_t) const override { return {0, 8}; }
  void ports(ComponentId id, std::vector<PortSpec>& out) const override {
    out.push_back({(id + 1) % 8, 1, SimTime::ns(1), 0});  // port 0: to the next
    out.push_back({(id + 7) % 8, 0, SimTime::ns(1), 0});  // port 1: from the previous
  }
  std::vector<TableSpec> tables() const override { return {}; }
  std::unique_ptr<Component> create(ComponentId id, const BuildContext&) const override {
    return std::make_unique<Forwarder>(id, log_);
  }

 private:
  Log* log_;
};

Log run(uint64_t chunk) {
  Log log;
  ForwarderRing model(&log);
  const auto partition = make_partition("group", model, 1);
  StatsRegistry stats;
  Simulation sim(model, *partition, 0, 1, stats);
  sim.setup();
  const SimTime end = SimTime::ns(20);
  while (sim.next_time() < end) sim.run_until(end, chunk);
  return log;
}

TEST(EndOfInstant, OnceAfterEachComponentsLastEventAtATime) {
  const Log log = run(UINT64_MAX);
  EXPECT_EQ(log.late_events, 0);
  ASSERT_EQ(log.ends.size(), log.events.size());  // every (time, component) with events asked
  int shared = 0;
  for (const auto& [key, n] : log.ends) {
    EXPECT_EQ(n, 1) << "component " << key.second << " at " << key.first << " ps";
    if (log.events.at(key) > 1) ++shared;
  }
  EXPECT_GT(shared, 0);  // the test must have instants with several events per component
}

TEST(EndOfInstant, SameCallsWhenTheRunIsCutAfterEveryEvent) {
  const Log whole = run(UINT64_MAX);
  const Log cut = run(1);
  EXPECT_EQ(cut.late_events, 0);
  EXPECT_EQ(cut.events, whole.events);
  EXPECT_EQ(cut.ends, whole.ends);
}

}  // namespace
}  // namespace hx
