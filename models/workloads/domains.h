// HB domains of a job's process groups (rail-only §2.2, §3.2): which members of a data-parallel
// group share a high-bandwidth domain, so the two-stage all-reduce can run its second stage
// inside each domain and its first along the rails between them. A domain is the topology's
// endpoint group (Topology::endpoint_group: a node, a board, an NVLink domain); the workload
// sees it only through a function, so it never holds the network.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "models/workloads/llm_model.h"
#include "models/workloads/mapping.h"

namespace hx::wl {

/// The HB domain of an endpoint.
using DomainOf = std::function<uint32_t(uint32_t endpoint)>;

/// Members per domain of the groups `g` splits the mapping's ranks into: every group, in group
/// order, must be runs of exactly that many consecutive members in one domain each, and no
/// domain may hold two runs of a group (the hierarchical algorithm's nodes are consecutive
/// group members; member l of every node meets the others' member l in the global stage, along
/// a rail when the mapping puts equal local ranks on equal rails). InputError naming `key` when
/// a group splits unevenly, `what` naming the group (e.g. "DP QKV"). O(ranks) calls of `domain`.
uint32_t members_per_domain(const RankGroup& g, const Mapping& mapping, const DomainOf& domain,
                            const std::string& key, const std::string& what);

}  // namespace hx::wl
