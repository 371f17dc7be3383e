#include "models/topologies/railx/shape.h"

#include <algorithm>
#include <cstdint>

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
                      "with kind torus, hyperx or dragonfly, e.g. \"hyperx:9\", "
                      "\"hyperx:8:18,torus:8\" or (x only) \"dragonfly:64\"");
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
    if (kind != "torus" && kind != "hyperx" && kind != "dragonfly") {
      throw bad("unknown kind '" + kind + "'");
    }
    s.kind = kind == "torus" ? Kind::kTorus : kind == "hyperx" ? Kind::kHyperX : Kind::kDragonfly;
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

// The dragonfly's groups are the columns, all-to-all on their own; routing (one global hop
// between two local ones) relies on exactly this shape.
void check_dragonfly(const std::vector<Spec>& x, const std::vector<Spec>& y,
                     const std::string& x_text, const std::string& y_text) {
  const auto is = [](const Spec& s) { return s.kind == Kind::kDragonfly; };
  if (std::any_of(y.begin(), y.end(), is)) {
    throw InputError("railx.y = \"" + y_text +
                     "\": dragonfly is an X configuration (its groups are the columns); use it "
                     "in railx.x with a hyperx railx.y");
  }
  if (std::none_of(x.begin(), x.end(), is)) return;
  if (x.size() != 1) {
    throw InputError("railx.x = \"" + x_text +
                     "\": a dragonfly dimension must be the only X dimension");
  }
  if (y.size() != 1 || y[0].kind != Kind::kHyperX) {
    throw InputError("railx.y = \"" + y_text + "\": railx.x = \"" + x_text +
                     "\" needs a single hyperx Y dimension (its all-to-all groups), e.g. "
                     "\"hyperx:9\"");
  }
}

// Rows j < rows carry the cycles (j r_x + t) mod (S-1), t < r_x: the first rows r_x of them
// (all of them if rows r_x >= S-1). Groups a and b are linked directly when either arc between them
// lies on one of those.
void check_global_links(const Dim& d, uint32_t rows, const std::string& text) {
  const uint64_t S = d.size, carried = uint64_t{rows} * d.rails.size();
  for (uint32_t a = 0; a < S; ++a) {
    for (uint32_t b = a + 1; b < S; ++b) {
      if (std::min(d.arc[a * S + b], d.arc[b * S + a]) < carried) continue;
      throw InputError(
          "railx.x = \"" + text + "\": groups " + std::to_string(a) + " and " + std::to_string(b) +
          " have no direct global link: the " + std::to_string(rows) + " rows x " +
          std::to_string(d.rails.size()) + " X-rails carry " + std::to_string(carried) +
          " of the " + std::to_string(S - 1) + " Hamiltonian cycles of K*_" + std::to_string(S) +
          " (rows x rails >= S-1 always suffices); use fewer groups or more rows or rails");
    }
  }
}

}  // namespace

RailLinks Dim::links(uint32_t row, uint32_t c, uint32_t v) const {
  RailLinks l;
  l.rails = &rails;
  l.period = static_cast<uint32_t>(next.size());
  const uint32_t total = static_cast<uint32_t>(rails.size()), shift = cycle(row, 0);
  // Slot of the first rail carrying cycle k in this row.
  const auto slot = [&](uint32_t k) { return (k + l.period - shift) % l.period; };
  const uint32_t plus = slot(arc[uint64_t{c} * size + v]),
                 minus = slot(arc[uint64_t{v} * size + c]);
  const auto ports = [&](uint32_t first) {
    return first < total ? (total - 1 - first) / l.period + 1 : 0;
  };
  l.first_plus = plus <= minus;
  l.first = std::min(plus, minus);
  l.second = std::max(plus, minus);
  l.count = ports(plus) + ports(minus);
  return l;
}

Shape::Shape(uint32_t m_, uint32_t n_, uint32_t radix_, const std::string& x, const std::string& y)
    : m(m_), n(n_), r(m_ * n_), radix(radix_) {
  const std::vector<Spec> axis_specs[2] = {parse(x, kX), parse(y, kY)};
  check_dragonfly(axis_specs[kX], axis_specs[kY], x, y);
  for (const Axis a : {kX, kY}) {
    const std::vector<Spec>& specs = axis_specs[a];
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
        throw InputError(key + " = \"" + text + "\": a " + kind_name(d.kind) + " dimension of " +
                         std::to_string(d.size) + " nodes needs at least " +
                         std::to_string(d.kind == Kind::kHyperX ? d.size - 1 : 1) +
                         " rails but gets " + std::to_string(rails) +
                         " (r = m n = " + std::to_string(r) + " per axis)");
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
    // Deal the axis's rails to its dimensions in proportion to their counts: rail l goes to
    // the dimension furthest behind its share of rails 0..l (ties to the first), so that every
    // run of rails, and so every chip row's n of them, holds each dimension's share to within
    // one rail. Equal counts give round-robin. Round-robin alone would crowd a small
    // dimension's rails into the first rows (4 of 40 rails, m = 4: all on chip row 0), leaving
    // the chips of the other rows without ports of their own in it.
    rail_dim[a].assign(r, -1);
    rail_slot[a].assign(r, 0);
    uint64_t total = 0;
    for (uint32_t d = first_dim; d < dims.size(); ++d) total += dims[d].rails.size();
    std::vector<uint32_t> filled(dims.size(), 0);
    uint32_t rail = 0;
    for (; rail < total; ++rail) {
      // Deficit of d after rail l, times total: (l + 1) R_d - total filled_d.
      uint32_t best = first_dim;
      int64_t best_deficit = INT64_MIN;
      for (uint32_t d = first_dim; d < dims.size(); ++d) {
        const uint64_t want = dims[d].rails.size();
        if (filled[d] == want) continue;
        const int64_t deficit = static_cast<int64_t>((uint64_t{rail} + 1) * want) -
                                static_cast<int64_t>(total * filled[d]);
        if (deficit > best_deficit) best = d, best_deficit = deficit;
      }
      rail_dim[a][rail] = static_cast<int16_t>(best);
      rail_slot[a][rail] = static_cast<uint16_t>(filled[best]);
      dims[best].rails[filled[best]++] = static_cast<uint16_t>(rail);
    }
    used[a] = rail;
  }
  for (Dim& d : dims) {
    if (d.kind == Kind::kTorus) continue;
    std::vector<std::vector<uint32_t>> cycles;
    try {
      cycles = hamiltonian_decomposition(d.size);
    } catch (const InputError& e) {
      throw InputError(std::string(axis_key(d.axis)) + ": " + kind_name(d.kind) + ":" +
                       std::to_string(d.size) + ": " + e.what());
    }
    const uint32_t S = d.size;
    d.arc.assign(uint64_t{S} * S, 0);
    for (uint32_t k = 0; k < cycles.size(); ++k) {
      const std::vector<uint32_t>& cycle = cycles[k];
      std::vector<uint32_t> next(S), prev(S);
      for (uint32_t i = 0; i < S; ++i) {
        next[cycle[i]] = cycle[(i + 1) % S];
        prev[cycle[(i + 1) % S]] = cycle[i];
        d.arc[uint64_t{cycle[i]} * S + cycle[(i + 1) % S]] = k;
      }
      d.next.push_back(std::move(next));
      d.prev.push_back(std::move(prev));
    }
    if (d.kind == Kind::kDragonfly) check_global_links(d, sy, x);
  }
  for (const Axis a : {kX, kY}) blocks.push_back({a, used[a], rail_dim[a]});
  index_ports();
}

std::vector<Shape> Shape::configurations(uint32_t m, uint32_t n, uint32_t radix,
                                         const std::vector<std::string>& xs,
                                         const std::vector<std::string>& ys) {
  std::vector<Shape> shapes;
  for (const std::string& x : xs) {
    for (const std::string& y : ys) shapes.emplace_back(m, n, radix, x, y);
  }
  const Shape& base = shapes[0];
  const auto shape_of = [&](Axis a, std::size_t k) -> const Shape& {
    return shapes[a == kX ? k * ys.size() : k];
  };
  std::vector<Block> blocks;
  for (const Axis a : {kX, kY}) blocks.push_back({a, base.used[a], base.rail_dim[a]});
  for (const Axis a : {kX, kY}) {
    const std::vector<std::string>& specs = a == kX ? xs : ys;
    for (std::size_t k = 1; k < specs.size(); ++k) {
      const Shape& s = shape_of(a, k);
      // The sizes of the axis's lines, 0 for a dragonfly (which cannot be reconfigured).
      const auto sizes = [a](const Shape& shape) {
        std::vector<uint32_t> out;
        for (const Dim& d : shape.dims) {
          if (d.axis == a) out.push_back(d.kind == Kind::kDragonfly ? 0 : d.size);
        }
        return out;
      };
      const std::vector<uint32_t> mine = sizes(s);
      if (mine != sizes(base) || std::count(mine.begin(), mine.end(), 0u) > 0) {
        throw InputError(std::string(axis_key(a)) + "_alternatives: \"" + specs[k] +
                         "\" must keep the line sizes of " + axis_key(a) + " = \"" + specs[0] +
                         "\" (only the kinds and rail counts may change), and neither may be a "
                         "dragonfly");
      }
      blocks.push_back({a, s.used[a], s.rail_dim[a]});
    }
  }
  for (std::size_t cx = 0; cx < xs.size(); ++cx) {
    for (std::size_t cy = 0; cy < ys.size(); ++cy) {
      Shape& s = shapes[cx * ys.size() + cy];
      s.blocks = blocks;
      s.block[kX] = cx == 0 ? 0 : static_cast<uint32_t>(1 + cx);
      s.block[kY] = cy == 0 ? 1 : static_cast<uint32_t>(xs.size() + cy);
      s.index_ports();
    }
  }
  return shapes;
}

uint32_t Shape::num_ports(uint32_t x, uint32_t y) const {
  const uint32_t q = y * m + x;
  return ports_[q + 1] - ports_[q];
}

uint32_t Shape::mesh_port(uint32_t x, uint32_t y, uint32_t dir) const {
  const bool present[4] = {x + 1 < m, x > 0, y + 1 < m, y > 0};
  uint32_t port = 1;
  for (uint32_t d = 0; d < dir; ++d) port += present[d];
  return port;
}

void Shape::index_ports() {
  ports_.assign(1, 0);
  port_rails_.clear();
  first_port_.clear();
  for (uint32_t q = 0; q < m * m; ++q) {
    const uint32_t x = q % m, y = q / m;
    port_rails_.resize(port_rails_.size() + 1 + mesh_ports(x, y));  // endpoint, mesh: no rails
    for (uint32_t b = 0; b < blocks.size(); ++b) {
      for (const bool plus : {true, false}) {
        first_port_.push_back(static_cast<uint32_t>(port_rails_.size()) - ports_[q]);
        uint32_t first = 0;
        const uint32_t count = rails_in(x, y, blocks[b].axis, plus, blocks[b].used, first);
        for (uint32_t i = 0; i < count; ++i) {
          const auto rail = static_cast<uint16_t>(first + i);
          port_rails_.push_back({blocks[b].rail_dim[rail], rail, static_cast<uint8_t>(b),
                                 static_cast<uint8_t>(blocks[b].axis), uint8_t{plus}});
        }
      }
    }
    ports_.push_back(static_cast<uint32_t>(port_rails_.size()));
  }
}

uint32_t Shape::far_node(uint32_t node, Axis a, RailPort p) const {
  const uint32_t d = static_cast<uint32_t>(rail_dim[a][p.rail]);
  const Dim& dim = dims[d];
  const uint32_t c = coord(node, d);
  uint32_t to = 0;
  if (dim.kind == Kind::kTorus) {
    to = p.plus ? (c + 1) % dim.size : (c + dim.size - 1) % dim.size;
  } else {
    const uint32_t k = dim.cycle(axis_pos(node, a == kX ? kY : kX), rail_slot[a][p.rail]);
    to = p.plus ? dim.next[k][c] : dim.prev[k][c];
  }
  return with_coord(node, d, to);
}

}  // namespace hx::net::railx
