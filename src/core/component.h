// The component API (DESIGN §3.1): a component has numbered ports, each the end of a link with a
// latency; it sends events through ports and schedules events for itself. It never sees ranks:
// whether a peer lives on this rank or another is decided in the wiring the engine installs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/event.h"
#include "core/event_sink.h"
#include "core/ids.h"
#include "core/prefetch.h"
#include "core/units.h"

namespace hx {

class StateArchive;  // core/state_archive.h

/// A port as the engine wired it: the far end, the latency, and where events for it go.
struct PortLink {
  ComponentId peer = 0;
  PortId peer_port = 0;  // as the events name it: kWidePort for a hub's port past PortId
  uint16_t link_class = 0;
  int32_t outbox = -1;      // -1: peer on this rank; else neighbour-rank index
  uint32_t peer_local = 0;  // peer's index among its own rank's components (on any rank)
  SimTime latency;
};

class Component {
 public:
  explicit Component(ComponentId id) : id_(id) {}
  virtual ~Component() = default;
  Component(const Component&) = delete;
  Component& operator=(const Component&) = delete;

  ComponentId id() const { return id_; }

  /// Called once before time starts: schedule initial events here.
  virtual void setup() {}
  /// Called for each event addressed to this component, in EventKey order.
  virtual void handle(const Event& e) = 0;
  /// Called after this component's last event at the current time, when one of that
  /// instant's handlers asked for it (request_end_of_instant): the place for work that must
  /// see everything that arrives in one instant, such as a router's allocation round, without
  /// an event of its own. It may send and schedule, but nothing at the current time.
  virtual void end_of_instant() {}
  /// The state every event of this component touches, which the engine starts loading (up to
  /// Simulation::kMaxHotLines cache lines) several events before handling one. Asked once,
  /// after construction: the span must not move. Default: the first line of the object.
  virtual HotSpan hot_state() const { return {this, kCacheLine}; }
  /// A hint, a few events before handle(e), with the hot state loaded by then: start loading
  /// (prefetch_read, core/prefetch.h) what handling `e` will touch beyond it. Must not change
  /// anything. Large networks are memory-bound without it.
  virtual void prefetch(const Event& /*e*/) const {}
  /// Called at the model's observation `k` (Model::observation_times), with every event before
  /// it handled and none after, and now() at its time: record what the state is then (a
  /// statistics row). It must not send or schedule.
  virtual void observe(uint32_t /*k*/) {}
  /// Called once after the run: write statistics rows here.
  virtual void finish() {}
  /// Units of the model's work (Model::work_unit) this component has done so far, for
  /// models that have such a unit; the engine sums them per rank after the run.
  virtual uint64_t work_done() const { return 0; }
  /// Units of work started and not yet done (a flow-level fabric: flows in flight), for the
  /// progress line.
  virtual uint64_t work_in_progress() const { return 0; }

  /// Checkpoints: writes or reads back (ar.loading()) all mutable state (counters, random
  /// streams, queues), each field once, in one order for both directions. The engine saves the
  /// send counter and the pending events itself. A record that does not fit this component
  /// (another topology, a damaged file) must throw InputError.
  virtual void serialize(StateArchive& ar) = 0;
  /// Whether this component handles events of `kind` (without Event::kBackground): a
  /// checkpoint's pending events of another kind mean it was written by another model.
  virtual bool knows_event(uint16_t /*kind*/) const { return true; }
  /// Whether this component may have kWidePort ports or more: it never reads Event::port of
  /// what arrives (a hub telling its senders apart by their payloads), since events arriving on
  /// port kWidePort or later all name kWidePort. The engine refuses the wiring otherwise.
  virtual bool many_ports() const { return false; }

  /// Engine only: installs the wiring. `local_index` is this component's index on its rank;
  /// `ports[0, count)` are its ports, owned by the engine (one array for the whole rank, so
  /// components stay small and sit next to each other in memory).
  void wire(EventSink* sink, uint32_t local_index, const PortLink* ports, uint32_t count) {
    sink_ = sink;
    local_index_ = local_index;
    ports_ = ports;
    num_ports_ = count;
  }
  /// Engine only: the send counter, part of every checkpoint (the engine saves and restores
  /// it, so models need not).
  uint64_t sent_count() const { return seq_; }
  void restore_sent_count(uint64_t n) { seq_ = n; }

 protected:
  SimTime now() const { return sink_->now(); }
  std::size_t num_ports() const { return num_ports_; }
  const PortLink& port(uint32_t p) const { return ports_[p]; }

  /// Sends through `p`; arrives at the peer after the link latency plus `extra` (>= 0).
  template <class P>
  void send(uint32_t p, uint16_t kind, const P& payload, SimTime extra = SimTime::zero()) {
    const PortLink& link = ports_[p];
    const SimTime at = now() + link.latency + extra;
    Event& e = sink_->begin_post(link.outbox);
    e.key = EventKey{at, link.peer, id_, seq_++};
    e.port = link.peer_port;
    e.kind = kind;
    e.dst_local = link.peer_local;
    e.set_payload(payload);
    sink_->end_post(link.outbox);
  }

  /// Schedules an event for this component after `delay` (>= 0).
  template <class P>
  void schedule(SimTime delay, uint16_t kind, const P& payload) {
    const SimTime at = now() + delay;
    Event& e = sink_->begin_post(-1);
    e.key = EventKey{at, id_, id_, seq_++};
    e.port = kSelfPort;
    e.kind = kind;
    e.dst_local = local_index_;
    e.set_payload(payload);
    sink_->end_post(-1);
  }

  /// Asks for end_of_instant() once this instant's last event for this component is handled
  /// (asking again in the same instant changes nothing).
  void request_end_of_instant() { sink_->request_end_of_instant(local_index_); }

  /// Declares that this component's state changes at `at` without an event (a router counts
  /// the credits its link-rate peers return, knowing when they arrive: the link protocol of
  /// models/network/element.h): a run that drains ends no earlier than that, as it would if
  /// the change were an event.
  void extend_run_to(SimTime at) { sink_->extend_work_to(at); }

  /// Stops the whole run after this event with `reason` (a DeadlockError on every rank).
  void stop_run(std::string reason) { sink_->request_stop(std::move(reason)); }
  /// Stops the whole run after this event because its input cannot be simulated, found only
  /// now (an InputError on every rank, exit 2). Never throw InputError from handle(): the
  /// other ranks would wait for this one forever.
  void refuse_input(std::string reason) { sink_->request_stop(std::move(reason), true); }

  /// Keeps the run alive while this component has work whose events are background ones (a
  /// flow fabric wakes up with background timers, so that a timer it no longer needs cannot
  /// prolong the run): between hold_run() and release_run() the run does not drain. Each
  /// component holds at most once; restore re-holds from the component's own state.
  void hold_run() { sink_->hold(+1); }
  void release_run() { sink_->hold(-1); }

  /// Like schedule(), for a timer that must not keep the run alive (Event::kBackground).
  template <class P>
  void schedule_background(SimTime delay, uint16_t kind, const P& payload) {
    schedule(delay, static_cast<uint16_t>(kind | Event::kBackground), payload);
  }

  /// True in finish() when the run ended because no (foreground) events remained anywhere,
  /// false when it reached sim.end_time: what is still queued then will never move.
  bool run_drained() const { return sink_->drained(); }

 private:
  ComponentId id_;
  uint32_t local_index_ = 0;
  uint64_t seq_ = 0;
  EventSink* sink_ = nullptr;
  const PortLink* ports_ = nullptr;
  uint32_t num_ports_ = 0;
};

}  // namespace hx
