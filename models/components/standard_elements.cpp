// The standard switching elements (models/network/element.h): the router and the endpoint.
#include "models/network/element.h"

#include "models/components/endpoint.h"
#include "models/components/router.h"

namespace hx::net {

std::vector<SwitchingElement> standard_elements() {
  SwitchingElement router{"router",
                          "input-queued virtual cut-through router with credit flow control",
                          {.sinks_at_link_rate = false,
                           .counts_sink_credits = true,
                           .has_pipeline = true},
                          [](ComponentId id, uint32_t index, const NetworkContext& net,
                             const BuildContext& ctx) -> std::unique_ptr<Component> {
                            return std::make_unique<Router>(id, index, net, ctx);
                          }};
  SwitchingElement endpoint{"endpoint", "chip or NIC: injects, ejects and runs workloads",
                            {.sinks_at_link_rate = true,
                             .counts_sink_credits = false,
                             .has_pipeline = false},
                            [](ComponentId id, uint32_t index, const NetworkContext& net,
                               const BuildContext& ctx) -> std::unique_ptr<Component> {
                              return std::make_unique<Endpoint>(id, index, net, ctx);
                            }};
  return {router, endpoint};
}

}  // namespace hx::net
