#!/usr/bin/python3
"""Print a short human summary of an hxsim HDF5 output file.

Shows the root attributes (version, git hash, ranks, seed, ...), the attributes of /summary and
/partition, the per-rank /engine table, and for every other top-level table (a group whose
datasets are 1-D columns of one length, e.g. /links or /lps) its row count, its columns and the
sum and mean of each numeric column. Groups that are missing are skipped.

Usage: /usr/bin/python3 scripts/summarize.py results/quickstart.h5 [--max-rows N]
"""

import argparse
import os
import sys

import h5py
import numpy as np

# Root attributes shown first, in this order; any others follow alphabetically.
ROOT_ATTR_ORDER = (
    "hxsim_version", "version", "git_hash", "model", "ranks", "seed", "partitioner",
    "config_hash", "sim_end_time", "end_time_ps", "start_time", "end_time", "wall_time_s",
    "complete",
)
# Groups whose attributes are shown (their datasets, if any, are shown like any other group's).
ATTR_GROUPS = ("summary", "partition")
# Columns that number rows: shown as a range, not summed. The /engine table lists them first.
INDEX_COLUMNS = ("rank", "id")
DEFAULT_MAX_ROWS = 8


def fmt_value(value):
    """Format an attribute or cell value compactly."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "SO":
            return "[" + ", ".join(fmt_value(v) for v in value.ravel()[:10]) + "]"
        if value.size > 10:
            return f"[{', '.join(fmt_value(v) for v in value.ravel()[:10])}, ... ({value.size})]"
        return "[" + ", ".join(fmt_value(v) for v in value.ravel()) + "]"
    if isinstance(value, (float, np.floating)):
        return f"{value:.6g}"
    if isinstance(value, np.generic):
        return str(value.item())
    return str(value)


def print_attrs(title, obj):
    """Print the attributes of a group or file, known root names first."""
    names = list(obj.attrs.keys())
    if not names:
        return
    known = [n for n in ROOT_ATTR_ORDER if n in names]
    ordered = known + sorted(n for n in names if n not in known)
    print(title)
    width = max(len(n) for n in ordered)
    for name in ordered:
        try:
            text = fmt_value(obj.attrs[name])
        except (OSError, TypeError) as err:  # unreadable type, e.g. a reference
            text = f"<unreadable: {err}>"
        if len(text) > 100:
            text = text[:97] + "..."
        print(f"  {name:<{width}}  {text}")


def table_columns(group):
    """Return the group's columns (name -> dataset) if it is a table, else None.

    A table is a group whose datasets are all 1-D and of one length (the id dimension).
    """
    columns = {k: v for k, v in group.items() if isinstance(v, h5py.Dataset)}
    if not columns:
        return None
    lengths = {d.shape[0] if d.ndim == 1 else None for d in columns.values()}
    if None in lengths or len(lengths) != 1:
        return None
    return columns


def is_numeric(dataset):
    """True for integer, unsigned, float and bool columns."""
    return dataset.dtype.kind in "iufb"


def is_index(name):
    """True for columns that number rows (rank, id, link_id, ...)."""
    return name in INDEX_COLUMNS or name.endswith("_id")


def column_stats(dataset):
    """Return (sum, mean, NaN count) of a numeric column; integers are summed exactly."""
    data = dataset[()]
    if data.dtype.kind in "iub":
        acc = np.uint64 if data.dtype.kind == "u" else np.int64
        total = int(np.sum(data, dtype=acc))
        mean = float(np.mean(data, dtype=np.float64)) if data.size else float("nan")
        return total, mean, 0
    nans = int(np.count_nonzero(np.isnan(data)))
    finite = data[~np.isnan(data)]
    mean = float(np.mean(finite, dtype=np.float64)) if finite.size else float("nan")
    return float(np.sum(finite, dtype=np.float64)), mean, nans


def column_text(name, dataset):
    """One-line statistics of a column: a range for index columns, else sum and mean."""
    if not is_numeric(dataset):
        return f"({dataset.dtype})"
    if dataset.shape[0] == 0:
        return "(empty)"
    if is_index(name):
        data = dataset[()]
        return f"range {fmt_value(data.min())}..{fmt_value(data.max())}"
    total, mean, nans = column_stats(dataset)
    text = f"sum {fmt_value(total)}  mean {fmt_value(mean)}"
    return text + (f"  ({nans} NaN)" if nans else "")


def print_engine(group, max_rows):
    """Print the per-rank engine statistics as a small table (head and tail if long)."""
    columns = table_columns(group)
    if columns is None:
        print_other(group)
        return
    names = [n for n in INDEX_COLUMNS if n in columns]
    names += [n for n in columns if n not in names]
    data = {n: columns[n][()] for n in names}
    rows = len(next(iter(data.values())))
    print(f"/engine: {rows} ranks")
    cells = [[fmt_value(data[n][i]) for n in names] for i in range(rows)]
    if rows > max_rows:
        half = max_rows // 2
        cells = cells[:half] + [["..."] * len(names)] + cells[-half:]
    summed = [n for n in names if is_numeric(columns[n]) and not is_index(n)]
    if summed and rows > 1:
        cells.append([("sum " + fmt_value(column_stats(columns[n])[0])) if n in summed else ""
                      for n in names])
    widths = [max([len(n)] + [len(row[j]) for row in cells]) for j, n in enumerate(names)]
    print("  " + "  ".join(n.rjust(w) for n, w in zip(names, widths)))
    for row in cells:
        print("  " + "  ".join(c.rjust(w) for c, w in zip(row, widths)))


def print_table(name, columns):
    """Print a table's row count, its columns and the sum/mean of its numeric columns."""
    rows = next(iter(columns.values())).shape[0]
    print(f"/{name}: {rows} rows, {len(columns)} columns")
    width = max(len(n) for n in columns)
    for col, dataset in columns.items():
        units = dataset.attrs.get("units")
        unit_text = "" if units is None or fmt_value(units) == "1" else f" [{fmt_value(units)}]"
        print(f"  {col:<{width}}  {column_text(col, dataset)}{unit_text}")


def print_other(obj):
    """One line for a top-level object that is not a table."""
    if isinstance(obj, h5py.Dataset) and obj.shape == () and h5py.check_string_dtype(obj.dtype):
        text = fmt_value(obj[()])
        print(f"{obj.name}: text, {len(text.splitlines())} lines")
    elif isinstance(obj, h5py.Dataset):
        print(f"{obj.name}: dataset shape {obj.shape} {obj.dtype}")
    else:
        print(f"{obj.name}: group with {len(obj)} members")


def summarize(path, max_rows):
    """Print the summary of one file."""
    with h5py.File(path, "r") as f:
        print(f"== {path}")
        print_attrs("root attributes:", f)
        for name in ATTR_GROUPS:
            if isinstance(f.get(name), h5py.Group):
                print_attrs(f"/{name} attributes:", f[name])
        for name, obj in f.items():
            if not isinstance(obj, h5py.Group):
                print_other(obj)
            elif name == "engine":
                print_engine(obj, max_rows)
            elif table_columns(obj) is not None:
                print_table(name, table_columns(obj))
            elif not (name in ATTR_GROUPS and len(obj) == 0):
                print_other(obj)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", help="hxsim HDF5 output file")
    parser.add_argument("--max-rows", type=int, default=DEFAULT_MAX_ROWS,
                        help="rows of the /engine table shown before eliding (default %(default)s)")
    args = parser.parse_args(argv)
    try:
        summarize(args.file, args.max_rows)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into head
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OSError as err:
        print(f"summarize.py: error: cannot read {args.file}: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
