// A topology family as the network model registers it: its config section (sizes, link
// latencies and bandwidths, routing algorithm) and the factory that builds the topology and its
// routing from that section. models/network/network_model.cpp turns each family into a model
// with the shared [router] and [traffic] sections.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/closed_forms.h"
#include "core/error.h"
#include "core/params.h"
#include "core/units.h"
#include "models/network/routing.h"
#include "models/network/topology.h"

namespace hx::net {

struct Network {
  std::unique_ptr<Topology> topology;
  std::unique_ptr<Routing> routing;
};

struct TopologyFamily {
  std::string name;  // the model name and its config section, e.g. "dragonfly"
  std::string help;
  std::vector<ParamSpec> params;
  /// Builds from the resolved section; InputError (naming the key) on inconsistent values.
  std::function<Network(const ParamSet& section)> make;
  /// Formulas of the family's papers for `hxsim topo`, from the same section; "= {}": optional.
  std::vector<ClosedFormsSpec> closed_forms = {};
};

/// params.time(key), which must be positive; else InputError "<section>.<key> = <t>: expected a
/// time > 0" (the families' latencies).
inline SimTime positive_time(const ParamSet& params, const std::string& section,
                             const std::string& key) {
  const SimTime t = params.time(key);
  if (t <= SimTime::zero()) {
    throw InputError(section + "." + key + " = " + format_time(t) + ": expected a time > 0");
  }
  return t;
}

}  // namespace hx::net
