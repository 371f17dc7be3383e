// Max-min fair sharing of link capacities among flows (DESIGN §6a), the rate solver of the flow
// level. Integer rates (bytes per second) and exact integer arithmetic, so that a result never
// depends on the order in which sums are taken: a class of m equal flows and m separate flows
// load a link alike.
//
// A flow may stand for a class of equal flows: its uses say, per link, how many of the class's
// members cross each link of that kind (1 for a single flow). All members get the flow's rate.
// Progressive filling: every unfixed flow's rate rises together; a link whose remaining capacity
// is used up fixes every unfixed flow that crosses it at that level. Rates are rounded down to
// whole bytes per second at each level.
//
// Incremental: after flows are added or removed, solve() recomputes only what the change can
// move: flows below the level the change cannot reach keep their rates, and of the others only
// those joined to a changed link through shared links are filled again (SimGrid's lazy
// approach, restricted to the flows above that level). Links that run full at the same level
// fix their flows together, so the rates depend only on the flows present, not on the order
// links were declared or flows added, and a class of equal flows over a class of equal links
// gets the rates its members would get one by one.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace hx::flow {

/// Bytes per second.
using Rate = uint64_t;

/// A flow crosses `link` (the caller's link id: ids are dense from 0, as a topology's are, since
/// the solver indexes an array by them) `count` times: the number of the class's members on each
/// such link (1 for a single flow; 2 for a flow that uses the link twice).
struct LinkUse {
  uint64_t link = 0;
  uint32_t count = 1;
};

class MaxMinSolver {
 public:
  using FlowId = uint32_t;

  /// How fill() finds the links that run full next. A solve usually reaches a few dozen links
  /// that run full at two or three levels, and even one of hundreds of links over 10-30 levels
  /// scans them all per level faster than it keeps a heap of their shares (most shares move
  /// before they reach the top); one that goes on for more than `scan_levels` levels moves its
  /// remaining links into a heap, which bounds the work of thousands of levels. Either way the
  /// same links run full at the same levels (tests compare the two).
  explicit MaxMinSolver(uint32_t scan_levels = kScanLevels) : scan_levels_(scan_levels) {}
  static constexpr uint32_t kScanLevels = 32;

  /// Declares a link before a flow uses it; `capacity` > 0. Declaring it again changes the
  /// capacity (its flows are recomputed at the next solve).
  void set_capacity(uint64_t link, Rate capacity);
  Rate capacity(uint64_t link) const;
  bool has_link(uint64_t link) const { return link < index_.size() && index_[link] != kNoLink; }

  /// A new flow over `uses` (links declared, counts > 0, each link once); its rate is 0 until
  /// the next solve(). Ids are reused after remove().
  FlowId add(std::span<const LinkUse> uses);
  void remove(FlowId flow);

  /// Recomputes the rates of the flows that share links with any change since the last call.
  /// Returns the flows whose rate changed, ascending.
  const std::vector<FlowId>& solve();

  Rate rate(FlowId flow) const { return flows_[flow].rate; }
  /// Flows present (added, not removed).
  std::size_t flows() const { return live_; }
  /// Bytes per second the flows put on `link` (each flow's rate times its count).
  Rate load(uint64_t link) const;
  /// Flows that solve() recomputed in all, over its calls: the incremental solver's work.
  uint64_t recomputed() const { return recomputed_; }

 private:
  struct Use {
    uint32_t link;  // internal link index
    uint32_t count;
    uint32_t slot;  // this flow's position in the link's crossing list
  };
  struct Flow {
    std::vector<Use> uses;
    Rate rate = 0;
    bool live = false;
    bool fresh = false;  // added since the last solve
    uint32_t mark = 0;   // last component walk that reached it
  };
  struct Crossing {
    FlowId flow;
    uint32_t use;    // index into the flow's uses
    uint32_t count;  // the use's count, kept here for the walks over a link's flows
  };
  struct Link {
    uint64_t id = 0;  // the caller's
    Rate capacity = 0;
    std::vector<Crossing> crossing;
    uint32_t mark = 0;
    uint64_t counts = 0;  // the counts of every flow crossing it
    // Progressive filling's working state.
    Rate remaining = 0;
    uint64_t unfixed = 0;  // sum of the counts of unfixed flows
  };

  // A link's fair share remaining / unfixed, as fill()'s heap holds it when pushed: its whole
  // part first (one integer comparison settles most orders), the fraction compared exactly on a
  // tie.
  struct Share {
    uint64_t level;  // remaining / unfixed, rounded down
    uint64_t remaining;
    uint64_t unfixed;
    uint64_t id;    // the link's, for ties
    uint32_t link;  // its index
    static Share of(uint64_t remaining, uint64_t unfixed, uint64_t id, uint32_t link);
    bool same(const Share& o) const;
    static bool later(const Share& a, const Share& b);  // a after b in the heap's order
  };

  // A scan's lowest share so far: `link` one of the links at it, the caller's batch all of them.
  struct Lowest {
    const Link* link = nullptr;
    void offer(const Link& l, uint32_t i, std::vector<uint32_t>& batch);
  };

  uint32_t index_of(uint64_t link) const;
  void touch_link(uint32_t link);
  Rate settled_level() const;
  void fill(Lowest lowest);
  void fill_from_heap();
  void fix_batch(Rate level);

  // The caller's link id -> internal index (kNoLink if undeclared): an array, since every flow
  // start looks up each of its links, and callers' ids are a topology's, dense from 0.
  static constexpr uint32_t kNoLink = UINT32_MAX;
  std::vector<uint32_t> index_;
  std::vector<Link> links_;
  std::vector<Flow> flows_;
  std::vector<FlowId> free_;
  std::vector<uint32_t> dirty_links_;  // links whose flows must be recomputed
  std::vector<FlowId> fresh_;          // flows added since the last solve
  // Removed flows' lowest rate since the last solve (0 after a capacity change).
  Rate settled_below_ = std::numeric_limits<Rate>::max();
  std::vector<FlowId> changed_;
  // solve()'s scratch, kept to reuse its memory: the links the walk reached with flows to refill
  // (fill() drops those whose flows are all fixed), fill()'s heap of their shares and the links of
  // its current level.
  uint32_t scan_levels_;
  std::vector<uint32_t> walked_;
  std::vector<Share> heap_;
  std::vector<uint32_t> batch_;
  std::size_t live_ = 0;
  uint32_t walk_ = 0;
  uint32_t unsolved_ = 0;  // flows the current solve has still to fix
  uint64_t recomputed_ = 0;
};

}  // namespace hx::flow
