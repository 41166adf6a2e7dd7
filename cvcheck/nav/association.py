"""Pose association for ATE/RPE: which predicted pose is compared with which ground-truth pose.

ATE and RPE compare *corresponding* poses; a rule must say which ones correspond:

``index``
    pose i with pose i; both trajectories must have the same length (the standalone
    :func:`~cvcheck.nav.metrics.absolute_trajectory_error` convention).
``timestamps``
    the prediction is linearly interpolated at each ground-truth time stamp that lies
    within the prediction's time span (ground-truth poses outside it are left out).
``arclength``
    both paths are resampled to ``n = max(len(prediction), len(ground_truth))`` points
    equally spaced along their own length (fraction 0, 1/(n-1), ..., 1 of each path), and
    matched by that fraction: a purely geometric comparison that ignores speed.

>>> p, g = associate([[0, 0], [2, 0]], [[0, 0], [1, 0], [2, 0]], method="arclength")
>>> p.tolist(), g.tolist()
([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]], [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError
from ._validate import as_trajectory

METHODS = ("index", "timestamps", "arclength")


def _times(times: Any, n: int, name: str) -> np.ndarray:
    t = np.asarray(times, dtype=np.float64)
    if t.shape != (n,):
        raise InputError(f"{name} must hold one time stamp per pose ({n}), got shape {t.shape}")
    if not np.isfinite(t).all() or (np.diff(t) <= 0).any():
        raise InputError(f"{name} must be finite and strictly increasing")
    return t


def resample_by_arclength(trajectory: Any, n: int) -> np.ndarray:
    """``n`` points equally spaced along the path (for ATE/RPE between unequal lengths)."""
    traj = as_trajectory(trajectory)
    if not isinstance(n, (int, np.integer)) or n < 2:
        raise InputError(f"resample needs an integer n >= 2, got {n!r}")
    seg = np.linalg.norm(np.diff(traj, axis=0), axis=1)
    s = np.concatenate([[0.0], np.cumsum(seg)])
    if s[-1] == 0:
        return np.repeat(traj[:1], n, axis=0)
    t = np.linspace(0.0, s[-1], n)
    return np.stack([np.interp(t, s, traj[:, k]) for k in range(traj.shape[1])], axis=1)


def associate(prediction: Any, ground_truth: Any, *, method: str = "index", pred_times: Any = None,
              gt_times: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Corresponding poses ``(pred, gt)``, two ``(M, D)`` arrays, under ``method``.

    Parameters
    ----------
    prediction, ground_truth : array-like of shape (T, D)
        Positions, D = 2 or 3.
    method : {"index", "timestamps", "arclength"}
        The association rule (module docstring).
    pred_times, gt_times : array-like of shape (T,), optional
        Strictly increasing time stamps; required by ``timestamps``.
    """
    pred = as_trajectory(prediction, name="prediction")
    gt = as_trajectory(ground_truth, name="ground truth")
    if pred.shape[1] != gt.shape[1]:
        raise InputError(f"prediction is {pred.shape[1]}-D but ground truth is {gt.shape[1]}-D")
    if method == "index":
        if len(pred) != len(gt):
            raise InputError(f"index association needs equal lengths, got {len(pred)} and {len(gt)} poses "
                             "(use timestamps or arclength)")
        return pred, gt
    if method == "arclength":
        n = max(len(pred), len(gt), 2)
        return resample_by_arclength(pred, n), resample_by_arclength(gt, n)
    if method == "timestamps":
        if pred_times is None or gt_times is None:
            raise InputError("timestamps association needs pred_times and gt_times")
        tp, tg = _times(pred_times, len(pred), "pred_times"), _times(gt_times, len(gt), "gt_times")
        keep = (tg >= tp[0]) & (tg <= tp[-1])
        if keep.sum() < 2:
            raise InputError("fewer than 2 ground-truth time stamps fall within the prediction's time span")
        at = tg[keep]
        interp = np.stack([np.interp(at, tp, pred[:, k]) for k in range(pred.shape[1])], axis=1)
        return interp, gt[keep]
    raise InputError(f"association must be one of {METHODS}, got {method!r}")
