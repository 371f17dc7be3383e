// Algorithm 1 as a stateless rule: a packet in C-group c of W-group w leaves by
// Shape::exit_label(w, c, W_d, C_d) until it is in its destination C-group, so the path is
// C_s -> C_b (the C-group holding the global link to W_d) -> C_c (where that link lands) -> C_d,
// each inter-C-group hop omitted where two of these coincide. Inside a C-group the packet goes
// dimension order (x first) to the chiplet owning the exit label (or the destination chiplet),
// then out of that port.
//
// VCs (4): a packet's class is the number of inter-C-group links it has crossed. It crosses
// mesh links on its class and an inter-C-group link on class + 1, so the VC it arrived on is its
// class, except when it comes from its endpoint (any VC, class 0). Within a class paths are XY
// on one mesh, which has no cyclic dependency, and classes only increase: deadlock-free.
#include "models/topologies/switchless_dragonfly/minimal_routing.h"

#include <string>

namespace hx::net::sldf {
namespace {

class MinimalRouting final : public Routing {
 public:
  explicit MinimalRouting(const Shape& shape) : s_(shape) {}

  std::string name() const override { return "minimal"; }
  uint8_t vcs() const override { return 4; }

  void route(uint32_t router, PortId in_port, Packet& packet, Candidates& out) const override {
    const auto level = static_cast<uint8_t>(in_port == 0 ? 0 : packet.vc);
    const Shape::Place here = s_.place(router), dst = s_.place(packet.dst);
    uint32_t x = dst.x, y = dst.y, label = 0;
    const bool leaves = here.w != dst.w || here.c != dst.c;
    if (leaves) {
      label = s_.exit_label(here.w, here.c, dst.w, dst.c);
      const auto owner = s_.slot_chiplet(s_.slot_of(label));
      x = owner[0];
      y = owner[1];
    }
    if (here.x != x) {
      out.add(s_.mesh_port(here.x, here.y, x > here.x ? kPlusX : kMinusX), level);
    } else if (here.y != y) {
      out.add(s_.mesh_port(here.x, here.y, y > here.y ? kPlusY : kMinusY), level);
    } else if (leaves) {
      out.add(s_.label_port(label), static_cast<uint8_t>(level + 1));
    } else {
      for (uint8_t vc = 0; vc < vcs(); ++vc) out.add(0, vc);
    }
  }

 private:
  Shape s_;
};

}  // namespace

std::unique_ptr<Routing> make_minimal_routing(const Shape& shape) {
  return std::make_unique<MinimalRouting>(shape);
}

}  // namespace hx::net::sldf
