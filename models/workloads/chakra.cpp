// Chakra nodes into programs (chakra.h).
#include "models/workloads/chakra.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <unordered_map>

#include "core/error.h"

namespace hx::wl {
namespace {

// Tags: a trace's own comm_tag below 2^31; collectives above it, each process group in its own
// range of 2^24 tags (so two groups' collectives between the same pair never match each
// other), each collective of a group after the previous one's.
constexpr uint64_t kCollectiveTags = uint64_t{1} << 31;
constexpr uint64_t kGroupTags = uint64_t{1} << 24;

std::string where(const ChakraRank& rank, const ChakraNode& n) {
  return rank.file + ": node " + std::to_string(n.id) + (n.name.empty() ? "" : " (" + n.name + ")");
}

// Positions of `rank`'s nodes in an order where every dependency comes first (Kahn's algorithm,
// ties by file order, so the order is a pure function of the file).
std::vector<uint32_t> dependency_order(const ChakraRank& rank,
                                       const std::unordered_map<uint64_t, uint32_t>& index) {
  const std::size_t n = rank.nodes.size();
  std::vector<uint32_t> waiting(n, 0);
  std::vector<std::vector<uint32_t>> after(n);
  for (uint32_t i = 0; i < n; ++i) {
    for (const uint64_t d : rank.nodes[i].deps) {
      const auto it = index.find(d);
      if (it == index.end()) {
        throw InputError(where(rank, rank.nodes[i]) + ": depends on node " + std::to_string(d) +
                         ", which the file does not hold");
      }
      if (it->second == i) throw InputError(where(rank, rank.nodes[i]) + ": depends on itself");
      after[it->second].push_back(i);
      ++waiting[i];
    }
  }
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
  for (uint32_t i = 0; i < n; ++i) {
    if (waiting[i] == 0) ready.push(i);
  }
  std::vector<uint32_t> order;
  while (!ready.empty()) {
    const uint32_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (const uint32_t j : after[i]) {
      if (--waiting[j] == 0) ready.push(j);
    }
  }
  if (order.size() != n) {
    for (uint32_t i = 0; i < n; ++i) {
      if (waiting[i] > 0) {
        throw InputError(where(rank, rank.nodes[i]) + ": its dependencies form a cycle");
      }
    }
  }
  return order;
}

Collective collective_of(const ChakraRank& rank, const ChakraNode& n) {
  switch (static_cast<ChakraCollective>(n.comm_type)) {
    case ChakraCollective::kAllReduce:
      return Collective::kAllReduce;
    case ChakraCollective::kAllGather:
      return Collective::kAllGather;
    case ChakraCollective::kReduceScatter:
      return Collective::kReduceScatter;
    case ChakraCollective::kAllToAll:
      return Collective::kAllToAll;
    default:
      break;
  }
  if (n.comm_type < 0) throw InputError(where(rank, n) + ": a collective without comm_type");
  throw InputError(where(rank, n) + ": comm_type " + std::to_string(n.comm_type) +
                   " is not one hxsim generates (all-reduce 0, all-gather 2, all-to-all 6, "
                   "reduce-scatter 7)");
}

uint64_t size_of(const ChakraRank& rank, const ChakraNode& n) {
  if (n.comm_size <= 0) {
    throw InputError(where(rank, n) + ": comm_size " + (n.comm_size < 0 ? "missing" : "0") +
                     "; expected the message's bytes");
  }
  return static_cast<uint64_t>(n.comm_size);
}

uint32_t peer_of(const ChakraRank& rank, const ChakraNode& n, int64_t peer, const char* key,
                 uint32_t ranks) {
  if (peer < 0 || peer >= ranks) {
    throw InputError(where(rank, n) + ": " + key + " " +
                     (peer < 0 ? std::string("missing") : std::to_string(peer)) +
                     "; the trace has " + std::to_string(ranks) + " ranks");
  }
  return static_cast<uint32_t>(peer);
}

}  // namespace

ChakraWorkload::ChakraWorkload(const std::vector<ChakraRank>& ranks, Mapping mapping,
                               ChakraOptions options)
    : mapping_(std::move(mapping)) {
  const auto world = static_cast<uint32_t>(ranks.size());
  groups_ = {{"chakra compute"}, {"chakra send/recv"}};
  std::map<std::string, uint32_t> group_of;  // collective name -> OpGroup
  // Process groups in name order get their tag ranges; "" is every rank.
  std::map<std::string, std::vector<uint32_t>> pgs = options.groups;
  std::vector<uint32_t> everyone(world);
  for (uint32_t r = 0; r < world; ++r) everyone[r] = r;
  pgs[""] = everyone;
  if (pgs.size() > ((uint64_t{1} << 32) - kCollectiveTags) / kGroupTags) {
    throw InputError("workload.chakra_groups: more than 127 process groups");
  }
  std::map<std::string, uint32_t> pg_index;
  for (const auto& [name, members] : pgs) {
    pg_index.emplace(name, static_cast<uint32_t>(pg_index.size()));
    for (const uint32_t m : members) {
      if (m >= world) {
        throw InputError("workload.chakra_groups: group '" + name + "' names rank " +
                         std::to_string(m) + "; the trace has " + std::to_string(world));
      }
    }
  }
  std::map<std::string, std::vector<uint32_t>> specs_of_pg;  // in order: the group's k-th
  std::map<std::string, uint64_t> next_tag;                  // per group

  steps_.resize(world);
  deps_.resize(world);
  std::vector<std::map<std::string, uint32_t>> seen_by(world);  // collectives met per group
  for (uint32_t r = 0; r < world; ++r) {
    const ChakraRank& rank = ranks[r];
    std::unordered_map<uint64_t, uint32_t> index;
    for (uint32_t i = 0; i < rank.nodes.size(); ++i) {
      if (!index.emplace(rank.nodes[i].id, i).second) {
        throw InputError(where(rank, rank.nodes[i]) + ": a second node with this id");
      }
    }
    const std::vector<uint32_t> order = dependency_order(rank, index);
    std::vector<uint32_t> position(rank.nodes.size());
    for (uint32_t k = 0; k < order.size(); ++k) position[order[k]] = k;
    std::map<std::string, uint32_t>& seen = seen_by[r];
    for (const uint32_t i : order) {
      const ChakraNode& n = rank.nodes[i];
      Step s{static_cast<ChakraType>(n.type)};
      s.dep_begin = static_cast<uint32_t>(deps_[r].size());
      for (const uint64_t d : n.deps) deps_[r].push_back(position[index.at(d)]);
      s.dep_count = static_cast<uint32_t>(deps_[r].size()) - s.dep_begin;
      switch (s.type) {
        case ChakraType::kMetadata:
          break;
        case ChakraType::kMemLoad:
        case ChakraType::kMemStore:
        case ChakraType::kCompute: {
          double seconds = static_cast<double>(n.duration_us) * 1e-6;
          // proto3 cannot tell a duration of 0 from none: with no num_ops either, it is 0.
          if (n.duration_us == 0 && s.type == ChakraType::kCompute && n.num_ops >= 0) {
            if (options.flops_per_s <= 0) {
              throw InputError(where(rank, n) +
                               ": num_ops without duration_micros needs "
                               "workload.chakra_flops (the chip's FLOP/s)");
            }
            seconds = n.num_ops / options.flops_per_s;
          }
          s.compute_ps = std::llround(seconds * 1e12);
          s.group = 0;
          break;
        }
        case ChakraType::kSend:
        case ChakraType::kRecv: {
          const bool send = s.type == ChakraType::kSend;
          const uint32_t peer = send ? peer_of(rank, n, n.comm_dst, "comm_dst", world)
                                     : peer_of(rank, n, n.comm_src, "comm_src", world);
          if (peer == r) throw InputError(where(rank, n) + ": a message to its own rank");
          if (n.comm_tag < 0 || static_cast<uint64_t>(n.comm_tag) >= kCollectiveTags) {
            throw InputError(where(rank, n) + ": comm_tag " + std::to_string(n.comm_tag) +
                             " outside [0, 2^31)");
          }
          s.peer = mapping_.endpoint(peer);
          s.tag = static_cast<uint32_t>(n.comm_tag);
          s.bytes = size_of(rank, n);
          s.group = 1;
          break;
        }
        case ChakraType::kCollective: {
          const auto pg = pgs.find(n.pg_name);
          if (pg == pgs.end()) {
            throw InputError(where(rank, n) + ": process group '" + n.pg_name +
                             "', which workload.chakra_groups does not define");
          }
          const std::vector<uint32_t>& members = pg->second;
          const auto me = std::find(members.begin(), members.end(), r);
          if (me == members.end()) {
            throw InputError(where(rank, n) + ": rank " + std::to_string(r) +
                             " is not in its process group '" + n.pg_name + "'");
          }
          CollectiveSpec spec;
          spec.op = collective_of(rank, n);
          spec.algorithm =
              spec.op == Collective::kAllToAll ? options.all_to_all : options.all_reduce;
          spec.bytes = size_of(rank, n);
          for (const uint32_t m : members) spec.members.push_back(mapping_.endpoint(m));
          const std::string name = std::string("chakra ") + collective_name(spec.op);
          const auto g = group_of.emplace(name, static_cast<uint32_t>(groups_.size()));
          if (g.second) groups_.push_back({name});
          spec.group = g.first->second;
          // The k-th collective of a group is one collective across its members: the first
          // member to meet it defines it, the others must agree.
          const uint32_t k = seen[n.pg_name]++;
          std::vector<uint32_t>& list = specs_of_pg[n.pg_name];
          if (k == list.size()) {
            check_collective(spec, where(rank, n));
            spec.tag_base = static_cast<uint32_t>(
                kCollectiveTags + pg_index.at(n.pg_name) * kGroupTags + next_tag[n.pg_name]);
            next_tag[n.pg_name] += collective_tags(spec);
            if (next_tag[n.pg_name] > kGroupTags) {
              throw InputError(where(rank, n) + ": process group '" + n.pg_name +
                               "' runs more collectives than hxsim has tags for");
            }
            list.push_back(static_cast<uint32_t>(specs_.size()));
            specs_.push_back(std::move(spec));
          } else {
            const CollectiveSpec& first = specs_[list[k]];
            if (first.op != spec.op || first.bytes != spec.bytes) {
              throw InputError(where(rank, n) + ": collective " + std::to_string(k) +
                               " of process group '" + n.pg_name + "' is " +
                               collective_name(spec.op) + " of " + std::to_string(spec.bytes) +
                               " bytes here but " + collective_name(first.op) + " of " +
                               std::to_string(first.bytes) + " bytes on another rank");
            }
          }
          s.peer = list[k];
          s.member = static_cast<uint32_t>(me - members.begin());
          break;
        }
        default:
          throw InputError(where(rank, n) + ": node type " + std::to_string(n.type) +
                           " is not one hxsim replays (metadata 1, memory 2-3, compute 4, send "
                           "5, recv 6, collective 7)");
      }
      steps_[r].push_back(s);
    }
  }
  // A group's collectives must be met by all its members the same number of times.
  for (const auto& [name, list] : specs_of_pg) {
    for (const uint32_t m : pgs.at(name)) {
      const auto it = seen_by[m].find(name);
      const uint32_t count = it == seen_by[m].end() ? 0 : it->second;
      if (count != list.size()) {
        throw InputError(ranks[m].file + ": " + std::to_string(count) +
                         " collectives of process group '" + name + "', another member has " +
                         std::to_string(list.size()));
      }
    }
  }
}

uint32_t ChakraWorkload::phases(uint32_t e) const {
  const uint32_t r = mapping_.rank_of(e);
  return r != Mapping::kNone && r < steps_.size() && !steps_[r].empty() ? 1 : 0;
}

void ChakraWorkload::generate(uint32_t e, uint32_t /*phase*/, Program& out) const {
  const uint32_t r = mapping_.rank_of(e);
  const std::vector<Step>& steps = steps_[r];
  std::vector<uint32_t> op_of(steps.size());  // each step's last op
  std::vector<uint32_t> after;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const Step& s = steps[k];
    after.clear();
    for (uint32_t d = 0; d < s.dep_count; ++d) after.push_back(op_of[deps_[r][s.dep_begin + d]]);
    switch (s.type) {
      case ChakraType::kMetadata:
        op_of[k] = out.wait(s.group, after);
        break;
      case ChakraType::kMemLoad:
      case ChakraType::kMemStore:
      case ChakraType::kCompute:
        op_of[k] = out.compute(s.compute_ps, s.group, after);
        break;
      case ChakraType::kSend:
        op_of[k] = out.send(s.peer, s.bytes, s.tag, s.group, after);
        break;
      case ChakraType::kRecv:
        op_of[k] = out.recv(s.peer, s.bytes, s.tag, s.group, after);
        break;
      case ChakraType::kCollective:
        op_of[k] = append_collective(specs_[s.peer], s.member, out, after);
        break;
    }
  }
}

}  // namespace hx::wl
