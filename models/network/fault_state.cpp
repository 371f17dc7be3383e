// The state of the fault schedule over time (faults.h): each link's and component's history,
// a circuit link's history merged with its configuration set's, and what the routers, endpoints
// and the flow level ask of them.
#include <algorithm>

#include "models/network/faults.h"

namespace hx::net {

const Faults::Change* Faults::state_at(const History& h, SimTime t) {
  const auto it = std::upper_bound(h.begin(), h.end(), t,
                                   [](SimTime at, const Change& c) { return at < c.at; });
  return it == h.begin() ? nullptr : &*(it - 1);
}

const Faults::History* Faults::circuit_history(uint64_t link) const {
  const uint32_t* set = circuits_.find(link);
  return set != nullptr ? &sets_[*set] : nullptr;
}

Faults::History Faults::merged(uint64_t link) const {
  const auto own = links_.find(link);
  const History* a = own == links_.end() ? nullptr : &own->second;
  const History* b = circuit_history(link);
  if (b == nullptr || b->empty()) return a != nullptr ? *a : History{};
  if (a == nullptr) return *b;
  History out;
  int32_t down_a = 0, down_b = 0;
  for (std::size_t i = 0, j = 0; i < a->size() || j < b->size();) {
    const bool from_a = j == b->size() || (i < a->size() && (*a)[i].at <= (*b)[j].at);
    const Change& c = from_a ? (*a)[i++] : (*b)[j++];
    (from_a ? down_a : down_b) = c.down;
    out.push_back({c.at, down_a + down_b, c.action});
  }
  return out;
}

bool Faults::link_up(uint64_t link, SimTime t) const {
  if (const History* set = circuit_history(link); set != nullptr) {
    const Change* c = state_at(*set, t);
    if (c != nullptr && c->down > 0) return false;
  }
  const auto it = links_.find(link);
  if (it == links_.end()) return true;
  const Change* c = state_at(it->second, t);
  return c == nullptr || c->down == 0;
}

uint32_t Faults::configuration(uint32_t element, uint32_t instance, SimTime t) const {
  if (element >= first_instance_.size()) return 0;
  uint32_t now = 0;
  for (const auto& [at, to] : switches_[first_instance_[element] + instance]) {
    if (at > t) break;
    now = to;
  }
  return now;
}

bool Faults::up_throughout(const History& h, SimTime from, SimTime to) {
  const Change* c = state_at(h, from);
  if (c != nullptr && c->down > 0) return false;
  for (const Change& ch : h) {
    if (ch.at > from && ch.at <= to && ch.down > 0) return false;
  }
  return true;
}

// Up throughout exactly when its own history and its circuit set's both are.
bool Faults::link_up_throughout(uint64_t link, SimTime from, SimTime to) const {
  if (const History* set = circuit_history(link); set != nullptr && !up_throughout(*set, from, to)) {
    return false;
  }
  const auto it = links_.find(link);
  return it == links_.end() || up_throughout(it->second, from, to);
}

bool Faults::component_up(ComponentId component, SimTime t) const {
  const auto it = components_.find(component);
  if (it == components_.end()) return true;
  const Change* c = state_at(it->second, t);
  return c == nullptr || c->down == 0;
}

SimTime Faults::down_time(uint64_t link, SimTime from, SimTime to) const {
  const History h = merged(link);
  if (h.empty() || to <= from) return SimTime::zero();
  SimTime total = SimTime::zero();
  for (std::size_t i = 0; i < h.size(); ++i) {
    if (h[i].down == 0) continue;
    const SimTime begin = std::max(h[i].at, from);
    const SimTime end = std::min(i + 1 < h.size() ? h[i + 1].at : SimTime::infinity(), to);
    if (end > begin) total += end - begin;
  }
  return total;
}

// The action of the last change at or before t that took the link further down. A circuit of a
// configuration dark from the start is down for want of the reconfiguration that will light
// it, if one has begun: the link's next change.
uint32_t Faults::cause(uint64_t link, SimTime t) const {
  const auto none = static_cast<uint32_t>(actions_.size());
  uint32_t found = none;
  bool dark = false;
  int32_t down = 0;
  for (const Change& c : merged(link)) {
    if (c.at > t) {
      return dark && c.action != kDark && actions_[c.action].at <= t ? c.action : found;
    }
    if (c.down > down) dark = c.action == kDark, found = dark ? none : c.action;
    down = c.down;
  }
  return found;
}

std::vector<SimTime> Faults::change_times() const {
  std::vector<SimTime> times;
  for (const FaultAction& a : actions_) {
    times.push_back(a.at);
    times.push_back(a.settled);
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  return times;
}

std::vector<SimTime> Faults::component_changes(ComponentId c) const {
  std::vector<SimTime> times;
  if (const auto it = components_.find(c); it != components_.end()) {
    for (const Change& ch : it->second) times.push_back(ch.at);
  }
  times.erase(std::unique(times.begin(), times.end()), times.end());
  return times;
}

SimTime Faults::next_component_change(ComponentId c, SimTime t) const {
  const auto it = components_.find(c);
  if (it == components_.end()) return SimTime::infinity();
  for (const Change& ch : it->second) {
    if (ch.at > t) return ch.at;
  }
  return SimTime::infinity();
}

SimTime Faults::next_change(uint64_t link, SimTime t) const {
  for (const Change& c : merged(link)) {
    if (c.at > t) return c.at;
  }
  return SimTime::infinity();
}

std::vector<uint32_t> Faults::actions_on(uint64_t link) const {
  std::vector<uint32_t> out;
  for (const Change& c : merged(link)) {
    if (c.action != kDark) out.push_back(c.action);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace hx::net
