// A folded Clos of one or two tiers as closed forms over local indices: a building block for
// families that compose fabrics. The rail-only family's HB domains (an ideal switch of K ports,
// or the two-level NVSwitch fabric) and its rails are Clos; so is InfiniteHBD's data-centre
// network. The composer maps the local indices onto component and port ids.
//
// T terminals; leaf l holds terminals [l * h, (l + 1) * h). A leaf's ports [0, h) go down to its
// terminals; its up port h + u leads to spine u % S as that spine's port l * x + u / S (x
// parallel links between every leaf and every spine). One tier: a single leaf of all T
// terminals, no spines. Switches are numbered leaves first, then spines.
#pragma once

#include <cstdint>
#include <string>

namespace hx::net {

struct Clos {
  uint32_t terminals = 0;  // T
  uint32_t per_leaf = 0;   // h
  uint32_t spines = 0;     // S (0: one tier)
  uint32_t links = 0;      // x, between each leaf and each spine

  /// One switch with a port per terminal.
  static Clos single(uint32_t terminals) { return {terminals, terminals, 0, 0}; }

  uint32_t leaves() const { return per_leaf == 0 ? 0 : terminals / per_leaf; }  // 0: no Clos
  uint32_t switches() const { return leaves() + spines; }
  uint32_t up_ports() const { return spines * links; }
  bool is_spine(uint32_t sw) const { return sw >= leaves(); }
  uint32_t ports(uint32_t sw) const {
    return is_spine(sw) ? leaves() * links : per_leaf + up_ports();
  }
  /// Directed links leaving the Clos's switches (its terminals' links to it are the composer's).
  uint64_t switch_links() const {
    return uint64_t{leaves()} * (per_leaf + up_ports()) + uint64_t{spines} * leaves() * links;
  }
  /// The first directed link of switch sw among switch_links().
  uint64_t first_link(uint32_t sw) const {
    const uint64_t leaf = per_leaf + up_ports();
    if (!is_spine(sw)) return sw * leaf;
    return leaves() * leaf + uint64_t{sw - leaves()} * leaves() * links;
  }

  /// Where port p of switch sw leads: a terminal (its index) or another switch and its port.
  struct Peer {
    bool terminal = false;
    uint32_t index = 0;  // terminal or switch
    uint32_t port = 0;   // the switch's port (terminals have their own numbering)
  };
  Peer peer(uint32_t sw, uint32_t p) const {
    if (is_spine(sw)) {
      const uint32_t leaf = p / links, x = p % links;
      return {false, leaf, per_leaf + x * spines + (sw - leaves())};
    }
    if (p < per_leaf) return {true, sw * per_leaf + p, 0};
    const uint32_t u = p - per_leaf;
    return {false, leaves() + u % spines, sw * links + u / spines};
  }
  /// The leaf and down port of a terminal.
  uint32_t leaf_of(uint32_t t) const { return t / per_leaf; }

  /// Up/down, destination-based (d-mod-k): towards terminal t from switch sw, the one port to
  /// take. A leaf above t goes down; another leaf goes up on the port picked by t's position
  /// under its leaf, and the spine it reaches goes down the matching parallel link, so the
  /// terminals under one leaf spread over distinct (spine, link) pairs.
  uint32_t route(uint32_t sw, uint32_t t) const {
    const uint32_t u = t % per_leaf % (up_ports() == 0 ? 1 : up_ports());
    if (is_spine(sw)) return leaf_of(t) * links + u / spines;
    if (leaf_of(t) == sw) return t % per_leaf;
    return per_leaf + u;
  }
};

/// The Clos of `terminals` at switch radix `radix` (even, else an InputError): one switch when they fit, else leaves of
/// radix/2 terminals with radix/2 up links and as few spines as take those links at the radix.
/// Beyond radix²/2 terminals two tiers of the radix do not suffice: with `wide_spines`, radix/2
/// spines of a port per leaf stand in for the deeper Clos (same bisection, fewer hops); without,
/// an InputError. Errors name `key` (e.g. "rail_only.radix") and `what` ("a rail").
Clos sized_clos(uint32_t terminals, uint32_t radix, bool wide_spines, const std::string& key,
                const std::string& what);

}  // namespace hx::net
