// Shared by the network tests: one small configuration per shipped topology family, and the
// helpers that turn it into an hx::Config. Every network model the registry holds must have an
// entry here; shipped_routings_test fails when one does not, so a new family cannot be added
// without its acyclicity test (and conservation test) following it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/params.h"
#include "core/registry.h"
#include "models/register_all.h"

namespace hx::test {

using Settings = std::vector<std::pair<std::string, std::string>>;

struct SmallNetwork {
  std::string family;  // the model name, also its config section
  Settings params;     // keys inside [family]
  // Routings that need another shape: (routing, keys that replace or add to params).
  std::vector<std::pair<std::string, Settings>> for_routing = {};
};

/// A few routers per family, so every routing can be explored over all pairs and run in well
/// under a second.
inline const std::vector<SmallNetwork>& small_networks() {
  static const std::vector<SmallNetwork> table = {
      {"mesh", {{"k", "4"}, {"n", "2"}}},
      {"torus", {{"k", "4"}, {"n", "2"}}},  // k >= 4: dor_no_dateline has a cycle
      {"hyperx", {{"dims", "3x3"}}},
      {"crossbar", {{"endpoints", "8"}}},
      {"dragonfly", {{"p", "2"}, {"a", "4"}, {"h", "2"}}},  // g = 9 groups, 72 endpoints
      {"fat_tree", {{"k", "2"}, {"n", "3"}}},               // 8 endpoints, 3 levels
      {"rail_optimized",
       {{"nodes", "8"}, {"gpus_per_node", "4"}, {"nodes_per_leaf", "4"}, {"spines", "2"}}},
      // k = 4, h = 3, g = 7 W-groups of two 2x2 C-groups: 56 chiplets
      {"switchless_dragonfly", {{"n", "2"}, {"m", "2"}, {"a", "1"}, {"b", "2"}}},
      // 2x2 chips per node, r = 2 rails per axis: a 3-node hyperx row, a 3-node torus column
      {"railx",
       {{"m", "2"}, {"n", "1"}, {"x", "hyperx:3"}, {"y", "torus:3"}},
       {{"adaptive", {{"n", "2"}, {"y", "hyperx:3"}}}}},  // detours need hyperx and n >= 2
      // 3 x 2 boards of 2 x 2 chips (24); one switch per line of 6 (X) or 4 (Y) ports
      {"hammingmesh", {{"a", "2"}, {"b", "2"}, {"x", "3"}, {"y", "2"}}},
      // 6 nodes of 4 GPUs, K = 2, TP rings of 8 GPUs bridging failed node 2: {0,1} {3,4}. The
      // DCN at half a ring hop's speed (the default 1/8 queues uniform traffic at load 0.1 for
      // longer than the conservation test's short window).
      {"infinitehbd",
       {{"nodes", "6"},
        {"gpus_per_node", "4"},
        {"k", "2"},
        {"tp", "8"},
        {"failed_nodes", "2"},
        {"dcn_speed", "0.5"}}},
      // 8 HB domains of 2 GPUs, a two-tier Clos per rail (radix 4: leaves of 2 GPUs under 2
      // spines), and forwarding either way round: every hop kind and both VCs
      {"rail_only",
       {{"gpus", "16"}, {"hb_size", "2"}, {"radix", "4"}, {"forwarding", "alternate"}}},
  };
  return table;
}

inline const SmallNetwork* find_small_network(const std::string& family) {
  for (const SmallNetwork& n : small_networks()) {
    if (n.family == family) return &n;
  }
  return nullptr;
}

/// sim.model = family plus the family's small parameters; with a routing, that routing and the
/// parameters it needs.
inline Config small_network_config(const SmallNetwork& network, const std::string& routing = "") {
  Config config;
  config.set("sim.model", network.family, "test");
  for (const auto& [key, value] : network.params) {
    config.set(network.family + "." + key, value, "test");
  }
  if (routing.empty()) return config;
  config.set(network.family + ".routing", routing, "test");
  for (const auto& [name, settings] : network.for_routing) {
    if (name != routing) continue;
    for (const auto& [key, value] : settings) config.set(network.family + "." + key, value, "test");
  }
  return config;
}

/// Every model hxsim ships, registered once per test program.
inline const Registry& registry() {
  static const Registry r = [] {
    Registry reg;
    register_all_models(reg);
    return reg;
  }();
  return r;
}

/// The routings a family offers (its "routing" parameter's choices).
inline std::vector<std::string> routing_choices(const std::string& family) {
  for (const ParamSpec& p : registry().find(family).params) {
    if (p.name == "routing") return p.choices;
  }
  return {};
}

}  // namespace hx::test
