// Depth-first exploration of a routing's paths, memoising visited packet states.
#include "models/verification/route_explorer.h"

#include <stdexcept>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "models/network/route_state.h"

namespace hx::net {
namespace {

struct State {
  uint32_t router;
  PortId in_port;
  Packet packet;
};

std::string where(uint32_t src, uint32_t dst, uint32_t router) {
  return "routing from endpoint " + std::to_string(src) + " to " + std::to_string(dst) +
         " at router " + std::to_string(router);
}

}  // namespace

void explore_routes(const Topology& topology, const Routing& routing, uint8_t vcs, uint32_t src,
                    uint32_t dst, uint32_t max_hops, const ExploreVisitor& visitor) {
  std::vector<PortSpec> ports;
  std::vector<State> stack;
  std::unordered_set<RouteStateKey, RouteStateKeyHash> seen;
  std::vector<Packet> starts;

  const ComponentId src_id = topology.endpoint_component(src);
  topology.ports(src_id, ports);
  const std::vector<PortSpec> src_ports = ports;
  for (PortId p = 0; p < src_ports.size(); ++p) {
    const Node first = topology.node(src_ports[p].peer);
    for (uint8_t vc = 0; vc < vcs; ++vc) {
      Packet packet;
      packet.src = src;
      packet.dst = dst;
      packet.vc = vc;
      packet.flits = 1;
      starts.clear();
      routing.start_states(first.index, nullptr, packet, starts);
      for (const Packet& s : starts)
        stack.push_back({first.index, static_cast<PortId>(src_ports[p].peer_port), s});
    }
  }

  Candidates candidates;
  while (!stack.empty()) {
    State s = stack.back();
    stack.pop_back();
    if (!seen.insert(RouteStateKey(s.router, s.in_port, s.packet)).second) continue;

    candidates.clear();
    routing.route(s.router, s.in_port, s.packet, candidates);
    if (candidates.empty()) throw std::runtime_error(where(src, dst, s.router) + ": no route");
    const ComponentId here = topology.router_component(s.router);
    ports.clear();
    topology.ports(here, ports);
    const ChannelId in_channel =
        (topology.first_link(ports[s.in_port].peer) + ports[s.in_port].peer_port) * vcs +
        s.packet.vc;
    for (const Candidate& c : candidates) {
      if (c.port >= ports.size() || c.vc >= vcs) {
        throw std::runtime_error(where(src, dst, s.router) + ": candidate port " +
                                 std::to_string(c.port) + " VC " + std::to_string(c.vc) +
                                 " does not exist");
      }
      const PortSpec& out = ports[c.port];
      const ChannelId out_channel = (topology.first_link(here) + c.port) * vcs + c.vc;
      if (visitor.on_dependency) visitor.on_dependency(in_channel, out_channel, c.escape);
      const Node next = topology.node(out.peer);
      if (next.kind == NodeKind::kEndpoint) {
        if (next.index != dst) {
          throw std::runtime_error(where(src, dst, s.router) + ": delivered to endpoint " +
                                   std::to_string(next.index));
        }
        if (visitor.on_delivered) visitor.on_delivered(s.packet.hops);
        continue;
      }
      if (s.packet.hops >= max_hops) {
        throw std::runtime_error(where(src, dst, s.router) + ": more than " +
                                 std::to_string(max_hops) + " router-to-router hops");
      }
      State n{next.index, static_cast<PortId>(out.peer_port), s.packet};
      n.packet.vc = c.vc;
      ++n.packet.hops;
      stack.push_back(n);
    }
  }
}

}  // namespace hx::net
