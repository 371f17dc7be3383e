// Validation of the network model against conservation laws and analytic bounds, through the
// whole engine (resolve_config + run_simulation over MPI_COMM_WORLD, no output file):
//   - conservation: every packet injected is ejected or still in flight, for every family and
//     routing; a run that drains leaves nothing in flight; a run cut mid-window does;
//   - the bisection bound of a mesh under uniform traffic (Dally & Towles, ch. 3);
//   - the Dragonfly adversarial pattern (Kim et al., ISCA 2008): minimal routing is held to one
//     global link per group, Valiant and UGAL-L spread the load over all of them;
//   - the deadlock watchdog: a torus without datelines deadlocks and the run stops with a
//     report; the same network with datelines does not, and no input of a saturated,
//     deadlock-free network waits long enough to look deadlocked (round-robin per output VC).
// Results are the same at any rank count (the engine is deterministic), so every assertion
// holds on every rank; only the watchdog's report text is complete on rank 0 alone.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <variant>
#include <vector>

#include "core/error.h"
#include "core/registry.h"
#include "engine/run.h"
#include "models/register_all.h"
#include "network/small_networks.h"
#include "support/run_summary.h"

namespace hx {
namespace {

using test::registry;
using test::routing_choices;

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

std::vector<SummaryValue> run(const Config& config) {
  return testing::run_summary(registry(), config);
}

double value(const std::vector<SummaryValue>& summary, const std::string& name) {
  return testing::summary_value(summary, name);
}

uint64_t count(const std::vector<SummaryValue>& summary, const std::string& name) {
  return testing::summary_count(summary, name);
}

// One line of measured figures on rank 0, for the test log.
void note(const char* format, double a, double b = 0, double c = 0, double d = 0) {
  if (rank() != 0) return;
  std::printf(format, a, b, c, d);
  std::fflush(stdout);
}

// ---------------------------------------------------------------------------------------------
// a. Conservation

Config conservation_config(const test::SmallNetwork& network, const std::string& routing) {
  Config c = test::small_network_config(network, routing);
  c.set("traffic.load", "0.1", "test");
  c.set("traffic.warmup", "300cycles", "test");
  c.set("traffic.measure", "1000cycles", "test");
  return c;
}

TEST(NetworkConservation, EveryFamilyAndRoutingDrains) {
  int runs = 0;
  for (const std::string arch : {"input_queued", "ideal"}) {
    for (const test::SmallNetwork& network : test::small_networks()) {
      for (const std::string& routing : routing_choices(network.family)) {
        // The one routing that can deadlock is the watchdog test's business.
        if (network.family == "torus" && routing == "dor_no_dateline") continue;
        SCOPED_TRACE(network.family + " routing " + routing + " router " + arch);
        Config c = conservation_config(network, routing);
        c.set("router.arch", arch, "test");
        const auto s = run(c);
        const uint64_t injected = count(s, "packets_injected");
        const uint64_t ejected = count(s, "packets_ejected");
        const uint64_t in_flight = count(s, "packets_in_flight");
        EXPECT_GT(injected, 0u);
        EXPECT_EQ(injected, ejected + in_flight);
        EXPECT_EQ(in_flight, 0u) << "the run ended with packets in the network";
        // At load 0.1 a packet finds its injection port free when it is created, so nothing is
        // left in a source queue when injection stops and every measured packet is delivered.
        EXPECT_EQ(count(s, "packets_queued"), 0u);
        EXPECT_GT(count(s, "measured_created"), 0u);
        EXPECT_EQ(count(s, "measured_delivered"), count(s, "measured_created"));
        // Below saturation the network accepts what is offered (measured: within 2%).
        EXPECT_NEAR(value(s, "accepted_load"), value(s, "offered_load"),
                    0.05 * value(s, "offered_load"));
        ++runs;
      }
    }
  }
  EXPECT_GE(runs, 24);
}

// The engine's packet-hop count (Component::work_done, /engine) against the packets' own
// record: with no warm-up every packet is measured, so when the run drains each crossed its
// injection link, hops_mean router-to-router links on average, and its ejection link.
TEST(NetworkConservation, EngineCountsEveryPacketHop) {
  for (const test::SmallNetwork& network : test::small_networks()) {
    SCOPED_TRACE(network.family);
    Config c = conservation_config(network, routing_choices(network.family).front());
    c.set("traffic.warmup", "0cycles", "test");
    RunOptions options;
    options.progress = ProgressMode::kOff;
    const RunResult r = run_simulation(MPI_COMM_WORLD, resolve_config(registry(), c), options);
    const uint64_t delivered = count(r.summary, "measured_delivered");
    ASSERT_EQ(delivered, count(r.summary, "packets_injected"));
    ASSERT_EQ(count(r.summary, "packets_in_flight"), 0u);
    const auto router_hops =
        static_cast<uint64_t>(std::llround(value(r.summary, "hops_mean") * delivered));
    EXPECT_EQ(r.work_unit, "packet_hops");
    EXPECT_EQ(r.total_work, router_hops + 2 * delivered);
  }
}

TEST(NetworkConservation, RunCutMidWindowHoldsPacketsInFlight) {
  for (const test::SmallNetwork& network : test::small_networks()) {
    SCOPED_TRACE(network.family);
    if (rank() == 0) std::printf("  %-14s", network.family.c_str());
    Config c = conservation_config(network, routing_choices(network.family).front());
    // Warm-up ends at 300 ns, the window at 1300 ns: 800 ns is in the middle of it.
    c.set("sim.end_time", "800ns", "test");
    c.set("traffic.load", "0.3", "test");
    const auto s = run(c);
    const uint64_t injected = count(s, "packets_injected");
    const uint64_t ejected = count(s, "packets_ejected");
    const uint64_t in_flight = count(s, "packets_in_flight");
    note("  %.0f injected, %.0f ejected, %.0f in flight at 800 ns\n", static_cast<double>(injected),
         static_cast<double>(ejected), static_cast<double>(in_flight));
    EXPECT_EQ(injected, ejected + in_flight);
    EXPECT_GT(in_flight, 0u);
    EXPECT_LT(count(s, "measured_delivered"), count(s, "measured_created"));
  }
}

// ---------------------------------------------------------------------------------------------
// b. Bisection bound of an 8x8 mesh under uniform traffic (Dally & Towles, ch. 3)
//
// N = 64 endpoints (one per router), k = 8. Cut the mesh between columns 3 and 4: each half has
// N/2 = 32 endpoints and k = 8 channels (one per row) cross the cut in each direction, each
// carrying at most 1 flit/cycle. Uniform traffic excludes the source itself, so a source sends
// to the other half with probability (N/2)/(N-1) = 32/63. The traffic crossing the cut in one
// direction is (N/2) * lambda * (N/2)/(N-1), and it must fit on k channels:
//     (N/2)^2 / (N-1) * lambda <= k   =>   lambda <= k (N-1) / (N/2)^2 = 8 * 63 / 1024
//                                                 = 0.4921875 flits/cycle/endpoint.
// (Under dimension-order routing the middle X channel of a row carries exactly this: the 4
// sources west of it send 32/63 of their traffic east, 4 * lambda * 32/63 <= 1.)
constexpr double kMeshBisectionBound = 8.0 * 63.0 / (32.0 * 32.0);
static_assert(kMeshBisectionBound == 0.4921875);

TEST(NetworkBounds, MeshSaturatesNearItsBisectionBound) {
  Config c;
  c.set("sim.model", "mesh", "test");
  c.set("mesh.k", "8", "test");
  c.set("mesh.n", "2", "test");
  c.set("router.vcs", "8", "test");
  c.set("router.buffer_flits", "32", "test");
  c.set("traffic.packet_flits", "4", "test");
  c.set("traffic.pattern", "uniform", "test");
  c.set("traffic.load", "0.55", "test");  // beyond saturation
  c.set("traffic.warmup", "2000cycles", "test");
  c.set("traffic.measure", "5000cycles", "test");
  const auto s = run(c);
  const double offered = value(s, "offered_load");
  const double accepted = value(s, "accepted_load");
  note("  mesh 8x8 uniform: offered %.4f, accepted %.4f, bound %.7f, accepted/bound %.4f\n",
       offered, accepted, kMeshBisectionBound, accepted / kMeshBisectionBound);
  EXPECT_GT(offered, kMeshBisectionBound) << "the run is not beyond saturation";
  // A well-built router reaches within 10% of the bound; it can never exceed it, beyond a 1%
  // allowance for the finite window (flits of packets injected in warm-up are counted when they
  // arrive inside the window, and the 5,000-cycle window's Bernoulli noise).
  EXPECT_GE(accepted, 0.9 * kMeshBisectionBound);
  EXPECT_LE(accepted, 1.01 * kMeshBisectionBound);
}

// router.arch = "ideal" (every VC head and the packets behind it bid, inputs feed several
// outputs at once) with the 3 VCs dimension-order routing is given, on 4x4 and 8x8 meshes
// beyond saturation: within 5% of the bound k (N-1) / (N/2)^2 (4x4: 0.9375), never above it
// (the 1% allowance of the test above). Measured: 0.985 and 0.989 of the bound; the default
// router reaches 0.872 and 0.878 there.
TEST(NetworkBounds, IdealRouterReachesTheMeshBisectionBound) {
  for (const int k : {4, 8}) {
    const double n = k * k, bound = k * (n - 1) / (n / 2 * n / 2);
    Config c;
    c.set("sim.model", "mesh", "test");
    c.set("mesh.k", std::to_string(k), "test");
    c.set("mesh.n", "2", "test");
    c.set("router.arch", "ideal", "test");
    c.set("router.vcs", "3", "test");
    c.set("router.buffer_flits", "32", "test");
    c.set("traffic.packet_flits", "4", "test");
    c.set("traffic.pattern", "uniform", "test");
    c.set("traffic.load", std::to_string(1.12 * bound), "test");  // beyond saturation
    c.set("traffic.warmup", "2000cycles", "test");
    c.set("traffic.measure", "5000cycles", "test");
    const auto s = run(c);
    const double accepted = value(s, "accepted_load");
    note("  ideal router, mesh %.0fx%.0f uniform: accepted %.4f, bound %.4f\n", k, k, accepted,
         bound);
    EXPECT_GE(accepted, 0.95 * bound) << k << "x" << k;
    EXPECT_LE(accepted, 1.01 * bound) << k << "x" << k;
  }
}

// ---------------------------------------------------------------------------------------------
// c. Dragonfly under the adversarial group-shift pattern (Kim, Dally, Scott & Abts, ISCA 2008)
//
// p = 2, a = 8, h = 2: g = a*h + 1 = 17 groups of a*p = 16 endpoints, 272 in all. Every
// endpoint of group i sends to group i+1; two groups share exactly one global link, so minimal
// routing pushes a whole group's traffic, 16 * lambda, over one link of 1 flit/cycle:
// lambda <= 1/(a*p) = 0.0625. Valiant and UGAL-L route via random intermediate groups, over all
// a*h = 16 global links of the group, and are limited by those (about 0.5 for Valiant).

Config dragonfly_config(const std::string& routing) {
  Config c;
  c.set("sim.model", "dragonfly", "test");
  c.set("dragonfly.p", "2", "test");
  c.set("dragonfly.a", "8", "test");
  c.set("dragonfly.h", "2", "test");
  c.set("dragonfly.routing", routing, "test");
  c.set("router.vcs", "0", "test");
  c.set("traffic.pattern", "group_shift", "test");
  c.set("traffic.load", "0.35", "test");
  c.set("traffic.warmup", "1000cycles", "test");
  c.set("traffic.measure", "3000cycles", "test");
  return c;
}

TEST(NetworkBounds, DragonflyGroupShiftNeedsNonMinimalRouting) {
  constexpr double kMinimalBound = 1.0 / (8 * 2);  // 1 / (a p)
  const auto minimal = run(dragonfly_config("minimal"));
  const auto valiant = run(dragonfly_config("valiant"));
  const auto ugal = run(dragonfly_config("ugal_l"));
  const double m = value(minimal, "accepted_load");
  const double v = value(valiant, "accepted_load");
  const double u = value(ugal, "accepted_load");
  note(
      "  dragonfly group_shift at 0.35: accepted minimal %.4f (bound %.4f), valiant %.4f, "
      "ugal_l %.4f\n",
      m, kMinimalBound, v, u);
  note("  ratios: valiant/minimal %.2f, ugal_l/minimal %.2f\n", v / m, u / m);
  EXPECT_EQ(count(minimal, "senders"), 272u);
  EXPECT_GE(m, 0.9 * kMinimalBound);
  EXPECT_LE(m, 1.1 * kMinimalBound);
  EXPECT_GE(v, 5 * m);
  EXPECT_GE(u, 5 * m);
}

// ---------------------------------------------------------------------------------------------
// Several injection/ejection channels per endpoint
//
// An ideal crossbar under the unidirectional ring pattern (every endpoint sends to the next, so no
// two sources share a destination): an endpoint with k channels of 1 flit/cycle can inject and
// eject up to k flits/cycle. With one channel the accepted load is capped at 1; with two it
// must reach the offered 1.8 (within 5%: Bernoulli noise and the finite window).

Config crossbar_ring_config(const std::string& channels) {
  Config c;
  c.set("sim.model", "crossbar", "test");
  c.set("crossbar.endpoints", "16", "test");
  c.set("crossbar.channels", channels, "test");
  c.set("traffic.pattern", "ring", "test");
  c.set("traffic.load", "1.8", "test");
  c.set("traffic.warmup", "500cycles", "test");
  c.set("traffic.measure", "2000cycles", "test");
  return c;
}

TEST(NetworkBounds, EndpointsInjectAndEjectOnEveryChannel) {
  const double one = value(run(crossbar_ring_config("1")), "accepted_load");
  const auto two = run(crossbar_ring_config("2"));
  const double accepted = value(two, "accepted_load");
  note("  crossbar ring at 1.8: accepted %.4f with 1 channel, %.4f with 2\n", one, accepted);
  EXPECT_LE(one, 1.0 + 1e-9);
  EXPECT_GE(accepted, 0.95 * value(two, "offered_load"));
  EXPECT_EQ(count(two, "packets_injected"), count(two, "packets_ejected"));
}

// ---------------------------------------------------------------------------------------------
// d. The deadlock watchdog
//
// An 8x8 torus with dimension-order routing and no dateline VCs has cyclic channel dependencies
// around every ring; with 4-flit buffers (one packet per VC) and load 0.9 the rings fill and the
// network deadlocks. The watchdog (kept short) must stop the run with a report naming the
// blocked router and its blocked input ports / VCs. The dateline routing on the same network
// only saturates.

Config torus_watchdog_config(const std::string& routing) {
  Config c;
  c.set("sim.model", "torus", "test");
  c.set("torus.k", "8", "test");
  c.set("torus.n", "2", "test");
  c.set("torus.routing", routing, "test");
  c.set("router.buffer_flits", "4", "test");
  c.set("router.watchdog", "2000cycles", "test");
  c.set("traffic.pattern", "uniform", "test");
  c.set("traffic.load", "0.9", "test");
  c.set("traffic.warmup", "1000cycles", "test");
  c.set("traffic.measure", "3000cycles", "test");
  return c;
}

TEST(NetworkWatchdog, TorusWithoutDatelineDeadlocks) {
  bool threw = false;
  try {
    run(torus_watchdog_config("dor_no_dateline"));
  } catch (const DeadlockError& e) {
    threw = true;
    if (rank() == 0) {
      const std::string what = e.what();
      EXPECT_NE(what.find("deadlock: router"), std::string::npos) << what;
      EXPECT_NE(what.find("input port"), std::string::npos) << what;
      EXPECT_NE(what.find(" VC "), std::string::npos) << what;
      EXPECT_NE(what.find("router.watchdog = "), std::string::npos) << what;
      std::printf("  watchdog report (first line): %s\n", what.substr(0, what.find('\n')).c_str());
    }
  }
  EXPECT_TRUE(threw) << "the dateline-free torus did not deadlock";
}

TEST(NetworkWatchdog, TorusWithDatelineCompletes) {
  std::vector<SummaryValue> s;
  ASSERT_NO_THROW(s = run(torus_watchdog_config("dor")));
  EXPECT_EQ(count(s, "packets_in_flight"), 0u);
  EXPECT_EQ(count(s, "packets_injected"), count(s, "packets_ejected"));
  note("  torus 8x8 dor at 0.9, 4-flit buffers: accepted %.4f\n", value(s, "accepted_load"));
}

// A router's output arbiter once kept one round-robin pointer per port. On the switch-less
// Dragonfly (2 x 2 on-chip meshes, minimal routing, which `hxsim verify` finds acyclic:
// shipped_routings_test) under a permutation at full load with one packet per VC buffer, a slow
// inter-chiplet output served an endpoint's four VCs and, between their turns, another input's
// packets on other VCs, whose grants moved the pointer past a third input every time: that
// input sent nothing for as long as the load lasted, and the watchdog reported a deadlock
// after 3,000 cycles (with its default 50,000, in a 60,000-cycle window). Each output VC now
// takes its inputs in turn (router.cpp, grant_requests), so every waiting head goes in time.
TEST(NetworkWatchdog, SaturatedSwitchlessDragonflyStarvesNoInput) {
  Config c;
  c.set("sim.model", "switchless_dragonfly", "test");
  c.set("switchless_dragonfly.n", "2", "test");
  c.set("switchless_dragonfly.m", "2", "test");
  c.set("switchless_dragonfly.a", "1", "test");
  c.set("switchless_dragonfly.b", "2", "test");
  c.set("switchless_dragonfly.chip_mesh", "2", "test");
  c.set("switchless_dragonfly.routing", "minimal", "test");
  c.set("router.buffer_flits", "4", "test");
  c.set("router.watchdog", "3000cycles", "test");
  c.set("traffic.pattern", "permutation", "test");
  c.set("traffic.load", "1.0", "test");
  c.set("traffic.warmup", "200cycles", "test");
  c.set("traffic.measure", "3000cycles", "test");
  std::vector<SummaryValue> s;
  ASSERT_NO_THROW(s = run(c)) << "an input waited 3,000 cycles on a deadlock-free network";
  EXPECT_EQ(value(s, "unstable"), 1);  // saturated, as the case needs
  EXPECT_EQ(count(s, "packets_in_flight"), 0u);
}

}  // namespace
}  // namespace hx
