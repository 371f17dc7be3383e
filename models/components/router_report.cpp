// What a router reports: the deadlock watchdog's account of its blocked heads, its /links and
// /layout rows at the end, and its buffers at each /timeseries bin's end.
#include <algorithm>
#include <string>

#include "models/components/router.h"
#include "models/network/layout.h"
#include "models/network/network_stats.h"

namespace hx::net {

void Router::check_watchdog() {
  watchdog_armed_ = false;
  if (held_ == 0) return;
  const SimTime now = this->now();
  const SimTime since = std::max(last_move_, loaded_since_);
  const SimTime limit = net_.router.watchdog;
  if (now - since >= limit) {
    absorb_returns(now);
    stop_run(blocked_report());
    return;
  }
  watchdog_armed_ = true;
  schedule_background(since + limit - now, kWatchdog, uint8_t{0});
}

std::string Router::blocked_report() const {
  const SimTime since = std::max(last_move_, loaded_since_);
  std::string report = "deadlock: router " + std::to_string(index_) + " (component " +
                       std::to_string(id()) + ") holds " + std::to_string(held_) +
                       " packet(s) and has moved none since " + format_time(since) +
                       " (router.watchdog = " + format_time(net_.router.watchdog) + ")";
  int listed = 0;
  Candidates candidates;
  for (PortId in = 0; in < outputs_.size() && listed < 8; ++in) {
    for (uint8_t vc = 0; vc < vcs_ && listed < 8; ++vc) {
      const RingQueue<Waiting>& q = queue(in, vc);
      if (q.empty()) continue;
      Packet packet = q.front().packet;
      packet.vc = static_cast<uint8_t>(packet.vc % classes_);
      candidates.clear();
      net_.routing->route(index_, in, packet, candidates);
      report += "\n  input port " + std::to_string(in) + " VC " + std::to_string(vc) + ": " +
                std::to_string(q.size()) + " packet(s), head " + std::to_string(packet.src) +
                " -> " + std::to_string(packet.dst) + " waits for";
      for (const Candidate& c : candidates) {
        report += " [port " + std::to_string(c.port) + " to component " +
                  std::to_string(port(c.port).peer) + " VC class " + std::to_string(c.vc) +
                  ": credits";
        for (uint32_t v = c.vc; v < vcs_; v += classes_) {
          report += " " + std::to_string(credits(c.port, static_cast<uint8_t>(v))) + "/" +
                    std::to_string(net_.router.buffer_flits);
        }
        report += "]";
      }
      ++listed;
    }
  }
  return report;
}

void Router::finish() {
  // As the credits' events would have been: a drained run handled them all (it lasts until the
  // last, extend_run_to), one that reached sim.end_time those before it.
  absorb_returns(run_drained() ? now() : now() - SimTime::ps(1));
  // Nothing is scheduled anywhere, yet packets wait here: they wait for credits that can never
  // come (a deadlock the watchdog had no time to see, e.g. after injection stopped).
  if (run_drained() && held_ > 0) stop_run(blocked_report());
  for (PortId p = 0; p < outputs_.size(); ++p) {
    const Output& out = outputs_[p];
    const PortLink& link = port(p);
    const double window = net_.window_length(now());
    links_->add_row(
        net_.topology->first_link(id()) + p,
        {uint64_t{id()}, uint64_t{p}, uint64_t{link.peer}, uint64_t{link.peer_port},
         uint64_t{link.link_class}, out.stats.packets, out.stats.flits,
         out.stats.flits * net_.router.flit_bytes, out.stats.busy.count_ps(),
         static_cast<double>(out.stats.busy.count_ps()) / window, out.stats.stall.count_ps(),
         out.dropped, fault_log_.down_ps(net_.topology->first_link(id()) + p, now())});
    fault_log_.offer_actions(net_.topology->first_link(id()) + p);
  }
  add_layout_row(*layout_, *net_.topology, id());
  // The last /timeseries bin closes at the run's end.
  if (net_.timeseries_bins > 0) snapshot_buffers(net_.timeseries_bins - 1);
  totals_->add_to(0, totals::kPacketsBuffered, uint64_t{held_});
  totals_->add_to(0, totals::kLinkSent, sent_);
  totals_->add_to(0, totals::kLinkReceived, received_);
}

void Router::observe(uint32_t k) {
  const int64_t bin = net_.observations[k].bin_end;
  if (bin >= 0) snapshot_buffers(static_cast<uint64_t>(bin));
}

// The packets in the input buffers, in all and by the class of the link they came over.
void Router::snapshot_buffers(uint64_t bin) {
  timeseries_->add_to(bin, series::kPacketsBuffered, uint64_t{held_});
  const uint64_t classes = net_.per_flit.size();
  for (PortId p = 0; held_ > 0 && p < ports_; ++p) {
    uint64_t held = 0;
    for (uint8_t vc = 0; vc < vcs_; ++vc) held += queue(p, vc).size();
    if (held == 0) continue;
    timeseries_links_->add_to(bin * classes + port(p).link_class, series::kLinkPacketsBuffered,
                              held);
  }
}

}  // namespace hx::net
