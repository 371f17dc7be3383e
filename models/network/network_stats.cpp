// Table declarations and the run summary of network models.
#include "models/network/network_stats.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>

#include "models/network/layout.h"
#include "models/network/network_context.h"

namespace hx::net {

std::vector<TableSpec> network_tables(const Topology& topology, const LatencyBins& bins,
                                      uint64_t fault_actions, uint64_t timeseries_bins) {
  using T = ColumnType;
  TableSpec links{
      "links",
      "link",
      "one row per directed link (the sender's output port), measurement window",
      {
          {"src_component", T::kU64, "1", "component the link leaves"},
          {"src_port", T::kU64, "1", "its port"},
          {"dst_component", T::kU64, "1", "component the link enters"},
          {"dst_port", T::kU64, "1", "its port"},
          {"link_class", T::kU64, "1", "index into the /summary attribute link_classes"},
          {"packets", T::kU64, "1", "packets whose head entered the link in the window"},
          {"flits", T::kU64, "1", "their flits"},
          {"bytes", T::kU64, "bytes", "their bytes (router.flit_size per flit)"},
          {"busy_ps", T::kI64, "ps", "time the link carried flits, within the window"},
          {"utilisation", T::kF64, "1", "busy_ps / window"},
          {"credit_stall_ps", T::kI64, "ps",
           "time a ready packet waited at the free link for downstream credits, in the window"},
          {"packets_dropped", T::kU64, "1",
           "packets lost on the link over the whole run: on it when it failed, or with it "
           "failed as their only way on (docs/FAULTS.md)"},
          {"down_ps", T::kI64, "ps", "time the link was failed, within the run"},
      }};
  TableSpec flows{"flows",
                  "flow",
                  "one row per delivered message (traffic.flows), ordered by destination "
                  "then arrival",
                  {
                      {"src", T::kU64, "1", "source endpoint"},
                      {"dst", T::kU64, "1", "destination endpoint"},
                      {"message", T::kU64, "1", "the source's message number"},
                      {"packets", T::kU64, "1", "packets of the message"},
                      {"bytes", T::kU64, "bytes", "message size"},
                      {"created_ps", T::kI64, "ps", "when the message entered the source queue"},
                      {"first_arrival_ps", T::kI64, "ps", "tail arrival of its first packet"},
                      {"last_arrival_ps", T::kI64, "ps", "tail arrival of its last packet"},
                      {"latency_ps", T::kI64, "ps", "last_arrival_ps - created_ps"},
                      {"mean_hops", T::kF64, "1", "router-to-router hops per packet"},
                      {"measured", T::kU64, "1", "1 if created inside the measurement window"},
                  },
                  TableKind::kPerOwner,
                  topology.num_endpoints()};
  TableSpec endpoints{
      "endpoints",
      "endpoint",
      "one row per endpoint",
      {
          {"messages_created", T::kU64, "1", "messages generated over the whole run"},
          {"packets_injected", T::kU64, "1", "packets whose head left the endpoint"},
          {"packets_received", T::kU64, "1", "packets delivered to it"},
          {"flits_offered", T::kU64, "1", "flits created inside the measurement window"},
          {"flits_accepted", T::kU64, "1", "flits delivered to it inside the window"},
          {"measured_delivered", T::kU64, "1", "measured packets delivered to it"},
          {"latency_sum_ps", T::kWide, "ps", "sum of those packets' latencies"},
          {"max_queue_packets", T::kU64, "1", "longest source queue seen"},
          {"packets_not_offered", T::kU64, "1",
           "packets refused at a full source queue (traffic.source_queue_limit)"},
      }};
  std::vector<ColumnSpec> total_columns = {
      {"packets_injected", T::kU64, "1", "packets that left a source endpoint"},
      {"packets_ejected", T::kU64, "1", "packets delivered"},
      {"packets_buffered", T::kU64, "1", "packets in router buffers at the end"},
      {"link_sent", T::kU64, "1", "packet transmissions over links"},
      {"link_received", T::kU64, "1", "packet receptions from links"},
      {"packets_queued", T::kU64, "1", "packets still in source queues at the end"},
      {"flits_offered", T::kU64, "1", "flits created inside the window"},
      {"flits_accepted", T::kU64, "1", "flits delivered inside the window"},
      {"measured_created", T::kU64, "1", "packets created inside the window"},
      {"measured_delivered", T::kU64, "1", "of those, delivered by the end"},
      {"latency_sum_ps", T::kWide, "ps", "their creation-to-tail latencies, summed"},
      {"network_latency_sum_ps", T::kWide, "ps", "their injection-to-tail latencies, summed"},
      {"hops_sum", T::kU64, "1", "their router-to-router hops, summed"},
      {"senders", T::kU64, "1", "endpoints that send under the pattern"},
      {"packets_not_offered", T::kU64, "1", "packets refused at a full source queue"},
      {"packets_dropped", T::kU64, "1",
       "packets lost to faults: on a link or in a router that failed, or with no live way on"},
  };
  TableSpec totals{
      "network_totals",   "row", "run totals (one row, summed over ranks)", total_columns,
      TableKind::kSummed, 1};
  TableSpec histogram{
      "latency_histogram",
      "bin",
      "measured packets by latency, in [lower_ps, upper_ps): one cycle wide below "
      "traffic.histogram_bins cycles, 1/64 of an octave beyond",
      {{"packets", T::kU64, "1", "delivered measured packets in the bin"},
       {"lower_ps", T::kI64, "ps", "where the bin starts", Reduce::kMax},
       {"upper_ps", T::kI64, "ps", "where it ends (INT64_MAX for the last bin)", Reduce::kMax}},
      TableKind::kSummed,
      bins.size()};
  histogram.start = [bins](Table& t) {
    std::vector<int64_t>& lower = t.i64_mutable(histogram::kLowerPs);
    std::vector<int64_t>& upper = t.i64_mutable(histogram::kUpperPs);
    for (uint64_t b = 0; b < bins.size(); ++b) {
      lower[b] = bins.lower(b).count_ps();
      upper[b] = bins.upper(b).count_ps();
    }
  };
  TableSpec queue_samples{
      "queue_samples",
      "sample",
      "source queues at the end of each of the equal parts of the measurement window, summed "
      "over the senders of synthetic traffic",
      {{"senders_sampled", T::kU64, "1", "senders that took the sample (all, or 0 when the "
                                         "run ended before its time)"},
       {"queued_packets", T::kU64, "1", "packets in their source queues"}},
      TableKind::kSummed,
      kQueueSamples};
  TableSpec faults{
      "faults",
      "action",
      "one row per action of the fault schedule, in time order (docs/FAULTS.md); the element "
      "each names is line `action` of /fault_elements",
      {{"time_ps", T::kI64, "ps", "when it applies", Reduce::kMax},
       {"fail", T::kU64, "1", "1: a failure or a reconfiguration, 0: a repair", Reduce::kMax},
       {"links", T::kU64, "1", "directed links it takes down or brings back", Reduce::kMax},
       {"packets_dropped", T::kU64, "1",
        "packets lost to the links or components this action took down"},
       {"settled_ps", T::kI64, "ps",
        "when its links are in their new state: a reconfiguration's end of switching, else "
        "time_ps", Reduce::kMax}},
      TableKind::kSummed,
      fault_actions};
  TableSpec drops{"drops",
                  "drop",
                  "one row per packet lost to a fault, ordered by the component that lost it "
                  "then time",
                  {
                      {"time_ps", T::kI64, "ps", "when it was lost"},
                      {"link", T::kU64, "1", "the /links row of the link it was lost on or "
                                             "for, or the link it arrived on (in a failed "
                                             "router's buffer)"},
                      {"src", T::kU64, "1", "source endpoint"},
                      {"dst", T::kU64, "1", "destination endpoint"},
                      {"message", T::kU64, "1", "the source's message number"},
                      {"flits", T::kU64, "1", "the packet's flits"},
                      {"action", T::kU64, "1", "the /faults row that caused it"},
                  },
                  TableKind::kPerOwner,
                  topology.num_components()};
  TableSpec timeseries{
      "timeseries",
      "bin",
      "per bin of traffic.timeseries_bin from time 0 (the last bin also takes what comes "
      "after it; no rows when the bin is 0): what the endpoints delivered and injected and "
      "what faults cost",
      {{"flits_delivered", T::kU64, "1", "flits whose packet's tail reached its destination"},
       {"flits_injected", T::kU64, "1", "flits whose packet's head left its source"},
       {"packets_dropped", T::kU64, "1", "packets lost to faults (docs/FAULTS.md)"},
       {"packets_delivered", T::kU64, "1", "packets whose tail reached its destination"},
       {"latency_sum_ps", T::kWide, "ps",
        "sum of those packets' latencies, creation to tail (measured or not)"},
       {"packets_queued", T::kU64, "1",
        "packets in source queues at the bin's end (the last bin: at the run's end)"},
       {"packets_buffered", T::kU64, "1",
        "packets in router buffers at the bin's end (0 at flow level, which has none)"}},
      TableKind::kSummed,
      timeseries_bins,
      {},
      1};
  const auto classes = static_cast<uint64_t>(topology.link_classes().size());
  TableSpec timeseries_links{
      "timeseries_links",
      "cell",
      "what the links of each class carried per /timeseries bin: row bin * classes + c for "
      "link class c (/summary link_classes)",
      {{"flits", T::kU64, "1", "flits whose packet's head entered a link of the class in the bin"},
       {"busy_ps", T::kU64, "ps",
        "the time those links took to carry them (busy / (links of the class x bin): their "
        "utilisation)"},
       {"packets_buffered", T::kU64, "1",
        "packets in router input buffers that came over links of the class, at the bin's end "
        "(the last bin: at the run's end; 0 at flow level)"}},
      TableKind::kSummed,
      timeseries_bins * classes,
      {},
      classes};
  TableSpec timeseries_latency{
      "timeseries_latency",
      "cell",
      "the latencies of /timeseries' delivered packets: row bin * 32 + c counts those of bin "
      "`bin` in latency class c (0: under 1 ns; c >= 1: [2^(c-1), 2^c) ns; 31: longer)",
      {{"packets", T::kU64, "1", "packets delivered in the bin with a latency in the class"}},
      TableKind::kSummed,
      timeseries_bins * NetworkContext::kLatencyClasses,
      {},
      NetworkContext::kLatencyClasses};
  return {links,
          flows,
          endpoints,
          totals,
          histogram,
          queue_samples,
          faults,
          drops,
          timeseries,
          timeseries_latency,
          timeseries_links,
          layout_table_spec()};
}

namespace {

// Samples every sender took: all, unless the run ended before some of their times.
std::size_t samples_taken(const StatsRegistry& stats) {
  const std::vector<uint64_t>& sampled = stats.table("queue_samples").u64(0);
  std::size_t taken = 0;
  while (taken < kQueueSamples && sampled[taken] > 0) ++taken;
  return taken;
}

// Mean summed queue of the earlier and of the later half of the first `taken` samples.
struct QueueHalves {
  double earlier = 0;
  double later = 0;
};
QueueHalves queue_halves(const StatsRegistry& stats, std::size_t taken) {
  const std::vector<uint64_t>& queued = stats.table("queue_samples").u64(1);
  const std::size_t half = taken / 2;
  QueueHalves h;
  for (std::size_t k = 0; k < half; ++k) {
    h.earlier += static_cast<double>(queued[k]) / static_cast<double>(half);
    h.later += static_cast<double>(queued[taken - 1 - k]) / static_cast<double>(half);
  }
  return h;
}

}  // namespace

void record_link_series(Table& series, const NetworkContext& net, uint16_t link_class, SimTime head,
                        SimTime tail, uint64_t flits) {
  const uint64_t row = net.timeseries_link_row(head, link_class);
  series.add_to(row, series::kLinkFlits, flits);
  series.add_to(row, series::kLinkBusyPs, static_cast<uint64_t>((tail - head).count_ps()));
}

SimTime queue_sample_time(SimTime window_begin, SimTime window_end, uint32_t k) {
  const int64_t window = (window_end - window_begin).count_ps();
  return window_begin + SimTime::ps(window * (k + 1) / kQueueSamples);
}

// A stable queue only fluctuates; an unstable one grows by the load the network does not
// accept. Growing: the later half of the samples holds a quarter more than the earlier half,
// and more than one packet per sender over all kQueueSamples samples. A judgement on fewer
// samples (a run ended early) rests on noisier means that lie closer together, so it asks for
// proportionally more: two packets per sender at four samples. Ending early thus flags no
// point that the whole window would pass, unless its queues grow much faster there.
bool queues_unstable(const StatsRegistry& stats, std::size_t taken) {
  if (stats.table("network_totals").u64(totals::kPacketsNotOffered)[0] > 0) return true;
  if (taken < kSamplesToJudgeGrowth) return false;
  const double senders = static_cast<double>(stats.table("queue_samples").u64(0)[0]);
  const QueueHalves h = queue_halves(stats, taken);
  const double growth = h.later - h.earlier;
  const double threshold = senders * kQueueSamples / static_cast<double>(taken);
  return growth > threshold && growth > 0.25 * h.earlier;
}

std::vector<SummaryValue> summarize_network(const StatsRegistry& stats, const Topology& topology,
                                            SimTime cycle, SimTime measure) {
  const Table& totals_table = stats.table("network_totals");
  auto total = [&](std::size_t column) -> uint64_t {
    const TableSpec& spec = totals_table.spec();
    return spec.columns[column].type == ColumnType::kU64
               ? totals_table.u64(column)[0]
               : static_cast<uint64_t>(totals_table.i64(column)[0]);
  };
  const Table& histogram = stats.table("latency_histogram");
  const std::vector<uint64_t>& bins = histogram.u64(histogram::kPackets);

  const double endpoints = topology.num_endpoints();
  const double cycles =
      static_cast<double>(measure.count_ps()) / static_cast<double>(cycle.count_ps());
  const uint64_t delivered = total(totals::kMeasuredDelivered);
  // NaN when no measured packet arrived (far beyond saturation, or a pattern with no senders).
  auto mean = [&](std::size_t column) {
    const TableSpec& spec = totals_table.spec();
    const double sum = spec.columns[column].type == ColumnType::kWide
                           ? static_cast<double>(totals_table.wide(column)[0])
                           : static_cast<double>(total(column));
    return delivered ? sum / static_cast<double>(delivered)
                     : std::numeric_limits<double>::quiet_NaN();
  };
  // Percentile from the histogram: the upper edge of the bin where the cumulative count
  // reaches the fraction (the last bin, which reaches the largest time, reports its lower edge).
  const std::vector<int64_t>& lower = histogram.i64(histogram::kLowerPs);
  const std::vector<int64_t>& upper = histogram.i64(histogram::kUpperPs);
  auto percentile = [&](double fraction) -> int64_t {
    if (delivered == 0) return -1;
    const auto target = static_cast<uint64_t>(fraction * static_cast<double>(delivered) + 0.5);
    uint64_t seen = 0;
    for (std::size_t b = 0; b < bins.size(); ++b) {
      seen += bins[b];
      if (seen >= std::max<uint64_t>(target, 1)) return b + 1 < bins.size() ? upper[b] : lower[b];
    }
    return lower.back();
  };

  std::string classes;
  for (const LinkClass& c : topology.link_classes())
    classes += (classes.empty() ? "" : ",") + c.name;

  const std::size_t taken = samples_taken(stats);
  const QueueHalves halves = queue_halves(stats, taken);
  const double growth = halves.later - halves.earlier;
  const bool unstable = queues_unstable(stats, taken);

  const uint64_t in_flight =
      total(totals::kPacketsBuffered) + total(totals::kLinkSent) - total(totals::kLinkReceived);
  const double per = endpoints * cycles;
  return {
      {"offered_load", static_cast<double>(total(totals::kFlitsOffered)) / per,
       "flits/cycle/endpoint", "flits created in the measurement window per cycle per endpoint"},
      {"accepted_load", static_cast<double>(total(totals::kFlitsAccepted)) / per,
       "flits/cycle/endpoint", "flits delivered in the measurement window per cycle per endpoint"},
      {"senders", total(totals::kSenders), "1", "endpoints that send under the pattern"},
      {"packets_injected", total(totals::kPacketsInjected), "1", ""},
      {"packets_ejected", total(totals::kPacketsEjected), "1", ""},
      {"packets_in_flight", in_flight, "1", "in router buffers or on links at the end"},
      {"packets_queued", total(totals::kPacketsQueued), "1", "in source queues at the end"},
      {"measured_created", total(totals::kMeasuredCreated), "1", ""},
      {"measured_delivered", delivered, "1", ""},
      {"latency_mean_ps", mean(totals::kLatencySumPs), "ps", "creation to tail arrival"},
      {"latency_p50_ps", percentile(0.50), "ps", "upper edge of its latency_histogram bin"},
      {"latency_p99_ps", percentile(0.99), "ps", "upper edge of its latency_histogram bin"},
      {"network_latency_mean_ps", mean(totals::kNetworkLatencySumPs), "ps",
       "head injection to tail arrival"},
      {"hops_mean", mean(totals::kHopsSum), "1", "router-to-router hops"},
      {"histogram_bin_ps", cycle.count_ps(), "ps", "width of the one-cycle latency_histogram bins"},
      {"link_classes", classes, "", "names of /links/link_class values"},
      {"layout_group", topology.picture_group(), "", "what a /layout group is"},
      {"packets_not_offered", total(totals::kPacketsNotOffered), "1",
       "refused at a full source queue (traffic.source_queue_limit)"},
      {"packets_dropped", total(totals::kPacketsDropped), "1",
       "lost to faults (docs/FAULTS.md; one row each in /drops)"},
      {"queue_growth_packets", growth, "1",
       "source queues summed: mean of the later half of queue_samples less the earlier half's"},
      {"unstable", uint64_t{unstable ? 1u : 0u}, "1",
       "1: a source queue reached its limit or the queues grew through the window"},
  };
}

std::string instability_warning(const std::vector<SummaryValue>& summary, uint64_t queue_limit,
                                const RunEnd& end) {
  const auto value = [&summary](const std::string& name) -> const auto& {
    return std::find_if(summary.begin(), summary.end(),
                        [&name](const SummaryValue& v) { return v.name == name; })
        ->value;
  };
  if (std::get<uint64_t>(value("unstable")) == 0) return {};
  const std::string ended =
      end.ended_early ? " (it ended at " + format_time(end.reached) +
                            ", the first queue sample to find it so: traffic.stop_unstable)"
                      : "";
  // Either sign can show alone: queues that fill up to their limit early stop growing (then
  // packets are refused instead), and queues may grow without reaching it.
  const double growth = std::get<double>(value("queue_growth_packets"));
  const auto refused = std::get<uint64_t>(value("packets_not_offered"));
  std::string signs;
  char part[160];
  if (growth > 0) {
    std::snprintf(part, sizeof part, "the source queues grew by %.0f packets through the window",
                  growth);
    signs = part;
  }
  if (refused > 0) {
    std::snprintf(part, sizeof part,
                  "%s%llu packets not offered at a full source queue (traffic.source_queue_limit "
                  "= %llu)",
                  signs.empty() ? "" : "; ", static_cast<unsigned long long>(refused),
                  static_cast<unsigned long long>(queue_limit));
    signs += part;
  }
  const std::string text =
      "warning: unstable run, the offered load is beyond saturation: " + signs + ended;
  return text;
}

}  // namespace hx::net
