// The synthetic traffic patterns and their factory. Each pattern keeps only a few integers of the
// topology (its radices, or one entry per endpoint group for the group patterns), never a table
// per endpoint. The bit permutations live in bit_permutation.cpp, the random permutation in
// permutation.cpp.
#include "models/traffic/pattern.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "core/error.h"
#include "core/text.h"
#include "models/traffic/bit_permutation.h"
#include "models/traffic/permutation.h"

namespace hx::net {
namespace {

// ---- uniform ----

class UniformPattern final : public TrafficPattern {
 public:
  explicit UniformPattern(uint32_t n) : n_(n) {}
  bool sends(uint32_t /*src*/) const override { return n_ >= 2; }
  uint32_t destination(uint32_t src, Rng& rng) const override {
    // Uniform over [0, n) without src: draw from n - 1 values and step over src.
    auto dst = static_cast<uint32_t>(rng.below(n_ - 1));
    return dst >= src ? dst + 1 : dst;
  }

 private:
  uint32_t n_;
};

// ---- coordinate patterns over endpoint_dims() ----

/// Mixed-radix coordinates of endpoint indices, least significant dimension first.
struct Dims {
  std::vector<uint32_t> radix;
  std::vector<uint32_t> stride;

  explicit Dims(const Topology& topology) : radix(topology.endpoint_dims()) {
    uint64_t product = 1;
    for (const uint32_t k : radix) {
      if (k == 0) throw std::logic_error("topology: endpoint_dims() has a zero radix");
      stride.push_back(static_cast<uint32_t>(product));
      product *= k;
      if (product > topology.num_endpoints()) break;
    }
    if (product != topology.num_endpoints()) {
      throw std::logic_error("topology: the product of endpoint_dims() is not num_endpoints()");
    }
  }
  uint32_t coord(uint32_t e, std::size_t d) const { return e / stride[d] % radix[d]; }
};

/// Tornado: dst_d = (src_d + ceil(k_d / 2) - 1) mod k_d in every dimension.
class TornadoPattern final : public TrafficPattern {
 public:
  explicit TornadoPattern(const Topology& topology) : dims_(topology) {
    for (const uint32_t k : dims_.radix) {
      shift_.push_back((k + 1) / 2 - 1);
      moves_ = moves_ || shift_.back() != 0;
    }
  }
  // The shift is the same for every endpoint, so either all send or none does.
  bool sends(uint32_t /*src*/) const override { return moves_; }
  uint32_t destination(uint32_t src, Rng& /*rng*/) const override {
    uint32_t dst = 0;
    for (std::size_t d = 0; d < shift_.size(); ++d) {
      dst += (dims_.coord(src, d) + shift_[d]) % dims_.radix[d] * dims_.stride[d];
    }
    return dst;
  }

 private:
  Dims dims_;
  std::vector<uint32_t> shift_;
  bool moves_ = false;
};

/// Nearest neighbour: uniform over the distinct +-1 neighbours (wrapping) in every dimension of
/// radix >= 2; a radix-2 dimension contributes one neighbour, larger radices two.
class NeighborPattern final : public TrafficPattern {
 public:
  explicit NeighborPattern(const Topology& topology) : dims_(topology) {
    for (const uint32_t k : dims_.radix) {
      choices_.push_back(k >= 3 ? 2 : k == 2 ? 1 : 0);
      total_ += choices_.back();
    }
  }
  bool sends(uint32_t /*src*/) const override { return total_ > 0; }
  uint32_t destination(uint32_t src, Rng& rng) const override {
    auto pick = static_cast<uint32_t>(rng.below(total_));
    std::size_t d = 0;
    while (pick >= choices_[d]) pick -= choices_[d++];
    const uint32_t k = dims_.radix[d];
    const uint32_t c = dims_.coord(src, d);
    const uint32_t next = pick == 0 ? (c + 1) % k : (c + k - 1) % k;
    return src - c * dims_.stride[d] + next * dims_.stride[d];
  }

 private:
  Dims dims_;
  std::vector<uint32_t> choices_;
  uint32_t total_ = 0;
};

// ---- group patterns over the topology's endpoint groups ----

/// The endpoint groups as sorted ranges (one entry per group), so that the patterns need not
/// keep the topology alive. Checks that the groups tile [0, N).
class EndpointGroups {
 public:
  explicit EndpointGroups(const Topology& topology) {
    const uint32_t count = topology.num_endpoint_groups();
    for (uint32_t g = 0; g < count; ++g) {
      const Topology::EndpointRange r = topology.endpoint_group_range(g);
      ranges_.push_back(r);
      if (r.first < r.last) by_first_.push_back({r.first, g});
    }
    std::sort(by_first_.begin(), by_first_.end());
    uint32_t next = 0;
    for (const auto& [first, g] : by_first_) {
      if (first != next) throw std::logic_error("topology: endpoint groups do not tile [0, N)");
      next = ranges_[g].last;
    }
    if (next != topology.num_endpoints()) {
      throw std::logic_error("topology: endpoint groups do not tile [0, N)");
    }
  }

  uint32_t count() const { return static_cast<uint32_t>(ranges_.size()); }
  Topology::EndpointRange range(uint32_t g) const { return ranges_[g]; }
  uint32_t group_of(uint32_t e) const {
    const auto it = std::upper_bound(by_first_.begin(), by_first_.end(),
                                     std::pair<uint32_t, uint32_t>{e, UINT32_MAX});
    return std::prev(it)->second;
  }

 private:
  std::vector<Topology::EndpointRange> ranges_;          // by group id
  std::vector<std::pair<uint32_t, uint32_t>> by_first_;  // (first, group) of non-empty groups
};

/// Hotspot: the endpoints of groups [0, h) send uniformly to the other endpoints of those groups.
/// The hot endpoints are kept as maximal contiguous segments (one when the groups are numbered
/// in endpoint order), each with the count of hot endpoints before it.
class HotspotPattern final : public TrafficPattern {
 public:
  HotspotPattern(const Topology& topology, uint32_t hot_groups)
      : groups_(topology), hot_groups_(hot_groups) {
    std::vector<Topology::EndpointRange> hot;
    for (uint32_t g = 0; g < hot_groups; ++g) {
      if (groups_.range(g).first < groups_.range(g).last) hot.push_back(groups_.range(g));
    }
    std::sort(hot.begin(), hot.end(), [](auto a, auto b) { return a.first < b.first; });
    for (const auto& r : hot) {
      if (!segments_.empty() && segments_.back().last == r.first) {
        segments_.back().last = r.last;
      } else {
        segments_.push_back({r.first, r.last, hot_count_});
      }
      hot_count_ += r.last - r.first;
    }
  }

  bool sends(uint32_t src) const override {
    return hot_count_ >= 2 && groups_.group_of(src) < hot_groups_;
  }
  uint32_t destination(uint32_t src, Rng& rng) const override {
    // Rank of src among the hot endpoints; draw a rank among the others and map it back.
    const Segment& own = segment_of(src);
    const uint32_t own_rank = own.before + (src - own.first);
    auto rank = static_cast<uint32_t>(rng.below(hot_count_ - 1));
    if (rank >= own_rank) ++rank;
    const auto it = std::upper_bound(segments_.begin(), segments_.end(), rank,
                                     [](uint32_t v, const Segment& s) { return v < s.before; });
    return std::prev(it)->first + (rank - std::prev(it)->before);
  }

 private:
  struct Segment {
    uint32_t first;
    uint32_t last;
    uint32_t before;  // hot endpoints in the segments before this one
  };
  const Segment& segment_of(uint32_t e) const {
    const auto it = std::upper_bound(segments_.begin(), segments_.end(), e,
                                     [](uint32_t v, const Segment& s) { return v < s.first; });
    return *std::prev(it);
  }

  EndpointGroups groups_;
  uint32_t hot_groups_;
  std::vector<Segment> segments_;
  uint32_t hot_count_ = 0;
};

/// Group shift: an endpoint of group i sends to a uniformly random endpoint of group (i+1) mod G.
class GroupShiftPattern final : public TrafficPattern {
 public:
  explicit GroupShiftPattern(const Topology& topology) : groups_(topology) {}
  bool sends(uint32_t src) const override {
    const Topology::EndpointRange r = groups_.range(next_group(src));
    return r.first < r.last;
  }
  uint32_t destination(uint32_t src, Rng& rng) const override {
    const Topology::EndpointRange r = groups_.range(next_group(src));
    return r.first + static_cast<uint32_t>(rng.below(r.last - r.first));
  }

 private:
  uint32_t next_group(uint32_t src) const { return (groups_.group_of(src) + 1) % groups_.count(); }
  EndpointGroups groups_;
};

// ---- rings ----

/// A ring over the n / unit units of `unit` consecutive endpoints: endpoint o of a unit sends to
/// endpoint o of the next unit (and, bidirectional, half of the time to that of the previous
/// one). The units follow each other in index order, or in binary-reflected Gray-code order
/// (g(i) = i ^ (i >> 1)), whose neighbours differ in one bit of the unit index. unit = 1 in index
/// order is the ring of endpoints.
class RingPattern final : public TrafficPattern {
 public:
  RingPattern(uint32_t n, bool bidirectional, uint32_t unit = 1, bool gray = false)
      : n_(n), bidirectional_(bidirectional), unit_(unit), units_(n / unit), gray_(gray) {}
  bool sends(uint32_t /*src*/) const override { return units_ >= 2; }
  uint32_t destination(uint32_t src, Rng& rng) const override {
    const bool back = bidirectional_ && rng.bernoulli(0.5);
    if (unit_ == 1 && !gray_) {
      if (back) return src == 0 ? n_ - 1 : src - 1;
      return src + 1 == n_ ? 0 : src + 1;
    }
    const uint32_t position = gray_ ? from_gray(src / unit_) : src / unit_;
    const uint32_t next = back ? (position == 0 ? units_ - 1 : position - 1)
                               : (position + 1 == units_ ? 0 : position + 1);
    return (gray_ ? next ^ (next >> 1) : next) * unit_ + src % unit_;
  }

 private:
  static uint32_t from_gray(uint32_t g) {
    for (uint32_t shift = 1; shift < 32; shift <<= 1) g ^= g >> shift;
    return g;
  }

  uint32_t n_;
  bool bidirectional_;
  uint32_t unit_;
  uint32_t units_;
  bool gray_;
};

// ---- blocks ----

/// The inner pattern, built for B endpoints, applied inside each run of B consecutive endpoints:
/// s sends to base(s) + inner(s - base(s)). One inner pattern serves every block, so the cost
/// stays a few integers whatever the block count.
class BlockPattern final : public TrafficPattern {
 public:
  BlockPattern(std::unique_ptr<TrafficPattern> inner, uint32_t block)
      : inner_(std::move(inner)), block_(block) {}
  bool sends(uint32_t src) const override { return inner_->sends(src % block_); }
  uint32_t destination(uint32_t src, Rng& rng) const override {
    const uint32_t base = src - src % block_;
    return base + inner_->destination(src - base, rng);
  }

 private:
  std::unique_ptr<TrafficPattern> inner_;
  uint32_t block_;
};

// ---- factory ----

[[noreturn]] void reject(const std::string& key, const std::string& value,
                         const std::string& reason) {
  throw InputError(key + " = '" + value + "': " + reason);
}

/// The patterns defined by an endpoint count alone, for `n` endpoints; nullptr for the others.
/// `count` says where `n` comes from in messages: "the topology has 48 endpoints" or
/// "traffic.block = 24".
std::unique_ptr<TrafficPattern> make_sized_pattern(const PatternParams& params, uint32_t n,
                                                   const std::string& count) {
  const std::string& name = params.name;
  const auto bit = [&](BitOp op) { return make_bit_pattern(op, n, params.bit_fit, name, count); };
  if (name == "uniform") return std::make_unique<UniformPattern>(n);
  if (name == "bit_complement") return bit(BitOp::kComplement);
  if (name == "bit_reverse") return bit(BitOp::kReverse);
  if (name == "bit_shuffle") return bit(BitOp::kShuffle);
  if (name == "transpose") return bit(BitOp::kTranspose);
  if (name == "permutation") return make_permutation_pattern(n, params.seed);
  if (name == "ring" || name == "bidirectional_ring") {
    const uint32_t unit = params.ring_unit;
    const bool gray = params.ring_order == "gray";
    if (params.ring_order != "linear" && !gray) {
      reject("traffic.ring_order", params.ring_order, "expected linear or gray");
    }
    if (unit == 0 || n % unit != 0 || n / unit < 2) {
      reject("traffic.ring_unit", std::to_string(unit),
             "expected a divisor of the ring's " + std::to_string(n) +
                 " endpoints that leaves at least 2 units; " + count);
    }
    if (gray && !std::has_single_bit(n / unit)) {
      reject("traffic.ring_order", params.ring_order,
             "a Gray-code ring needs a power-of-two number of units; " + count + ", " +
                 std::to_string(n / unit) +
                 " units of traffic.ring_unit = " + std::to_string(unit));
    }
    return std::make_unique<RingPattern>(n, name == "bidirectional_ring", unit, gray);
  }
  return nullptr;
}

std::unique_ptr<TrafficPattern> make_block_pattern(const PatternParams& params, uint32_t n) {
  const uint32_t block = params.block;
  const std::string value = std::to_string(block);
  const auto& names = blockable_pattern_names();
  if (std::find(names.begin(), names.end(), params.name) == names.end()) {
    reject("traffic.block", value,
           "pattern '" + params.name + "' needs the topology's shape; only " + join(names) +
               " accept a block (or set traffic.block = 0)");
  }
  if (block < 2 || n % block != 0) {
    reject("traffic.block", value,
           "expected 0 (the whole system) or a divisor >= 2 of the topology's " +
               std::to_string(n) + " endpoints");
  }
  return std::make_unique<BlockPattern>(
      make_sized_pattern(params, block, "traffic.block = " + value), block);
}

}  // namespace

const std::vector<std::string>& blockable_pattern_names() {
  static const std::vector<std::string> names = {"uniform",     "bit_complement",    "bit_reverse",
                                                 "bit_shuffle", "transpose",         "permutation",
                                                 "ring",        "bidirectional_ring"};
  return names;
}

const std::vector<std::string>& pattern_names() {
  static const std::vector<std::string> names = {
      "uniform",   "bit_complement", "bit_reverse", "bit_shuffle",
      "transpose", "tornado",        "neighbor",    "permutation",
      "hotspot",   "group_shift",    "ring",        "bidirectional_ring"};
  return names;
}

std::unique_ptr<TrafficPattern> make_pattern(const PatternParams& params,
                                             const Topology& topology) {
  const std::string& name = params.name;
  const uint32_t n = topology.num_endpoints();
  const auto& names = pattern_names();
  const bool known = std::find(names.begin(), names.end(), name) != names.end();
  if (params.block != 0 && known) return make_block_pattern(params, n);
  const std::string count = "the topology has " + std::to_string(n) + " endpoints";
  if (auto sized = make_sized_pattern(params, n, count)) return sized;
  if (name == "tornado") return std::make_unique<TornadoPattern>(topology);
  if (name == "neighbor") return std::make_unique<NeighborPattern>(topology);
  const uint32_t groups = topology.num_endpoint_groups();
  if (name == "hotspot") {
    if (params.hotspot_groups == 0 || params.hotspot_groups > groups) {
      reject("traffic.hotspot_groups", std::to_string(params.hotspot_groups),
             "expected 1 to the topology's " + std::to_string(groups) + " endpoint groups");
    }
    return std::make_unique<HotspotPattern>(topology, params.hotspot_groups);
  }
  if (name == "group_shift") {
    if (groups < 2) {
      reject("traffic.pattern", name,
             "needs at least 2 endpoint groups; the topology has " + std::to_string(groups));
    }
    return std::make_unique<GroupShiftPattern>(topology);
  }
  std::string reason = "expected one of " + join(names);
  const std::string hint = suggestion(name, names, "");
  if (hint.starts_with("; did")) reason += hint;
  reject("traffic.pattern", name, reason);
}

}  // namespace hx::net
