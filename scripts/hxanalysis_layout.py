"""Topology pictures of hxsim runs: link utilisation, drops and faults drawn where the components
sit (/layout; docs/ANALYSIS.md "Topology pictures"). scripts/hxanalysis.py re-exports them
(hx.layout, hx.group_links, hx.plot_overview, hx.plot_group, hx.layout_plot).

Each family places its components in picture groups (a W-group, a RailX node, a ring, a
Dragonfly group, a pod, ...). The overview draws one mark per group and one line per pair of
linked groups, so it stays readable at 200K chips; the group panel draws one group's components
and the links between them."""
import numpy as np

# Lines drawn in the overview at most: the busiest pairs of groups when there are more.
MAX_OVERVIEW_LINES = 20000


def _hx():
    """hxanalysis, for its table readers (imported when first needed, as it imports this one)."""
    import hxanalysis
    return hxanalysis


def layout(path):
    """/layout: one row per component with its picture group, the group's overview point
    (group_x, group_y), its own point in the group's panel (x, y) and `endpoint` (1 or 0);
    ValueError for a file without one."""
    have = _hx().tables(path)
    if "layout" not in have or "links" not in have:
        raise ValueError("%s has no /layout: only network runs have topology pictures" % path)
    return _hx().table(path, "layout")


def group_links(path):
    """/links (with class names) plus the picture groups of both ends (`src_group`,
    `dst_group`), `internal` (both ends in one group) and `drops`: the /drops rows of the link,
    which also count the packets a failed router lost from the links they arrived on."""
    frame = _hx().links(path)
    lost = _hx().table(path, "drops")["link"].value_counts()
    frame["drops"] = lost.reindex(frame.index, fill_value=0).to_numpy()
    group = layout(path)["group"]
    frame["src_group"] = group.reindex(frame["src_component"]).to_numpy()
    frame["dst_group"] = group.reindex(frame["dst_component"]).to_numpy()
    frame["internal"] = frame["src_group"] == frame["dst_group"]
    return frame


def _colour_scale(values):
    top = float(np.nanmax(values)) if len(values) else 0.0
    return max(top, 1e-9)


def _arcs(a, b, steps=9):
    """Lines from the points `a` to `b` (n x 2 each): straight between neighbours (at most one
    unit apart), else a shallow arc bowing to the left of a -> b, so that the links of one row
    or column of a grid, which would lie on each other, stay apart."""
    t = np.linspace(0, 1, steps)[None, :, None]
    d = b - a
    length = np.hypot(d[:, 0], d[:, 1])[:, None, None]
    normal = np.stack([-d[:, 1], d[:, 0]], axis=1)[:, None, :]
    # The arc's height grows with the root of its length: long rows stay within the picture.
    height = np.where(length > 1.01, 0.3 / np.sqrt(np.maximum(length, 1e-9)), 0.0)
    return a[:, None, :] + t * d[:, None, :] + height * 4 * t * (1 - t) * normal


def _mark_size(ax, points, share):
    """A marker area (points^2) whose diameter is `share` of the drawing's unit spacing, so
    that marks stay apart at any number of groups or components."""
    span = np.ptp(points, axis=0).max() + 1.2 if len(points) else 1.0
    box = ax.get_window_extent()
    unit = min(box.width, box.height) * 72.0 / ax.figure.dpi / span
    return min(max(1.0, (share * unit) ** 2), 150.0)


def _draw_lines(ax, segments, values, vmax, widths=1.0, styles="solid"):
    from matplotlib.collections import LineCollection
    # Many lines cover each other and the marks: lighter, so the marks still show.
    alpha = 1.0 if len(segments) <= 200 else 0.5 if len(segments) <= 2000 else 0.15
    lines = LineCollection(segments, array=np.asarray(values, dtype=float), cmap="viridis",
                           linewidths=widths, linestyles=styles, alpha=alpha)
    lines.set_clim(0, vmax)
    ax.add_collection(lines)
    return lines


def _finish(ax, points, vmax, label):
    lines = [c for c in ax.collections if hasattr(c, "get_segments")]
    drawn = [points] + [np.concatenate(c.get_segments()) for c in lines if c.get_segments()]
    drawn = np.concatenate([p for p in drawn if len(p)]) if any(len(p) for p in drawn) else points
    if len(drawn):
        low, high = drawn.min(axis=0), drawn.max(axis=0)
        pad = 0.6 + 0.04 * (high - low).max()
        ax.set_xlim(low[0] - pad, high[0] + pad)
        ax.set_ylim(low[1] - pad, high[1] + pad)
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xticks([])
    ax.set_yticks([])
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize
    # Its own mappable: the lines' transparency must not fade the scale.
    scale = ScalarMappable(norm=Normalize(0, vmax), cmap="viridis")
    ax.figure.colorbar(scale, ax=ax, shrink=0.8, label=label)


def overview(path):
    """(groups, pairs): per picture group its point, mean utilisation of the links inside it,
    packets dropped on or for its links (/drops) and links ever down (`groups`); per unordered pair of linked
    groups the links between them, their mean and largest utilisation, drops and links down
    (`pairs`)."""
    lay = layout(path)
    links = group_links(path)
    links["down"] = links["down_ps"] > 0
    points = lay.groupby("group")[["group_x", "group_y"]].first()
    inside = links[links["internal"]].groupby("src_group").agg(
        utilisation=("utilisation", "mean"))
    per_group = links.groupby("src_group").agg(packets_dropped=("drops", "sum"),
                                               links_down=("down", "sum"))
    groups = points.join(inside).join(per_group).fillna(0)
    between = links[~links["internal"]].copy()
    between["a"] = between[["src_group", "dst_group"]].min(axis=1)
    between["b"] = between[["src_group", "dst_group"]].max(axis=1)
    pairs = between.groupby(["a", "b"]).agg(
        links=("utilisation", "size"), utilisation=("utilisation", "mean"),
        max_utilisation=("utilisation", "max"), packets_dropped=("drops", "sum"),
        links_down=("down", "sum")).reset_index()
    return groups, pairs


def plot_overview(path, ax):
    """One mark per picture group (colour: mean utilisation of its internal links; a red ring:
    packets dropped on its links; a black cross: a link of it was down) and one line per pair of
    linked groups (colour: the pair's mean utilisation, dashed if one of its links was down)."""
    groups, pairs = overview(path)
    name = _hx().summary(path).get("layout_group", "group")
    vmax = _colour_scale(np.concatenate([groups["utilisation"].to_numpy(),
                                         pairs["utilisation"].to_numpy()]))
    if len(pairs) > MAX_OVERVIEW_LINES:
        pairs = pairs.nlargest(MAX_OVERVIEW_LINES, "utilisation")
        ax.text(0.01, 0.01, "the %d busiest group pairs" % MAX_OVERVIEW_LINES,
                transform=ax.transAxes, fontsize=7)
    xy = groups[["group_x", "group_y"]]
    a = xy.loc[pairs["a"]].to_numpy()
    b = xy.loc[pairs["b"]].to_numpy()
    styles = ["dashed" if d else "solid" for d in pairs["links_down"]]
    widths = 0.5 + 1.5 * np.log10(pairs["links"].to_numpy()) / max(
        1.0, np.log10(max(1, pairs["links"].max())))
    _draw_lines(ax, _arcs(a, b), pairs["utilisation"], vmax, widths, styles)
    points = xy.to_numpy()
    size = _mark_size(ax, points, 0.5)
    ax.scatter(points[:, 0], points[:, 1], c=groups["utilisation"], cmap="viridis", vmin=0,
               vmax=vmax, s=size, edgecolors="grey", linewidths=0.5, zorder=3)
    dropped = groups["packets_dropped"] > 0
    if dropped.any():
        ax.scatter(points[dropped, 0], points[dropped, 1], s=size * 2.5, facecolors="none",
                   edgecolors="red", linewidths=1.5, zorder=4, label="packets dropped")
    down = groups["links_down"] > 0
    if down.any():
        ax.scatter(points[down, 0], points[down, 1], marker="x", c="black", s=size,
                   zorder=5, label="a link down")
    if dropped.any() or down.any():
        ax.legend(loc="upper right", fontsize=7)
    ax.set_xlabel("%d groups (%s), %d linked pairs" % (len(groups), name, len(pairs)))
    _finish(ax, points, vmax, "mean utilisation")


def hottest_group(path):
    """The picture group to show in detail: among the groups of more than one component (a
    lone switch has nothing to draw), the one whose links dropped most packets, else the one
    holding the busiest internal link."""
    sizes = layout(path)["group"].value_counts()
    links = group_links(path)
    links = links[links["src_group"].isin(sizes.index[sizes > 1])]
    drops = links.groupby("src_group")["drops"].sum()
    if len(drops) and drops.max() > 0:
        return int(drops.idxmax())
    inside = links[links["internal"]]
    if inside.empty:
        return int(links.loc[links["utilisation"].idxmax(), "src_group"])
    return int(inside.loc[inside["utilisation"].idxmax(), "src_group"])


def plot_group(path, ax, group=None):
    """The components of one picture group (`group`, else hottest_group) at their points: each
    link between two of them a line coloured by the busier direction's utilisation (dashed: down
    at some time), routers as grey squares, endpoints as dots, a component whose links leave the
    group ringed in the colour of the busiest of them, red crosses where packets were dropped."""
    if group is None:
        group = hottest_group(path)
    lay = layout(path)
    links = group_links(path)
    members = lay[lay["group"] == group]
    if members.empty:
        raise ValueError("%s: no picture group %s" % (path, group))
    mine = links[links["src_group"] == group]
    inside = mine[mine["internal"]].copy()
    inside["a"] = inside[["src_component", "dst_component"]].min(axis=1)
    inside["b"] = inside[["src_component", "dst_component"]].max(axis=1)
    inside["down"] = inside["down_ps"] > 0
    edges = inside.groupby(["a", "b"]).agg(utilisation=("utilisation", "max"),
                                           down=("down", "any")).reset_index()
    leaving = mine[~mine["internal"]].groupby("src_component")["utilisation"].max()
    vmax = _colour_scale(np.concatenate([edges["utilisation"].to_numpy(), leaving.to_numpy()]))
    xy = members[["x", "y"]]
    segments = _arcs(xy.loc[edges["a"]].to_numpy(), xy.loc[edges["b"]].to_numpy())
    styles = ["dashed" if d else "solid" for d in edges["down"]]
    lines = _draw_lines(ax, segments, edges["utilisation"], vmax, 1.5, styles)
    size = _mark_size(ax, xy.to_numpy(), 0.3)
    routers = members[members["endpoint"] == 0]
    ends = members[members["endpoint"] == 1]
    ax.scatter(routers["x"], routers["y"], marker="s", s=size, c="lightgrey",
               edgecolors="grey", linewidths=0.5, zorder=3)
    ax.scatter(ends["x"], ends["y"], s=size / 3, c="grey", zorder=3)
    if not leaving.empty:
        out = xy.loc[leaving.index]
        ax.scatter(out["x"], out["y"], marker="s", s=size * 2.5, facecolors="none",
                   edgecolors=lines.cmap(lines.norm(leaving.to_numpy())), linewidths=2,
                   zorder=4)
    dropped = mine.groupby("src_component")["drops"].sum()
    dropped = dropped[dropped > 0]
    if not dropped.empty:
        at = xy.loc[dropped.index]
        ax.scatter(at["x"], at["y"], marker="x", c="red", s=size * 2, zorder=5,
                   label="packets dropped")
        ax.legend(loc="upper right", fontsize=7)
    name = _hx().summary(path).get("layout_group", "group")
    ax.set_xlabel("%s %d: %d components, %d links inside; rings: links leaving it" % (
        name, group, len(members), len(edges)))
    _finish(ax, xy.to_numpy(), vmax, "utilisation")


def layout_rows(path):
    """The report's topology row: the overview when there is more than one group, and the
    hottest group."""
    groups = layout(path)["group"].nunique()
    name = _hx().summary(path).get("layout_group", "group")
    row = [("Groups (%s)" % name, lambda ax: plot_overview(path, ax))] if groups > 1 else []
    row.append(("The busiest %s" % name, lambda ax: plot_group(path, ax)))
    return row


def layout_plot(path, out, group=None, dpi=100):
    """Writes the overview (when there is more than one group) and one group's panel to `out`."""
    groups = layout(path)["group"].nunique()
    fig = _hx()._figure(figsize=(13 if groups > 1 else 7, 6))
    axes = np.atleast_1d(fig.subplots(1, 2 if groups > 1 else 1))
    if groups > 1:
        plot_overview(path, axes[0])
    plot_group(path, axes[-1], group)
    fig.savefig(out, dpi=dpi)
