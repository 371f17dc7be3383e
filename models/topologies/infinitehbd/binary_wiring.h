// InfiniteHBD's wiring for all-to-all (Appendix G.3, `infinitehbd.wiring = "binary"`): node i's
// OCSTrx bundles reach the nodes i ± 1, 2, 4, ..., 2^(K-1) instead of i ± 1 .. K, so every round
// of the Binary Exchange all-to-all between nodes (partners i XOR 2^k) is one optical hop. Appendix
// G.1's Fast Switch points each bundle at the round's partner (60-80 us per switch, overlapped with
// computation); here every path is wired at once, so the rounds need no switching and the
// switching time is not modelled.
#pragma once

#include <cstdint>
#include <vector>

#include "models/network/family.h"

namespace hx::net::infinitehbd {

struct BinaryWiring {
  uint32_t nodes = 0, r = 0, k = 0;
};

/// GPUs of a node on a full mesh (class 1, "intra"); GPU g < K of node i linked to GPU g of
/// nodes i ± 2^g, around the line's ends (class 2, "optical"); classes[0] the injection links.
/// Routing "binary" (4 VCs): see binary_wiring.cpp. Needs K <= R and 2^(K-1) < nodes.
Network make_binary_wiring(const BinaryWiring& w, std::vector<LinkClass> classes);

}  // namespace hx::net::infinitehbd
