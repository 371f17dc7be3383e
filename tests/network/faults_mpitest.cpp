// Faults through the whole engine (docs/FAULTS.md): every packet is delivered, lost (and
// counted) or still in flight, for every family and routing with links and a router failing
// mid-run; the documented fallbacks deliver everything around a failed link from the start
// (and a routing without one loses packets, so the check can fail).
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <variant>
#include <vector>

#include "core/registry.h"
#include "engine/run.h"
#include "io/config_file.h"
#include "network/small_networks.h"
#include "support/run_summary.h"

namespace hx {
namespace {

using test::registry;
using test::routing_choices;

uint64_t count(const std::vector<SummaryValue>& summary, const std::string& name) {
  return testing::summary_count(summary, name);
}

Config faulted(const test::SmallNetwork& network, const std::string& routing,
               const std::string& actions) {
  Config c = test::small_network_config(network, routing);
  c.set("traffic.load", "0.2", "test");
  c.set("traffic.warmup", "300cycles", "test");
  c.set("traffic.measure", "1000cycles", "test");
  apply_override(c, "faults.actions=" + actions);
  return c;
}

TEST(NetworkFaults, EveryPacketIsDeliveredLostOrInFlight) {
  int runs = 0;
  uint64_t lost = 0;
  for (const test::SmallNetwork& network : test::small_networks()) {
    for (const std::string& routing : routing_choices(network.family)) {
      if (network.family == "torus" && routing == "dor_no_dateline") continue;
      SCOPED_TRACE(network.family + " routing " + routing);
      // Router 0 fails and comes back; a link at it and an endpoint's link fail for good.
      const auto s = testing::run_summary(
          registry(), faulted(network, routing,
                              "[{at = \"400ns\", element = \"router 0\"}, "
                              "{at = \"500ns\", element = \"router 0 port 1\"}, "
                              "{at = \"600ns\", element = \"endpoint 2 port 0\"}, "
                              "{at = \"900ns\", action = \"repair\", element = \"router 0\"}]"));
      const uint64_t injected = count(s, "packets_injected");
      EXPECT_GT(injected, 0u);
      EXPECT_EQ(injected, count(s, "packets_ejected") + count(s, "packets_dropped") +
                              count(s, "packets_in_flight"));
      EXPECT_EQ(count(s, "packets_in_flight"), 0u) << "the run ended with packets in the network";
      lost += count(s, "packets_dropped");
      ++runs;
    }
  }
  EXPECT_GE(runs, 12);
  EXPECT_GT(lost, 0u);
}

// RailX switching the X-OCSes of a row and the Y-OCSes mid-run (docs/FAULTS.md
// "Reconfiguration"): what is sent into a switch is lost and counted, the rest delivered.
TEST(NetworkFaults, ReconfiguredCircuitsDeliverOrLoseEveryPacket) {
  const Config c = parse_config_text(R"(
[sim]
model = "railx"
[railx]
m = 2
n = 4
x = "torus:3"
x_alternatives = "hyperx:3"
y = "hyperx:3"
y_alternatives = "torus:3"
ocs_switching = "200ns"
[traffic]
load = 0.2
warmup = "300cycles"
measure = "1000cycles"
[faults]
actions = [
  {at = "400ns", action = "reconfigure", element = "x-ocs 1", to = "hyperx:3"},
  {at = "700ns", action = "reconfigure", element = "y-ocs", to = "torus:3"},
])",
                                     "reconfigure.toml");
  const auto s = testing::run_summary(registry(), c);
  const uint64_t injected = count(s, "packets_injected");
  EXPECT_GT(injected, 0u);
  EXPECT_EQ(injected, count(s, "packets_ejected") + count(s, "packets_dropped") +
                          count(s, "packets_in_flight"));
  EXPECT_EQ(count(s, "packets_in_flight"), 0u);
  EXPECT_GT(count(s, "packets_dropped"), 0u);
}

struct Fallback {
  std::string family, routing, actions;
  bool loses;  // the routing has no way around: packets are lost
};

TEST(NetworkFaults, DocumentedFallbacksDeliverEverything) {
  // Failed from the start: the small fat tree's leaf 0 up port 2 and the rail-optimized leaf
  // 0's first up port (the way up: the way down from a switch is unique, docs/FAULTS.md), three
  // of the Dragonfly's global links (router 0 port 5 is global: 2 terminals, 3 local ports).
  const std::vector<Fallback> cases = {
      {"fat_tree", "updown", "[{at = \"0ns\", element = \"router 0 port 2 out\"}]", false},
      {"fat_tree", "updown_adaptive", "[{at = \"0ns\", element = \"router 0 port 2 out\"}]",
       false},
      {"fat_tree", "updown", "[{at = \"0ns\", element = \"router 0 port 2\"}]", true},
      {"rail_optimized", "updown", "[{at = \"0ns\", element = \"router 0 port 4 out\"}]",
       false},
      {"dragonfly", "ugal_l", "[{at = \"0ns\", element = \"3 random global links\"}]", false},
      {"dragonfly", "valiant", "[{at = \"0ns\", element = \"3 random global links\"}]", false},
      {"dragonfly", "minimal", "[{at = \"0ns\", element = \"router 0 port 5\"}]", true},
  };
  for (const Fallback& f : cases) {
    SCOPED_TRACE(f.family + " routing " + f.routing);
    const auto s = testing::run_summary(
        registry(), faulted(*test::find_small_network(f.family), f.routing, f.actions));
    if (f.loses) {
      EXPECT_GT(count(s, "packets_dropped"), 0u);
    } else {
      EXPECT_EQ(count(s, "packets_dropped"), 0u);
      EXPECT_EQ(count(s, "measured_delivered"), count(s, "measured_created"));
    }
  }
}

// faults.to_failed_endpoint: an all-to-all whose endpoint 5 is failed for its first 3 us. "wait"
// holds the messages to it at their sources (and its own, on its failed link) until it is back,
// so the collective completes, later; "send" loses them and the collective never completes. The
// same at packet and flow level.
TEST(NetworkFaults, MessagesToAFailedEndpointWaitOrAreLost) {
  for (const char* fidelity : {"packet", "flow"}) {
    SCOPED_TRACE(fidelity);
    const auto run = [&](const char* policy, bool fault) {
      Config c = test::small_network_config(*test::find_small_network("dragonfly"), "ugal_l");
      c.set("sim.fidelity", fidelity, "test");
      c.set("workload.kind", "collective", "test");
      c.set("workload.collective", "all_to_all", "test");
      c.set("workload.algorithm", "direct", "test");
      c.set("workload.bytes", "70KB", "test");
      c.set("faults.to_failed_endpoint", policy, "test");
      if (fault) {
        apply_override(c, "faults.actions=[{at = \"0ns\", element = \"endpoint 5\"}, "
                          "{at = \"3us\", action = \"repair\", element = \"endpoint 5\"}]");
      }
      return testing::run_summary(registry(), c);
    };
    const auto clean = run("wait", false);
    const auto wait = run("wait", true);
    const auto send = run("send", true);
    EXPECT_EQ(testing::summary_value(clean, "workload_complete"), 1);
    EXPECT_EQ(testing::summary_value(wait, "workload_complete"), 1);
    EXPECT_EQ(count(wait, "packets_dropped"), 0u);
    EXPECT_GT(testing::summary_value(wait, "workload_end_ps"),
              testing::summary_value(clean, "workload_end_ps"));
    EXPECT_GE(testing::summary_value(wait, "workload_end_ps"), 3e6);  // not before the repair
    EXPECT_EQ(testing::summary_value(send, "workload_complete"), 0);
    EXPECT_GT(count(send, "packets_dropped"), 0u);
  }
}

}  // namespace
}  // namespace hx
