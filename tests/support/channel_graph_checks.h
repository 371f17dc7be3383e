// The deadlock check of the topology tests: the channel dependency graph of every path between
// every pair of endpoints, searched for a cycle by `hxsim verify`'s code
// (models/verification/channel_graph.h). Unlike verify it keeps every dependency, escape or not, so
// an adaptive routing must be free of cycles on its adaptive channels too: stricter than Duato's
// condition, and what the shipped adaptive routings of these families meet.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>

#include "models/verification/channel_graph.h"
#include "models/verification/route_explorer.h"

namespace hx::net::testing {

/// Success when the graph has no cycle; else the failure lists one, a channel per line.
inline ::testing::AssertionResult dependencies_acyclic(const Topology& t, const Routing& routing,
                                                       uint8_t vcs) {
  ChannelDependencies deps;
  ExploreVisitor visitor;
  visitor.on_dependency = [&](ChannelId from, ChannelId to, bool) {
    deps.edges.push_back({from, to});
  };
  for (uint32_t s = 0; s < t.num_endpoints(); ++s) {
    for (uint32_t d = 0; d < t.num_endpoints(); ++d) {
      if (s != d) explore_routes(t, routing, vcs, s, d, channel_graph_max_hops(t), visitor);
    }
    std::sort(deps.edges.begin(), deps.edges.end());  // per source, so duplicates stay few
    deps.edges.erase(std::unique(deps.edges.begin(), deps.edges.end()), deps.edges.end());
  }
  const ChannelGraphReport report = analyse_channel_graph(deps);
  if (report.acyclic) return ::testing::AssertionSuccess();
  ::testing::AssertionResult failure = ::testing::AssertionFailure();
  failure << "channel dependency cycle:";
  for (const ChannelId c : report.cycle) failure << "\n  " << describe_channel(t, vcs, c);
  return failure;
}

}  // namespace hx::net::testing
