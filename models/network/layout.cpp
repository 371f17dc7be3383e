// The default picture layout and the drawing helpers of layout.h.
#include "models/network/layout.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace hx::net {

Point on_circle(uint64_t i, uint64_t n, double spacing) {
  if (n <= 1) return {};
  const double radius = spacing * static_cast<double>(n) / (2 * std::numbers::pi);
  const double angle = 2 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(n);
  return {radius * std::sin(angle), radius * std::cos(angle)};
}

Point on_grid(uint64_t i, uint64_t n) {
  const auto side = static_cast<uint64_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  return {static_cast<double>(i % side), 0.0 - static_cast<double>(i / side)};
}

// More groups than this in one row read as a bar; they wrap onto a grid.
constexpr uint64_t kRowLimit = 32;

Point in_rows(uint64_t i, uint64_t n) {
  return n <= kRowLimit ? Point{static_cast<double>(i), 0} : on_grid(i, n);
}

Point in_rows_size(uint64_t n) {
  if (n <= kRowLimit) return {static_cast<double>(n), 1};
  const auto side = static_cast<uint64_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  return {static_cast<double>(side), static_cast<double>((n + side - 1) / side)};
}

Point below(Point at, uint32_t t, uint32_t c) {
  const double spread = std::min(0.8, 0.2 * c);
  const double dx = c <= 1 ? 0.0 : spread * (static_cast<double>(t) / (c - 1) - 0.5);
  return {at.x + dx, at.y - 0.45};
}

Point outside(uint64_t i, uint64_t n, double spacing, uint32_t t, uint32_t c) {
  const Point at = on_circle(i, n, spacing);
  const double radius = std::hypot(at.x, at.y);
  if (radius == 0) return below(at, t, c);
  const double out = (radius + 0.5) / radius;
  const double slot =
      c <= 1 ? 0.0 : (static_cast<double>(t) / (c - 1) - 0.5) * 0.8 / (radius + 0.5);
  const double cos = std::cos(slot), sin = std::sin(slot);
  return {out * (at.x * cos - at.y * sin), out * (at.x * sin + at.y * cos)};
}

double tier_height(double width) { return std::max(1.0, width / 6); }

Point clos_switch(const Clos& clos, uint32_t sw, double y) {
  const double width = clos.terminals;
  if (!clos.is_spine(sw)) return {(sw + 0.5) * clos.per_leaf - 0.5, y};
  const uint32_t s = sw - clos.leaves();
  return {(s + 0.5) * width / clos.spines - 0.5, y + tier_height(width)};
}

std::string Topology::picture_group() const { return group_levels().front().name; }

PicturePlace Topology::picture_place(ComponentId id) const {
  // The coarsest partition group holding id: groups are contiguous and in id order.
  const uint64_t groups = group_levels().front().count;
  uint64_t lo = 0, hi = groups;  // group_range(0, lo).begin <= id < group_range(0, hi).begin
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    (group_range(0, mid).begin <= id ? lo : hi) = mid;
  }
  const ComponentRange range = group_range(0, lo);
  const Point g = groups <= 64 ? on_circle(lo, groups, 4.0) : on_grid(lo, groups);
  return place_at(static_cast<uint32_t>(lo), g, on_grid(id - range.begin, range.size()));
}

TableSpec layout_table_spec() {
  using T = ColumnType;
  return {"layout",
          "component",
          "where the report draws each component (docs/ANALYSIS.md \"Topology pictures\"): its "
          "picture group (/summary layout_group names what one is), the group's point in the "
          "overview and the component's point in its group's panel",
          {{"group", T::kU64, "1", "picture group"},
           {"group_x", T::kF64, "1", "the group's point in the overview"},
           {"group_y", T::kF64, "1", ""},
           {"x", T::kF64, "1", "the component's point in its group's panel"},
           {"y", T::kF64, "1", ""},
           {"endpoint", T::kU64, "1", "1: an endpoint, 0: a router or switch"}}};
}

void add_layout_row(Table& layout, const Topology& topology, ComponentId id) {
  const PicturePlace p = topology.picture_place(id);
  const bool endpoint = topology.node(id).kind == NodeKind::kEndpoint;
  layout.add_row(id,
                 {uint64_t{p.group}, p.group_x, p.group_y, p.x, p.y, uint64_t{endpoint ? 1u : 0u}});
}

}  // namespace hx::net
