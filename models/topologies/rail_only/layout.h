// The sizes of a rail-only cluster and the closed forms that number its parts (rail_only.cpp):
// N GPUs in HB domains of K; GPU j of domain d is endpoint d * K + j and sits on rail j.
//
// Components: domain d is a contiguous span of 2K + H components (H = the HB fabric's
// switches): GPU j's router at 2j, its endpoint at 2j + 1, then the HB switches. The scale-out
// network follows the last domain as `planes` Clos planes of R switches each: one plane per rail
// (rail-only), or one plane of all GPUs ordered rail by rail (rail-optimized), or none. Routers
// are numbered in component order (a domain's K GPU routers, then its H switches).
//
// A GPU router's ports: 0 its endpoint, 1 its HB fabric, 2 its NIC (absent without a network).
#pragma once

#include <cstdint>

#include "core/ids.h"
#include "models/network/clos.h"

namespace hx::net::rail_only {

enum class ScaleOut : uint8_t { kRailOnly, kRailOptimized, kNone };
/// Which way a message between different rails of different domains goes (rail-only only).
enum class Forwarding : uint8_t { kHbFirst, kRailFirst, kAlternate };

inline constexpr PortId kEndpointPort = 0, kHbPort = 1, kNicPort = 2;

struct Layout {
  uint32_t gpus = 0;  // N
  uint32_t k = 0;     // HB domain size
  ScaleOut network = ScaleOut::kRailOnly;
  Clos hb;    // one HB domain, terminal j = GPU j
  Clos rail;  // one plane of the scale-out network
  uint32_t planes = 0;

  uint32_t domains() const { return gpus / k; }
  uint32_t domain_of(uint32_t gpu) const { return gpu / k; }
  uint32_t rail_of(uint32_t gpu) const { return gpu % k; }
  uint32_t gpu_ports() const { return network == ScaleOut::kNone ? 2 : 3; }

  // ---- components and routers ----
  ComponentId domain_span() const { return 2 * k + hb.switches(); }
  uint32_t domain_routers() const { return k + hb.switches(); }
  ComponentId net_base() const { return ComponentId{domains()} * domain_span(); }
  uint32_t net_router_base() const { return domains() * domain_routers(); }
  uint32_t routers() const { return net_router_base() + planes * rail.switches(); }

  ComponentId gpu_component(uint32_t gpu) const {
    return domain_of(gpu) * domain_span() + 2 * rail_of(gpu);
  }
  ComponentId hb_component(uint32_t domain, uint32_t sw) const {
    return domain * domain_span() + 2 * k + sw;
  }
  ComponentId rail_component(uint32_t plane, uint32_t sw) const {
    return net_base() + plane * rail.switches() + sw;
  }
  uint32_t gpu_router(uint32_t gpu) const {
    return domain_of(gpu) * domain_routers() + rail_of(gpu);
  }

  // ---- the scale-out plane and terminal of a GPU, and back ----
  uint32_t plane_of(uint32_t gpu) const {
    return network == ScaleOut::kRailOnly ? rail_of(gpu) : 0;
  }
  uint32_t terminal_of(uint32_t gpu) const {
    return network == ScaleOut::kRailOnly ? domain_of(gpu)
                                          : rail_of(gpu) * domains() + domain_of(gpu);
  }
  uint32_t gpu_at(uint32_t plane, uint32_t terminal) const {
    if (network == ScaleOut::kRailOnly) return terminal * k + plane;
    return terminal % domains() * k + terminal / domains();
  }

  // ---- directed links, in component order ----
  uint64_t domain_links() const { return uint64_t{k} * (gpu_ports() + 1) + hb.switch_links(); }
  uint64_t net_link_base() const { return domains() * domain_links(); }
  uint64_t links() const { return net_link_base() + uint64_t{planes} * rail.switch_links(); }
};

}  // namespace hx::net::rail_only
