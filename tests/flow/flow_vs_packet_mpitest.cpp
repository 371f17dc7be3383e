// The flow level against the packet level on the same configs (docs/VALIDATION.md, "Flow level
// against packet level"): a bandwidth-bound ring all-reduce on a 4 x 4 torus, where neighbours
// exchange over links of their own, must take the same time at both fidelities (within 1%;
// measured: equal to 10 ps in 491.7 us), and both must complete every program. Any rank count
// gives the same figures, so every rank checks them.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "core/params.h"
#include "network/small_networks.h"
#include "support/run_summary.h"

namespace hx {
namespace {

Config ring_allreduce(const std::string& fidelity) {
  Config c;
  c.set("sim.model", "torus", "test");
  c.set("sim.fidelity", fidelity, "test");
  c.set("torus.k", "4", "test");
  c.set("torus.n", "2", "test");
  c.set("router.flit_size", "64B", "test");
  c.set("router.buffer_flits", "128", "test");
  c.set("traffic.packet_flits", "64", "test");
  c.set("traffic.flows", "none", "test");
  c.set("workload.kind", "collective", "test");
  c.set("workload.collective", "all_reduce", "test");
  c.set("workload.algorithm", "ring", "test");
  c.set("workload.bytes", "16MiB", "test");
  return c;
}

TEST(FlowVsPacket, RingAllReduceOnATorusTakesTheSameTime) {
  const auto packet = testing::run_summary(test::registry(), ring_allreduce("packet"));
  const auto flow = testing::run_summary(test::registry(), ring_allreduce("flow"));
  EXPECT_EQ(testing::summary_value(packet, "workload_complete"), 1);
  EXPECT_EQ(testing::summary_value(flow, "workload_complete"), 1);
  const double p = testing::summary_value(packet, "workload_end_ps");
  const double f = testing::summary_value(flow, "workload_end_ps");
  EXPECT_NEAR(f, p, 0.01 * p);
  // And the α–β model of the collective, which both follow when bandwidth-bound.
  EXPECT_NEAR(f, testing::summary_value(flow, "workload_analytic_ps"), 0.01 * p);
}

// Two ring all-reduces per row of a 16 x 16 torus, the even and the odd endpoints
// (`workload.groups = "8:2"`): every step crosses two links, each shared by a step of either
// ring, so the flow level gives each half a link and takes twice the α–β bandwidth time.
// With 16-packet buffers the packet level agrees (measured +1.5%; 2% allowed). With 2-packet
// buffers it takes 19% longer (68.3 against 57.4 us): behind the dateline an input carries one
// ring's steps and the other's wrap-around step to its end and reads one packet at a time, the
// next router's buffer mixes passing and ending packets, and the ring whose step starts at the
// dateline gets a quarter of its link (docs/VALIDATION.md, "Rings that share links").
Config interleaved_rings(const std::string& fidelity, const std::string& buffer_flits) {
  Config c = ring_allreduce(fidelity);
  c.set("torus.k", "16", "test");
  c.set("router.buffer_flits", buffer_flits, "test");
  c.set("workload.bytes", "1MiB", "test");
  c.set("workload.groups", "8:2", "test");
  return c;
}

// The run's workload time, once every program has completed.
double completed_end_ps(const Config& c, double* analytic_ps = nullptr) {
  const auto s = testing::run_summary(test::registry(), c);
  EXPECT_EQ(testing::summary_value(s, "workload_complete"), 1);
  if (analytic_ps != nullptr) *analytic_ps = testing::summary_value(s, "workload_analytic_ps");
  return testing::summary_value(s, "workload_end_ps");
}

TEST(FlowVsPacket, RingsSharingLinksTakeTheSameTimeWithDeepBuffers) {
  double analytic = 0;
  const double f = completed_end_ps(interleaved_rings("flow", "1024"), &analytic);
  EXPECT_NEAR(f, 2 * analytic, 0.01 * f);
  const double p = completed_end_ps(interleaved_rings("packet", "1024"));
  EXPECT_NEAR(f, p, 0.02 * p);
  // Shallow buffers cost the packet level time the fluid cannot see.
  EXPECT_GT(completed_end_ps(interleaved_rings("packet", "128")), 1.1 * p);
}

// A ring all-reduce over the 64 GPUs of a rail-only network (8 HB domains of 8; the steps into
// the next domain are forwarded by a GPU and cross the slower rails, so steps pile up before
// them). With one injection queue a pair has one message in flight and both levels take the
// same time (measured: equal to 1 ps in 258.1 us). At packet level, 4,096-flit buffers hold an
// earlier step's packets ahead of a later one's, so 8 queues take that time too; the flow
// level shares the pile evenly instead (344.5 us; docs/VALIDATION.md, "Rings whose neighbours
// share a link").
Config rail_only_ring(const std::string& fidelity, const std::string& queues) {
  Config c;
  c.set("sim.model", "rail_only", "test");
  c.set("sim.fidelity", fidelity, "test");
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"gpus", "64"},
                                                        {"hb_size", "8"},
                                                        {"hb", "nvswitch"},
                                                        {"hb_leaf_gpus", "4"},
                                                        {"hb_spines", "2"},
                                                        {"radix", "4"},
                                                        {"forwarding", "alternate"},
                                                        {"hb_speed", "4.0"},
                                                        {"endpoint_speed", "5.0"}}) {
    c.set("rail_only." + key, value, "test");
  }
  c.set("router.buffer_flits", "4096", "test");
  c.set("traffic.packet_flits", "16", "test");
  c.set("traffic.flows", "none", "test");
  c.set("workload.kind", "collective", "test");
  c.set("workload.collective", "all_reduce", "test");
  c.set("workload.algorithm", "ring", "test");
  c.set("workload.bytes", "1MiB", "test");
  c.set("workload.injection_queues", queues, "test");
  return c;
}

TEST(FlowVsPacket, ForwardedRingStepsTakeTheSameTimeOneAtATime) {
  const double p = completed_end_ps(rail_only_ring("packet", "1"));
  EXPECT_NEAR(completed_end_ps(rail_only_ring("flow", "1")), p, 0.01 * p);
  EXPECT_NEAR(completed_end_ps(rail_only_ring("packet", "8")), p, 0.01 * p);
}

// An LLM iteration on InfiniteHBD (16 nodes of 4 GPUs, K = 2, rings of 8; GPT-3 cut to 2 layers
// with TP 2 x CP 2 x EP 2 x DP 8: `scripts/fuzz.py llm --seed 8307`, case 47). With one message
// of an endpoint in flight at a time, and buffers deep enough to hold what a router receives,
// the levels agree (measured: 304.8 against 303.9 us, +0.3%; 2% allowed). With the default 8
// injection queues the packet level's time stays (303.4 us) while messages in flight together
// share the links evenly at flow level and its DP all-reduces take longer (418.9 us;
// docs/VALIDATION.md, "LLM iterations on the papers' architectures").
Config infinitehbd_iteration(const std::string& fidelity, const std::string& queues) {
  Config c;
  c.set("sim.model", "infinitehbd", "test");
  c.set("sim.fidelity", fidelity, "test");
  const std::vector<std::pair<std::string, std::string>> settings = {
      {"infinitehbd.nodes", "16"},
      {"infinitehbd.gpus_per_node", "4"},
      {"infinitehbd.k", "2"},
      {"infinitehbd.tp", "8"},
      {"router.buffer_flits", "8192"},
      {"traffic.flows", "none"},
      {"workload.kind", "llm"},
      {"workload.injection_queues", queues},
      {"llm.preset", "gpt3-175b"},
      {"llm.layers", "2"},
      {"llm.experts", "2"},
      {"llm.hidden", "64"},
      {"llm.ffn", "256"},
      {"llm.heads", "8"},
      {"llm.kv_heads", "1"},
      {"llm.vocab", "1024"},
      {"llm.seq", "32"},
      {"llm.tp", "2"},
      {"llm.cp", "2"},
      {"llm.ep", "2"},
      {"llm.dp", "8"},
      {"llm.pp", "1"},
      {"llm.micro_batches", "4"},
      {"llm.chip_flops", "1e13"},
      {"llm.top_k", "2"},
      {"llm.recompute", "selective"},
      {"llm.expert_imbalance", "0.9"},
      {"llm.dp_overlap", "true"},
      {"llm.tp_algorithm", "direct"},
      {"llm.micro_batch", "1"},
      {"llm.dp_algorithm", "hierarchical"},
      {"llm.dp_bucket", "0B"},
      {"llm.optimizer_step", "true"}};
  for (const auto& [key, value] : settings) c.set(key, value, "test");
  return c;
}

TEST(FlowVsPacket, AnInfiniteHbdIterationTakesTheSameTimeOneMessageAtATime) {
  const double p = completed_end_ps(infinitehbd_iteration("packet", "1"));
  EXPECT_NEAR(completed_end_ps(infinitehbd_iteration("flow", "1")), p, 0.02 * p);
  EXPECT_NEAR(completed_end_ps(infinitehbd_iteration("packet", "8")), p, 0.02 * p);
  EXPECT_GT(completed_end_ps(infinitehbd_iteration("flow", "8")), 1.2 * p);
}

// The trace `csv` in one file for all ranks, named after rank 0's process; rank 0 removes it
// when the returned guard goes.
struct SharedTrace {
  std::string path;
  int rank = 0;
  SharedTrace(const char* name, const std::string& csv) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long pid = static_cast<long>(::getpid());
    MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    path = ::testing::TempDir() + name + std::to_string(pid) + ".csv";
    if (rank == 0) std::ofstream(path) << "id,src,dst,bytes,start,deps\n" << csv;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  ~SharedTrace() {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) std::remove(path.c_str());
  }
};

// Runs the trace `csv` on the network `net` (key, value pairs) at packet and at flow level: each
// completes, and the flow level takes the packet level's time within 1%.
void expect_trace_takes_the_same_time(const char* name, const std::string& csv,
                                      const std::vector<std::pair<std::string, std::string>>& net) {
  const SharedTrace trace(name, csv);
  const std::string& path = trace.path;
  double end[2];
  int i = 0;
  for (const char* fidelity : {"packet", "flow"}) {
    Config c;
    for (const auto& [key, value] : net) c.set(key, value, "test");
    c.set("sim.fidelity", fidelity, "test");
    c.set("workload.kind", "trace", "test");
    c.set("workload.trace", path, "test");
    const auto s = testing::run_summary(test::registry(), c);
    EXPECT_EQ(testing::summary_value(s, "workload_complete"), 1) << fidelity;
    end[i++] = testing::summary_value(s, "workload_end_ps");
  }
  EXPECT_NEAR(end[1], end[0], 0.01 * end[0]);
}

TEST(FlowVsPacket, ATraceWithASendToItselfTakesTheSameTime) {
  // Out to the router and back, as the packet level routes it; then an ordinary flow.
  expect_trace_takes_the_same_time("flow_self_", "1,0,0,64KiB,0,\n2,0,1,64KiB,0,1\n",
                                   {{"sim.model", "mesh"}});
}

// The fabric has a port per endpoint, more than events can name (kWidePort): a chain of small
// messages from and to endpoints past it on a 257 x 257 torus (66,049 endpoints) reaches each
// sender and receiver, and takes the packet level's time (latency-bound: 244.004 ns against
// 244 ns).
TEST(FlowVsPacket, EndpointsPastTheWidestPortTakeTheSameTime) {
  expect_trace_takes_the_same_time(
      "flow_wide_",
      "1,66048,0,64B,0,\n2,0,66047,64B,0,1\n3,66047,300,64B,0,2\n4,300,65534,64B,0,3\n",
      {{"sim.model", "torus"}, {"torus.k", "257"}, {"torus.n", "2"}});
}

// The summaries of one network (key, value pairs) at packet level [0] and at flow level [1].
std::array<std::vector<SummaryValue>, 2> at_both_fidelities(
    const std::vector<std::pair<std::string, std::string>>& settings) {
  std::array<std::vector<SummaryValue>, 2> s;
  int i = 0;
  for (const char* fidelity : {"packet", "flow"}) {
    Config c;
    for (const auto& [key, value] : settings) c.set(key, value, "test");
    c.set("sim.fidelity", fidelity, "test");
    s[i++] = testing::run_summary(test::registry(), c);
  }
  return s;
}

// Synthetic traffic below saturation (uniform at 0.3 on the 8x8 mesh, dimension order): both
// fidelities draw the same messages from the same random stream (offered load equal to the
// bit), both carry all of it (accepted = offered within 1%, the definition of below
// saturation), over the same paths (mean hops equal: one path per pair). Latencies differ by
// design (docs/VALIDATION.md: measured +13.5% at flow level); both stay above the zero-load
// latency of the mean path.
TEST(FlowVsPacket, SyntheticTrafficBelowSaturationCarriesTheSameMessages) {
  const auto s = at_both_fidelities({{"sim.model", "mesh"},
                                     {"mesh.k", "8"},
                                     {"mesh.n", "2"},
                                     {"traffic.pattern", "uniform"},
                                     {"traffic.load", "0.3"},
                                     {"traffic.warmup", "1000cycles"},
                                     {"traffic.measure", "3000cycles"}});
  const auto v = [&](int k, const char* name) { return testing::summary_value(s[k], name); };
  EXPECT_EQ(v(1, "offered_load"), v(0, "offered_load"));
  for (int k = 0; k < 2; ++k) {
    EXPECT_NEAR(v(k, "accepted_load"), v(k, "offered_load"), 0.01 * v(k, "offered_load")) << k;
    // Zero load: a hop per router (1-cycle links) plus the packet's 4 flits.
    EXPECT_GT(v(k, "latency_mean_ps"), (v(k, "hops_mean") + 4) * 1000) << k;
  }
  EXPECT_DOUBLE_EQ(v(1, "hops_mean"), v(0, "hops_mean"));
}

// Messages of 3 packets (tornado at 0.1 on a 4-ary 2-torus, two endpoints per router): the flow
// level spreads a message's packets over the time its bytes take to leave, so each packet has
// its own latency, and both means agree with the packet level's within 10% (measured +3.6% and
// +1.7%; with every packet at its message's latency they were +35% and +88%).
TEST(FlowVsPacket, PacketsOfAMessageHaveTheirOwnLatencies) {
  const auto s = at_both_fidelities({{"sim.model", "torus"},
                                     {"sim.seed", "3"},
                                     {"torus.k", "4"},
                                     {"torus.n", "2"},
                                     {"torus.c", "2"},
                                     {"torus.routing", "dor"},
                                     {"router.buffer_flits", "8"},
                                     {"traffic.pattern", "tornado"},
                                     {"traffic.load", "0.1"},
                                     {"traffic.message_packets", "3"},
                                     {"traffic.warmup", "300cycles"},
                                     {"traffic.measure", "1200cycles"}});
  const auto v = [&](int k, const char* name) { return testing::summary_value(s[k], name); };
  for (const char* mean : {"latency_mean_ps", "network_latency_mean_ps"}) {
    EXPECT_NEAR(v(1, mean), v(0, mean), 0.1 * v(0, mean)) << mean;
  }
}

// A flow-level run of the trace at `path` on a 2 x 1 mesh: two endpoints, one link each way.
Config trace_between_two_endpoints(const std::string& path) {
  Config c;
  c.set("sim.model", "mesh", "test");
  c.set("sim.fidelity", "flow", "test");
  c.set("mesh.k", "2", "test");
  c.set("mesh.n", "1", "test");
  c.set("workload.kind", "trace", "test");
  c.set("workload.trace", path, "test");
  return c;
}

// One message of 1 TB between the two endpoints of a 2 x 1 mesh (256-byte flits, so that one
// message may carry it), alone on its links: about a billion packets whose latencies, spread
// over the 3.9 s the bytes take, sum to about 1.9 x 10^21 ps, past 64 bits. The mean latency is
// half the spread (within 0.1%; the path latency is nanoseconds): wide sums (stats.h, kWide)
// keep it, where int64 sums wrapped (a mean of 15 ms). The histogram holds seconds in its
// octaves' bins: the packets in 8 runs, each at the latency of one of its packets, reach half
// of them with the fourth run, between 3/8 and 4/8 of the spread, and 99% with the eighth,
// between 7/8 and 8/8; each percentile is the upper edge of a bin at most 1/64 of its latency
// wide (an open last bin from 10 us on read 9,999 ns).
TEST(FlowLevel, LatencySumsOfBillionsOfPacketsDoNotOverflow) {
  const SharedTrace trace("flow_huge_", "1,0,1,1TB,0,\n");
  Config c = trace_between_two_endpoints(trace.path);
  c.set("router.flit_size", "256B", "test");
  const auto s = testing::run_summary(test::registry(), c);
  ASSERT_EQ(testing::summary_value(s, "workload_complete"), 1);
  const double end = testing::summary_value(s, "workload_end_ps");
  EXPECT_GT(end, 1e12);  // over a second
  EXPECT_NEAR(testing::summary_value(s, "latency_mean_ps"), end / 2, 1e-3 * end / 2);
  for (const auto& [name, run] : {std::pair{"latency_p50_ps", 3.0}, {"latency_p99_ps", 7.0}}) {
    const double p = testing::summary_value(s, name);
    EXPECT_GE(p, run / 8 * end * (1 - 1e-3)) << name;
    EXPECT_LE(p, (run + 1) / 8 * end * (1 + 1.0 / 64) * (1 + 1e-3)) << name;
  }
}

// 256 equal messages of 4 MB, each alone on its link (1 ms apart on a 2 x 1 mesh): their
// packets' latencies are uniform over the same spread, so the true median is the path's
// latency plus half of it. The histogram counts each of a message's 8 runs at one packet,
// (2v + 1) / 16 of the way through the run for a v in 0..7 by a hash of the message: half the
// packets are counted by the end of the fourth run, at most 1/16 of a run (1/128 of the
// spread) before the middle. So the p50 lies at most 1/128 of the spread below the median, or
// up to the bin's 1/64 of the latency above it; counted at each run's middle packet (3.5 / 8
// of the spread) or its first it would be 1/16 or 1/8 of the spread short.
TEST(FlowLevel, EqualMessagesSpreadOverTheHistogram) {
  std::string csv;
  for (int m = 1; m <= 256; ++m)
    csv += std::to_string(m) + ",0,1,4MB," + std::to_string(m) + "ms,\n";
  const SharedTrace trace("flow_equal_", csv);
  const auto s = testing::run_summary(test::registry(), trace_between_two_endpoints(trace.path));
  ASSERT_EQ(testing::summary_value(s, "workload_complete"), 1);
  // Uniform latencies: the median is the mean (exact, from the sums), and the spread at most
  // twice it, so 1/128 of the spread is at most 1/64 of the median.
  const double median = testing::summary_value(s, "latency_mean_ps");
  EXPECT_GT(median, 1e8);  // 100 us: in the octaves' bins
  const double p50 = testing::summary_value(s, "latency_p50_ps");
  EXPECT_GE(p50, median * (1 - 1.0 / 64));
  EXPECT_LE(p50, median * (1 + 1.0 / 64));
}

// Folding: TP4 x DP4 x PP2 on the 32 GPUs of a rail-optimized fat tree folds (16 endpoints per
// orbit, tests/determinism/flow_fold_llm.toml); with DP2 the job leaves half the endpoints idle,
// which no relabelling of the job's ranks covers, so it runs unfolded, to completion.
TEST(FlowVsPacket, AJobOnPartOfTheEndpointsRunsUnfolded) {
  for (const char* dp : {"4", "2"}) {
    Config c;
    c.set("sim.model", "rail_optimized", "test");
    c.set("sim.fidelity", "flow", "test");
    c.set("rail_optimized.nodes", "8", "test");
    c.set("rail_optimized.gpus_per_node", "4", "test");
    c.set("rail_optimized.nodes_per_leaf", "4", "test");
    c.set("rail_optimized.spines", "2", "test");
    c.set("rail_optimized.spine_links", "1", "test");
    c.set("workload.kind", "llm", "test");
    for (const auto& [key, value] :
         {std::pair{"layers", "4"}, {"hidden", "256"}, {"ffn", "1024"}, {"heads", "8"},
          {"kv_heads", "8"}, {"vocab", "1024"}, {"seq", "128"}, {"tp", "4"}, {"pp", "2"},
          {"micro_batches", "2"}}) {
      c.set(std::string("llm.") + key, value, "test");
    }
    c.set("llm.dp", dp, "test");
    const auto s = testing::run_summary(test::registry(), c);
    EXPECT_EQ(testing::summary_value(s, "workload_complete"), 1) << dp;
    EXPECT_EQ(testing::summary_value(s, "folded_members"), std::string(dp) == "4" ? 16 : 1);
  }
}

TEST(FlowVsPacket, PholdAndUnknownFidelitiesAreRefused) {
  Config phold;
  phold.set("sim.model", "phold", "test");
  phold.set("sim.end_time", "1us", "test");
  phold.set("sim.fidelity", "flow", "test");
  EXPECT_THROW(resolve_config(test::registry(), phold), InputError);
  Config bad;
  bad.set("sim.model", "mesh", "test");
  bad.set("sim.fidelity", "fluid", "test");
  EXPECT_THROW(resolve_config(test::registry(), bad), InputError);
}

}  // namespace
}  // namespace hx
