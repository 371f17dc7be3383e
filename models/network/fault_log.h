// What a router or endpoint records of the faults it meets (docs/FAULTS.md): each packet it
// loses (a /drops row, the run total, the causing action's /faults count) and, at the end, the
// /faults rows of the actions on its links and each link's dropped packets and down time.
#pragma once

#include <cstdint>

#include "core/stats.h"
#include "models/network/faults.h"
#include "models/network/network_context.h"
#include "models/network/network_stats.h"
#include "models/network/packet.h"

namespace hx::net {

class FaultLog {
 public:
  FaultLog(const NetworkContext& net, const BuildContext& ctx, ComponentId owner)
      : net_(net),
        owner_(owner),
        drops_(&ctx.stats->table("drops")),
        faults_(&ctx.stats->table("faults")),
        totals_(&ctx.stats->table("network_totals")),
        timeseries_(&ctx.stats->table("timeseries")) {}

  /// Packet `p` is lost at `t` on (or for want of) directed link `link`.
  void drop(SimTime t, uint64_t link, const Packet& p) {
    const uint32_t action = net_.faults->cause(link, t);
    drops_->add_owned_row(owner_, seq_++,
                          {t.count_ps(), link, uint64_t{p.src}, uint64_t{p.dst}, p.message,
                           uint64_t{p.flits}, uint64_t{action}});
    totals_->add_to(0, totals::kPacketsDropped, uint64_t{1});
    if (net_.timeseries_bins > 0) timeseries_->add_to(net_.timeseries_row(t), 2, uint64_t{1});
    if (action < net_.faults->actions().size()) faults_->add_to(action, 3, uint64_t{1});
  }

  /// At finish, for each link the component sends on: the /faults rows of its actions (every
  /// action is offered by the senders of the links it covers, so each row is filled).
  void offer_actions(uint64_t link) const {
    if (net_.faults == nullptr) return;
    for (const uint32_t a : net_.faults->actions_on(link)) {
      const FaultAction& f = net_.faults->actions()[a];
      faults_->offer(a, {f.at.count_ps(), uint64_t{f.fail ? 1u : 0u}, f.links, uint64_t{0},
                         f.settled.count_ps()});
    }
  }
  /// The link's down time within [0, end).
  int64_t down_ps(uint64_t link, SimTime end) const {
    return net_.faults ? net_.faults->down_time(link, SimTime::zero(), end).count_ps() : 0;
  }

  uint64_t& seq() { return seq_; }  // for checkpoints

 private:
  const NetworkContext& net_;
  ComponentId owner_;
  uint64_t seq_ = 0;  // /drops rows so far
  Table* drops_;
  Table* faults_;
  Table* totals_;
  Table* timeseries_;
};

}  // namespace hx::net
