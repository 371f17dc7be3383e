// The shared [router] and [traffic] sections of every network model, resolved into plain values
// the router and endpoint read on their hot paths.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/params.h"
#include "core/units.h"

namespace hx::net {

struct RouterConfig {
  uint8_t vcs = 0;            // virtual channels per port
  uint32_t buffer_flits = 0;  // input buffer depth per VC
  SimTime pipeline;           // head arrival to earliest departure
  uint64_t flit_bytes = 0;    // for byte counts only
  SimTime watchdog;           // no movement at a loaded router for this long: deadlock
  bool ideal = false;         // router.arch = "ideal" (router.h): speedup, every VC head bids
  uint32_t look_behind = 0;   // ideal: packets of a VC's queue that may bid, head included
};

/// What to keep in the per-message /flows table.
enum class FlowRecords { kNone, kMeasured, kAll };

struct TrafficConfig {
  std::string pattern;
  double load = 0;  // offered flits per cycle per endpoint
  uint16_t packet_flits = 0;
  uint32_t message_packets = 0;
  SimTime warmup;
  SimTime measure;
  SimTime drain_limit;
  uint64_t source_queue_limit = 0;  // packets per source queue (synthetic traffic)
  bool stop_unstable = false;       // end the run at the first sample that finds it unstable
  uint32_t hotspot_groups = 0;
  uint32_t block = 0;      // 0: the pattern spans the system; else per run of `block` endpoints
  std::string bit_fit;     // bit permutations on counts that are not powers of two (pattern.h)
  uint32_t ring_unit = 1;  // rings: units of this many endpoints, in ring_order (pattern.h)
  std::string ring_order;
  FlowRecords flows = FlowRecords::kMeasured;
  uint32_t histogram_bins = 0;  // latency histogram: bins of one cycle, then LatencyBins' octaves
  SimTime timeseries_bin;       // /timeseries bin width; zero: none
};

std::vector<ParamSpec> router_params();
std::vector<ParamSpec> traffic_params();

/// `routing_vcs`: the VCs the routing needs; router.vcs = 0 means exactly that many, a smaller
/// non-zero value is an InputError naming router.vcs.
RouterConfig router_config_from(const ParamSet& p, uint8_t routing_vcs,
                                const std::string& routing_name);
TrafficConfig traffic_config_from(const ParamSet& p);

}  // namespace hx::net
