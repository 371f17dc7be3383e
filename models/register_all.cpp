// Calls each model module's registration function.
#include "models/register_all.h"

#include "models/network/network_model.h"
#include "models/phold/phold.h"
#include "models/topologies/crossbar/crossbar.h"
#include "models/topologies/dragonfly/dragonfly.h"
#include "models/topologies/fat_tree/fat_tree.h"
#include "models/topologies/hammingmesh/hammingmesh.h"
#include "models/topologies/hyperx/hyperx.h"
#include "models/topologies/infinitehbd/cluster_model.h"
#include "models/topologies/infinitehbd/infinitehbd.h"
#include "models/topologies/infinitehbd/orchestration_model.h"
#include "models/topologies/rail_only/rail_only.h"
#include "models/topologies/railx/railx.h"
#include "models/topologies/switchless_dragonfly/switchless_dragonfly.h"
#include "models/topologies/torus/torus.h"

namespace hx {

void register_all_models(Registry& registry, const net::InputFiles& files) {
  phold::register_models(registry);
  net::register_network_family(registry, net::mesh_family(), files);
  net::register_network_family(registry, net::torus_family(), files);
  net::register_network_family(registry, net::hyperx_family(), files);
  net::register_network_family(registry, net::crossbar_family(), files);
  net::register_network_family(registry, net::dragonfly_family(), files);
  net::register_network_family(registry, net::fat_tree_family(), files);
  net::register_network_family(registry, net::rail_optimized_family(), files);
  net::register_network_family(registry, net::switchless_dragonfly_family(), files);
  net::register_network_family(registry, net::railx_family(), files);
  net::register_network_family(registry, net::hammingmesh_family(), files);
  net::register_network_family(registry, net::infinitehbd_family(), files);
  net::infinitehbd::register_cluster_model(registry);
  net::infinitehbd::register_orchestration_model(registry);
  net::register_network_family(registry, net::rail_only_family(), files);
}

}  // namespace hx
