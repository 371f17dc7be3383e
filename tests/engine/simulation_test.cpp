// One rank's Simulation driven by the sequential executor, on PHOLD: events are conserved, two
// simulations in one process do not interfere (no global state), and the seed matters.
#include "engine/simulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "core/model.h"
#include "engine/executor.h"
#include "models/phold/phold.h"
#include "partition/partitioner.h"

namespace hx {
namespace {

phold::PholdConfig small_phold() {
  phold::PholdConfig c;
  c.lps = 64;
  c.group_size = 8;
  c.neighbors = 2;
  c.remote_probability = 0.3;
  c.mean_delay = SimTime::ns(1);
  c.min_delay = SimTime::ps(100);
  c.link_latency = SimTime::ns(5);
  c.events_per_lp = 2;
  return c;
}

struct Outcome {
  std::vector<uint64_t> events, checksums;
  uint64_t handled = 0, remote = 0, pending = 0;
};

Outcome run_phold(const phold::PholdConfig& c, uint64_t seed, SimTime end) {
  const auto model = phold::make_model(c);
  const auto partition = make_partition("group", *model, 1);
  StatsRegistry stats;
  for (const TableSpec& t : model->tables()) stats.declare(t);
  Simulation sim(*model, *partition, 0, seed, stats);
  sim.setup();
  const EngineStats s = run_sequential(sim, end, nullptr);
  sim.finish(false, s.reached);
  Outcome o;
  o.handled = s.events;
  o.pending = sim.queue().size();
  const Table& t = stats.table("lps");
  o.events = t.u64(0);
  o.checksums = t.u64(4);
  for (uint64_t r : t.u64(1)) o.remote += r;
  EXPECT_EQ(s.reached, end);
  return o;
}

TEST(Simulation, PholdConservesEvents) {
  const phold::PholdConfig c = small_phold();
  const Outcome o = run_phold(c, 1, SimTime::ns(200));
  // Every handled event creates exactly one new event, so the population never changes.
  EXPECT_EQ(o.pending, uint64_t{c.lps} * c.events_per_lp);
  uint64_t sum = 0;
  for (uint64_t e : o.events) sum += e;
  EXPECT_EQ(sum, o.handled);
  EXPECT_GT(o.remote, o.handled / 5);  // p = 0.3: far from zero
  EXPECT_LT(o.remote, o.handled / 2);
}

TEST(Simulation, TwoSimulationsInOneProcessAgree) {
  const Outcome a = run_phold(small_phold(), 5, SimTime::ns(150));
  const Outcome b = run_phold(small_phold(), 5, SimTime::ns(150));
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.checksums, b.checksums);
  const Outcome c = run_phold(small_phold(), 6, SimTime::ns(150));
  EXPECT_NE(a.checksums, c.checksums);
}

// A hub with a port per leaf, more leaves than events can name ports: each leaf sends the hub
// its id once, and the hub answers it through the leaf's port. Events on the hub's ports past
// PortId name kWidePort, so only a hub that never reads Event::port may have them.
class Hub final : public Component {
 public:
  Hub(ComponentId id, bool many) : Component(id), many_(many) {}
  bool many_ports() const override { return many_; }
  void handle(const Event& e) override {
    const auto leaf = e.payload_as<uint32_t>();  // leaf i is component i + 1, on port i
    EXPECT_EQ(e.port, leaf < kWidePort ? leaf : kWidePort);
    send(leaf, 1, leaf);
  }
  void serialize(StateArchive&) override {}

 private:
  bool many_;
};

class Leaf final : public Component {
 public:
  Leaf(ComponentId id, std::vector<uint32_t>* heard) : Component(id), heard_(heard) {}
  void setup() override { send(0, 1, id() - 1); }
  void handle(const Event& e) override {
    EXPECT_EQ(e.port, 0);
    if (e.payload_as<uint32_t>() == id() - 1) heard_->push_back(id() - 1);
  }
  void serialize(StateArchive&) override {}

 private:
  std::vector<uint32_t>* heard_;
};

class HubModel final : public Model {
 public:
  HubModel(uint32_t leaves, bool many) : leaves_(leaves), many_(many) {}
  ComponentId num_components() const override { return leaves_ + 1; }
  std::vector<GroupLevel> group_levels() const override { return {{"all", 1}}; }
  ComponentRange group_range(std::size_t, uint64_t) const override { return {0, leaves_ + 1}; }
  void ports(ComponentId id, std::vector<PortSpec>& out) const override {
    if (id == 0) {
      for (uint32_t i = 0; i < leaves_; ++i) out.push_back({i + 1, 0, SimTime::ns(1), 0});
    } else {
      out.push_back({0, id - 1, SimTime::ns(1), 0});
    }
  }
  std::vector<TableSpec> tables() const override { return {}; }
  std::unique_ptr<Component> create(ComponentId id, const BuildContext&) const override {
    if (id == 0) return std::make_unique<Hub>(id, many_);
    return std::make_unique<Leaf>(id, &heard);
  }
  mutable std::vector<uint32_t> heard;

 private:
  uint32_t leaves_;
  bool many_;
};

TEST(Simulation, AHubReachesPortsPastTheWidestEventPort) {
  const uint32_t leaves = kWidePort + 3;
  HubModel model(leaves, true);
  const auto partition = make_partition("group", model, 1);
  StatsRegistry stats;
  Simulation sim(model, *partition, 0, 1, stats);
  sim.setup();
  run_sequential(sim, SimTime::infinity(), nullptr);
  ASSERT_EQ(model.heard.size(), leaves);  // every leaf heard back, each with its own id
  std::sort(model.heard.begin(), model.heard.end());
  for (uint32_t i = 0; i < leaves; ++i) ASSERT_EQ(model.heard[i], i);
}

TEST(Simulation, RefusesManyPortsToAComponentThatReadsThem) {
  HubModel model(kWidePort + 1, false);
  const auto partition = make_partition("group", model, 1);
  StatsRegistry stats;
  EXPECT_THROW(Simulation(model, *partition, 0, 1, stats), std::logic_error);
  HubModel narrow(kWidePort, false);  // ports 0 .. kWidePort - 1: all named
  EXPECT_NO_THROW(Simulation(narrow, *make_partition("group", narrow, 1), 0, 1, stats));
}

}  // namespace
}  // namespace hx
