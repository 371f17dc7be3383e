// Building and running one rank's components.
#include "engine/simulation.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

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

  const BuildContext ctx{seed, &stats};
  components_.reserve(local.size());
  std::vector<PortSpec> specs;
  for (std::size_t i = 0; i < local.size(); ++i) {
    const ComponentId id = local[i];
    specs.clear();
    model.ports(id, specs);
    std::vector<PortLink> links;
    links.reserve(specs.size());
    for (const PortSpec& s : specs) {
      PortLink link;
      link.peer = s.peer;
      link.peer_port = s.peer_port;
      link.link_class = s.link_class;
      link.latency = s.latency;
      const int peer_rank = partition.rank_of(s.peer);
      if (peer_rank == rank) {
        link.peer_local = partition.local_index(s.peer);
      } else {
        auto it = std::lower_bound(neighbours_.begin(), neighbours_.end(), peer_rank);
        link.outbox = static_cast<int32_t>(it - neighbours_.begin());
      }
      links.push_back(link);
    }
    components_.push_back(model.create(id, ctx));
    components_.back()->wire(&sink_, static_cast<uint32_t>(i), std::move(links));
  }
}

void Simulation::setup() {
  for (auto& c : components_) c->setup();
}

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
    // Start loading the next event's component while this one is handled: with many
    // components these loads are cache misses that otherwise stall one after another.
    const uint32_t next = queue.next_local();
    if (next != UINT32_MAX) {
      const char* c = reinterpret_cast<const char*>(components_[next].get());
      __builtin_prefetch(c);
      __builtin_prefetch(c + 64);
      __builtin_prefetch(c + 128);
    }
    sink_.set_now(e.key.time);
    components_[e.dst_local]->handle(e);
    ++handled;
  }
  // Background timers past the last real event run on some partitions and not on others (a
  // window may reach past it), so only foreground events are counted: counts stay invariant.
  return handled - background;
}

void Simulation::receive(const std::vector<Event>& events) {
  EventQueue& queue = sink_.queue();
  for (Event e : events) {
    if (partition_.rank_of(e.key.dst) != rank_) {
      throw std::logic_error("event for component " + std::to_string(e.key.dst) +
                             " delivered to the wrong rank " + std::to_string(rank_));
    }
    e.dst_local = partition_.local_index(e.key.dst);
    queue.push(e);
  }
}

void Simulation::finish(bool drained) {
  sink_.set_drained(drained);
  for (auto& c : components_) c->finish();
}

}  // namespace hx
