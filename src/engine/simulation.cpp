// Building and running one rank's components.
#include "engine/simulation.h"

#include <algorithm>
#include <boost/archive/archive_exception.hpp>
#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/error.h"
#include "core/prefetch.h"
#include "core/state_archive.h"

namespace hx {
namespace {

std::vector<int> find_neighbours(const Model& model, const Partition& partition, int rank,
                                 const std::vector<ComponentId>& local) {
  std::set<int> ranks;
  std::vector<PortSpec> ports;
  for (ComponentId id : local) {
    ports.clear();
    model.ports(id, ports);
    for (const PortSpec& p : ports) {
      const int r = partition.rank_of(p.peer);
      if (r != rank) ranks.insert(r);
    }
  }
  return {ranks.begin(), ranks.end()};
}

}  // namespace

Simulation::Simulation(const Model& model, const Partition& partition, int rank, uint64_t seed,
                       StatsRegistry& stats)
    : partition_(partition), rank_(rank) {
  const std::vector<ComponentId> local = partition.components_of(rank);
  neighbours_ = find_neighbours(model, partition, rank, local);
  sink_ = EventSink(neighbours_.size());

  // All ports first, in one array, then the components: each component's state is then a few
  // consecutive cache lines, which matters when events visit components at random.
  std::vector<PortSpec> specs;
  std::vector<std::size_t> first_port(local.size() + 1, 0);
  for (std::size_t i = 0; i < local.size(); ++i) {
    specs.clear();
    model.ports(local[i], specs);
    for (const PortSpec& s : specs) {
      PortLink link;
      link.peer = s.peer;
      link.peer_port = s.peer_port < kWidePort ? static_cast<PortId>(s.peer_port) : kWidePort;
      link.link_class = s.link_class;
      link.latency = s.latency;
      const int peer_rank = partition.rank_of(s.peer);
      // Set for remote peers too: the event carries it, so the receiving rank need not look it up.
      link.peer_local = partition.local_index(s.peer);
      if (peer_rank != rank) {
        auto it = std::lower_bound(neighbours_.begin(), neighbours_.end(), peer_rank);
        link.outbox = static_cast<int32_t>(it - neighbours_.begin());
      }
      ports_.push_back(link);
    }
    first_port[i + 1] = ports_.size();
  }
  ports_.shrink_to_fit();

  const BuildContext ctx{seed, &stats};
  // components_of() is ascending, so local indices order as the ids do.
  sink_.queue().set_destinations(static_cast<uint32_t>(local.size()));
  components_.reserve(local.size());
  for (std::size_t i = 0; i < local.size(); ++i) {
    components_.push_back(model.create(local[i], ctx));
    if (first_port[i + 1] - first_port[i] > kWidePort && !components_.back()->many_ports()) {
      throw std::logic_error("component " + std::to_string(local[i]) + " has " +
                             std::to_string(first_port[i + 1] - first_port[i]) +
                             " ports; events name at most " + std::to_string(kWidePort));
    }
    components_.back()->wire(&sink_, static_cast<uint32_t>(i), ports_.data() + first_port[i],
                             static_cast<uint32_t>(first_port[i + 1] - first_port[i]));
  }
  hot_.reserve(components_.size());
  for (const auto& c : components_) {
    const HotSpan span = c->hot_state();
    const auto* begin = static_cast<const char*>(span.begin);
    // Lines touched, counting the partial ones at either end.
    const auto offset = reinterpret_cast<uintptr_t>(begin) % kCacheLine;
    const auto lines = static_cast<uint32_t>((offset + span.bytes + kCacheLine - 1) / kCacheLine);
    hot_.push_back({begin - offset, std::min(lines, kMaxHotLines)});
  }
}

void Simulation::setup(const std::function<bool()>& go_on) {
  for (auto& c : components_) {
    if (go_on && !go_on()) return;
    c->setup();
  }
}

// A record is a headerless Boost binary archive (the manifest holds the Boost version):
// id, send counter, the component's own state, then its pending events as raw bytes.
void Simulation::save(CheckpointRankWriter& writer) const {
  for (const auto& outbox : sink_.outboxes()) {
    if (!outbox.empty()) throw std::logic_error("checkpoint with events still in an outbox");
  }
  std::vector<std::vector<Event>> pending(components_.size());
  sink_.queue().for_each([&pending](const Event& e) { pending[e.dst_local].push_back(e); });
  for (std::size_t i = 0; i < components_.size(); ++i) {
    const Component& c = *components_[i];
    std::ostringstream bytes;
    {
      boost::archive::binary_oarchive ar(bytes, boost::archive::no_header);
      const uint64_t id = c.id();
      const uint64_t seq = c.sent_count();
      const uint64_t n = pending[i].size();
      ar << id << seq;
      StateArchive state(ar);
      // serialize() is one function for both directions; saving leaves the component as it was.
      const_cast<Component&>(c).serialize(state);
      ar << n;
      if (n) ar.save_binary(pending[i].data(), n * sizeof(Event));
    }
    writer.add_component(c.id(), bytes.view());
  }
}

void Simulation::restore(CheckpointReader& reader, SimTime last_work) {
  last_work_ = last_work;
  for (std::size_t i = 0; i < components_.size(); ++i) {
    Component& c = *components_[i];
    std::istringstream bytes(reader.component(c.id()));
    const std::string where =
        "checkpoint " + reader.path() + ": the record of component " + std::to_string(c.id());
    try {
      boost::archive::binary_iarchive ar(bytes, boost::archive::no_header);
      uint64_t id = 0, seq = 0, n = 0;
      ar >> id >> seq;
      if (id != c.id()) throw InputError(where + " is filed under another id");
      c.restore_sent_count(seq);
      StateArchive state(ar);
      c.serialize(state);
      ar >> n;
      std::vector<Event> events(n);
      if (n) ar.load_binary(events.data(), n * sizeof(Event));
      for (Event& e : events) {
        const auto kind = static_cast<uint16_t>(e.kind & ~Event::kBackground);
        if (e.key.dst != c.id() || !c.knows_event(kind)) {
          throw InputError(where + " holds a pending event (kind " + std::to_string(kind) +
                           ") it cannot handle: was it written by another model?");
        }
        e.dst_local = static_cast<uint32_t>(i);
        sink_.queue().push(e);
      }
    } catch (const boost::archive::archive_exception& e) {
      throw InputError(where + " cannot be read (" + e.what() +
                       "): was it written by another model?");
    }
    // Every byte must have been read: anything else means the record is of another shape.
    if (bytes.peek() != std::char_traits<char>::eof()) {
      throw InputError(where + " is longer than this model's state: was it written by another "
                       "model or version?");
    }
  }
}

// How many events ahead run_until prefetches, in two stages: the event's body and its
// component's object kPrefetchFar ahead; kPrefetchNear ahead, with the object in cache by then,
// the component's own prefetch of what the event will touch (docs/performance/engine.md).
constexpr std::size_t kPrefetchFar = 6;
constexpr std::size_t kPrefetchNear = 3;

uint64_t Simulation::run_until(SimTime until, uint64_t max_events) {
  EventQueue& queue = sink_.queue();
  uint64_t handled = 0;
  uint64_t background = 0;
  Event e;
  while (handled < max_events && queue.next_time() < until && !sink_.stop_requested()) {
    queue.pop(e);
    if (e.kind & Event::kBackground) {
      e.kind = static_cast<uint16_t>(e.kind & ~Event::kBackground);
      ++background;
    } else {
      last_work_ = e.key.time;
    }
    // Start loading later events' bodies and components while this one is handled: with many
    // components these loads are cache misses that otherwise stall one after another.
    const uint32_t far = queue.prefetch_ahead(kPrefetchFar);
    if (far != UINT32_MAX) {
      // The state every event of that component needs, as it declared it (hot_state).
      // Unrolled: a loop's compare and branch per line cost more than the prefetches.
      const Hot hot = hot_[far];
      switch (hot.lines) {
        case 8: prefetch_read(hot.begin + 7 * kCacheLine); [[fallthrough]];
        case 7: prefetch_read(hot.begin + 6 * kCacheLine); [[fallthrough]];
        case 6: prefetch_read(hot.begin + 5 * kCacheLine); [[fallthrough]];
        case 5: prefetch_read(hot.begin + 4 * kCacheLine); [[fallthrough]];
        case 4: prefetch_read(hot.begin + 3 * kCacheLine); [[fallthrough]];
        case 3: prefetch_read(hot.begin + 2 * kCacheLine); [[fallthrough]];
        case 2: prefetch_read(hot.begin + kCacheLine); [[fallthrough]];
        default: prefetch_read(hot.begin);
      }
    }
    if (const Event* near = queue.peek_ahead(kPrefetchNear)) {
      components_[near->dst_local]->prefetch(*near);
    }
    sink_.set_now(e.key.time);
    components_[e.dst_local]->handle(e);
    ++handled;
    // Events at one time are grouped by destination, so the instant has ended for this
    // component unless the next event is its too.
    if (sink_.end_of_instant_pending() != UINT32_MAX &&
        !queue.next_is(static_cast<uint64_t>(e.key.time.count_ps()), e.dst_local)) {
      components_[sink_.take_end_of_instant()]->end_of_instant();
    }
    // A window ends before the first event sent to another rank (run_windows), by the event
    // or by the end of its instant.
    until = std::min(until, sink_.earliest_sent());
  }
  // Background timers past the last real event run on some partitions and not on others (a
  // window may reach past it), so only foreground events are counted: counts stay invariant.
  return handled - background;
}

// The sender filled in dst_local, the destination's index on this rank (PortLink::peer_local).
// A misrouted event would name another component there: the check reads the destination's first
// line, which handling the event needs soon anyway.
void Simulation::receive(std::span<const Event> events) {
  EventQueue& queue = sink_.queue();
  for (const Event& in : events) {
    if (in.dst_local >= components_.size() || components_[in.dst_local]->id() != in.key.dst) {
      throw std::logic_error("event for component " + std::to_string(in.key.dst) +
                             " delivered to the wrong rank " + std::to_string(rank_));
    }
    queue.reserve() = in;
    queue.commit();
  }
}

uint64_t Simulation::work_done() const {
  uint64_t sum = 0;
  for (const auto& c : components_) sum += c->work_done();
  return sum;
}

uint64_t Simulation::work_in_progress() const {
  uint64_t sum = 0;
  for (const auto& c : components_) sum += c->work_in_progress();
  return sum;
}

void Simulation::observe(uint32_t k, SimTime at) {
  sink_.set_now(at);
  for (auto& c : components_) c->observe(k);
}

void Simulation::finish(bool drained, SimTime reached) {
  sink_.set_drained(drained);
  sink_.set_now(reached);
  for (auto& c : components_) c->finish();
}

}  // namespace hx
