// What every router and endpoint of one network model shares, read-only: the topology, the
// routing, the traffic pattern, the resolved [router] and [traffic] sections, and the timing
// derived from them. Owned by the NetworkModel, which outlives the components.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "core/error.h"
#include "core/units.h"
#include "models/network/element.h"
#include "models/network/latency_bins.h"
#include "models/network/network_config.h"
#include "models/network/routing.h"
#include "models/network/topology.h"
#include "models/traffic/pattern.h"
#include "models/workloads/program.h"

namespace hx::flow {
class Folding;  // models/flow/folding.h
}  // namespace hx::flow

namespace hx::net {

class Faults;  // faults.h

/// Event kinds of the network components.
enum EventKind : uint16_t {
  kPacketArrival = 1,  // payload Packet: a head flit arrives, at a router once it has
                       // crossed the pipeline (its tail stream_ps later)
  kCreditArrival,      // payload Credit: buffer space freed downstream
  kAllocate,           // router: run the allocators
  kWatchdog,           // router: check for lack of progress
  kGenerate,           // endpoint: a new message
  kInject,             // endpoint: try to inject from the source queue
  kStopInjection,      // endpoint: the drain limit is over; drop the source queue
  kOpDone,             // endpoint, payload uint32_t: a program op's time is up
  kMessageDone,        // endpoint, payload MessageDone: a message's last tail has arrived
  kFaultChange,        // router, endpoint: a link or the component itself fails or comes back
};

struct Credit {
  uint16_t flits = 0;
  uint8_t vc = 0;
};

struct MessageDone {
  uint64_t message = 0;
  SimTime path_compute;
  uint32_t src = 0;
};

/// A router's allocation request: the packet `depth` places behind the head of VC `vc` at
/// input `input` (0: the head) asks for `candidate`.
struct Request {
  PortId input;
  uint8_t vc;
  Candidate candidate;
  uint16_t depth = 0;
};

/// Scratch space of a router's allocation round. Each round clears `candidates` and
/// `requests` before use and leaves `grant` and `vc_grant` all -1, as it found them.
struct RouterScratch {
  Candidates candidates;
  std::vector<Request> requests;
  std::vector<int32_t> grant;   // [output port]: the request granted in this round, or -1
  std::vector<int32_t> vc_grant;  // [port * vcs + vc]: the request first in that VC's turn
  std::vector<PortId> claimed;    // router.arch = "ideal": outputs of the packets ahead
  std::vector<uint8_t> settled;   // router.arch = "ideal": [port * vcs + vc] proposes no more
};

struct NetworkContext {
  const Topology* topology = nullptr;
  const Routing* routing = nullptr;
  const TrafficPattern* pattern = nullptr;  // synthetic traffic, or
  const wl::Workload* workload = nullptr;   // message-DAG programs (then pattern is unused)
  const flow::Folding* folding = nullptr;   // flow level: one endpoint per orbit, or nullptr
  const Faults* faults = nullptr;           // the fault schedule, or nullptr when there is none
  std::vector<SwitchingElement> elements;   // what components can be built as
  RouterConfig router;
  TrafficConfig traffic;
  SimTime cycle;
  LatencyBins latency_bins{SimTime::ps(1), 1};  // of /latency_histogram, from cycle and traffic
  uint32_t injection_queues = 1;  // messages an endpoint injects at once, taking turns
  bool traffic_matrix = false;    // workloads: endpoints write /traffic_matrix rows
  std::vector<SimTime> per_flit;  // per link class: serialisation time of one flit
  SimTime window_begin;           // measurement window [begin, end)
  SimTime window_end;
  // Shared by the rank's routers: one works at a time. One block that stays in cache, instead
  // of one per router that each decision must first bring in (a rank can hold tens of
  // thousands of routers).
  mutable RouterScratch scratch;

  /// The element component `id` is built as: "endpoint" for endpoints, the topology's choice
  /// for routers. Construction only (it compares names).
  const SwitchingElement& element_of(ComponentId id) const {
    const Node n = topology->node(id);
    return element(n.kind == NodeKind::kEndpoint ? "endpoint" : topology->switch_element(n.index));
  }
  /// InputError naming the known elements if there is none of that name.
  const SwitchingElement& element(const std::string& name) const {
    std::string known;
    for (const SwitchingElement& e : elements) {
      if (e.name == name) return e;
      known += (known.empty() ? "" : ", ") + e.name;
    }
    throw InputError("unknown switching element '" + name + "' (known: " + known + ")");
  }

  uint64_t timeseries_bins = 0;  // rows of /timeseries (0: traffic.timeseries_bin = 0)
  /// What observation k (Model::observation_times) is for: the source-queue sample it takes
  /// (a /queue_samples row) and the /timeseries bin it ends (-1: none).
  struct Observation {
    int32_t queue_sample = -1;
    int64_t bin_end = -1;
  };
  std::vector<Observation> observations;

  bool in_window(SimTime t) const { return t >= window_begin && t < window_end; }
  /// The /timeseries row of time t (the last row takes what lies beyond).
  uint64_t timeseries_row(SimTime t) const {
    return std::min<uint64_t>(
        static_cast<uint64_t>(t.count_ps() / traffic.timeseries_bin.count_ps()),
        timeseries_bins - 1);
  }
  /// Latency classes of /timeseries_latency: class 0 holds latencies under 1 ns, class c >= 1
  /// those in [2^(c-1), 2^c) ns, the last class everything longer.
  static constexpr uint32_t kLatencyClasses = 32;
  /// The end of the /timeseries row holding t (infinity for the last row).
  SimTime timeseries_row_end(SimTime t) const {
    const uint64_t row = timeseries_row(t);
    if (row + 1 == timeseries_bins) return SimTime::infinity();
    return SimTime::ps(traffic.timeseries_bin.count_ps() * static_cast<int64_t>(row + 1));
  }
  /// The /timeseries_links row of a packet whose head entered a link of class c at `t`.
  uint64_t timeseries_link_row(SimTime t, uint16_t c) const {
    return timeseries_row(t) * per_flit.size() + c;
  }
  /// The /timeseries_latency row of a packet that arrived at `t` after `latency`.
  uint64_t timeseries_latency_row(SimTime t, SimTime latency) const {
    return timeseries_row(t) * kLatencyClasses + latency_class(latency);
  }
  static uint32_t latency_class(SimTime latency) {
    const auto ns = static_cast<uint64_t>(std::max<int64_t>(latency.count_ps(), 0)) / 1000;
    return ns == 0 ? 0 : std::min<uint32_t>(std::bit_width(ns), kLatencyClasses - 1);
  }
  /// The end of the latency class holding `latency` (infinity for the last class).
  static SimTime latency_class_end(SimTime latency) {
    const uint32_t c = latency_class(latency);
    if (c + 1 == kLatencyClasses) return SimTime::infinity();
    return SimTime::ns(int64_t{1} << c);
  }
  /// Length of the window as far as a run that reached `now` has seen it (a workload's window
  /// is open-ended).
  double window_length(SimTime now) const {
    return static_cast<double>((std::min(window_end, now) - window_begin).count_ps());
  }
  /// Length of [from, to) that falls inside the window.
  SimTime window_overlap(SimTime from, SimTime to) const {
    return std::max(SimTime::zero(), std::min(to, window_end) - std::max(from, window_begin));
  }
};

/// Per-link counters kept by the link's sender, for the /links table.
struct LinkStats {
  uint64_t packets = 0;
  uint64_t flits = 0;
  SimTime busy;   // within the window
  SimTime stall;  // waiting for credits, within the window

  /// A packet's head enters the link at `head`, its tail at `tail`.
  void record(const NetworkContext& net, SimTime head, SimTime tail, uint32_t flits_sent) {
    if (net.in_window(head)) {
      ++packets;
      flits += flits_sent;
    }
    busy += net.window_overlap(head, tail);
  }
};

}  // namespace hx::net
