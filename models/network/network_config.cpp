// Declarations and resolution of the [router] and [traffic] sections. Defaults follow the
// papers' simulation set-ups (RailX Table 5, switch-less Dragonfly Table IV).
#include "models/network/network_config.h"

#include "core/error.h"
#include "models/traffic/bit_permutation.h"
#include "models/traffic/pattern.h"

namespace hx::net {

std::vector<ParamSpec> router_params() {
  return {
      ParamSpec::integer(
          "vcs", 0,
          "virtual channels per port; 0: as many as the routing needs. More are shared out "
          "round-robin over the routing's VC classes (VC v serves class v % classes)")
          .range(0, 32),
      ParamSpec::integer("buffer_flits", 32,
                         "input buffer per virtual channel, in flits (papers: 16 or 32)")
          .range(1, 1 << 20),
      ParamSpec::time("pipeline_delay", "1cycles",
                      "router pipeline: from a head flit's arrival to its earliest departure"),
      ParamSpec::choice("arch", "input_queued", {"input_queued", "ideal"},
                        "router microarchitecture: input_queued, one packet read out of an input "
                        "at a time and one VC head bidding per input and round; ideal, every VC "
                        "head bids and an input feeds several outputs at once (internal speedup), "
                        "rounds repeating until one grants nothing (docs/MODELS.md)"),
      ParamSpec::integer("look_behind", 64,
                         "ideal: packets of a VC's queue that may bid, head included (virtual "
                         "output queues that deep); deeper queues cost allocation time")
          .range(1, 65535),
      ParamSpec::bytes("flit_size", "8B", "bytes per flit (RailX: 8B); only scales byte counts"),
      ParamSpec::time("watchdog", "50000cycles",
                      "deadlock watchdog: a router that holds packets and moves none for this "
                      "long stops the run with a report (exit code 4)"),
  };
}

std::vector<ParamSpec> traffic_params() {
  return {
      ParamSpec::choice("pattern", "uniform", pattern_names(), "synthetic traffic pattern"),
      ParamSpec::real("load", 0.1, "offered load in flits/cycle per endpoint (Bernoulli)")
          .range(0, 64),
      ParamSpec::integer("packet_flits", 4, "flits per packet (papers: 4)").range(1, 1024),
      ParamSpec::integer("message_packets", 1, "packets per message (one /flows row each)")
          .range(1, 1 << 20),
      ParamSpec::time("warmup", "5000cycles", "warm-up before measurement (papers: 5,000 cycles)"),
      ParamSpec::time("measure", "10000cycles",
                      "measurement window (papers: 10,000 cycles); at its end the endpoints stop "
                      "generating messages"),
      ParamSpec::time("drain_limit", "5000cycles",
                      "after the window, endpoints keep injecting what is queued for at most "
                      "this long, then drop the rest (packets_queued); the network then drains"),
      ParamSpec::integer("source_queue_limit", 1000,
                         "packets a source queue holds at most; a message that would exceed it "
                         "is not offered (packets_not_offered) and the run is unstable. Stable "
                         "queues stay far shorter; this caps the memory of runs beyond "
                         "saturation (workload programs are not limited)")
          .range(1, 1e9),
      ParamSpec::flag("stop_unstable", false,
                      "the run ends at the first source-queue sample (the ends of the eighths of "
                      "the window) at which it is found unstable, with /summary ended_early = 1 "
                      "and rates over the part of the window it reached (hxsim sweep sets it)"),
      ParamSpec::integer("hotspot_groups", 4,
                         "hotspot pattern: endpoint groups [0, n) talk among themselves")
          .range(1, 1e9),
      ParamSpec::integer("block", 0,
                         "0: the pattern spans the whole system; B: it acts independently inside "
                         "each run of B consecutive endpoints (B >= 2 divides the endpoint count; "
                         "patterns defined by the endpoint count alone: uniform, the bit "
                         "permutations, permutation, rings)")
          .range(0, 1e9),
      ParamSpec::choice("bit_fit", "exact", bit_fit_names(),
                        "bit permutations (bit_complement, bit_reverse, bit_shuffle, transpose) "
                        "on an endpoint count (or block) that is not a power of two (transpose: "
                        "4^k): exact refuses it; general uses the permutation the name denotes "
                        "for any count (N - 1 - x, mixed-radix digit reversal, perfect shuffle, "
                        "R x C matrix transpose), the bit pattern itself on powers of two; "
                        "truncate applies it to the low floor(log2 N) bits, as the switch-less "
                        "Dragonfly paper's simulator does (not a permutation)"),
      ParamSpec::integer("ring_unit", 1,
                         "ring and bidirectional_ring: the ring steps between units of this many "
                         "consecutive endpoints (a chip's cores), endpoint o of a unit sending to "
                         "endpoint o of the next unit; 1: a ring of endpoints")
          .range(1, 1e9),
      ParamSpec::choice("ring_order", "linear", {"linear", "gray"},
                        "ring and bidirectional_ring: the order of the units on the ring, by "
                        "index or in binary-reflected Gray-code order (neighbouring units differ "
                        "in one index bit: a ring around a 2 x 2 block of chiplets)"),
      ParamSpec::choice("flows", "measured", {"none", "measured", "all"},
                        "which messages get a row in /flows"),
      ParamSpec::integer("histogram_bins", 10000,
                         "/latency_histogram bins of one cycle each; latencies beyond them fall "
                         "in bins 1/64 of an octave wide")
          .range(1, 1e7),
      ParamSpec::time("timeseries_bin", "0ps",
                      "width of the /timeseries bins (flits delivered and injected, packets "
                      "lost, per bin over the whole run); 0: no time series"),
  };
}

RouterConfig router_config_from(const ParamSet& p, uint8_t routing_vcs,
                                const std::string& routing_name) {
  RouterConfig c;
  const auto vcs = static_cast<uint8_t>(p.integer("vcs"));
  if (vcs != 0 && vcs < routing_vcs) {
    throw InputError("router.vcs = " + std::to_string(vcs) + ": routing '" + routing_name +
                     "' needs at least " + std::to_string(routing_vcs) +
                     " virtual channels (or set 0 for exactly that many)");
  }
  c.vcs = vcs == 0 ? routing_vcs : vcs;
  if (c.vcs > 32) {  // the router keeps a 32-bit mask of busy VCs per input
    throw InputError("routing '" + routing_name + "' needs " + std::to_string(c.vcs) +
                     " virtual channels; the router supports at most 32");
  }
  c.buffer_flits = static_cast<uint32_t>(p.integer("buffer_flits"));
  c.pipeline = p.time("pipeline_delay");
  c.ideal = p.text("arch") == "ideal";
  c.look_behind = static_cast<uint32_t>(p.integer("look_behind"));
  c.flit_bytes = p.bytes("flit_size").count();
  c.watchdog = p.time("watchdog");
  if (c.flit_bytes == 0) throw InputError("router.flit_size = 0B: expected at least 1B");
  if (c.watchdog <= SimTime::zero()) {
    throw InputError("router.watchdog = " + format_time(c.watchdog) + ": expected a time > 0");
  }
  return c;
}

TrafficConfig traffic_config_from(const ParamSet& p) {
  TrafficConfig c;
  c.pattern = p.text("pattern");
  c.load = p.real("load");
  c.packet_flits = static_cast<uint16_t>(p.integer("packet_flits"));
  c.message_packets = static_cast<uint32_t>(p.integer("message_packets"));
  c.warmup = p.time("warmup");
  c.measure = p.time("measure");
  c.drain_limit = p.time("drain_limit");
  c.source_queue_limit = static_cast<uint64_t>(p.integer("source_queue_limit"));
  c.stop_unstable = p.flag("stop_unstable");
  c.hotspot_groups = static_cast<uint32_t>(p.integer("hotspot_groups"));
  c.block = static_cast<uint32_t>(p.integer("block"));
  c.bit_fit = p.text("bit_fit");
  c.ring_unit = static_cast<uint32_t>(p.integer("ring_unit"));
  c.ring_order = p.text("ring_order");
  const std::string& flows = p.text("flows");
  c.flows = flows == "none"  ? FlowRecords::kNone
            : flows == "all" ? FlowRecords::kAll
                             : FlowRecords::kMeasured;
  c.histogram_bins = static_cast<uint32_t>(p.integer("histogram_bins"));
  c.timeseries_bin = p.time("timeseries_bin");
  if (c.measure <= SimTime::zero()) {
    throw InputError("traffic.measure = " + format_time(c.measure) + ": expected a time > 0");
  }
  return c;
}

}  // namespace hx::net
