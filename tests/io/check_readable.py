#!/usr/bin/python3
"""Checks that hxsim output files read cleanly with h5py, pandas and xarray (DESIGN section 8).

Usage: check_readable.py FILE [FILE ...]

Every table group (a group holding a dimension scale) must load into a pandas DataFrame in one
line and open in xarray without phony_dims. With several files (the same run at different rank
counts), their tables and text datasets must hold identical data; attributes are not compared
because run metadata such as the rank count and wall-clock times legitimately differ.
"""
import sys

import h5py
import numpy as np
import pandas as pd
import xarray as xr

# h5netcdf (python3-h5netcdf) is the documented engine and required; netcdf4
# (python3-netcdf4) is checked too when it is installed.
XARRAY_ENGINES = ["h5netcdf"]
try:
    import netCDF4  # noqa: F401

    XARRAY_ENGINES.append("netcdf4")
except ImportError:
    print("check_readable: netCDF4 not installed, checking xarray's h5netcdf engine only")


def require(condition, message):
    if not condition:
        sys.exit(f"check_readable: {message}")


def is_scale(obj):
    return isinstance(obj, h5py.Dataset) and obj.attrs.get("CLASS") == b"DIMENSION_SCALE"


def tables(f):
    """{group path: id column name} for every group holding a dimension scale."""
    found = {}

    def visit(name, obj):
        if isinstance(obj, h5py.Group):
            scales = [k for k in obj if is_scale(obj[k])]
            if scales:
                require(len(scales) == 1, f"/{name}: more than one id scale: {scales}")
                found["/" + name] = scales[0]

    f.visititems(visit)
    return found


def check_table(path, f, group, id_name):
    where = f"{path}:{group}"
    g = f[group]
    df = pd.DataFrame({k: g[k][()] for k in g})  # the documented one-liner
    n = g[id_name].shape[0]
    require(len(df) == n, f"{where}: DataFrame has {len(df)} rows, id has {n}")
    require(list(df.columns)[0] == id_name, f"{where}: id is not the first column: {list(df.columns)}")
    require(np.array_equal(df[id_name].to_numpy(), np.arange(n, dtype=np.uint64)),
            f"{where}: ids are not 0 .. {n - 1}")
    for k in g:
        d = g[k]
        require(d.ndim == 1 and d.shape[0] == n, f"{where}/{k}: not a 1-D column of {n} rows")
        for attr in ("units", "long_name"):
            require(isinstance(d.attrs.get(attr), str), f"{where}/{k}: no string attribute {attr}")
        if k != id_name:
            require(d.dims[0] and d.dims[0][0] == g[id_name], f"{where}/{k}: id scale not attached")

    for engine in XARRAY_ENGINES:
        with xr.open_dataset(path, engine=engine, group=group) as ds:
            require(dict(ds.sizes) == {id_name: n}, f"{where} ({engine}): dims {dict(ds.sizes)}")
            require(id_name in ds.coords, f"{where} ({engine}): {id_name} is not a coordinate")
            for k in df.columns:
                v = ds[k]
                require(v.dims == (id_name,), f"{where}/{k} ({engine}): dims {v.dims}")
                require(np.array_equal(v.values, df[k].to_numpy()), f"{where}/{k} ({engine}): data")
                require("units" in v.attrs, f"{where}/{k} ({engine}): no units")
    return df


def texts(f):
    """Scalar string datasets, path -> bytes."""
    found = {}

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset) and obj.shape == () and obj.dtype.kind == "S":
            found["/" + name] = obj[()]

    f.visititems(visit)
    return found


def check_file(path):
    with h5py.File(path, "r") as f:
        found = tables(f)
        require(found, f"{path}: no table groups")
        frames = {group: check_table(path, f, group, id_name) for group, id_name in found.items()}
        scalars = texts(f)
    for engine in XARRAY_ENGINES:
        with xr.open_dataset(path, engine=engine) as ds:
            for name in scalars:
                if name.count("/") == 1:
                    require(name[1:] in ds, f"{path} ({engine}): root variable {name} missing")
    return frames, scalars


def main(paths):
    require(paths, "usage: check_readable.py FILE [FILE ...]")
    first_frames, first_texts = check_file(paths[0])
    for path in paths[1:]:
        frames, scalars = check_file(path)
        require(frames.keys() == first_frames.keys(), f"{path}: tables differ from {paths[0]}")
        for group, df in frames.items():
            require(df.equals(first_frames[group]), f"{path}:{group}: data differ from {paths[0]}")
        require(scalars == first_texts, f"{path}: text datasets differ from {paths[0]}")
    print(f"check_readable: {len(paths)} file(s) OK, tables: {', '.join(first_frames)}")


if __name__ == "__main__":
    main(sys.argv[1:])
