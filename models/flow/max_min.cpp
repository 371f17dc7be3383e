// Progressive filling over the flows a change reaches (max_min.h).
#include "models/flow/max_min.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace hx::flow {
namespace {

__extension__ using u128 = unsigned __int128;  // __extension__: -Wpedantic accepts it

}  // namespace

MaxMinSolver::Share MaxMinSolver::Share::of(uint64_t remaining, uint64_t unfixed, uint64_t id,
                                            uint32_t link) {
  return {remaining / unfixed, remaining, unfixed, id, link};
}

bool MaxMinSolver::Share::same(const Share& o) const {
  return level == o.level &&
         static_cast<u128>(remaining) * o.unfixed == static_cast<u128>(o.remaining) * unfixed;
}

// Min-heap order: the smaller share first (compared exactly, as fractions), ties by link id so
// that the order depends neither on the heap's layout nor on the order links were declared.
bool MaxMinSolver::Share::later(const Share& a, const Share& b) {
  if (a.level != b.level) return a.level > b.level;
  const u128 lhs = static_cast<u128>(a.remaining) * b.unfixed;
  const u128 rhs = static_cast<u128>(b.remaining) * a.unfixed;
  if (lhs != rhs) return lhs > rhs;
  return a.id > b.id;
}

// The lowest share (compared exactly, as fractions) and every link at it.
void MaxMinSolver::Lowest::offer(const Link& l, uint32_t i, std::vector<uint32_t>& batch) {
  if (link != nullptr) {
    const u128 lhs = static_cast<u128>(l.remaining) * link->unfixed;
    const u128 rhs = static_cast<u128>(link->remaining) * l.unfixed;
    if (lhs > rhs) return;
    if (lhs == rhs) {
      batch.push_back(i);
      return;
    }
  }
  link = &l;
  batch.clear();
  batch.push_back(i);
}

void MaxMinSolver::set_capacity(uint64_t link, Rate capacity) {
  if (capacity == 0) {
    throw std::invalid_argument("link " + std::to_string(link) + ": capacity 0");
  }
  const bool known = has_link(link);
  const uint32_t index = known ? index_[link] : static_cast<uint32_t>(links_.size());
  if (!known) {
    if (link >= uint64_t{1} << 32) {
      throw std::invalid_argument("link " + std::to_string(link) + ": ids must be dense from 0");
    }
    if (link >= index_.size()) index_.resize(link + 1, kNoLink);
    index_[link] = index;
    links_.emplace_back();
    links_.back().id = link;
  }
  links_[index].capacity = capacity;
  touch_link(index);
  if (known) settled_below_ = 0;  // a changed capacity can move any level
}

Rate MaxMinSolver::capacity(uint64_t link) const { return links_[index_of(link)].capacity; }

uint32_t MaxMinSolver::index_of(uint64_t link) const {
  if (!has_link(link)) {
    throw std::invalid_argument("link " + std::to_string(link) + " has no capacity");
  }
  return index_[link];
}

MaxMinSolver::FlowId MaxMinSolver::add(std::span<const LinkUse> uses) {
  if (uses.empty()) throw std::invalid_argument("a flow over no link");
  FlowId id;
  if (free_.empty()) {
    id = static_cast<FlowId>(flows_.size());
    flows_.emplace_back();
  } else {
    id = free_.back();
    free_.pop_back();
  }
  Flow& f = flows_[id];
  f.uses.clear();
  for (const LinkUse& u : uses) {
    if (u.count == 0) throw std::invalid_argument("link " + std::to_string(u.link) + ": count 0");
    const uint32_t link = index_of(u.link);
    for (const Use& seen : f.uses) {
      if (seen.link == link) {
        throw std::invalid_argument("link " + std::to_string(u.link) +
                                    " listed twice in one flow; give it a count instead");
      }
    }
    Link& l = links_[link];
    l.counts += u.count;
    f.uses.push_back({link, u.count, static_cast<uint32_t>(l.crossing.size())});
    l.crossing.push_back({id, static_cast<uint32_t>(f.uses.size() - 1), u.count});
    touch_link(link);
  }
  f.rate = 0;
  f.live = true;
  f.fresh = true;
  fresh_.push_back(id);
  ++live_;
  return id;
}

void MaxMinSolver::remove(FlowId id) {
  Flow& f = flows_[id];
  // Every flow fixed below its rate keeps its rate (solve()); a flow not yet solved moved none.
  if (!f.fresh) settled_below_ = std::min(settled_below_, f.rate);
  for (const Use& u : f.uses) {
    Link& l = links_[u.link];
    // Swap-remove, and tell the moved crossing's flow where it now is.
    const Crossing moved = l.crossing.back();
    l.crossing[u.slot] = moved;
    flows_[moved.flow].uses[moved.use].slot = u.slot;
    l.crossing.pop_back();
    l.counts -= u.count;
    touch_link(u.link);
  }
  f.uses.clear();
  f.rate = 0;
  f.live = false;
  --live_;
  free_.push_back(id);
}

void MaxMinSolver::touch_link(uint32_t link) { dirty_links_.push_back(link); }

Rate MaxMinSolver::load(uint64_t link) const {
  Rate sum = 0;
  for (const Crossing& c : links_[index_of(link)].crossing) {
    sum += flows_[c.flow].rate * c.count;
  }
  return sum;
}

const std::vector<MaxMinSolver::FlowId>& MaxMinSolver::solve() {
  changed_.clear();
  const Rate settled = settled_level();
  // Flows fixed below the settled level keep their rates (settled_level()). Above it, filling
  // continues on the links the other flows leave free, and it runs apart on each set of flows
  // joined by shared links: only the sets that reach a changed link can move. So the walk goes
  // from the changed links through the flows to refill only, and takes each link it reaches
  // with its capacity less what the kept flows on it use.
  ++walk_;
  walked_.clear();
  // Local copies: a push_back may call the allocator, after which the compiler would reload
  // every member the loops read.
  Link* const links = links_.data();
  Flow* const flows = flows_.data();
  const uint32_t walk = walk_;
  const auto reach = [&](uint32_t i) {
    Link& l = links[i];
    if (l.mark == walk) return;
    l.mark = walk;
    walked_.push_back(i);
  };
  for (const uint32_t link : dirty_links_) reach(link);
  dirty_links_.clear();
  // A link's share is known once its flows are: the walk keeps the links with flows to refill
  // (at the front of walked_, behind the links still to walk) and finds the first level's.
  uint32_t unsolved = 0;
  Lowest lowest;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < walked_.size(); ++i) {
    const uint32_t index = walked_[i];
    Link& l = links[index];
    l.remaining = l.capacity;
    l.unfixed = 0;
    for (const Crossing& c : l.crossing) {
      Flow& f = flows[c.flow];
      if (f.mark != walk) {
        if (!f.fresh && f.rate < settled) {
          l.remaining -= f.rate * c.count;
          continue;
        }
        f.mark = walk;
        ++unsolved;
        for (const Use& u : f.uses) reach(u.link);
      }
      l.unfixed += c.count;
    }
    if (l.unfixed == 0) continue;
    walked_[kept++] = index;
    lowest.offer(l, index, batch_);
  }
  unsolved_ = unsolved;
  walked_.resize(kept);
  recomputed_ += unsolved_;
  fill(lowest);
  for (const FlowId id : fresh_) flows_[id].fresh = false;
  fresh_.clear();
  settled_below_ = std::numeric_limits<Rate>::max();
  std::sort(changed_.begin(), changed_.end());
  return changed_;
}

// The level below which progressive filling runs as it did at the last solve, so every flow fixed
// below it keeps its rate. Filling only raises a link's share (remaining / unfixed), so a link
// cannot run full below its share with every flow on it unfixed; up to the lowest such share
// over the links of the added flows, and up to the rate of every removed flow (its links had
// more than that share, and now have more still), the same links run full at the same levels.
// A changed capacity settles nothing.
Rate MaxMinSolver::settled_level() const {
  Rate level = settled_below_;
  for (const FlowId id : fresh_) {
    const Flow& f = flows_[id];
    if (!f.live || !f.fresh) continue;
    for (const Use& u : f.uses) {
      const Link& l = links_[u.link];
      level = std::min<Rate>(level, l.capacity / l.counts);
    }
  }
  return level;
}

// Progressive filling over the links the walk reached (walked_) and the flows it marked.
//
// All links whose share (remaining / unfixed) equals the lowest run full together, as one
// batch: fixing one of them first would round the next one's share again (remaining and
// unfixed both drop), so the rates would depend on which went first. Batches make them a
// function of the shares alone, which is what lets a class of equal flows on a class of equal
// links (folding) get exactly the rates its members would get one by one.
void MaxMinSolver::fill(Lowest lowest) {
  for (uint32_t levels = 0; unsolved_ > 0; ++levels) {
    if (levels == scan_levels_) {
      fill_from_heap();
      break;
    }
    // The walk found the first level's links; one pass finds each next level's, and drops the
    // links whose flows are all fixed.
    if (levels > 0) {
      lowest = Lowest{};
      std::size_t kept = 0;
      const Link* const links = links_.data();
      for (const uint32_t i : walked_) {
        const Link& l = links[i];
        if (l.unfixed == 0) continue;
        walked_[kept++] = i;
        lowest.offer(l, i, batch_);
      }
      walked_.resize(kept);
    }
    fix_batch(lowest.link->remaining / lowest.link->unfixed);
  }
  // Marks past walk_ must not look fresh to the next walk.
  ++walk_;
}

// fill() for a solve with many levels: the links' shares in a min-heap, ties by link id.
void MaxMinSolver::fill_from_heap() {
  std::vector<Share>& heap = heap_;
  // A lambda, not &Share::later: the heap algorithms inline it.
  const auto later = [](const Share& a, const Share& b) { return Share::later(a, b); };
  heap.clear();
  for (const uint32_t i : walked_) {
    const Link& l = links_[i];
    if (l.unfixed > 0) heap.push_back(Share::of(l.remaining, l.unfixed, l.id, i));
  }
  std::make_heap(heap.begin(), heap.end(), later);
  const auto pop = [&] {
    std::pop_heap(heap.begin(), heap.end(), later);
    heap.pop_back();
  };
  // Fixing a flow at the current level only raises the shares of its other links, so an entry
  // is at most its link's share: one whose link has moved on is pushed again, at its share,
  // when it comes to the top, rather than at every change.
  while (unsolved_ > 0) {
    batch_.clear();
    Share lowest{};
    while (!heap.empty()) {
      const Share s = heap.front();
      const Link& l = links_[s.link];
      if (l.unfixed == 0) {
        pop();
        continue;
      }
      if (l.unfixed != s.unfixed || l.remaining != s.remaining) {
        pop();
        heap.push_back(Share::of(l.remaining, l.unfixed, l.id, s.link));
        std::push_heap(heap.begin(), heap.end(), later);
        continue;
      }
      if (!batch_.empty() && !s.same(lowest)) break;
      if (batch_.empty()) lowest = s;
      batch_.push_back(s.link);
      pop();
    }
    fix_batch(lowest.level);
  }
}

// Fixes every flow still to fill that crosses a link of batch_ at `level`, the level every
// unfixed flow has reached when those links run full.
void MaxMinSolver::fix_batch(Rate level) {
  // The flows to refill carry this walk's mark; a flow is fixed once its mark moves past it.
  // Local copies, as in solve(): changed_.push_back would make the compiler reload members.
  Link* const links = links_.data();
  Flow* const flows = flows_.data();
  const uint32_t walk = walk_;
  const uint32_t fixed = walk + 1;
  uint32_t unsolved = unsolved_;
  for (const uint32_t link : batch_) {
    for (const Crossing& c : links[link].crossing) {
      Flow& f = flows[c.flow];
      if (f.mark != walk) continue;  // kept, or fixed already
      f.mark = fixed;
      --unsolved;
      if (f.rate != level) changed_.push_back(c.flow);
      f.rate = level;
      // Every other link of the flow had at least this share left, so nothing goes negative.
      for (const Use& u : f.uses) {
        Link& l = links[u.link];
        l.remaining -= level * u.count;
        l.unfixed -= u.count;
      }
    }
  }
  unsolved_ = unsolved;
}

}  // namespace hx::flow
