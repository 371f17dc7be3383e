// PHOLD, the PDES community's standard synthetic benchmark, as the engine's benchmark and
// determinism test subject. N logical processes (LPs) in groups of G. Each event an LP handles
// makes one new event: with probability p it goes through a link to an LP in a group up to
// `neighbors` groups away (arriving after the link latency plus an exponential delay), otherwise
// to the LP itself (after min_delay plus an exponential delay), as in ROSS's PHOLD.
#pragma once

#include <memory>

#include "core/model.h"
#include "core/registry.h"

namespace hx::phold {

struct PholdConfig {
  ComponentId lps = 0;
  ComponentId group_size = 0;
  uint32_t neighbors = 0;  // remote ports: +-1..+-neighbors groups, 2*neighbors ports per LP
  double remote_probability = 0.0;
  SimTime mean_delay;
  SimTime min_delay;
  SimTime link_latency;
  uint32_t events_per_lp = 1;
};

/// Validates cross-parameter constraints (InputError) and builds the model.
std::unique_ptr<Model> make_model(const PholdConfig& config);
PholdConfig config_from(const ParamSet& params);

void register_models(Registry& registry);

}  // namespace hx::phold
