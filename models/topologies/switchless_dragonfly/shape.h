// The closed forms the switch-less Dragonfly's topology and routing share: how chiplets are
// numbered, where a C-group's external ports sit on its mesh, and which port leads where. All of
// it is arithmetic on (n, m, a, b); nothing is tabulated.
//
// Chiplet numbering: chiplet q = ((w * a*b + c) * m + y) * m + x for W-group w, C-group c within
// it (c = wafer * a + C-group on the wafer), mesh coordinates (x, y). q is both the router index
// and the endpoint index of the chiplet.
//
// External port labels (Fig. 6a): the k = n*m labels of a C-group are spread over the 4m slots of
// its perimeter, walking counter-clockwise from the south-west corner: south edge (y = 0) x =
// 0..m-1, east edge (x = m-1) y = 0..m-1, north edge (y = m-1) x = m-1..0, west edge (x = 0) y =
// m-1..0. Label p sits on slot floor(p * 4m / k). Corner chiplets own two slots (the single chiplet
// of m = 1 owns all four).
//
// Label roles in C-group i of a W-group (Property 2: down local ports below the global ports, up
// local ports above them): [0, i) lead to C-group j = label, [i, i+h) are global ports t = label -
// i, [i+h, k) lead to C-group j = label - h + 1. Global wiring (consecutive arrangement): global
// port G = c*h + t of W-group w leads to W-group d = (G < w ? G : G + 1), at its global port
// (w < d ? w : w - 1).
//
// Router ports of a chiplet: 0 its endpoint; then its mesh neighbours +x, -x, +y, -y where they
// exist; then its external ports in label order.
#pragma once

#include <array>
#include <cstdint>

#include "core/ids.h"

namespace hx::net::sldf {

enum Direction : uint32_t { kPlusX, kMinusX, kPlusY, kMinusY };

struct Shape {
  uint32_t n = 0, m = 0, a = 0, b = 0;
  uint32_t k = 0, ab = 0, h = 0, g = 0;  // derived: k = n*m, ab = a*b, h = k - ab + 1, g = ab*h + 1

  Shape(uint32_t n_, uint32_t m_, uint32_t a_, uint32_t b_)
      : n(n_), m(m_), a(a_), b(b_), k(n_ * m_), ab(a_ * b_), h(k - ab + 1), g(ab * h + 1) {}

  uint32_t mesh_size() const { return m * m; }
  uint64_t chiplets() const { return uint64_t{g} * ab * mesh_size(); }

  // A chiplet's place: W-group, C-group within the W-group, mesh coordinates.
  struct Place {
    uint32_t w, c, x, y;
  };
  Place place(uint32_t chiplet) const {
    const uint32_t cgroup = chiplet / mesh_size(), local = chiplet % mesh_size();
    return {cgroup / ab, cgroup % ab, local % m, local / m};
  }
  uint32_t chiplet(const Place& p) const { return ((p.w * ab + p.c) * m + p.y) * m + p.x; }

  // Slots and labels.
  uint32_t first_label(uint32_t slot) const {
    return static_cast<uint32_t>((uint64_t{slot} * k + 4 * m - 1) / (4 * m));
  }
  uint32_t slot_of(uint32_t label) const {
    return static_cast<uint32_t>(uint64_t{label} * 4 * m / k);
  }
  // The chiplet (x, y) owning a slot.
  std::array<uint32_t, 2> slot_chiplet(uint32_t slot) const {
    if (slot < m) return {slot, 0};
    if (slot < 2 * m) return {m - 1, slot - m};
    if (slot < 3 * m) return {3 * m - 1 - slot, m - 1};
    return {0, 4 * m - 1 - slot};
  }
  // The slots of chiplet (x, y) in increasing order; returns how many.
  uint32_t slots(uint32_t x, uint32_t y, std::array<uint32_t, 4>& out) const {
    uint32_t count = 0;
    if (y == 0) out[count++] = x;
    if (x == m - 1) out[count++] = m + y;
    if (y == m - 1) out[count++] = 3 * m - 1 - x;
    if (x == 0) out[count++] = 4 * m - 1 - y;
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
        return x + 1 < m;
      case kMinusX:
        return x > 0;
      case kPlusY:
        return y + 1 < m;
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

  // The router port of label p at the chiplet that owns it: after the endpoint and mesh ports,
  // the labels of the chiplet's slots that come before p's slot, then p's place in its slot.
  PortId label_port(uint32_t label) const {
    const uint32_t slot = slot_of(label);
    const auto [x, y] = slot_chiplet(slot);
    std::array<uint32_t, 4> s{};
    uint32_t port = 1 + mesh_ports(x, y) + label - first_label(slot);
    for (uint32_t i = 0, count = slots(x, y, s); i < count && s[i] < slot; ++i) {
      port += first_label(s[i] + 1) - first_label(s[i]);
    }
    return static_cast<PortId>(port);
  }

  // The label of the local port of C-group i leading to C-group j (i != j).
  uint32_t local_label(uint32_t i, uint32_t j) const { return j < i ? j : j + h - 1; }

  // The far end of label p of C-group c in W-group w.
  struct End {
    uint32_t w, c, label;
  };
  End peer(uint32_t w, uint32_t c, uint32_t label) const {
    if (label < c) return {w, label, local_label(label, c)};
    if (label >= c + h) return {w, label - h + 1, c};
    const uint32_t G = c * h + label - c;
    const uint32_t d = G < w ? G : G + 1;
    const uint32_t back = w < d ? w : w - 1;
    return {d, back / h, back / h + back % h};
  }
  bool is_global(uint32_t c, uint32_t label) const { return label >= c && label < c + h; }

  // The label by which a packet in C-group c of W-group w leaves towards C-group cd of W-group
  // wd (not both equal): the local port to cd in the same W-group; otherwise the global link to
  // wd, at global port G of this W-group, from C-group G / h directly or through a local hop.
  uint32_t exit_label(uint32_t w, uint32_t c, uint32_t wd, uint32_t cd) const {
    if (w == wd) return local_label(c, cd);
    const uint32_t G = wd < w ? wd : wd - 1, cb = G / h;
    return c == cb ? c + G % h : local_label(c, cb);
  }
};

}  // namespace hx::net::sldf
