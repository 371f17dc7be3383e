// The rules, as closed forms of the packet's place and destination (nothing tabulated):
//
// Path. A packet in C-group c of W-group w leaves by Shape::exit_label(w, c, target W-group,
// C_d) until it is in its destination C-group; the target W-group is the intermediate one while
// phase is 0 (Valiant), else the destination's. Minimal paths are C_s -> C_b -> C_c -> C_d
// (Algorithm 1, each inter-C-group hop omitted where two of these coincide); Valiant paths do
// the same to the intermediate W-group, cross it from the global port they land on to the one
// leading to W_d, and go on minimally. Inside a C-group a packet goes to the router owning the
// exit label (or to its destination) by dimension order (X first) or negative-first (all -X/-Y
// moves, then all +X/+Y moves, adaptively within each half: Glass & Ni's turn model), then out
// of that port.
//
// VCs. A packet's class only grows, changes only on inter-C-group links and is the VC it
// travels on, so the VC it arrived on is its class (from its endpoint: class 0).
//  - baseline: class = inter-C-group links crossed. Within one class a packet stays in one
//    C-group, whose mesh routing is deadlock-free, so the channel dependency graph is acyclic.
//    Minimal needs 4 VCs, Valiant 6 (§IV-A).
//  - updown (§IV-B): 0 in C_s, 1 after a local hop in the source W-group, 2 from the first
//    global link on; non-minimal paths move to 3 on their second global link unless they only
//    misroute through valid lower W-groups (an intermediate W-group below W_d entered below the
//    port that leaves it, so the path from it to the destination core is up*/down* by Property
//    2). The paper argues deadlock freedom from Property 1's labelling of the intra-C-group
//    network; `hxsim verify` checks whether this mesh and intra routing have it.
// With vc_limit below what the scheme needs, classes at or above vc_limit - 1 share the last
// VC: the configuration `hxsim verify` should find a cycle in.
//
// Non-minimal. Valiant picks the intermediate W-group uniformly among those allowed (not the
// source's or the destination's; with lower_only, only valid lower ones) at the source router;
// packets within one W-group, or with no allowed intermediate, go minimally. UGAL compares, at
// the source router, load(first port) * hops of the minimal path with the same product for one
// random Valiant path (plus ugal_threshold), as the switch-based Dragonfly's UGAL-L does.
#include "models/topologies/switchless_dragonfly/routing.h"

#include <algorithm>
#include <string>
#include <vector>

namespace hx::net::sldf {
namespace {

class SwitchlessRouting final : public Routing {
 public:
  SwitchlessRouting(const Shape& shape, const RoutingOptions& options)
      : s_(shape), o_(options), vcs_(o_.vc_limit > 0 ? o_.vc_limit : needed_vcs(options)) {}

  std::string name() const override {
    switch (o_.algorithm) {
      case Algorithm::kMinimal:
        return "minimal";
      case Algorithm::kValiant:
        return "valiant";
      case Algorithm::kUgal:
        return "ugal";
    }
    return "";
  }
  uint8_t vcs() const override { return vcs_; }
  bool minimal() const override { return o_.algorithm == Algorithm::kMinimal; }

  void start(uint32_t router, const RouterView& load, Rng& rng, Packet& packet) const override {
    packet.phase = 0;
    packet.intermediate = kNoRouter;
    if (o_.algorithm == Algorithm::kMinimal) return;
    const uint32_t ws = s_.place(router).w, wd = s_.place(packet.dst).w;
    const uint32_t allowed = count_intermediates(ws, wd);
    if (allowed == 0) return;
    const uint32_t via = nth_intermediate(ws, wd, static_cast<uint32_t>(rng.below(allowed)));
    if (o_.algorithm == Algorithm::kUgal && !ugal_takes_valiant(router, via, load, packet)) {
      return;
    }
    packet.intermediate = first_router(via);
  }

  void start_states(uint32_t router, const RouterView* /*view*/, const Packet& packet,
                    std::vector<Packet>& out) const override {
    Packet minimal = packet;
    minimal.phase = 0;
    minimal.intermediate = kNoRouter;
    const uint32_t ws = s_.place(router).w, wd = s_.place(packet.dst).w;
    const uint32_t allowed = o_.algorithm == Algorithm::kMinimal ? 0 : count_intermediates(ws, wd);
    if (o_.algorithm != Algorithm::kValiant || allowed == 0) out.push_back(minimal);
    for (uint32_t i = 0; i < allowed; ++i) {
      Packet valiant = minimal;
      valiant.intermediate = first_router(nth_intermediate(ws, wd, i));
      out.push_back(valiant);
    }
  }

  void route(uint32_t router, PortId in_port, Packet& packet, Candidates& out) const override {
    const auto cls = static_cast<uint8_t>(in_port == 0 ? 0 : packet.vc);
    const Shape::Place here = s_.place(router), dst = s_.place(packet.dst);
    const bool detour = packet.intermediate != kNoRouter;
    const uint32_t via = detour ? s_.place(packet.intermediate).w : 0;
    if (detour && packet.phase == 0 && here.w == via) packet.phase = 1;
    const uint32_t target = detour && packet.phase == 0 ? via : dst.w;
    const bool leaves = here.w != target || here.c != dst.c;
    uint32_t x = dst.x, y = dst.y, label = 0;
    if (leaves) {
      label = s_.exit_label(here.w, here.c, target, dst.c);
      const auto owner = s_.label_router(label);
      x = owner[0];
      y = owner[1];
    }
    if (here.x != x || here.y != y) {
      mesh_step(here, x, y, cls, out);
    } else if (leaves) {
      out.add(s_.label_port(label), next_class(cls, s_.is_global(here.c, label)));
    } else {
      for (uint8_t vc = 0; vc < vcs_; ++vc) out.add(0, vc);
    }
  }

 private:
  void mesh_step(const Shape::Place& p, uint32_t x, uint32_t y, uint8_t cls,
                 Candidates& out) const {
    if (o_.intra == Intra::kDor) {
      if (p.x != x) {
        out.add(s_.mesh_port(p.x, p.y, x > p.x ? kPlusX : kMinusX), cls);
      } else {
        out.add(s_.mesh_port(p.x, p.y, y > p.y ? kPlusY : kMinusY), cls);
      }
      return;
    }
    // Negative-first: no turn from a positive to a negative direction.
    if (x < p.x || y < p.y) {
      if (x < p.x) out.add(s_.mesh_port(p.x, p.y, kMinusX), cls);
      if (y < p.y) out.add(s_.mesh_port(p.x, p.y, kMinusY), cls);
      return;
    }
    if (x > p.x) out.add(s_.mesh_port(p.x, p.y, kPlusX), cls);
    if (y > p.y) out.add(s_.mesh_port(p.x, p.y, kPlusY), cls);
  }

  uint8_t next_class(uint8_t cls, bool global) const {
    uint32_t next = cls + 1;
    if (o_.vc_scheme == VcScheme::kUpDown) {
      if (global) {
        next = cls < 2 ? 2 : (o_.lower_only ? cls : cls + 1);
      } else {
        next = cls == 0 ? 1 : cls;
      }
    }
    return static_cast<uint8_t>(std::min<uint32_t>(next, vcs_ - 1));
  }

  uint32_t first_router(uint32_t wgroup) const { return wgroup * s_.ab * s_.mesh_size(); }

  // Valid lower W-group (§IV-B): below W_d, and entered from W_s below (C-group, label) the port
  // that leaves it for W_d, so the path through it is up-only.
  bool allowed(uint32_t ws, uint32_t via, uint32_t wd) const {
    if (via == ws || via == wd) return false;
    if (!o_.lower_only) return true;
    if (via > wd) return false;
    const Shape::End in = s_.landing(ws, via);
    const uint32_t G = wd < via ? wd : wd - 1, out_c = G / s_.h, out_label = out_c + G % s_.h;
    return in.c < out_c || (in.c == out_c && in.label < out_label);
  }
  uint32_t count_intermediates(uint32_t ws, uint32_t wd) const {
    if (ws == wd || s_.g < 3) return 0;
    if (!o_.lower_only) return s_.g - 2;
    uint32_t count = 0;
    for (uint32_t w = 0; w < wd; ++w) count += allowed(ws, w, wd) ? 1 : 0;
    return count;
  }
  uint32_t nth_intermediate(uint32_t ws, uint32_t wd, uint32_t i) const {
    if (!o_.lower_only) {
      uint32_t via = i;
      if (via >= std::min(ws, wd)) ++via;
      if (via >= std::max(ws, wd)) ++via;
      return via;
    }
    for (uint32_t w = 0;; ++w) {
      if (allowed(ws, w, wd) && i-- == 0) return w;
    }
  }

  PortId first_port(uint32_t router, Packet packet, uint32_t intermediate) const {
    packet.intermediate = intermediate;
    packet.phase = 0;
    Candidates c;
    route(router, 0, packet, c);
    return c[0].port;
  }
  bool ugal_takes_valiant(uint32_t router, uint32_t via, const RouterView& load,
                          const Packet& packet) const {
    const uint64_t min_load = load.load(first_port(router, packet, kNoRouter));
    const uint64_t via_load = load.load(first_port(router, packet, first_router(via)));
    return min_load * path_hops(s_, router, kNoRouter, packet.dst) >
           via_load * path_hops(s_, router, via, packet.dst) + o_.ugal_threshold;
  }

  Shape s_;
  RoutingOptions o_;
  uint8_t vcs_;
};

}  // namespace

uint8_t needed_vcs(const RoutingOptions& o) {
  const bool minimal = o.algorithm == Algorithm::kMinimal;
  if (o.vc_scheme == VcScheme::kBaseline) return minimal ? 4 : 6;
  return minimal || o.lower_only ? 3 : 4;
}

std::unique_ptr<Routing> make_routing(const Shape& shape, const RoutingOptions& options) {
  return std::make_unique<SwitchlessRouting>(shape, options);
}

uint32_t path_hops(const Shape& s, uint32_t from, uint32_t via, uint32_t dst) {
  Shape::Place p = s.place(from);
  const Shape::Place d = s.place(dst);
  bool towards_dst = via == kNoRouter;
  uint32_t hops = 0;
  for (;;) {
    towards_dst = towards_dst || p.w == via;
    const uint32_t target = towards_dst ? d.w : via;
    if (p.w == target && p.c == d.c) return hops + Shape::distance(p, d.x, d.y);
    const uint32_t label = s.exit_label(p.w, p.c, target, d.c);
    const auto exit = s.label_router(label);
    hops += Shape::distance(p, exit[0], exit[1]) + 1;
    const Shape::End far = s.peer(p.w, p.c, label);
    const auto entry = s.label_router(far.label);
    p = {far.w, far.c, entry[0], entry[1]};
  }
}

}  // namespace hx::net::sldf
