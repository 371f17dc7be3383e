#!/usr/bin/python3
"""Compare the data of two hxsim HDF5 output files.

Every group and dataset (recursively) must exist in both files; datasets must have equal shape,
dtype and values (exact equality, NaN equals NaN); attributes of every group and dataset must be
equal too, and so must the dimension scales attached to each dataset. Left out by default: paths
under /engine and /partition (per-rank statistics and the partition, which legitimately depend on
the rank count) and the run-specific root attributes in IGNORED_ROOT_ATTRS. Runs with different
partitioners also differ in /config and the config_hash attribute (the resolved config names the
partitioner): add --ignore /config --ignore-attr config_hash to compare those.

Usage: /usr/bin/python3 scripts/h5compare.py A.h5 B.h5 [--ignore PATH]... [--ignore-attr NAME|PATH/NAME]...
Exit status: 0 identical, 1 differences found (each printed), 2 usage or I/O error.
"""

import argparse
import os
import sys
import traceback

import h5py
import numpy as np

IGNORED_PATHS = ("/engine", "/partition")
IGNORED_ROOT_ATTRS = ("ranks", "partitioner", "start_time", "end_time", "wall_time_s", "git_hash",
                      "restarted_from")
# Attributes HDF5 uses to attach dimension scales: they hold object references (file addresses),
# so they are compared through the scale names they point to (see dims_of) instead.
SCALE_ATTRS = ("DIMENSION_LIST", "REFERENCE_LIST")
BLOCK_ELEMENTS = 1 << 22  # datasets are compared in slabs of about this many elements


def is_ignored(path, prefixes):
    """True if path is one of prefixes or lies below one of them."""
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in prefixes)


def collect(h5file, prefixes):
    """Map every object path (except ignored ones) to 'group' or 'dataset'."""
    found = {"/": "group"}

    def visit(group):
        for name in group:
            link = group.get(name, getlink=True)
            path = f"{group.name.rstrip('/')}/{name}"
            if is_ignored(path, prefixes):
                continue
            if isinstance(link, h5py.SoftLink):
                found[path] = f"soft link to {link.path}"
                continue
            if isinstance(link, h5py.ExternalLink):
                found[path] = f"external link to {link.filename}:{link.path}"
                continue
            obj = group[name]
            if isinstance(obj, h5py.Group):
                found[path] = "group"
                visit(obj)
            else:
                found[path] = "dataset"

    visit(h5file)
    return found


def show(value):
    """Short text for a value in a difference message."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    text = repr(value.tolist() if isinstance(value, np.ndarray) else value)
    return text if len(text) <= 80 else text[:77] + "..."


def text_from_first_difference(a, b, context=20):
    """Cut two long texts to start a little before the first character where they differ."""
    a, b = (t.decode("utf-8", "replace") if isinstance(t, bytes) else t for t in (a, b))
    i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    start = max(0, i - context)
    prefix = "..." if start else ""
    return prefix + a[start:], prefix + b[start:]


def diff_mask(a, b):
    """Boolean array, True where a and b differ (NaN == NaN); a and b have one dtype and shape."""
    if a.dtype.names:
        mask = np.zeros(a.shape, dtype=bool)
        for field in a.dtype.names:
            sub = diff_mask(a[field], b[field])
            if sub.ndim > a.ndim:  # array-valued field
                sub = sub.reshape(a.shape + (-1,)).any(axis=-1)
            mask |= sub
        return mask
    if a.dtype.kind == "O":  # variable-length strings or arrays
        flat = [not np.array_equal(np.asarray(x), np.asarray(y)) if isinstance(x, np.ndarray)
                else x != y for x, y in zip(a.ravel(), b.ravel())]
        return np.array(flat, dtype=bool).reshape(a.shape)
    mask = a != b
    if a.dtype.kind in "fc":
        mask &= ~(np.isnan(a) & np.isnan(b))
    return np.asarray(mask)


def compare_values(path, da, db):
    """Compare two datasets of equal shape and dtype slab by slab; return difference messages."""
    if da.shape is None or da.size == 0:  # null dataspace or empty
        return []
    if da.ndim == 0:
        a, b = da[()], db[()]
        if not diff_mask(np.asarray(a), np.asarray(b)).any():
            return []
        if isinstance(a, (bytes, str)) and isinstance(b, (bytes, str)):
            a, b = text_from_first_difference(a, b)
        return [f"{path}: value differs: {show(a)} != {show(b)}"]
    row_elems = max(1, da.size // da.shape[0])
    step = max(1, BLOCK_ELEMENTS // row_elems)
    count, first = 0, None
    for start in range(0, da.shape[0], step):
        a, b = da[start:start + step], db[start:start + step]
        mask = diff_mask(a, b)
        n = int(np.count_nonzero(mask))
        if n and first is None:
            idx = tuple(int(i) for i in np.argwhere(mask)[0])
            first = ((idx[0] + start,) + idx[1:], a[idx], b[idx])
        count += n
    if not count:
        return []
    idx, va, vb = first
    return [f"{path}: {count} of {da.size} elements differ; first at index {idx}: "
            f"{show(va)} != {show(vb)}"]


def dims_of(dataset):
    """The dimension scales attached to each axis, by name, with the axis labels."""
    if dataset.shape is None:  # null dataspace: no axes
        return []
    try:
        return [(d.label, tuple(s.name for s in d.values())) for d in dataset.dims]
    except (RuntimeError, KeyError, ValueError, TypeError, OSError):
        return None


def deref(h5obj, value):
    """Replace object references in an attribute value by the paths they point to.

    References are file addresses, so equal data in two files can hold different references.
    """
    if isinstance(value, h5py.Reference):
        return h5obj.file[value].name if value else None
    if isinstance(value, np.ndarray) and value.dtype.kind == "O" and value.size and isinstance(
            value.flat[0], h5py.Reference):
        return np.array([deref(h5obj, v) for v in value.ravel()], dtype=object).reshape(value.shape)
    return value


def compare_attrs(path, oa, ob, ignored):
    """Compare the attributes of two objects; return difference messages."""
    out = []

    def kept(name):  # root attributes go by name, others by path/name
        full = f"{path.rstrip('/')}/{name}"
        at_root = path == "/" and name in ignored
        return not at_root and full not in ignored and name not in SCALE_ATTRS

    names_a = {n for n in oa.attrs if kept(n)}
    names_b = {n for n in ob.attrs if kept(n)}
    for name in sorted(names_a - names_b):
        out.append(f"{path}: attribute '{name}' only in A")
    for name in sorted(names_b - names_a):
        out.append(f"{path}: attribute '{name}' only in B")
    for name in sorted(names_a & names_b):
        try:
            va, vb = deref(oa, oa.attrs[name]), deref(ob, ob.attrs[name])
        except (OSError, TypeError) as err:
            out.append(f"{path}: attribute '{name}' unreadable: {err}")
            continue
        aa, ab = np.asarray(va), np.asarray(vb)
        texts = aa.dtype.kind in "USO" and ab.dtype.kind in "USO"
        if texts and aa.shape == ab.shape:
            if aa.tolist() != ab.tolist():
                out.append(f"{path}: attribute '{name}' differs: {show(va)} != {show(vb)}")
        elif aa.dtype != ab.dtype or aa.shape != ab.shape:
            out.append(f"{path}: attribute '{name}' type differs: "
                       f"{aa.dtype}{aa.shape} != {ab.dtype}{ab.shape}")
        elif diff_mask(aa, ab).any():
            out.append(f"{path}: attribute '{name}' differs: {show(va)} != {show(vb)}")
    return out


def compare_dataset(path, da, db):
    """Compare shape, dtype, values and dimension scales of two datasets."""
    if da.shape != db.shape:
        return [f"{path}: shape differs: {da.shape} != {db.shape}"]
    fixed_strings = da.dtype.kind == "S" and db.dtype.kind == "S"  # lengths may differ
    if not fixed_strings and (da.dtype != db.dtype or h5py.check_string_dtype(
            da.dtype) != h5py.check_string_dtype(db.dtype)):
        return [f"{path}: dtype differs: {da.dtype} != {db.dtype}"]
    out = compare_values(path, da, db)
    if dims_of(da) != dims_of(db):
        out.append(f"{path}: dimension scales differ: {dims_of(da)} != {dims_of(db)}")
    return out


def only_in(label, mine, other):
    """Messages for objects in `mine` but not in `other`; a missing group's members are implied."""
    paths = sorted(mine.keys() - other.keys())
    missing = set(paths)
    return [f"{p}: {mine[p]} only in {label}" for p in paths
            if p.rsplit("/", 1)[0] not in missing]


def compare_files(fa, fb, ignored_paths, ignored_root_attrs):
    """Compare two open files; return the list of difference messages."""
    objs_a, objs_b = collect(fa, ignored_paths), collect(fb, ignored_paths)
    out = only_in("A", objs_a, objs_b) + only_in("B", objs_b, objs_a)
    for path in sorted(objs_a.keys() & objs_b.keys()):
        kind_a, kind_b = objs_a[path], objs_b[path]
        if kind_a != kind_b:
            out.append(f"{path}: {kind_a} in A but {kind_b} in B")
            continue
        if kind_a not in ("group", "dataset"):
            continue
        oa, ob = fa[path], fb[path]
        if kind_a == "dataset":
            out += compare_dataset(path, oa, ob)
        out += compare_attrs(path, oa, ob, ignored_root_attrs)
    return out


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="Compare the data of two hxsim HDF5 files (exit 0 same, 1 different).")
    parser.add_argument("a", metavar="A.h5")
    parser.add_argument("b", metavar="B.h5")
    parser.add_argument("--ignore", action="append", default=[], metavar="PATH",
                        help="also skip this group/dataset and everything below it "
                             f"(always skipped: {', '.join(IGNORED_PATHS)})")
    parser.add_argument("--ignore-attr", action="append", default=[], metavar="NAME",
                        help="also skip this root attribute, or PATH/NAME: attribute NAME of "
                             "the object at PATH (e.g. /summary/events) "
                             f"(always skipped: {', '.join(IGNORED_ROOT_ATTRS)})")
    parser.add_argument("--no-default-ignores", action="store_true",
                        help="compare /engine, /partition and all root attributes too")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing, just exit")
    args = parser.parse_args(argv)
    for path in args.ignore:
        if not path.startswith("/"):
            parser.error(f"--ignore takes an absolute HDF5 path like /engine, not '{path}'")
    return args


def main(argv=None):
    args = parse_args(argv)
    defaults_paths = () if args.no_default_ignores else IGNORED_PATHS
    default_attrs = () if args.no_default_ignores else IGNORED_ROOT_ATTRS
    ignored_paths = tuple(defaults_paths) + tuple(p.rstrip("/") or "/" for p in args.ignore)
    ignored_attrs = frozenset(default_attrs) | frozenset(args.ignore_attr)
    try:
        with h5py.File(args.a, "r") as fa, h5py.File(args.b, "r") as fb:
            diffs = compare_files(fa, fb, ignored_paths, ignored_attrs)
    except OSError as err:
        print(f"h5compare: error: {err}", file=sys.stderr)
        return 2
    except Exception:  # a bug here must not look like "files differ" (exit 1)
        traceback.print_exc()
        print("h5compare: error: internal error while comparing", file=sys.stderr)
        return 2
    if not args.quiet:
        try:
            for line in diffs:
                print(line)
            print(f"h5compare: {len(diffs)} difference(s)" if diffs else "h5compare: identical")
            sys.stdout.flush()
        except BrokenPipeError:  # e.g. piped into head
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
