// The network model: a topology family's topology and routing, routers and endpoints built from
// the shared [router] and [traffic] sections, as an engine Model. Also what `hxsim verify`,
// `hxsim sweep` and `hxsim topo` need to see of a configured network.
#pragma once

#include <memory>
#include <vector>

#include "core/model.h"
#include "core/registry.h"
#include "models/network/family.h"
#include "models/network/routing.h"
#include "models/network/topology.h"
#include "models/network/workload_config.h"

namespace hx::net {

class NetworkModel;
class Faults;  // faults.h

/// The network behind `model`, or nullptr when it is not a network model (e.g. PHOLD).
const NetworkModel* as_network(const Model& model);

/// Registers one model per family: section [family.name] plus [router], [traffic], [workload]
/// and [llm].
void register_network_family(Registry& registry, TopologyFamily family,
                             const InputFiles& files = {});

class NetworkModel : public Model {
 public:
  virtual const Topology& topology() const = 0;
  virtual const Routing& routing() const = 0;
  /// Virtual channels per port the routers are built with (>= routing().vcs()).
  virtual uint8_t vcs() const = 0;
  /// The fault schedule ([faults], docs/FAULTS.md), or nullptr when there is none.
  virtual const Faults* faults() const = 0;
};

}  // namespace hx::net
