"""Shared input checks for trajectories."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError


def as_trajectory(points: Any, *, name: str = "trajectory", min_len: int = 1) -> np.ndarray:
    """Return a float64 ``(T, D)`` copy of ``points`` (D = 2 or 3), validated."""
    arr = np.array(points, dtype=np.float64, copy=True)
    if arr.ndim != 2 or arr.shape[1] not in (2, 3):
        raise InputError(f"{name} must have shape (T, 2) or (T, 3), got {arr.shape}")
    if arr.shape[0] < min_len:
        raise InputError(f"{name} needs at least {min_len} point(s), got {arr.shape[0]}")
    if not np.isfinite(arr).all():
        raise InputError(f"{name} contains NaN or infinite coordinates")
    return arr


def as_point(point: Any, dim: int, *, name: str = "goal") -> np.ndarray:
    arr = np.array(point, dtype=np.float64).reshape(-1)
    if arr.shape != (dim,) or not np.isfinite(arr).all():
        raise InputError(f"{name} must be {dim} finite coordinates, got {np.shape(point)}")
    return arr


def positive(value: float, name: str) -> float:
    if not np.isfinite(value) or value <= 0:
        raise InputError(f"{name} must be a positive number, got {value!r}")
    return float(value)
