// The fault schedule: reading the actions, naming their elements, and building each link's and
// circuit set's history (fault_state.cpp answers what they say over time, fault_csv.cpp reads
// the CSV form).
#include "models/network/faults.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "core/error.h"
#include "core/rng.h"
#include "core/text.h"

namespace hx::net {

std::vector<ParamSpec> fault_params() {
  return {
      ParamSpec::tables(
          "actions",
          {ParamSpec::time("at", "0ps", "simulated time of the action"),
           ParamSpec::choice("action", "fail", {"fail", "repair", "reconfigure"},
                             "fail: the element stops carrying traffic; repair: it carries "
                             "again; reconfigure: a reconfigurable element switches its circuits "
                             "to configuration `to`"),
           ParamSpec::text("element", "",
                           "what fails (docs/FAULTS.md): 'router R', 'endpoint E', 'router R port "
                           "P' (the link at that port, both directions; add 'out' for the one "
                           "leaving it), 'endpoint E port P', '<level> I' for a group of the "
                           "topology's partitioning levels (e.g. 'group 3', 'node 5', 'wafer 2'), "
                           "'N random <class> links' (N links of that link class, both "
                           "directions, drawn from the fault stream), or 'N random routers' "
                           "('endpoints', or a level: 'chips', 'nodes', ...); or a "
                           "reconfigurable element (e.g. RailX 'x-ocs', 'x-ocs 2')"),
           ParamSpec::text("to", "",
                           "reconfigure: the configuration to switch to (the topology's "
                           "reconfigurables list them, e.g. RailX 'hyperx:8')")},
          "timed fail, repair and reconfigure actions, e.g. [{at = \"20us\", action = \"fail\", "
          "element = "
          "\"router 3 port 5\"}]"),
      ParamSpec::text("file", "",
                      "a file of more actions: CSV (header 'at,action,element', one action per "
                      "line, times with units, e.g. 20us) or HDF5 (.h5, .hdf5: group /faults "
                      "with datasets time_ps, fail, element; docs/FAULTS.md)"),
      ParamSpec::tables(
          "random",
          {ParamSpec::text("element", "router",
                           "what fails: every router, every endpoint, every link (both "
                           "directions) of link_class, or every group of one of the "
                           "topology's partitioning levels (e.g. group, chip, node, board)"),
           ParamSpec::text("link_class", "", "element = 'link': the link class (its name)"),
           ParamSpec::time("mtbf", "1s", "mean time between failures of each element"),
           ParamSpec::time("mttr", "0ps",
                           "mean time to repair (exponential); 0: a failed element stays failed")},
          "independent failures: each element fails after exponential times of mean mtbf, from "
          "its own random stream (the same on any rank count)"),
      ParamSpec::time("horizon", "0ps",
                      "random failures are drawn up to this time (0: sim.end_time)"),
      ParamSpec::integer("pick", 0,
                         "with pick_from and pick_at: that many elements fail then, as the "
                         "action 'N random <pick_from>' (one key picks the count of a study)")
          .range(0, 1e9),
      ParamSpec::text("pick_from", "global links",
                      "what pick draws from: '<class> links', 'routers', 'endpoints' or a "
                      "partitioning level ('chips', 'nodes', 'groups', ...)"),
      ParamSpec::time("pick_at", "0ps", "when the picked elements fail"),
      ParamSpec::choice("to_failed_endpoint", "send", {"send", "wait"},
                        "a message to an endpoint that is failed when it would leave its "
                        "source: 'send' it (it is lost at the endpoint's router), or 'wait': "
                        "the source holds it, in its send queue, until the endpoint is back"),
  };
}

namespace {

constexpr uint64_t kPickStream = 1ULL << 62;  // Rng component ids of the random picks

// One action as read, before it is applied.
struct Raw {
  SimTime at;
  bool fail = true;
  std::string element;
  std::string origin;
  uint32_t source = 0;  // 0: given; 1 + i: random process i (its own fail/repair sequence)
  std::string to;       // reconfigure: the configuration (fail is then true)
  uint64_t pick = 0;    // 'N random ...': 1 + the pick's number among the given ones
};

// A change of a circuit set's count of what keeps it dark, before the counts are summed: a
// reconfiguration's second half comes a switching time later, after later actions' changes.
struct SetChange {
  SimTime at;
  int32_t delta = 0;
  uint32_t action = 0;
  uint64_t order = 0;  // ties at one instant keep the order of the actions
};

// The directed links and components an element covers.
struct Cover {
  std::vector<uint64_t> links;
  std::vector<ComponentId> components;
};

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Words [from, to) joined by single spaces: a level's name may have several ("board row").
std::string unwords(const std::vector<std::string>& w, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to; ++i) out += (i == from ? "" : " ") + w[i];
  return out;
}

bool number(const std::string& s, uint64_t& out) {
  if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  if (s.size() > 18) return false;
  out = std::stoull(s);
  return true;
}

// The undirected links of a class, each by the direction leaving the lower (component, port).
std::vector<uint64_t> links_of_class(const Topology& t, uint16_t link_class) {
  std::vector<uint64_t> out;
  std::vector<PortSpec> ports;
  for (ComponentId c = 0; c < t.num_components(); ++c) {
    ports.clear();
    t.ports(c, ports);
    for (PortId p = 0; p < ports.size(); ++p) {
      if (ports[p].link_class != link_class) continue;
      if (ports[p].peer < c || (ports[p].peer == c && ports[p].peer_port < p)) continue;
      out.push_back(t.first_link(c) + p);
    }
  }
  return out;
}

// The component whose port the link leaves (first_link is ascending in the id).
ComponentId owner(const Topology& t, uint64_t link) {
  ComponentId lo = 0, hi = t.num_components();
  while (hi - lo > 1) {
    const ComponentId mid = lo + (hi - lo) / 2;
    (t.first_link(mid) <= link ? lo : hi) = mid;
  }
  return lo;
}

// "router R port P": the element that names the link leaving that port.
std::string link_name(const Topology& t, uint64_t link) {
  const ComponentId c = owner(t, link);
  std::vector<PortSpec> ports;
  t.ports(c, ports);
  if (link - t.first_link(c) >= ports.size()) {
    throw std::logic_error("faults: link " + std::to_string(link) +
                           " is no port of a component: link ids do not ascend with them");
  }
  const Node n = t.node(c);
  return (n.kind == NodeKind::kRouter ? "router " : "endpoint ") + std::to_string(n.index) +
         " port " + std::to_string(link - t.first_link(c));
}

}  // namespace

// Turns the raw actions into the schedule.
class FaultScheduleBuilder {
 public:
  FaultScheduleBuilder(const Topology& t, uint64_t seed) : t_(t), seed_(seed) {
    for (const LinkClass& c : t.link_classes()) class_names_.push_back(c.name);
  }

  void add(Raw r) { raw_.push_back(std::move(r)); }

  // Random picks ('N random <class> links', 'N random routers', 'N random chips', ...) are
  // checked and numbered in the order given, each number its own stream; they are drawn in
  // time order (draw_pick), when what is failed then is known.
  void number_picks() {
    uint64_t picks = 0;
    for (Raw& r : raw_) {
      const std::vector<std::string> w = words(r.element);
      uint64_t count = 0;
      if (w.size() < 3 || w[1] != "random" || !number(w[0], count)) continue;
      if (!r.fail) fail(r, "a random pick can only fail (a repair names what it repairs)");
      const Pickable from = pickable(r, w);
      if (count > from.size) {
        fail(r, "asks for " + std::to_string(count) + " of " + std::to_string(from.size));
      }
      r.pick = ++picks;
    }
  }

  // The actions of pick `r`, one per element in ascending order: `count` distinct elements
  // drawn from the pick's stream, passing over those failed (by an earlier given action) at
  // r.at, so that later picks of a study never hit what earlier ones took, and those an action
  // after it (raw_[k] is the pick) names to fail: a pick is never repaired, so that action
  // would fail a failed element, an error the seed alone would decide.
  std::vector<Raw> draw_pick(std::size_t k,
                             const std::set<std::pair<std::string, uint32_t>>& failed,
                             const std::map<std::pair<std::string, uint32_t>, std::size_t>& named) {
    const Raw& r = raw_[k];
    const std::vector<std::string> w = words(r.element);
    uint64_t count = 0;
    number(w[0], count);
    const Pickable from = pickable(r, w);
    // A partial Fisher-Yates shuffle from the pick's own stream, over the positions it
    // moves only: a 33 M-link class needs no array of them.
    std::unordered_map<uint64_t, uint64_t> moved;
    const auto at = [&](uint64_t i) {
      const auto it = moved.find(i);
      return it == moved.end() ? i : it->second;
    };
    std::vector<std::pair<uint64_t, Raw>> chosen;
    uint64_t passed = 0;
    Rng rng(seed_, kPickStream + r.pick - 1, static_cast<uint64_t>(RngPurpose::kFaults));
    for (uint64_t i = 0; chosen.size() < count; ++i) {
      if (i == from.size) {
        fail(r, "asks for " + std::to_string(count) + " of " + std::to_string(from.size) +
                    ", of which " + std::to_string(passed) +
                    " are failed then or failed by a later action");
      }
      const uint64_t j = i + rng.below(from.size - i);
      const uint64_t a = at(i), b = at(j);
      moved[j] = a;
      moved[i] = b;
      Raw one = r;
      one.pick = 0;
      one.element = from.name(b);
      covered(one);
      const auto later = named.find({canonical_, r.source});
      if (failed.count({canonical_, r.source}) != 0 ||
          (later != named.end() && later->second > k)) {
        ++passed;
        continue;
      }
      chosen.emplace_back(b, std::move(one));
    }
    std::sort(chosen.begin(), chosen.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<Raw> out;
    for (auto& c : chosen) out.push_back(std::move(c.second));
    return out;
  }

  // The elements a pick 'N random ...' draws from: how many, and the name of the i-th (named
  // only when picked: naming a link looks up its component's ports).
  struct Pickable {
    uint64_t size = 0;
    std::function<std::string(uint64_t)> name;
  };
  Pickable pickable(const Raw& r, const std::vector<std::string>& w) const {
    if (w.size() == 4 && w[3] == "links") {
      auto links =
          std::make_shared<const std::vector<uint64_t>>(links_of_class(t_, link_class(r, w[2])));
      const Topology& t = t_;
      return {links->size(), [links, &t](uint64_t i) { return link_name(t, (*links)[i]); }};
    }
    // 'routers', 'endpoints' or a partitioning level, singular or plural.
    std::string unit = unwords(w, 2, w.size());
    uint64_t n = 0;
    std::vector<std::string> known = {"routers", "endpoints"};
    for (const GroupLevel& level : t_.group_levels()) {
      // A topology may call a level "router" (a torus's), already in the list.
      if (std::find(known.begin(), known.end(), level.name + "s") == known.end()) {
        known.push_back(level.name + "s");
      }
    }
    if (unit == "routers" || unit == "router") {
      unit = "router", n = t_.num_routers();
    } else if (unit == "endpoints" || unit == "endpoint") {
      unit = "endpoint", n = t_.num_endpoints();
    } else {
      for (const GroupLevel& level : t_.group_levels()) {
        if (unit == level.name || unit == level.name + "s") unit = level.name, n = level.count;
      }
    }
    if (n == 0) {
      fail(r, "picks from nothing this topology has; expected 'N random <class> links' or 'N "
              "random' one of: " + join(known));
    }
    return {n, [unit](uint64_t i) { return unit + " " + std::to_string(i); }};
  }

  Faults build() {
    number_picks();
    std::stable_sort(raw_.begin(), raw_.end(),
                     [](const Raw& a, const Raw& b) { return a.at < b.at; });
    Faults f;
    add_circuits(f);
    const auto named = last_named_fails();
    std::set<std::pair<std::string, uint32_t>> failed;  // (element, source)
    std::map<uint64_t, int32_t> link_down;
    std::map<ComponentId, int32_t> component_down;
    std::vector<Raw> drawn;
    std::size_t next_drawn = 0;
    for (std::size_t k = 0; k < raw_.size() || next_drawn < drawn.size();) {
      // A pick's actions take its place, in order.
      Raw r;
      if (next_drawn < drawn.size()) {
        r = std::move(drawn[next_drawn++]);
      } else if (raw_[k].pick != 0) {
        drawn = draw_pick(k++, failed, named);
        next_drawn = 0;
        continue;
      } else {
        r = raw_[k++];
      }
      if (reconfigurable(r, f, failed)) continue;
      if (!r.to.empty()) {
        fail(r, "is not reconfigurable; " + reconfigurable_names() + " (reconfigure)");
      }
      Cover cover = covered(r);
      std::sort(cover.links.begin(), cover.links.end());
      cover.links.erase(std::unique(cover.links.begin(), cover.links.end()), cover.links.end());
      const auto key = std::make_pair(canonical_, r.source);
      if (r.fail && !failed.insert(key).second) {
        fail(r, "fails " + canonical_ + ", which is already failed then");
      }
      if (!r.fail && failed.erase(key) == 0) {
        fail(r, "repairs " + canonical_ + ", which is not failed then");
      }
      const auto action = static_cast<uint32_t>(f.actions_.size());
      const int32_t delta = r.fail ? 1 : -1;
      for (const uint64_t l : cover.links) {
        f.links_[l].push_back({r.at, link_down[l] += delta, action});
      }
      for (const ComponentId c : cover.components) {
        f.components_[c].push_back({r.at, component_down[c] += delta, action});
      }
      f.actions_.push_back({r.at, r.fail, canonical_, r.origin, cover.links.size(), r.at});
    }
    sum_set_changes(f);
    f.times_ = f.change_times();
    return f;
  }

 private:
  [[noreturn]] static void fail(const Raw& r, const std::string& what) {
    throw InputError(r.origin + ": faults: '" + r.element + "' " + what);
  }

  // Per element a given action fails by name (not a pick, not a reconfigurable element), as
  // (canonical name, source): the last such action's place in raw_ (sorted by time).
  std::map<std::pair<std::string, uint32_t>, std::size_t> last_named_fails() {
    std::map<std::pair<std::string, uint32_t>, std::size_t> last;
    for (std::size_t i = 0; i < raw_.size(); ++i) {
      const Raw& r = raw_[i];
      if (!r.fail || r.pick != 0 || !r.to.empty()) continue;
      const std::vector<std::string> w = words(r.element);
      if (std::any_of(elements_.begin(), elements_.end(),
                      [&](const Reconfigurable& e) { return !w.empty() && w[0] == e.name; })) {
        continue;
      }
      covered(r);
      last[{canonical_, r.source}] = i;
    }
    return last;
  }

  // The circuit sets of the reconfigurable elements, each configuration but the first dark
  // from time 0, and every circuit link's set.
  void add_circuits(Faults& f) {
    elements_ = t_.reconfigurables();
    if (elements_.empty()) return;
    uint32_t sets = 0, instances = 0;
    for (const Reconfigurable& e : elements_) {
      f.first_set_.push_back(sets);
      f.first_instance_.push_back(instances);
      f.configurations_.push_back(static_cast<uint32_t>(e.configurations.size()));
      sets += e.instances * static_cast<uint32_t>(e.configurations.size());
      instances += e.instances;
    }
    f.sets_.resize(sets);
    f.switches_.resize(instances);
    set_changes_.resize(sets);
    set_links_.assign(sets, 0);
    for (const Reconfigurable& e : elements_) {
      const auto k = static_cast<uint32_t>(&e - elements_.data());
      for (uint32_t i = 0; i < e.instances; ++i) {
        for (uint32_t c = 1; c < e.configurations.size(); ++c) {
          set_changes_[f.set_of(k, i, c)].push_back({SimTime::zero(), 1, Faults::kDark, 0});
        }
      }
    }
    std::vector<PortSpec> ports;
    for (ComponentId c = 0; c < t_.num_components(); ++c) {
      ports.clear();
      t_.ports(c, ports);
      for (PortId p = 0; p < ports.size(); ++p) {
        Circuit circuit;
        if (!t_.circuit(c, p, circuit)) continue;
        const uint32_t set = f.set_of(circuit.element, circuit.instance, circuit.configuration);
        f.circuits_[t_.first_link(c) + p] = set;
        ++set_links_[set];
      }
    }
  }

  std::string reconfigurable_names() const {
    if (elements_.empty()) return "this topology has no reconfigurable elements";
    std::vector<std::string> names;
    for (const Reconfigurable& e : elements_) {
      names.push_back("'" + e.name + "' or '" + e.name + " I' (I < " +
                      std::to_string(e.instances) + "; configurations " +
                      join(e.configurations) + ")");
    }
    return "this topology's reconfigurable elements are " + join(names);
  }

  // A fail, repair or reconfigure of a reconfigurable element (false: r names something else).
  // Failing one darkens every configuration of its circuits; reconfiguring darkens the live
  // one at r.at and lights `to` a switching time later.
  bool reconfigurable(const Raw& r, Faults& f, std::set<std::pair<std::string, uint32_t>>& failed) {
    const std::vector<std::string> w = words(r.element);
    const auto it = std::find_if(elements_.begin(), elements_.end(), [&](const Reconfigurable& e) {
      return !w.empty() && w[0] == e.name;
    });
    if (it == elements_.end()) return false;
    const Reconfigurable& e = *it;
    const auto k = static_cast<uint32_t>(it - elements_.begin());
    uint64_t first = 0, last = e.instances;
    if (w.size() > 2) fail(r, "expected '" + e.name + "' or '" + e.name + " I'");
    if (w.size() == 2) {
      if (!number(w[1], first) || first >= e.instances) {
        fail(r, "names instance " + w[1] + "; '" + e.name + "' has " +
                    std::to_string(e.instances) + " (0 to " + std::to_string(e.instances - 1) +
                    ")");
      }
      last = first + 1;
    }
    const auto action = static_cast<uint32_t>(f.actions_.size());
    const std::string name = r.element.empty() ? e.name : trim(r.element);
    uint64_t links = 0;
    const auto change = [&](uint32_t set, SimTime at, int32_t delta) {
      set_changes_[set].push_back({at, delta, action, ++order_});
      links += set_links_[set];
    };
    if (r.to.empty()) {
      const auto key = std::make_pair(name, r.source);
      if (r.fail && !failed.insert(key).second) fail(r, "is already failed then");
      if (!r.fail && failed.erase(key) == 0) fail(r, "is not failed then");
      for (uint64_t i = first; i < last; ++i) {
        for (uint32_t c = 0; c < e.configurations.size(); ++c) {
          change(f.set_of(k, static_cast<uint32_t>(i), c), r.at, r.fail ? 1 : -1);
        }
      }
      f.actions_.push_back({r.at, r.fail, name, r.origin, links, r.at});
      return true;
    }
    const auto to = std::find(e.configurations.begin(), e.configurations.end(), trim(r.to));
    if (to == e.configurations.end()) {
      fail(r, "has no configuration '" + r.to + "'; its configurations are " +
                  join(e.configurations));
    }
    const auto target = static_cast<uint32_t>(to - e.configurations.begin());
    const SimTime settled = r.at + e.switching;
    for (uint64_t i = first; i < last; ++i) {
      auto& switches = f.switches_[f.first_instance_[k] + i];
      const uint32_t now = switches.empty() ? 0 : switches.back().second;
      if (!switches.empty() && r.at < switches.back().first + e.switching) {
        fail(r, "is still switching to " + e.configurations[now] + " until " +
                    format_time(switches.back().first + e.switching));
      }
      if (now == target) fail(r, "is in configuration " + *to + " already");
      switches.emplace_back(r.at, target);
      change(f.set_of(k, static_cast<uint32_t>(i), now), r.at, 1);
      change(f.set_of(k, static_cast<uint32_t>(i), target), settled, -1);
    }
    f.actions_.push_back({r.at, true, name + " to " + *to, r.origin, links, settled});
    return true;
  }

  // Each circuit set's history: its changes in time order, counts summed.
  void sum_set_changes(Faults& f) {
    for (std::size_t set = 0; set < set_changes_.size(); ++set) {
      std::vector<SetChange>& changes = set_changes_[set];
      std::stable_sort(changes.begin(), changes.end(), [](const SetChange& a, const SetChange& b) {
        return a.at != b.at ? a.at < b.at : a.order < b.order;
      });
      int32_t down = 0;
      for (const SetChange& c : changes) f.sets_[set].push_back({c.at, down += c.delta, c.action});
    }
  }

  uint16_t link_class(const Raw& r, const std::string& name) const {
    for (std::size_t i = 0; i < class_names_.size(); ++i) {
      if (class_names_[i] == name) return static_cast<uint16_t>(i);
    }
    fail(r, "names link class '" + name + "'; this topology's are " + join(class_names_));
  }

  // Every directed link of component c, both ways.
  void add_component(ComponentId c, Cover& cover) const {
    cover.components.push_back(c);
    std::vector<PortSpec> ports;
    t_.ports(c, ports);
    for (PortId p = 0; p < ports.size(); ++p) {
      cover.links.push_back(t_.first_link(c) + p);
      cover.links.push_back(t_.first_link(ports[p].peer) + ports[p].peer_port);
    }
  }

  ComponentId component(const Raw& r, const std::string& kind, const std::string& index) const {
    uint64_t i = 0;
    const bool router = kind == "router";
    const uint64_t count = router ? t_.num_routers() : t_.num_endpoints();
    if (!number(index, i)) fail(r, "expected '" + kind + " N' with N a number");
    if (i >= count) {
      fail(r, "names " + kind + " " + index + "; this topology has " + std::to_string(count) +
                  " " + kind + "s (0 to " + std::to_string(count - 1) + ")");
    }
    return router ? t_.router_component(static_cast<uint32_t>(i))
                  : t_.endpoint_component(static_cast<uint32_t>(i));
  }

  // The element's links and components; sets canonical_ to its name.
  Cover covered(const Raw& r) {
    const std::vector<std::string> w = words(r.element);
    Cover cover;
    if (w.size() >= 2 && (w[0] == "router" || w[0] == "endpoint")) {
      const ComponentId c = component(r, w[0], w[1]);
      if (w.size() == 2) {
        canonical_ = w[0] + " " + w[1];
        add_component(c, cover);
        return cover;
      }
      uint64_t p = 0;
      const bool out_only = w.size() == 5 && w[4] == "out";
      if (w[2] != "port" || !number(w[3], p) || (w.size() != 4 && !out_only)) {
        fail(r, "expected '" + w[0] + " N port P' or '" + w[0] + " N port P out'");
      }
      std::vector<PortSpec> ports;
      t_.ports(c, ports);
      if (p >= ports.size()) {
        fail(r, "names port " + w[3] + " of " + w[0] + " " + w[1] + ", which has " +
                    std::to_string(ports.size()) + " ports");
      }
      canonical_ = w[0] + " " + w[1] + " port " + w[3] + (out_only ? " out" : "");
      cover.links.push_back(t_.first_link(c) + p);
      if (!out_only) cover.links.push_back(t_.first_link(ports[p].peer) + ports[p].peer_port);
      return cover;
    }
    const std::vector<GroupLevel> levels = t_.group_levels();
    std::vector<std::string> names = {"router N", "endpoint N", "N random <class> links"};
    for (std::size_t level = 0; level < levels.size(); ++level) {
      if (std::find(names.begin(), names.end(), levels[level].name + " N") == names.end()) {
        names.push_back(levels[level].name + " N");
      }
      if (w.size() < 2 || unwords(w, 0, w.size() - 1) != levels[level].name) continue;
      uint64_t g = 0;
      if (!number(w.back(), g) || g >= levels[level].count) {
        fail(r, "names " + levels[level].name + " " + w.back() + "; this topology has " +
                    std::to_string(levels[level].count) + " of them");
      }
      canonical_ = levels[level].name + " " + w.back();
      const ComponentRange range = t_.group_range(level, g);
      for (ComponentId c = range.begin; c < range.end; ++c) add_component(c, cover);
      return cover;
    }
    fail(r, "is no element of this topology; expected one of: " + join(names));
  }

  const Topology& t_;
  uint64_t seed_;
  std::vector<std::string> class_names_;
  std::vector<Raw> raw_;
  std::string canonical_;
  std::vector<Reconfigurable> elements_;
  std::vector<std::vector<SetChange>> set_changes_;  // per circuit set
  std::vector<uint64_t> set_links_;                   // per circuit set: its links
  uint64_t order_ = 0;
};

namespace {

Raw raw_of(FaultRow row) {
  return {row.at, row.fail, std::move(row.element), std::move(row.origin), 0, std::move(row.to)};
}

}  // namespace

Faults Faults::build(const ParamSet& section, const Topology& topology, uint64_t seed,
                     SimTime horizon, const FaultFileReader& read_hdf5) {
  FaultScheduleBuilder b(topology, seed);
  const std::vector<ParamSet>& actions = section.tables("actions");
  for (std::size_t i = 0; i < actions.size(); ++i) {
    const ParamSet& a = actions[i];
    Raw r;
    r.at = a.time("at");
    r.fail = a.text("action") != "repair";
    r.element = a.text("element");
    r.to = a.text("to");
    r.origin = a.origin().empty() ? a.section() : a.origin();
    if (r.at < SimTime::zero()) throw InputError(r.origin + ": faults: a time before 0");
    if ((a.text("action") == "reconfigure") == r.to.empty()) {
      throw InputError(r.origin + ": faults: '" + r.element + "': " +
                       (r.to.empty() ? "reconfigure needs `to`, the configuration to switch to"
                                     : "`to` is for reconfigure actions only"));
    }
    b.add(std::move(r));
  }
  if (const int64_t n = section.integer("pick"); n > 0) {
    b.add({section.time("pick_at"), true,
           std::to_string(n) + " random " + section.text("pick_from"), "faults.pick", 0, ""});
  }
  if (const std::string& path = section.text("file"); !path.empty()) {
    std::vector<FaultRow> rows;
    const auto ends = [&path](const std::string& suffix) {
      return path.size() >= suffix.size() &&
             path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (ends(".h5") || ends(".hdf5")) {
      if (!read_hdf5) throw InputError("faults.file = '" + path + "': no HDF5 reader here");
      rows = read_hdf5(path);
    } else {
      std::ifstream in(path);
      if (!in) throw InputError("faults.file = '" + path + "': cannot open the file");
      rows = parse_faults_csv(in, path);
    }
    for (FaultRow& row : rows) {
      if (row.at < SimTime::zero()) throw InputError(row.origin + ": faults: a time before 0");
      b.add(raw_of(std::move(row)));
    }
  }
  const std::vector<ParamSet>& random = section.tables("random");
  if (!random.empty()) {
    const SimTime h = section.time("horizon") > SimTime::zero() ? section.time("horizon") : horizon;
    if (h.is_infinite()) {
      throw InputError("faults.random needs an end: set faults.horizon or sim.end_time");
    }
    for (std::size_t i = 0; i < random.size(); ++i) {
      const ParamSet& p = random[i];
      const std::string origin = p.origin().empty() ? p.section() : p.origin();
      const double mtbf = static_cast<double>(p.time("mtbf").count_ps());
      const double mttr = static_cast<double>(p.time("mttr").count_ps());
      if (mtbf <= 0) throw InputError(origin + ": faults.random mtbf must be positive");
      // The elements a pick of the same kind would draw from ("routers", "<class> links",
      // "chips"): a wrong kind's message lists the topology's.
      const std::string kind = trim(p.text("element"));
      std::vector<std::string> kinds = {"router", "endpoint", "link"};
      for (const GroupLevel& level : topology.group_levels()) {
        if (std::find(kinds.begin(), kinds.end(), level.name) == kinds.end()) {
          kinds.push_back(level.name);
        }
      }
      if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
        throw InputError(origin + ": faults.random element = '" + kind + "': this topology's are " +
                         join(kinds));
      }
      if (kind == "link" && p.text("link_class").empty()) {
        throw InputError(origin + ": faults.random element = 'link' needs link_class");
      }
      if (kind != "link" && !p.text("link_class").empty()) {
        throw InputError(origin + ": faults.random link_class is for element = 'link', not '" +
                         kind + "'");
      }
      const std::string from = kind == "link" ? p.text("link_class") + " links" : kind + "s";
      const auto elements =
          b.pickable({SimTime::zero(), true, "faults.random " + from, origin, 0, ""},
                     words("0 random " + from));
      // Element e of process i draws from its own stream: the same times on any rank count.
      for (uint64_t e = 0; e < elements.size; ++e) {
        Rng rng(seed, (uint64_t{i} << 40) + e, static_cast<uint64_t>(RngPurpose::kFaults));
        double t = rng.exponential(mtbf);
        std::string name;  // named once it fails
        while (t < static_cast<double>(h.count_ps())) {
          const SimTime down = SimTime::ps(static_cast<int64_t>(t));
          if (name.empty()) name = elements.name(e);
          b.add({down, true, name, origin, static_cast<uint32_t>(i + 1), ""});
          if (mttr <= 0) break;
          t += std::max(1.0, rng.exponential(mttr));
          b.add({SimTime::ps(static_cast<int64_t>(t)), false, name, origin,
                 static_cast<uint32_t>(i + 1), ""});
          t += rng.exponential(mtbf);
        }
      }
    }
  }
  Faults f = b.build();
  f.hold_for_failed_ = section.text("to_failed_endpoint") == "wait";
  return f;
}

}  // namespace hx::net
