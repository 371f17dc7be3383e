// The closed forms the switch-less Dragonfly's topology and routing share: how routers are
// numbered, where a C-group's external ports sit on its mesh, and which port leads where. All of
// it is arithmetic on (n, m, a, b, chip); nothing is tabulated.
//
// Routers: a C-group is an m x m mesh of chiplets, each chiplet a chip x chip mesh of on-chip
// routers (chip = 1: one router per chiplet), so the C-group is one M x M router mesh, M =
// m*chip, whose links are on-chip inside a chiplet and on-wafer short reach between chiplets.
// Every router has one endpoint (a core). With s = chip, router (X, Y) of C-group i in W-group w
// is
//   r = (w * a*b + i) * M*M + ((Y/s) * m + X/s) * s*s + (Y%s) * s + X%s,
// chiplet-major, so chiplets, C-groups, wafers and W-groups are contiguous ranges; with chip = 1
// this is ((w * a*b + i) * m + Y) * m + X. r is both the router index and the endpoint index.
//
// External port labels (Fig. 6a): the k = n*m labels of a C-group are spread over the 4M slots
// of its perimeter, walking counter-clockwise from the south-west corner: south edge (Y = 0) X =
// 0..M-1, east edge (X = M-1) Y = 0..M-1, north edge (Y = M-1) X = M-1..0, west edge (X = 0) Y =
// M-1..0. Label p sits on slot floor(p * 4M / k). Corner routers own two slots (the single router
// of M = 1 owns all four).
//
// Label roles in C-group i of a W-group (Property 2: down local ports below the global ports, up
// local ports above them): [0, i) lead to C-group j = label, [i, i+h) are global ports t = label -
// i, [i+h, k) lead to C-group j = label - h + 1. Global wiring (consecutive arrangement): global
// port G = c*h + t of W-group w leads to W-group d = (G < w ? G : G + 1), at its global port
// (w < d ? w : w - 1).
//
// Router ports: 0 its endpoint; then its mesh neighbours +X, -X, +Y, -Y where they exist; then
// its external ports in label order.
#pragma once

#include <array>
#include <cstdint>
#include <cstdlib>

#include "core/ids.h"

namespace hx::net::sldf {

enum Direction : uint32_t { kPlusX, kMinusX, kPlusY, kMinusY };

struct Shape {
  uint32_t n = 0, m = 0, a = 0, b = 0, chip = 1;  // chip: on-chip routers per chiplet side
  // derived: k = n*m, ab = a*b, h = k - ab + 1, g = ab*h + 1, M = m*chip
  uint32_t k = 0, ab = 0, h = 0, g = 0, M = 0;

  Shape(uint32_t n_, uint32_t m_, uint32_t a_, uint32_t b_, uint32_t chip_ = 1)
      : n(n_),
        m(m_),
        a(a_),
        b(b_),
        chip(chip_),
        k(n_ * m_),
        ab(a_ * b_),
        h(k - ab + 1),
        g(ab * h + 1),
        M(m_ * chip_) {}

  uint32_t mesh_size() const { return M * M; }  // routers per C-group
  uint64_t routers() const { return uint64_t{g} * ab * mesh_size(); }
  uint64_t chiplets() const { return uint64_t{g} * ab * m * m; }

  // A router's place: W-group, C-group within the W-group, mesh coordinates.
  struct Place {
    uint32_t w, c, x, y;
  };
  Place place(uint32_t router) const {
    const uint32_t cgroup = router / mesh_size(), local = router % mesh_size();
    const uint32_t q = local / (chip * chip), in = local % (chip * chip);
    return {cgroup / ab, cgroup % ab, q % m * chip + in % chip, q / m * chip + in / chip};
  }
  uint32_t router(const Place& p) const {
    const uint32_t q = p.y / chip * m + p.x / chip;
    return (p.w * ab + p.c) * mesh_size() + q * chip * chip + p.y % chip * chip + p.x % chip;
  }
  // Whether the mesh link between two neighbouring routers stays inside one chiplet.
  bool on_chip(uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1) const {
    return x0 / chip == x1 / chip && y0 / chip == y1 / chip;
  }
  static uint32_t distance(const Place& p, uint32_t x, uint32_t y) {
    return static_cast<uint32_t>(std::abs(int64_t{p.x} - x) + std::abs(int64_t{p.y} - y));
  }

  // Slots and labels.
  uint32_t first_label(uint32_t slot) const {
    return static_cast<uint32_t>((uint64_t{slot} * k + 4 * M - 1) / (4 * M));
  }
  uint32_t slot_of(uint32_t label) const {
    return static_cast<uint32_t>(uint64_t{label} * 4 * M / k);
  }
  // The router (X, Y) owning a slot.
  std::array<uint32_t, 2> slot_router(uint32_t slot) const {
    if (slot < M) return {slot, 0};
    if (slot < 2 * M) return {M - 1, slot - M};
    if (slot < 3 * M) return {3 * M - 1 - slot, M - 1};
    return {0, 4 * M - 1 - slot};
  }
  std::array<uint32_t, 2> label_router(uint32_t label) const { return slot_router(slot_of(label)); }
  // The slots of router (x, y) in increasing order; returns how many.
  uint32_t slots(uint32_t x, uint32_t y, std::array<uint32_t, 4>& out) const {
    uint32_t count = 0;
    if (y == 0) out[count++] = x;
    if (x == M - 1) out[count++] = M + y;
    if (y == M - 1) out[count++] = 3 * M - 1 - x;
    if (x == 0) out[count++] = 4 * M - 1 - y;
    return count;
  }
  uint32_t external_ports(uint32_t x, uint32_t y) const {
    std::array<uint32_t, 4> s{};
    uint32_t ports = 0;
    for (uint32_t i = 0, count = slots(x, y, s); i < count; ++i) {
      ports += first_label(s[i] + 1) - first_label(s[i]);
    }
    return ports;
  }

  // Mesh ports.
  bool has(uint32_t x, uint32_t y, Direction d) const {
    switch (d) {
      case kPlusX:
        return x + 1 < M;
      case kMinusX:
        return x > 0;
      case kPlusY:
        return y + 1 < M;
      case kMinusY:
        return y > 0;
    }
    return false;
  }
  uint32_t mesh_ports(uint32_t x, uint32_t y) const {
    uint32_t ports = 0;
    for (const Direction d : {kPlusX, kMinusX, kPlusY, kMinusY}) ports += has(x, y, d) ? 1 : 0;
    return ports;
  }
  PortId mesh_port(uint32_t x, uint32_t y, Direction d) const {
    uint32_t port = 1;
    for (uint32_t e = kPlusX; e < d; ++e) port += has(x, y, static_cast<Direction>(e)) ? 1 : 0;
    return static_cast<PortId>(port);
  }
  uint32_t router_ports(uint32_t x, uint32_t y) const {
    return 1 + mesh_ports(x, y) + external_ports(x, y);
  }

  // The router port of label p at the router that owns it: after the endpoint and mesh ports,
  // the labels of the router's slots that come before p's slot, then p's place in its slot.
  PortId label_port(uint32_t label) const {
    const uint32_t slot = slot_of(label);
    const auto [x, y] = slot_router(slot);
    std::array<uint32_t, 4> s{};
    uint32_t port = 1 + mesh_ports(x, y) + label - first_label(slot);
    for (uint32_t i = 0, count = slots(x, y, s); i < count && s[i] < slot; ++i) {
      port += first_label(s[i] + 1) - first_label(s[i]);
    }
    return static_cast<PortId>(port);
  }

  // The label of the local port of C-group i leading to C-group j (i != j).
  uint32_t local_label(uint32_t i, uint32_t j) const { return j < i ? j : j + h - 1; }

  // The far end of label p of C-group cg in W-group w.
  struct End {
    uint32_t w, c, label;
  };
  End peer(uint32_t w, uint32_t cg, uint32_t label) const {
    if (label < cg) return {w, label, local_label(label, cg)};
    if (label >= cg + h) return {w, label - h + 1, cg};
    const uint32_t G = cg * h + label - cg;
    const uint32_t d = G < w ? G : G + 1;
    const uint32_t back = w < d ? w : w - 1;
    return {d, back / h, back / h + back % h};
  }
  bool is_global(uint32_t cg, uint32_t label) const { return label >= cg && label < cg + h; }

  // The label by which a packet in C-group cg of W-group w leaves towards C-group cd of W-group
  // wd (not both equal): the local port to cd in the same W-group; otherwise the global link to
  // wd, at global port G of this W-group, from C-group G / h directly or through a local hop.
  uint32_t exit_label(uint32_t w, uint32_t cg, uint32_t wd, uint32_t cd) const {
    if (w == wd) return local_label(cg, cd);
    const uint32_t G = wd < w ? wd : wd - 1, cb = G / h;
    return cg == cb ? cg + G % h : local_label(cg, cb);
  }
  // Where the global link from W-group w to W-group wd lands: C-group and label in wd.
  End landing(uint32_t w, uint32_t wd) const {
    const uint32_t G = wd < w ? wd : wd - 1, cb = G / h;
    return peer(w, cb, cb + G % h);
  }
};

}  // namespace hx::net::sldf
