// The statistics every network model writes (docs/OUTPUT.md): per link, per flow (message), per
// endpoint, the run totals and the latency histogram, and the run summary derived from them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/stats.h"
#include "core/units.h"
#include "models/network/latency_bins.h"
#include "models/network/topology.h"

namespace hx::net {

struct NetworkContext;

// Column indices, in declaration order, for the tables components add to while running.
namespace totals {
enum : std::size_t {
  kPacketsInjected,
  kPacketsEjected,
  kPacketsBuffered,  // held in router input buffers when the run ended
  kLinkSent,         // packets sent over any link (endpoint or router)
  kLinkReceived,     // packets received from any link
  kPacketsQueued,    // packets still in source queues when the run ended
  kFlitsOffered,     // flits of packets created inside the measurement window
  kFlitsAccepted,    // flits whose tail reached their destination inside the window
  kMeasuredCreated,  // packets created inside the window
  kMeasuredDelivered,
  kLatencySumPs,         // over delivered measured packets: creation to tail arrival
  kNetworkLatencySumPs,  // head injection to tail arrival
  kHopsSum,
  kSenders,  // endpoints that send under the pattern
  kPacketsNotOffered,  // refused at a full source queue (traffic.source_queue_limit)
  kPacketsDropped,     // lost to faults (faults.h)
  kCount
};
}  // namespace totals

// /timeseries columns, and /timeseries_links' (a row per bin and link class).
namespace series {
enum : std::size_t {
  kFlitsDelivered,
  kFlitsInjected,
  kPacketsDropped,
  kPacketsDelivered,
  kLatencySumPs,
  kPacketsQueued,    // in source queues at the bin's end
  kPacketsBuffered,  // in router buffers at the bin's end
};
enum : std::size_t { kLinkFlits, kLinkBusyPs, kLinkPacketsBuffered };
}  // namespace series

// /latency_histogram columns.
namespace histogram {
enum : std::size_t { kPackets, kLowerPs, kUpperPs };
}  // namespace histogram

/// The source queues are sampled at the ends of this many equal parts of the measurement window
/// (the queue_samples table, at the model's observations) to tell a stable run from one whose
/// queues keep growing.
inline constexpr uint32_t kQueueSamples = 8;
/// Growth over fewer samples than this is not judged: two pairs of samples are the fewest whose
/// halves average out the queues' fluctuation.
inline constexpr uint32_t kSamplesToJudgeGrowth = 4;

/// Time of queue sample k: the end of the k-th of kQueueSamples equal parts of the window.
SimTime queue_sample_time(SimTime window_begin, SimTime window_end, uint32_t k);

/// Whether the source queues are unstable by the first `taken` queue samples of `stats` (summed
/// over all ranks): a source refused a packet at its limit, or (from kSamplesToJudgeGrowth
/// samples on) the queues grew through the window. The one rule for /summary unstable and for
/// ending a sweep point early.
bool queues_unstable(const StatsRegistry& stats, std::size_t taken);

/// `bins`: of /latency_histogram; `fault_actions`: rows of /faults (the schedule's actions);
/// `timeseries_bins`: of /timeseries.
std::vector<TableSpec> network_tables(const Topology& topology, const LatencyBins& bins,
                                      uint64_t fault_actions, uint64_t timeseries_bins);

/// A packet's head entered a link of class `link_class` at `head` and its tail left at `tail`:
/// its flits and busy time go to /timeseries_links (only called with a time series).
void record_link_series(Table& series, const NetworkContext& net, uint16_t link_class, SimTime head,
                        SimTime tail, uint64_t flits);

/// The /summary values of a network run, from the reduced tables.
std::vector<SummaryValue> summarize_network(const StatsRegistry& stats, const Topology& topology,
                                            SimTime cycle, SimTime measure);

/// "warning: unstable run: ..." when the summary says the run was unstable, else empty.
/// `end` says whether the run ended as soon as it was found unstable (traffic.stop_unstable).
std::string instability_warning(const std::vector<SummaryValue>& summary, uint64_t queue_limit,
                                const RunEnd& end);

}  // namespace hx::net
