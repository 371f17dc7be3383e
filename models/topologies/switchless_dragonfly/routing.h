// Routing of the switch-less Dragonfly (§IV of the paper): minimal (Algorithm 1), Valiant
// through an intermediate W-group, and UGAL-style adaptive choice between them; dimension-order
// or negative-first inside C-groups; the baseline VC assignment (one VC per C-group visited) or
// the reduced up*/down* one (§IV-B). routing.cpp has the rules and why they are deadlock-free.
#pragma once

#include <cstdint>
#include <memory>

#include "models/network/routing.h"
#include "models/topologies/switchless_dragonfly/shape.h"

namespace hx::net::sldf {

enum class Algorithm { kMinimal, kValiant, kUgal };
enum class Intra { kDor, kNegativeFirst };
enum class VcScheme { kBaseline, kUpDown };

struct RoutingOptions {
  Algorithm algorithm = Algorithm::kMinimal;
  Intra intra = Intra::kDor;
  VcScheme vc_scheme = VcScheme::kBaseline;
  bool lower_only = false;  // misroute only through valid lower W-groups (§IV-B)
  uint8_t vc_limit = 0;     // 0: the VCs the scheme needs; fewer folds the top classes together
  uint64_t ugal_threshold = 0;
};

/// The VCs a scheme needs: baseline 4 minimal, 6 non-minimal; up*/down* 3 minimal, 3
/// non-minimal through valid lower W-groups only, 4 otherwise.
uint8_t needed_vcs(const RoutingOptions& options);

std::unique_ptr<Routing> make_routing(const Shape& shape, const RoutingOptions& options);

/// Router-to-router hops from `from` to endpoint `dst`'s router, through W-group `via` first
/// unless via is kNoRouter (the routes of make_routing with dimension-order inside C-groups).
uint32_t path_hops(const Shape& shape, uint32_t from, uint32_t via, uint32_t dst);

}  // namespace hx::net::sldf
