// Shared by the RailX family's tests: a network built from railx.* settings and the link
// class ids.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "models/network/family.h"
#include "models/topologies/railx/railx.h"

namespace hx::net::railx_testing {

using Settings = std::vector<std::pair<std::string, std::string>>;

inline constexpr uint16_t kEndpoint = 0, kMesh = 1, kXRail = 2, kYRail = 3;

inline Network build(const Settings& settings) {
  const TopologyFamily family = railx_family();
  Config config;
  for (const auto& [key, value] : settings) config.set("railx." + key, value, "test");
  return family.make(resolve_section(config, "railx", family.params, SimTime::ns(1)));
}

}  // namespace hx::net::railx_testing
