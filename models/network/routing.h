// Routing as a per-topology plug-in (DESIGN §6). A routing object is shared read-only by every
// router on a rank: all packet-specific state lives in the packet (phase, intermediate, flags)
// and all router-specific state is passed in. The router chooses among the candidates it returns
// with its selection function (most downstream credits), which makes routing adaptive whenever
// more than one candidate is offered.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/ids.h"
#include "core/rng.h"
#include "models/network/packet.h"

namespace hx::net {

/// An output port and the virtual channel to take on the link behind it. `escape` marks the
/// candidates of the deadlock-free escape sub-network of an adaptive routing; `hxsim verify`
/// checks the channel dependency graph of those (for non-adaptive routing: of all of them).
/// `penalty` (flits) marks a detour: the router takes it only when its free downstream space,
/// less the penalty, beats that of every candidate without one, even one it must wait for.
struct Candidate {
  PortId port = 0;
  uint8_t vc = 0;
  bool escape = true;
  uint8_t penalty = 0;
};

/// A small fixed-capacity list of candidates; routings list their preferred choice first.
class Candidates {
 public:
  static constexpr std::size_t kCapacity = 64;
  /// std::length_error past kCapacity: a routing that offers more is a bug, not a choice to
  /// trim silently.
  void add(PortId port, uint8_t vc, bool escape = true, uint8_t penalty = 0) {
    if (size_ == kCapacity) overflow();
    items_[size_++] = Candidate{port, vc, escape, penalty};
    detours_ = detours_ || penalty > 0;
  }
  void clear() { size_ = 0, detours_ = false; }
  /// Replaces the list with items[0, n) (n <= kCapacity); `detours`: one of them has a penalty.
  void assign(const Candidate* items, std::size_t n, bool detours) {
    std::copy(items, items + n, items_.begin());
    size_ = n;
    detours_ = detours;
  }
  /// Keeps, in order, the candidates for which keep(candidate) is true.
  template <class Keep>
  void keep_if(Keep&& keep) {
    std::size_t kept = 0;
    detours_ = false;
    for (std::size_t i = 0; i < size_; ++i) {
      if (!keep(items_[i])) continue;
      detours_ = detours_ || items_[i].penalty > 0;
      items_[kept++] = items_[i];
    }
    size_ = kept;
  }
  bool has_detours() const { return detours_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Candidate& operator[](std::size_t i) const { return items_[i]; }
  const Candidate* begin() const { return items_.data(); }
  const Candidate* end() const { return items_.data() + size_; }

 private:
  [[noreturn]] static void overflow();

  std::array<Candidate, kCapacity> items_{};
  std::size_t size_ = 0;
  bool detours_ = false;
};

/// What a router knows when the routing asks: the load of each of its output ports in flits
/// (queued there plus held in the downstream buffers; for UGAL-L's source decision), and which
/// links carry traffic now (faults.h: the schedule is the same on every rank, so any link's
/// state is known at every router at the same instant).
class RouterView {
 public:
  virtual ~RouterView() = default;
  virtual uint32_t load(PortId port) const = 0;
  /// Whether any link can be down (there is a fault schedule): without one a routing need not
  /// ask link_up, and its decisions cost what they did before faults existed.
  bool any_faults() const { return any_faults_; }
  /// Directed link `link` (Topology::first_link numbering) carries traffic now.
  virtual bool link_up(uint64_t /*link*/) const { return true; }
  /// The configuration reconfigurable element `element` (Topology::reconfigurables), instance
  /// `instance`, is in now, or is switching to.
  virtual uint32_t configuration(uint32_t /*element*/, uint32_t /*instance*/) const { return 0; }

 protected:
  bool any_faults_ = false;
};

class Routing {
 public:
  virtual ~Routing() = default;

  /// Name as configured, e.g. "ugal_l".
  virtual std::string name() const = 0;
  /// Virtual channels per port the algorithm needs; routers are built with at least this many.
  virtual uint8_t vcs() const = 0;
  /// Whether every path it gives is a shortest one. Non-minimal routings (Valiant, UGAL) give
  /// each flow at flow level paths through every intermediate, so flows share links network-wide.
  virtual bool minimal() const { return true; }
  /// Whether route() may offer detours (candidates with a penalty), which packets take when the
  /// direct candidates are short of space. The flow level takes a detour only where nothing
  /// else is offered, so its flows keep to the direct paths.
  virtual bool detours() const { return false; }

  /// At the packet's first router, before its first route(): source decisions such as the
  /// Valiant intermediate or UGAL's minimal/non-minimal choice. Default: none.
  virtual void start(uint32_t /*router*/, const RouterView& /*view*/, Rng& /*rng*/,
                     Packet& /*packet*/) const {}
  /// Every packet state start() can produce at `router`: with `view`, in the state it shows
  /// (the flow level's paths; `hxsim verify` under faults, state by state); with nullptr, in
  /// any state of a network with no failed links (`hxsim verify`). Default: {packet}.
  virtual void start_states(uint32_t router, const RouterView* view, const Packet& packet,
                            std::vector<Packet>& out) const;

  /// Candidate (port, VC) pairs for `packet` at `router`; it arrived on `in_port` over VC
  /// packet.vc. Deterministic and idempotent: the router may call it again while the packet
  /// waits, and it may update the packet's routing fields (phase, flags) from the router alone.
  /// At the destination's router the candidates are the ports to the destination endpoint.
  virtual void route(uint32_t router, PortId in_port, Packet& packet, Candidates& out) const = 0;

  /// Whether route() costs enough (a search, not arithmetic) that a router should keep a
  /// waiting head's candidates instead of routing it again at every allocation round. A speed
  /// choice only: route() is deterministic and idempotent, so the results are the same.
  virtual bool keep_candidates() const { return false; }

  /// When every candidate route() gave is on a failed link: the routing's documented fallback
  /// (e.g. the Dragonfly's Valiant detour around a failed global link), which may update the
  /// packet's routing fields so that later route() calls follow it. The router keeps the live
  /// candidates and drops the packet if none is left. Default: no fallback.
  virtual void route_around(uint32_t /*router*/, PortId /*in_port*/, Packet& /*packet*/,
                            const RouterView& /*view*/, Candidates& /*out*/) const {}
};

}  // namespace hx::net
