"""Goal regions for MMGR's geometric success checks (S.S./O.S. 2D and 3D).

A region is a mapping: ``{"center": [...], "radius": r}`` (disc / ball) or
``{"box": [[min...], [max...]]}`` (axis-aligned footprint / volume).

>>> inside_region([1, 1], {"box": [[0, 0], [2, 2]]})
True
>>> path_touches_region([[-1, 5], [5, -1]], {"box": [[0, 0], [2, 2]]})
True
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..errors import InputError
from ..vision.geometry import distance_to_polyline
from ._validate import as_point, as_trajectory, positive


def _box(region: Mapping[str, Any], dim: int) -> tuple[np.ndarray, np.ndarray]:
    try:
        lo, hi = region["box"]
    except (TypeError, ValueError) as exc:
        raise InputError("a box region is {'box': [[min...], [max...]]}") from exc
    lo, hi = as_point(lo, dim, name="box min"), as_point(hi, dim, name="box max")
    if (hi < lo).any():
        raise InputError("box max is below box min")
    return lo, hi


def _check(region: Any) -> Mapping[str, Any]:
    if not isinstance(region, Mapping) or not ({"box"} <= set(region) or {"center", "radius"} <= set(region)):
        raise InputError(f"goal region must have 'box' or 'center'+'radius', got {region!r}")
    return region


def inside_region(point: Any, region: Mapping[str, Any]) -> bool:
    """True when ``point`` lies in the region (boundary included)."""
    region = _check(region)
    p = np.asarray(point, dtype=np.float64).reshape(-1)
    if "box" in region:
        lo, hi = _box(region, p.size)
        return bool(((p >= lo) & (p <= hi)).all())
    c = as_point(region["center"], p.size, name="center")
    return bool(np.linalg.norm(p - c) <= positive(region["radius"], "radius"))


def path_touches_region(trajectory: Any, region: Mapping[str, Any]) -> bool:
    """True when any point or segment of the path meets the region."""
    region = _check(region)
    traj = as_trajectory(trajectory)
    if "center" in region:
        c = as_point(region["center"], traj.shape[1], name="center")
        return distance_to_polyline(traj, c) <= positive(region["radius"], "radius")
    lo, hi = _box(region, traj.shape[1])
    if len(traj) == 1:
        return inside_region(traj[0], region)
    a, d = traj[:-1], np.diff(traj, axis=0)  # slab test, all segments at once
    # a zero step is handled below, a tiny one overflows to +-inf: both order correctly
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t1, t2 = (lo - a) / d, (hi - a) / d
    tmin, tmax = np.minimum(t1, t2), np.maximum(t1, t2)
    parallel = d == 0
    outside = parallel & ((a < lo) | (a > hi))
    tmin = np.where(parallel, -np.inf, tmin)
    tmax = np.where(parallel, np.inf, tmax)
    enter = np.maximum(tmin.max(axis=1), 0.0)
    leave = np.minimum(tmax.min(axis=1), 1.0)
    return bool(((enter <= leave) & ~outside.any(axis=1)).any())
