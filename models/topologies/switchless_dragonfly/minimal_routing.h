// Baseline minimal routing of the switch-less Dragonfly (Algorithm 1) with 4 VCs.
#pragma once

#include <memory>

#include "models/network/routing.h"
#include "models/topologies/switchless_dragonfly/shape.h"

namespace hx::net::sldf {

std::unique_ptr<Routing> make_minimal_routing(const Shape& shape);

}  // namespace hx::net::sldf
