// Folding: the pairs the programs send between, their footprints, the search for the part of
// the workload's symmetry the network shares, and the checks that make the quotient exact
// (folding.h).
#include "models/flow/folding.h"

#include <algorithm>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace hx::flow {
namespace {

// One link of one pair's footprint.
struct Crossing {
  uint32_t link;
  uint32_t count;
};

// A class's count on one link.
struct ClassCount {
  uint32_t cls;
  uint32_t count;
  bool operator==(const ClassCount&) const = default;
};

// What every pair of a class must share (folding.h, check 3).
struct Shape {
  uint32_t paths = 0;
  uint64_t hops = 0;
  SimTime latency;
  bool operator==(const Shape&) const = default;
};

std::string pair_name(uint32_t src, uint32_t dst) {
  return "endpoint " + std::to_string(src) + " to " + std::to_string(dst);
}

// The peers endpoint e's programs send a message to (not itself), ascending.
void peers_of(const wl::Workload& workload, uint32_t e, wl::Program& program,
              std::vector<uint32_t>& peers) {
  peers.clear();
  const uint32_t phases = workload.phases(e);
  for (uint32_t k = 0; k < phases; ++k) {
    program.clear();
    workload.generate(e, k, program);
    for (const wl::Op& op : program.ops) {
      if (op.kind == wl::OpKind::kSend && op.peer != e) peers.push_back(op.peer);
    }
    // Phases repeat the same peers: keep the list short as it grows.
    if (peers.size() > 4096) {
      std::sort(peers.begin(), peers.end());
      peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
    }
  }
  std::sort(peers.begin(), peers.end());
  peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
}

// Every (representative, peer) pair the representatives' programs send a message between, in
// order of the representative; each team member scans a share of the representatives.
std::vector<std::pair<uint32_t, uint32_t>> pairs_used(const wl::Workload& workload,
                                                      const wl::Symmetry& sym, uint32_t endpoints,
                                                      const Team& team) {
  std::vector<uint32_t> representatives;
  for (uint32_t e = 0; e < endpoints; ++e) {
    if (sym.is_representative(e)) representatives.push_back(e);
  }
  const auto [begin, end] = team_share(team, representatives.size());
  std::vector<uint64_t> mine;  // src << 32 | dst
  run_together(team, [&, begin = begin, end = end] {
    wl::Program program;
    std::vector<uint32_t> peers;
    for (uint64_t i = begin; i < end; ++i) {
      const uint32_t e = representatives[i];
      peers_of(workload, e, program, peers);
      for (const uint32_t p : peers) mine.push_back(uint64_t{e} << 32 | p);
    }
  });
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  for (const uint64_t x : gather_all(team, mine)) {
    pairs.emplace_back(static_cast<uint32_t>(x >> 32), static_cast<uint32_t>(x));
  }
  return pairs;
}

// The footprints of every pair the programs use: the workload's representatives' pairs (its
// classes c) and all their images g, pair c * order + g. Each team member routes a share of
// the pairs.
class AllPairs {
 public:
  AllPairs(const net::Topology& t, const net::Routing& r, const wl::Symmetry& sym,
           std::vector<std::pair<uint32_t, uint32_t>> classes, SimTime router_delay,
           uint32_t max_hops, const Team& team)
      : sym_(sym), classes_(std::move(classes)) {
    const uint64_t pairs = classes_.size() * uint64_t{sym.order()};
    const auto [begin, end] = team_share(team, pairs);
    std::vector<uint32_t> sizes;  // crossings per pair
    run_together(team, [&, begin = begin, end = end] {
      FootprintBuilder builder(t, r, router_delay, max_hops);
      for (uint64_t i = begin; i < end; ++i) {
        const auto [a, b] =
            pair(static_cast<uint32_t>(i / order()), static_cast<uint32_t>(i % order()));
        const Footprint fp = builder.build(a, b);
        shapes_.push_back({fp.paths, fp.hops, fp.latency});
        sizes.push_back(static_cast<uint32_t>(fp.uses.size()));
        for (const LinkUse& u : fp.uses) {
          crossings_.push_back({static_cast<uint32_t>(u.link), u.count});
        }
      }
    });
    if (team.size() > 1) {
      shapes_ = gather_all(team, shapes_);
      sizes = gather_all(team, sizes);
      crossings_ = gather_all(team, crossings_);
    }
    begin_.reserve(pairs + 1);
    begin_.push_back(0);
    for (const uint32_t n : sizes) begin_.push_back(begin_.back() + n);
  }

  uint32_t classes() const { return static_cast<uint32_t>(classes_.size()); }
  uint32_t order() const { return sym_.order(); }
  std::pair<uint32_t, uint32_t> pair(uint32_t c, uint32_t g) const {
    return {sym_.apply(g, classes_[c].first), sym_.apply(g, classes_[c].second)};
  }
  std::span<const Crossing> crossings(uint32_t c, uint32_t g) const {
    const std::size_t i = std::size_t{c} * order() + g;
    return {crossings_.data() + begin_[i], begin_[i + 1] - begin_[i]};
  }
  const Shape& shape(uint32_t c, uint32_t g) const { return shapes_[std::size_t{c} * order() + g]; }

 private:
  const wl::Symmetry& sym_;
  std::vector<std::pair<uint32_t, uint32_t>> classes_;
  std::vector<std::size_t> begin_;
  std::vector<Crossing> crossings_;
  std::vector<Shape> shapes_;
};

// What a trial of one subgroup H finds: the link groups and, per class of H, its pair (the one
// whose source is H's representative) and footprint.
struct Quotient {
  std::vector<uint32_t> group_of;
  std::vector<uint32_t> group_size;
  std::vector<std::pair<std::pair<uint32_t, uint32_t>, FootprintRef>> classes;
};

// Checks 1-3 of folding.h for the subgroup `h` of the workload's symmetry; nullopt and `why`
// when it fails.
std::optional<Quotient> try_fold(const AllPairs& all, const wl::Symmetry& h,
                                 const std::vector<uint16_t>& link_class, std::string& why) {
  const uint64_t links = link_class.size();
  // The classes of H: each workload class splits by the H-representative of the source.
  struct Member {
    uint32_t rep, g;
  };
  std::vector<std::vector<Member>> members;  // per H-class, ordered by (workload class, rep)
  std::vector<uint32_t> class_of;            // workload class of each H-class
  // A class has order() members but few distinct representatives: those are sorted, and each
  // member goes to its representative's H-class in ascending g (a counting pass, not a sort of
  // all members).
  constexpr uint32_t kUnseen = UINT32_MAX;
  std::vector<uint32_t> rep_of(all.order()), distinct;
  std::vector<uint32_t> index_of(h.endpoints(), kUnseen);  // of a representative in distinct
  for (uint32_t c = 0; c < all.classes(); ++c) {
    distinct.clear();
    for (uint32_t g = 0; g < all.order(); ++g) {
      rep_of[g] = h.representative(all.pair(c, g).first);
      if (index_of[rep_of[g]] == kUnseen) {
        index_of[rep_of[g]] = 0;
        distinct.push_back(rep_of[g]);
      }
    }
    std::sort(distinct.begin(), distinct.end());
    const std::size_t first = members.size();
    for (uint32_t i = 0; i < distinct.size(); ++i) index_of[distinct[i]] = i;
    members.resize(first + distinct.size());
    class_of.resize(first + distinct.size(), c);
    for (uint32_t g = 0; g < all.order(); ++g) {
      members[first + index_of[rep_of[g]]].push_back({rep_of[g], g});
    }
    for (const uint32_t r : distinct) index_of[r] = kUnseen;
  }

  // Check 3's cheap part first: the pairs of a class cross as many links, on as many paths, with
  // as many hops and the same latency. Most subgroups the network does not share fail here,
  // before the per-link counts are built.
  for (uint32_t k = 0; k < members.size(); ++k) {
    const uint32_t c = class_of[k], g0 = members[k].front().g;
    for (const Member& m : members[k]) {
      if (all.crossings(c, m.g).size() != all.crossings(c, g0).size() ||
          !(all.shape(c, m.g) == all.shape(c, g0))) {
        const auto [a, b] = all.pair(c, m.g);
        const auto [a0, b0] = all.pair(c, g0);
        why = pair_name(a, b) + " is routed otherwise than " + pair_name(a0, b0);
        return std::nullopt;
      }
    }
  }

  // Pass 1: per link, each class's count (classes in order, so each list is sorted). The
  // (link, class, count) entries are gathered class by class, then sorted stably by link into
  // one array: a list per link would cost an allocation per link crossed.
  struct Entry {
    uint32_t link;
    ClassCount x;
  };
  std::vector<Entry> entries;
  std::vector<uint32_t> count(links, 0), touched;
  for (uint32_t k = 0; k < members.size(); ++k) {
    for (const Member& m : members[k]) {
      for (const Crossing& x : all.crossings(class_of[k], m.g)) {
        if (count[x.link] == 0) touched.push_back(x.link);
        if (x.count > UINT32_MAX - count[x.link]) {  // far beyond any shipped topology
          throw std::overflow_error("folding: a class crosses link " + std::to_string(x.link) +
                                    " more than 2^32 times");
        }
        count[x.link] += x.count;
      }
    }
    for (const uint32_t l : touched) {
      entries.push_back({l, {k, count[l]}});
      count[l] = 0;
    }
    touched.clear();
  }
  std::vector<uint64_t> list_begin(links + 1, 0);
  for (const Entry& e : entries) ++list_begin[e.link + 1];
  for (uint64_t l = 0; l < links; ++l) list_begin[l + 1] += list_begin[l];
  std::vector<ClassCount> lists(entries.size());
  {
    std::vector<uint64_t> fill(list_begin.begin(), list_begin.end() - 1);
    for (const Entry& e : entries) lists[fill[e.link]++] = e.x;
  }
  const auto by_link = [&](uint64_t l) {
    return std::span<const ClassCount>(lists.data() + list_begin[l],
                                       list_begin[l + 1] - list_begin[l]);
  };

  // Link groups: the same link class and the same list, numbered by their first link.
  Quotient q;
  q.group_of.assign(links, Folding::kNone);
  std::vector<uint64_t> first_link;  // of each group
  std::unordered_map<uint64_t, std::vector<uint32_t>> by_hash;
  for (uint64_t l = 0; l < links; ++l) {
    if (by_link(l).empty()) continue;
    uint64_t hash = link_class[l] * 0x9E3779B97F4A7C15ULL;
    for (const ClassCount& x : by_link(l)) {
      hash = (hash ^ (uint64_t{x.cls} << 32 | x.count)) * 0xBF58476D1CE4E5B9ULL;
    }
    std::vector<uint32_t>& candidates = by_hash[hash];
    uint32_t group = Folding::kNone;
    for (const uint32_t g : candidates) {
      const uint64_t f = first_link[g];
      if (link_class[f] == link_class[l] && std::ranges::equal(by_link(f), by_link(l))) group = g;
    }
    if (group == Folding::kNone) {
      group = static_cast<uint32_t>(first_link.size());
      first_link.push_back(l);
      q.group_size.push_back(0);
      candidates.push_back(group);
    }
    q.group_of[l] = group;
    ++q.group_size[group];
  }

  // Pass 2: every pair of a class crosses the groups alike; the class's footprint.
  std::vector<std::pair<uint32_t, uint32_t>> first, other;  // (group, count), sorted
  const auto groups_crossed = [&](uint32_t c, uint32_t g,
                                  std::vector<std::pair<uint32_t, uint32_t>>& out) {
    out.clear();
    for (const Crossing& x : all.crossings(c, g)) out.emplace_back(q.group_of[x.link], x.count);
    std::sort(out.begin(), out.end());
  };
  for (uint32_t k = 0; k < members.size(); ++k) {
    const uint32_t c = class_of[k];
    // The pair whose source is the representative stands for the class.
    const auto own = std::find_if(members[k].begin(), members[k].end(),
                                  [&](const Member& m) { return all.pair(c, m.g).first == m.rep; });
    const uint32_t g0 = own->g;
    groups_crossed(c, g0, first);
    for (const Member& m : members[k]) {
      groups_crossed(c, m.g, other);
      if (other != first || !(all.shape(c, m.g) == all.shape(c, g0))) {
        const auto [a, b] = all.pair(c, m.g);
        const auto [a0, b0] = all.pair(c, g0);
        why = pair_name(a, b) + " is routed otherwise than " + pair_name(a0, b0);
        return std::nullopt;
      }
    }
    auto fp = boost::make_local_shared<Footprint>();
    const Shape& shape = all.shape(c, g0);
    fp->paths = shape.paths;
    fp->hops = shape.hops;
    fp->latency = shape.latency;
    // Per group, the class's count on each of its links (the same on all, by construction).
    for (const Crossing& x : all.crossings(c, g0)) {
      const uint32_t group = q.group_of[x.link];
      if (std::any_of(fp->uses.begin(), fp->uses.end(),
                      [group](const LinkUse& u) { return u.link == group; })) {
        continue;
      }
      const auto list = by_link(x.link);
      const auto at =
          std::lower_bound(list.begin(), list.end(), k,
                           [](const ClassCount& y, uint32_t cls) { return y.cls < cls; });
      fp->uses.push_back({group, at->count});
      fp->link_classes.push_back(link_class[x.link]);
    }
    q.classes.push_back({all.pair(c, g0), std::move(fp)});
  }
  return q;
}

// Check 3's cheap part of try_fold on the first representative's pairs alone, in try_fold's
// order, building each footprint only when it is compared (at most kBudget per subgroup): the
// first pair that breaks it is the one the full analysis would find first, since those pairs'
// classes come first there. So a subgroup refuted here fails there with the same reason, and
// where every subgroup is refuted nothing folds without routing every pair the programs use
// (107 s on RailX7Mesh, most of it generating every representative's programs). A subgroup it
// cannot refute goes to the full analysis.
class Probe {
 public:
  static constexpr uint32_t kBudget = 16384;

  Probe(const net::Topology& t, const net::Routing& r, const wl::Symmetry& sym,
        std::vector<std::pair<uint32_t, uint32_t>> classes, SimTime router_delay, uint32_t max_hops)
      : builder_(t, r, router_delay, max_hops), sym_(sym), classes_(std::move(classes)) {}

  // True, with try_fold's `why`, when the subgroup h fails; false when the probe cannot tell.
  bool refutes(const wl::Symmetry& h, std::string& why) {
    built_ = 0;
    std::vector<std::pair<uint32_t, uint32_t>> members;  // (H-representative, g), as try_fold
    for (uint32_t c = 0; c < classes_.size(); ++c) {
      members.clear();
      for (uint32_t g = 0; g < sym_.order(); ++g) {
        members.push_back({h.representative(pair(c, g).first), g});
      }
      std::sort(members.begin(), members.end());
      for (std::size_t i = 0, front = 0; i < members.size(); ++i) {
        if (members[i].first != members[front].first) front = i;
        const auto ab = pair(c, members[i].second), ab0 = pair(c, members[front].second);
        const Look* x = look(ab);
        const Look* x0 = look(ab0);
        if (x == nullptr || x0 == nullptr) return false;  // over the budget
        if (!(*x == *x0)) {
          why = pair_name(ab.first, ab.second) + " is routed otherwise than " +
                pair_name(ab0.first, ab0.second);
          return true;
        }
      }
    }
    return false;
  }

 private:
  struct Look {
    std::size_t uses = 0;
    Shape shape;
    bool operator==(const Look&) const = default;
  };
  std::pair<uint32_t, uint32_t> pair(uint32_t c, uint32_t g) const {
    return {sym_.apply(g, classes_[c].first), sym_.apply(g, classes_[c].second)};
  }
  const Look* look(std::pair<uint32_t, uint32_t> ab) {
    const uint64_t key = uint64_t{ab.first} << 32 | ab.second;
    if (const auto it = seen_.find(key); it != seen_.end()) return &it->second;
    if (built_ == kBudget) return nullptr;
    ++built_;
    const Footprint fp = builder_.build(ab.first, ab.second);
    return &seen_.emplace(key, Look{fp.uses.size(), {fp.paths, fp.hops, fp.latency}}).first->second;
  }

  FootprintBuilder builder_;
  const wl::Symmetry& sym_;
  std::vector<std::pair<uint32_t, uint32_t>> classes_;
  std::unordered_map<uint64_t, Look> seen_;  // node-based: looks stay where they are
  uint32_t built_ = 0;                       // for the subgroup at hand
};

// Digit d shifted by k positions at a time: the subgroup of its shifts by multiples of k.
wl::Digit coarsened(const wl::Digit& d, uint32_t k) {
  if (k == 1) return d;
  return {d.name + " by " + std::to_string(k), d.stride * k, d.size / k};
}

// After each member searched its digits (i % team size == rank), every member gets every
// digit's result.
void share_searches(const Team& team, std::vector<uint32_t>& finest,
                    std::vector<std::string>& plainest) {
  const std::size_t n = finest.size();
  const auto size = static_cast<std::size_t>(team.size());
  const std::vector<uint32_t> all_finest = gather_all(team, finest);
  std::vector<uint64_t> lengths;
  std::vector<char> text;
  for (const std::string& p : plainest) {
    lengths.push_back(p.size());
    text.insert(text.end(), p.begin(), p.end());
  }
  const std::vector<uint64_t> all_lengths = gather_all(team, lengths);
  const std::vector<char> all_text = gather_all(team, text);
  uint64_t at = 0;
  for (std::size_t r = 0; r < size; ++r) {
    for (std::size_t i = 0; i < n; ++i) {
      const uint64_t length = all_lengths[r * n + i];
      if (i % size == r) {
        finest[i] = all_finest[r * n + i];
        plainest[i].assign(all_text.data() + at, length);
      }
      at += length;
    }
  }
}

// Whether the probe refutes every shift of every digit (then nothing folds, and `why` is what
// the full search would report: the last digit's reason for shifts by one).
bool refuted(const net::Topology& topology, const net::Routing& routing, const wl::Symmetry& sym,
             const wl::Workload& workload, SimTime router_delay, uint32_t max_hops,
             std::string& why) {
  uint32_t first = 0;
  while (!sym.is_representative(first)) ++first;
  wl::Program program;
  std::vector<uint32_t> peers;
  peers_of(workload, first, program, peers);
  std::vector<std::pair<uint32_t, uint32_t>> classes;
  for (const uint32_t p : peers) classes.emplace_back(first, p);
  Probe probe(topology, routing, sym, std::move(classes), router_delay, max_hops);
  for (const wl::Digit& d : sym.digits()) {
    for (uint32_t k = 1; k < d.size; ++k) {
      if (d.size % k != 0) continue;
      std::string reason;
      if (!probe.refutes(sym.with_digits({coarsened(d, k)}), reason)) return false;
      if (k == 1) why = d.name + " shifts: " + reason;
    }
  }
  return true;
}

}  // namespace

uint32_t Folding::members() const { return symmetry_->order(); }

uint32_t Folding::port_of(uint32_t representative) const { return port_[representative]; }

FootprintRef Folding::footprint(uint32_t src, uint32_t dst) const {
  const uint32_t* c = class_of_.find(uint64_t{src} << 32 | dst);
  if (c == nullptr) {
    throw std::logic_error("folding: no class for " + pair_name(src, dst) +
                           "; the programs were scanned for every pair they use");
  }
  return classes_[*c];
}

std::string Folding::describe() const {
  return symmetry_->describe() + ", " + std::to_string(representatives_.size()) + " simulated, " +
         std::to_string(classes_.size()) + " classes of flows on " + std::to_string(groups()) +
         " link groups";
}

std::unique_ptr<const Folding> Folding::build(const net::Topology& topology,
                                              const net::Routing& routing,
                                              const wl::Workload& workload, SimTime router_delay,
                                              uint32_t max_hops, const Team& team,
                                              std::string& why_not, uint64_t max_pairs) {
  const wl::Symmetry* sym = workload.symmetry();
  if (sym == nullptr || sym->order() < 2) {
    why_not = "the workload has no symmetry to fold";
    return nullptr;
  }
  const uint32_t endpoints = topology.num_endpoints();
  if (sym->endpoints() != endpoints) {
    why_not = "the workload runs on " + std::to_string(sym->endpoints()) + " of the " +
              std::to_string(endpoints) + " endpoints";
    return nullptr;
  }
  const uint64_t links = topology.num_links();
  if (links >= kNone) {
    why_not = "more than 2^32 links";
    return nullptr;
  }
  if (std::string why; refuted(topology, routing, *sym, workload, router_delay, max_hops, why)) {
    why_not = why;
    return nullptr;
  }
  std::vector<uint16_t> link_class(links, 0);
  std::vector<PortSpec> ports;
  for (ComponentId id = 0; id < topology.num_components(); ++id) {
    ports.clear();
    topology.ports(id, ports);
    for (PortId p = 0; p < ports.size(); ++p) {
      link_class[topology.first_link(id) + p] = ports[p].link_class;
    }
  }
  std::vector<std::pair<uint32_t, uint32_t>> classes = pairs_used(workload, *sym, endpoints, team);
  if (const uint64_t pairs = classes.size() * uint64_t{sym->order()}; pairs > max_pairs) {
    why_not = "checking the symmetry would route " + std::to_string(pairs) +
              " pairs of endpoints, more than " + std::to_string(max_pairs);
    return nullptr;
  }
  const AllPairs all(topology, routing, *sym, std::move(classes), router_delay, max_hops, team);

  // The finest shift of each digit the network shares, then all of them together. The digits'
  // searches are independent: the team's members take one digit each in turn.
  const std::vector<wl::Digit>& digits = sym->digits();
  std::vector<uint32_t> finest(digits.size(), 0);    // the shift kept; 0: none
  std::vector<std::string> plainest(digits.size());  // why shifts by one fail, for the report
  std::string why;
  run_together(team, [&] {
    for (std::size_t i = static_cast<std::size_t>(team.rank()); i < digits.size();
         i += static_cast<std::size_t>(team.size())) {
      const wl::Digit& d = digits[i];
      for (uint32_t k = 1; k < d.size; ++k) {
        if (d.size % k != 0) continue;
        if (try_fold(all, sym->with_digits({coarsened(d, k)}), link_class, why)) {
          finest[i] = k;
          break;
        }
        if (k == 1) plainest[i] = d.name + " shifts: " + why;
      }
    }
  });
  if (team.size() > 1) share_searches(team, finest, plainest);
  std::vector<wl::Digit> kept;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (finest[i] != 0) kept.push_back(coarsened(digits[i], finest[i]));
    if (!plainest[i].empty()) why_not = plainest[i];  // the last digit's, as in one search
  }
  std::optional<Quotient> q;
  std::unique_ptr<const wl::Symmetry> chosen;
  for (; !kept.empty() && !q; kept.pop_back()) {
    chosen = std::make_unique<const wl::Symmetry>(sym->with_digits(kept));
    q = try_fold(all, *chosen, link_class, why);
    if (q) break;
  }
  if (!q) {
    if (why_not.empty()) why_not = why;
    return nullptr;
  }
  auto f = std::unique_ptr<Folding>(new Folding());
  f->symmetry_ = std::move(chosen);
  f->port_.assign(endpoints, kNone);
  for (uint32_t e = 0; e < endpoints; ++e) {
    if (!f->symmetry_->is_representative(e)) continue;
    f->port_[e] = static_cast<uint32_t>(f->representatives_.size());
    f->representatives_.push_back(e);
  }
  f->group_of_ = std::move(q->group_of);
  f->group_size_ = std::move(q->group_size);
  for (auto& [pair, fp] : q->classes) {
    const uint64_t key = uint64_t{pair.first} << 32 | pair.second;
    if (f->class_of_.find(key) != nullptr) continue;  // one class per pair
    f->class_of_[key] = static_cast<uint32_t>(f->classes_.size());
    f->classes_.push_back(std::move(fp));
  }
  return f;
}

}  // namespace hx::flow
