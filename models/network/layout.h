// Drawing coordinates shared by the families' Topology::picture_place (topology.h) and the
// /layout table the report draws them from (docs/OUTPUT.md, docs/ANALYSIS.md "Topology pictures").
#pragma once

#include <cstdint>

#include "core/ids.h"
#include "core/stats.h"
#include "models/network/clos.h"
#include "models/network/topology.h"

namespace hx::net {

struct Point {
  double x = 0, y = 0;
};

/// Point i of n evenly spaced on a circle whose neighbours lie about `spacing` apart, starting
/// at the top and going clockwise (a ring of groups, a TP ring's GPUs).
Point on_circle(uint64_t i, uint64_t n, double spacing = 1.0);
/// Point i of n on a near-square grid, row by row (the default for groups and members).
Point on_grid(uint64_t i, uint64_t n);
/// Point i of n in one row (y = 0) while that stays readable, else on_grid: the pods or blocks
/// under a tree's top. in_rows_size(n): the width and the number of rows they take.
Point in_rows(uint64_t i, uint64_t n);
Point in_rows_size(uint64_t n);
/// Where terminal t of c hangs below the component at `at`: a short fan, so a router's
/// endpoints stay apart yet read as its own.
Point below(Point at, uint32_t t, uint32_t c);
/// The same outside a circle: terminal t of c of the component at on_circle(i, n, spacing).
Point outside(uint64_t i, uint64_t n, double spacing, uint32_t t, uint32_t c);
/// The height between the tiers of a tree drawn `width` wide, so that it does not read flat.
double tier_height(double width);
/// Switch sw of a Clos drawn over its terminals at x = 0 .. terminals-1: leaves above their
/// terminals at height `y`, spines spread over the same width one tier_height higher.
Point clos_switch(const Clos& clos, uint32_t sw, double y);
/// A PicturePlace from a group, its overview point and the member's point.
inline PicturePlace place_at(uint32_t group, Point g, Point at) {
  return {group, g.x, g.y, at.x, at.y};
}

/// The /layout table: a row per component (its PicturePlace and whether it is an endpoint).
TableSpec layout_table_spec();
void add_layout_row(Table& layout, const Topology& topology, ComponentId id);

}  // namespace hx::net
