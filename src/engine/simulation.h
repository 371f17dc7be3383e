// One rank's part of a simulation: the components it owns, wired to each other and to the
// neighbouring ranks' outboxes, and the loop that hands events to them. No MPI here; the
// executors decide when to run and how outboxes cross ranks.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "core/component.h"
#include "core/event_sink.h"
#include "core/model.h"
#include "core/stats.h"
#include "io/checkpoint.h"
#include "partition/partitioner.h"

namespace hx {

class Simulation {
 public:
  /// Builds the components `partition` gives to `rank`. `model` and `stats` must outlive this.
  Simulation(const Model& model, const Partition& partition, int rank, uint64_t seed,
             StatsRegistry& stats);

  /// Calls every local component's setup() in order. With `go_on`, asks it before each and
  /// stops at the first no (the memory sample stops once its estimate already fails).
  void setup(const std::function<bool()>& go_on = nullptr);
  /// Checkpoint at a window boundary: one record per local component with its send counter,
  /// its state and the pending events addressed to it.
  void save(CheckpointRankWriter& writer) const;
  /// Instead of setup(): restores every local component and its pending events. InputError
  /// when a record is missing or damaged. `last_work` is the checkpoint's last_work_ps.
  void restore(CheckpointReader& reader, SimTime last_work);
  /// Handles every local event with time < until and before the earliest event sent to another
  /// rank since the outboxes were last emptied (EventSink::earliest_sent), but stops after
  /// `max_events` (so callers can report progress). Returns the number of foreground events
  /// handled.
  uint64_t run_until(SimTime until, uint64_t max_events);
  /// Queues events received from other ranks.
  void receive(std::span<const Event> events);
  /// Observation `k` at `at` (Model::observation_times): calls every component's
  /// Component::observe(k) with the clock at `at`. Only at a boundary: no event before `at`
  /// pending, none after handled.
  void observe(uint32_t k, SimTime at);
  /// `drained`: the run ended because no foreground events remained anywhere.
  /// Calls every component's finish() with the clock at `reached`, where the run stopped
  /// (a global fact, so what components derive from now() is the same on any rank count).
  void finish(bool drained, SimTime reached);

  SimTime next_time() const { return sink_.queue().next_time(); }
  /// The next event's time if any foreground event remains or a component holds the run
  /// (Component::hold_run), else infinity (background timers alone do not keep a run going).
  SimTime next_work_time() const {
    return sink_.queue().foreground() > 0 || sink_.holds() > 0 ? sink_.queue().next_time()
                                                                : SimTime::infinity();
  }
  /// Time of the last foreground event handled, or of a later change a component declared
  /// (Component::extend_run_to): how far the run really got.
  SimTime last_work_time() const { return std::max(last_work_, sink_.work_horizon()); }
  /// A component asked to stop the run (EventSink::request_stop); run_until returns early.
  bool stop_requested() const { return sink_.stop_requested(); }
  const std::string& stop_reason() const { return sink_.stop_reason(); }
  /// The stop is for input that cannot be simulated (Component::refuse_input).
  bool stop_for_input() const { return sink_.stop_for_input(); }
  /// Time of the last event handled (zero before any).
  SimTime now() const { return sink_.now(); }
  std::size_t component_count() const { return components_.size(); }
  /// Sum of the components' Component::work_done().
  uint64_t work_done() const;
  /// Sum of the components' Component::work_in_progress().
  uint64_t work_in_progress() const;
  /// Ranks that own the far end of a cut link, ascending; outbox i goes to neighbours()[i].
  const std::vector<int>& neighbours() const { return neighbours_; }
  std::vector<std::vector<Event>>& outboxes() { return sink_.outboxes(); }
  /// After the outboxes were sent: run_until stops again only before what is sent from now on.
  void clear_earliest_sent() { sink_.clear_earliest_sent(); }
  /// The earliest time sent to another rank since then (infinity if none).
  SimTime earliest_sent() const { return sink_.earliest_sent(); }
  const EventQueue& queue() const { return sink_.queue(); }

  /// The most of a component's hot state (Component::hot_state) the engine prefetches.
  static constexpr uint32_t kMaxHotLines = 8;

 private:
  /// Where a component's hot state starts and how many cache lines it spans, kept beside the
  /// components so prefetching it does not first load the component.
  struct Hot {
    const char* begin;
    uint32_t lines;
  };
  const Partition& partition_;
  int rank_;
  EventSink sink_;
  SimTime last_work_;
  std::vector<int> neighbours_;
  std::vector<PortLink> ports_;  // every local component's ports, component by component
  std::vector<std::unique_ptr<Component>> components_;
  std::vector<Hot> hot_;  // [local index]
};

}  // namespace hx
