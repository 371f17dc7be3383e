#include "models/topologies/railx/shape.h"

#include <algorithm>

#include "core/error.h"
#include "core/text.h"
#include "models/topologies/railx/hamiltonian.h"

namespace hx::net::railx {
namespace {

struct Spec {
  Kind kind = Kind::kTorus;
  uint32_t size = 0;
  uint32_t rails = 0;  // 0: a share of the rails the other dimensions leave
};

const char* axis_key(Axis a) { return a == kX ? "railx.x" : "railx.y"; }

uint32_t whole(const std::string& text, const std::string& what, const auto& bad) {
  if (text.empty() || text.size() > 6 ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    throw bad("'" + text + "' is not a " + what);
  }
  return static_cast<uint32_t>(std::stoul(text));
}

// "hyperx:8:18,torus:8" -> {{hyperx, 8, 18}, {torus, 8, 0}}; "none" -> {}.
std::vector<Spec> parse(const std::string& text, Axis a) {
  const auto bad = [&](const std::string& why) {
    return InputError(std::string(axis_key(a)) + " = \"" + text + "\": " + why +
                      "; expected \"none\" or dimensions kind:size[:rails] separated by ',' "
                      "with kind torus or hyperx, e.g. \"hyperx:9\" or \"hyperx:8:18,torus:8\"");
  };
  std::vector<Spec> specs;
  if (trim(text) == "none") return specs;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = text.find(',', begin);
    const std::string item = trim(text.substr(begin, end - begin));
    const std::size_t c1 = item.find(':'),
                      c2 = item.find(':', c1 == std::string::npos ? 0 : c1 + 1);
    if (c1 == std::string::npos) throw bad("'" + item + "' has no size");
    Spec s;
    const std::string kind = item.substr(0, c1);
    if (kind != "torus" && kind != "hyperx") throw bad("unknown kind '" + kind + "'");
    s.kind = kind == "torus" ? Kind::kTorus : Kind::kHyperX;
    s.size = whole(item.substr(c1 + 1, c2 == std::string::npos ? c2 : c2 - c1 - 1), "size", bad);
    if (c2 != std::string::npos) {
      s.rails = whole(item.substr(c2 + 1), "rail count", bad);
      if (s.rails == 0) throw bad("'" + item + "' has no rails");
    }
    if (s.size < 2) throw bad("size " + std::to_string(s.size) + " is below 2");
    specs.push_back(s);
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return specs;
}

}  // namespace

Shape::Shape(uint32_t m_, uint32_t n_, uint32_t radix_, const std::string& x, const std::string& y)
    : m(m_), n(n_), r(m_ * n_), radix(radix_) {
  for (const Axis a : {kX, kY}) {
    const std::vector<Spec> specs = parse(a == kX ? x : y, a);
    const std::string key = axis_key(a), text = a == kX ? x : y;
    // Rails: explicit counts first, the rest shared evenly by the dimensions that give none.
    uint32_t given = 0, open = 0;
    for (const Spec& s : specs) (s.rails ? given : open) += s.rails ? s.rails : 1;
    if (given > r) {
      throw InputError(key + " = \"" + text + "\": " + std::to_string(given) +
                       " rails, but a node has r = m n = " + std::to_string(r) + " per axis");
    }
    uint32_t line = 1, first_dim = static_cast<uint32_t>(dims.size()), share_index = 0;
    for (const Spec& s : specs) {
      Dim d;
      d.kind = s.kind;
      d.axis = a;
      d.size = s.size;
      d.stride = line;
      line *= s.size;
      uint32_t rails = s.rails;
      if (rails == 0) rails = (r - given) / open + (share_index++ < (r - given) % open ? 1 : 0);
      if (rails == 0 || (d.kind == Kind::kHyperX && rails < d.size - 1)) {
        throw InputError(
            key + " = \"" + text + "\": a " + (d.kind == Kind::kHyperX ? "hyperx" : "torus") +
            " dimension of " + std::to_string(d.size) + " nodes needs at least " +
            std::to_string(d.kind == Kind::kHyperX ? d.size - 1 : 1) + " rails but gets " +
            std::to_string(rails) + " (r = m n = " + std::to_string(r) + " per axis)");
      }
      d.rails.resize(rails);  // filled with rail ids below
      dims.push_back(std::move(d));
      if (line > radix / 2) {
        throw InputError(
            key + " = \"" + text + "\": " + std::to_string(line) +
            " nodes per line, but an OCS of railx.ocs_radix = " + std::to_string(radix) +
            " ports joins at most R/2 = " + std::to_string(radix / 2));
      }
    }
    (a == kX ? sx : sy) = line;
    // Deal the axis's rails to its dimensions round-robin.
    rail_dim[a].assign(r, -1);
    rail_slot[a].assign(r, 0);
    std::vector<uint32_t> filled(dims.size(), 0);
    uint32_t rail = 0;
    for (bool any = true; any;) {
      any = false;
      for (uint32_t d = first_dim; d < dims.size(); ++d) {
        if (filled[d] == dims[d].rails.size()) continue;
        rail_dim[a][rail] = static_cast<int16_t>(d);
        rail_slot[a][rail] = static_cast<uint16_t>(filled[d]);
        dims[d].rails[filled[d]++] = static_cast<uint16_t>(rail++);
        any = true;
      }
    }
    used[a] = rail;
  }
  for (Dim& d : dims) {
    if (d.kind != Kind::kHyperX) continue;
    std::vector<std::vector<uint32_t>> cycles;
    try {
      cycles = hamiltonian_decomposition(d.size);
    } catch (const InputError& e) {
      throw InputError(std::string(axis_key(d.axis)) + ": hyperx:" + std::to_string(d.size) + ": " +
                       e.what());
    }
    const uint32_t S = d.size;
    d.links.assign(uint64_t{S} * S, {});
    for (uint32_t t = 0; t < d.rails.size(); ++t) {
      const std::vector<uint32_t>& cycle = cycles[t % cycles.size()];
      std::vector<uint32_t> next(S), prev(S);
      for (uint32_t i = 0; i < S; ++i) {
        next[cycle[i]] = cycle[(i + 1) % S];
        prev[cycle[(i + 1) % S]] = cycle[i];
      }
      for (uint32_t c = 0; c < S; ++c) {
        d.links[uint64_t{c} * S + next[c]].push_back({d.rails[t], true});
        d.links[uint64_t{c} * S + prev[c]].push_back({d.rails[t], false});
      }
      d.next.push_back(std::move(next));
      d.prev.push_back(std::move(prev));
    }
  }
}

uint32_t Shape::num_ports(uint32_t x, uint32_t y) const {
  uint32_t ports = 1 + mesh_ports(x, y), first = 0;
  for (const Axis a : {kX, kY}) {
    for (const bool plus : {true, false}) ports += rails_at(x, y, a, plus, first);
  }
  return ports;
}

uint32_t Shape::mesh_port(uint32_t x, uint32_t y, uint32_t dir) const {
  const bool present[4] = {x + 1 < m, x > 0, y + 1 < m, y > 0};
  uint32_t port = 1;
  for (uint32_t d = 0; d < dir; ++d) port += present[d];
  return port;
}

uint32_t Shape::rail_port(uint32_t x, uint32_t y, Axis a, RailPort p) const {
  uint32_t port = 1 + mesh_ports(x, y), first = 0;
  for (const Axis b : {kX, kY}) {
    for (const bool plus : {true, false}) {
      const uint32_t count = rails_at(x, y, b, plus, first);
      if (b == a && plus == p.plus) return port + (p.rail - first);
      port += count;
    }
  }
  return port;  // not reached for a port the chip has
}

bool Shape::port_rail(uint32_t x, uint32_t y, uint32_t port, Axis& a, RailPort& p) const {
  uint32_t base = 1 + mesh_ports(x, y), first = 0;
  if (port < base) return false;
  for (const Axis b : {kX, kY}) {
    for (const bool plus : {true, false}) {
      const uint32_t count = rails_at(x, y, b, plus, first);
      if (port < base + count) {
        a = b;
        p = {static_cast<uint16_t>(first + port - base), plus};
        return true;
      }
      base += count;
    }
  }
  return false;
}

uint32_t Shape::far_node(uint32_t node, Axis a, RailPort p) const {
  const uint32_t d = static_cast<uint32_t>(rail_dim[a][p.rail]);
  const Dim& dim = dims[d];
  const uint32_t c = coord(node, d);
  uint32_t to = 0;
  if (dim.kind == Kind::kTorus) {
    to = p.plus ? (c + 1) % dim.size : (c + dim.size - 1) % dim.size;
  } else {
    const uint32_t slot = rail_slot[a][p.rail];
    to = p.plus ? dim.next[slot][c] : dim.prev[slot][c];
  }
  return with_coord(node, d, to);
}

}  // namespace hx::net::railx
