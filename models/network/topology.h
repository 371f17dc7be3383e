// A topology as pure functions of a component id (DESIGN §3.4): which components are routers
// and which are endpoints, how their ports connect, how they group for partitioning, and the
// classes of their links. Nothing here holds the whole network; a 200K-chip topology is a few
// integers. Routing algorithms live beside their topology (routing.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/ids.h"
#include "core/model.h"
#include "core/units.h"

namespace hx::net {

enum class NodeKind : uint8_t { kRouter, kEndpoint };

/// What a component is: a router or an endpoint, and its index among those (dense from 0).
struct Node {
  NodeKind kind = NodeKind::kRouter;
  uint32_t index = 0;
};

/// A kind of link (on-chip, local, global, optical rail, ...). Every PortSpec::link_class
/// indexes the topology's link_classes().
struct LinkClass {
  std::string name;
  SimTime latency;
  double flits_per_cycle = 1.0;  // bandwidth as a multiple of the base 1 flit/cycle
};

/// A reconfigurable element: optical circuit switches (or transceivers) whose circuits take one
/// of several configurations, each its own set of links; exactly one configuration carries
/// traffic at a time (docs/FAULTS.md "Reconfiguration"). The schedule names it `name` (every
/// instance) or `name I` (instance I, e.g. the X-OCSes of row I).
struct Reconfigurable {
  std::string name;
  uint32_t instances = 1;
  std::vector<std::string> configurations;  // the first is live at time 0
  SimTime switching;  // how long none of the element's circuits carries traffic on a change
};

/// The circuit a link belongs to: configuration `configuration` of instance `instance` of
/// reconfigurable element `element` (an index of Topology::reconfigurables()).
struct Circuit {
  uint32_t element = 0;
  uint32_t instance = 0;
  uint32_t configuration = 0;
};

/// Where the report draws a component (docs/ANALYSIS.md "Topology pictures"). Components fall
/// into picture groups (a W-group, a RailX node, a ring, a Dragonfly group, a pod, ...): the
/// overview panel draws each group as one mark at (group_x, group_y), the detail panel the
/// components of one group at (x, y). Units are the family's own; the report keeps aspect ratios.
struct PicturePlace {
  uint32_t group = 0;
  double group_x = 0, group_y = 0;
  double x = 0, y = 0;
};

class Topology {
 public:
  virtual ~Topology() = default;

  /// One line, e.g. "dragonfly p=4 a=8 h=4 g=33: 1056 endpoints, 264 routers".
  virtual std::string describe() const = 0;

  virtual uint32_t num_routers() const = 0;
  virtual uint32_t num_endpoints() const = 0;
  ComponentId num_components() const { return num_routers() + num_endpoints(); }

  virtual Node node(ComponentId id) const = 0;
  virtual ComponentId router_component(uint32_t router) const = 0;
  virtual ComponentId endpoint_component(uint32_t endpoint) const = 0;

  /// The ports of a component, index = port id. Links are symmetric (model.h). An endpoint's
  /// ports all lead to routers; a router's ports lead to routers or endpoints. A component has
  /// fewer than kWidePort ports (events name them): families refuse larger ones.
  virtual void ports(ComponentId id, std::vector<PortSpec>& out) const = 0;
  /// Port p of component id (p below its port count), as ports() lists it. Families whose
  /// routers have thousands of ports give it in closed form: the flow level asks for one port
  /// at a time.
  virtual PortSpec port(ComponentId id, PortId p) const {
    std::vector<PortSpec> all;
    ports(id, all);
    return all.at(p);
  }

  /// Directed links are numbered densely: the link leaving port p of component c has id
  /// first_link(c) + p. (Used for the per-link statistics table.)
  virtual uint64_t first_link(ComponentId id) const = 0;
  virtual uint64_t num_links() const = 0;

  /// Partitioning hierarchy (model.h): coarsest first, contiguous nested id ranges.
  virtual std::vector<GroupLevel> group_levels() const = 0;
  virtual ComponentRange group_range(std::size_t level, uint64_t group) const = 0;

  virtual const std::vector<LinkClass>& link_classes() const = 0;

  /// Endpoint groups for the group-based traffic patterns (group shift, hotspot): Dragonfly
  /// groups, fat-tree pods, ... Each group is a contiguous range [first, last) of endpoint
  /// indices; together they tile [0, num_endpoints()).
  virtual uint32_t num_endpoint_groups() const = 0;
  virtual uint32_t endpoint_group(uint32_t endpoint) const = 0;
  struct EndpointRange {
    uint32_t first = 0;
    uint32_t last = 0;
  };
  virtual EndpointRange endpoint_group_range(uint32_t group) const = 0;

  /// Whether only a thin network joins the endpoint groups (the rail-only cluster's HB domains:
  /// GPUs of one rail only): an LLM's model-parallel (TP x CP) groups must then each lie in one
  /// group, an input error otherwise. Default: no such constraint.
  virtual bool confines_model_parallel() const { return false; }

  /// Endpoint coordinates for the coordinate-based traffic patterns (tornado, neighbour): the
  /// radices of a mixed-radix numbering of endpoint indices, least significant first, with
  /// product num_endpoints(). Default: one dimension.
  virtual std::vector<uint32_t> endpoint_dims() const { return {num_endpoints()}; }

  /// The router an endpoint's port 0 attaches to.
  virtual uint32_t endpoint_router(uint32_t endpoint) const = 0;

  /// Router-to-router hops on the longest minimal path between two endpoints.
  virtual uint32_t diameter() const = 0;

  /// The switching element (element.h) router `router` is built as. Default: "router".
  virtual std::string switch_element(uint32_t /*router*/) const { return "router"; }
  /// Every name switch_element() returns, checked against the known elements at build time.
  virtual std::vector<std::string> switch_elements() const { return {"router"}; }

  /// Endpoints in the order that makes consecutive ranks neighbours on the topology's rings
  /// (workload.mapping = "topology"); empty: no such order, rank r on endpoint r.
  virtual std::vector<uint32_t> ring_order() const { return {}; }

  /// The reconfigurable elements (none by default). Their links are wired once per
  /// configuration, so the wiring and the lookahead stay fixed while the live set changes.
  virtual std::vector<Reconfigurable> reconfigurables() const { return {}; }
  /// Whether port p of component id is a circuit of a reconfigurable element, and which.
  virtual bool circuit(ComponentId /*id*/, PortId /*p*/, Circuit& /*out*/) const { return false; }

  /// What a picture group is ("wgroup", "node", "ring", ...) and where a component is drawn
  /// (layout.cpp). Default: the coarsest partition groups, on a circle (a grid past 64), each
  /// group's components on a square grid in id order.
  virtual std::string picture_group() const;
  virtual PicturePlace picture_place(ComponentId id) const;
};

}  // namespace hx::net
