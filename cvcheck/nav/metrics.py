"""Geo-Align metrics from trajectories: SR, SPL, nDTW, sDTW, ATE, RPE, lengths, errors.

Trajectories are arrays of shape ``(T, D)`` (D = 2 or 3), in metres. Conventions follow
the embodied-navigation literature: success within ``radius`` of the goal (Habitat /
R2R use 3 m), SPL (Anderson et al. 2018), nDTW/sDTW (Ilharco et al. 2019), ATE as the
RMSE of positions after an optional rigid (SE3) or similarity (Sim3, Umeyama) alignment,
and RPE as the RMSE of relative *translation* between poses ``delta`` steps apart
(positions only: no rotations are needed or used).

>>> path_length([[0, 0], [3, 4], [3, 0]])
9.0
>>> round(ndtw([[0, 0], [2, 0]], [[0, 0], [1, 0], [2, 0]], threshold=1.0), 4)  # exp(-1/3)
0.7165
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError
from ..vision.geometry import distance_to_polyline
from ._validate import as_point, as_trajectory, positive
from .association import associate, resample_by_arclength

__all__ = ["absolute_trajectory_error", "align", "dtw_distance", "final_distance_error", "final_heading",
           "geo_align", "heading_error", "ndtw", "oracle_success", "path_length", "relative_pose_error",
           "resample_by_arclength", "sdtw", "spl", "success"]


def path_length(trajectory: Any) -> float:
    """Sum of segment lengths of ``trajectory`` ``(T, D)``."""
    traj = as_trajectory(trajectory)
    return float(np.linalg.norm(np.diff(traj, axis=0), axis=1).sum())


def final_distance_error(trajectory: Any, goal: Any) -> float:
    """Euclidean distance from the last position to ``goal`` (MMGR "Nav")."""
    traj = as_trajectory(trajectory)
    return float(np.linalg.norm(traj[-1] - as_point(goal, traj.shape[1])))


def success(trajectory: Any, goal: Any, *, radius: float = 3.0) -> bool:
    """True when the final position lies within ``radius`` of ``goal`` (SR for one episode)."""
    return final_distance_error(trajectory, goal) <= positive(radius, "radius")


def oracle_success(trajectory: Any, goal: Any, *, radius: float = 3.0) -> bool:
    """True when any point of the path (segments included) comes within ``radius`` of ``goal``."""
    traj = as_trajectory(trajectory)
    g = as_point(goal, traj.shape[1])
    return distance_to_polyline(traj, g) <= positive(radius, "radius")


def spl(success: Any, shortest_length: Any, path_length: Any) -> np.ndarray | float:
    """Success weighted by path length, ``S * l / max(p, l)`` (element-wise over episodes)."""
    s = np.asarray(success, dtype=np.float64)
    l_ = np.asarray(shortest_length, dtype=np.float64)
    p = np.asarray(path_length, dtype=np.float64)
    if (l_ < 0).any() or (p < 0).any():
        raise InputError("path lengths must be non-negative")
    denom = np.maximum(p, l_)
    out = np.where(denom > 0, s * l_ / np.where(denom > 0, denom, 1.0), s)
    return float(out) if out.ndim == 0 else out


def dtw_distance(query: Any, reference: Any) -> float:
    """Dynamic-time-warping distance with Euclidean costs.

    Row by row with numpy: within a row ``D[j] = c[j] + min(a[j], D[j-1])`` where ``a``
    comes from the previous row, so ``D = S + cummin(a' - S)`` with ``S`` the row's
    prefix sums and ``a' = c + a`` (one cumulative minimum per row, no inner loop).
    """
    q = as_trajectory(query, name="query")
    r = as_trajectory(reference, name="reference")
    if q.shape[1] != r.shape[1]:
        raise InputError(f"query is {q.shape[1]}-D but reference is {r.shape[1]}-D")
    cost = np.linalg.norm(q[:, None, :] - r[None, :, :], axis=2)
    prev = np.full(cost.shape[1] + 1, np.inf)
    prev[0] = 0.0
    for row in cost:
        entry = row + np.minimum(prev[:-1], prev[1:])  # from the diagonal or from above
        prefix = np.cumsum(row)
        cur = prefix + np.minimum.accumulate(entry - prefix)  # or from the left, any run length
        prev = np.concatenate(([np.inf], cur))
    return float(max(prev[-1], 0.0))


def ndtw(query: Any, reference: Any, *, threshold: float = 3.0) -> float:
    """Normalised DTW, ``exp(-DTW(R, Q) / (|R| * threshold))``."""
    r = as_trajectory(reference, name="reference")
    return float(np.exp(-dtw_distance(query, r) / (len(r) * positive(threshold, "threshold"))))


def sdtw(query: Any, reference: Any, goal: Any = None, *, threshold: float = 3.0) -> float:
    """Success-weighted nDTW: nDTW when the query ends within ``threshold`` of the goal, else 0.

    ``goal`` defaults to the reference's last point.
    """
    r = as_trajectory(reference, name="reference")
    g = r[-1] if goal is None else goal
    return ndtw(query, r, threshold=threshold) if success(query, g, radius=threshold) else 0.0


def align(source: Any, target: Any, *, mode: str = "sim3") -> np.ndarray:
    """Return ``source`` aligned to ``target`` (same length) by ``none``/``se3``/``sim3``."""
    src = as_trajectory(source, name="prediction")
    tgt = as_trajectory(target, name="ground truth")
    if src.shape != tgt.shape:
        raise InputError(f"alignment needs corresponding poses: {src.shape} vs {tgt.shape} "
                         "(resample with resample_by_arclength first)")
    if mode == "none":
        return src
    if mode not in ("se3", "sim3"):
        raise InputError(f"alignment mode must be none, se3 or sim3, got {mode!r}")
    mu_s, mu_t = src.mean(0), tgt.mean(0)
    xs, xt = src - mu_s, tgt - mu_t
    cov = xt.T @ xs / len(src)
    u, d, vt = np.linalg.svd(cov)
    sign = np.eye(src.shape[1])
    if np.linalg.det(u) * np.linalg.det(vt) < 0:
        sign[-1, -1] = -1.0
    rot = u @ sign @ vt
    var_s = (xs ** 2).sum() / len(src)
    scale = float(np.trace(np.diag(d) @ sign) / var_s) if mode == "sim3" and var_s > 0 else 1.0
    return scale * (xs @ rot.T) + mu_t


def absolute_trajectory_error(prediction: Any, ground_truth: Any, *, alignment: str = "sim3") -> float:
    """ATE: RMSE of corresponding positions after ``alignment`` (``none``, ``se3``, ``sim3``)."""
    gt = as_trajectory(ground_truth, name="ground truth")
    aligned = align(prediction, gt, mode=alignment)
    return float(np.sqrt(np.mean(np.sum((aligned - gt) ** 2, axis=1))))


def relative_pose_error(prediction: Any, ground_truth: Any, *, delta: int = 1,
                        alignment: str = "sim3") -> float:
    """RPE (translation): RMSE of ``(p[i+delta]-p[i]) - (g[i+delta]-g[i])`` after alignment."""
    gt = as_trajectory(ground_truth, name="ground truth")
    if not isinstance(delta, (int, np.integer)) or delta < 1 or delta >= len(gt):
        raise InputError(f"delta must be an integer in [1, {len(gt) - 1}], got {delta!r}")
    p = align(prediction, gt, mode=alignment)
    err = (p[delta:] - p[:-delta]) - (gt[delta:] - gt[:-delta])
    return float(np.sqrt(np.mean(np.sum(err ** 2, axis=1))))


def final_heading(trajectory: Any, *, plane: tuple[int, int] = (0, 1)) -> float:
    """Heading (radians, ``atan2``) of the last non-zero step, in the ``plane`` axes."""
    traj = as_trajectory(trajectory, min_len=2)
    steps = np.diff(traj[:, list(plane)], axis=0)
    moving = np.flatnonzero(np.linalg.norm(steps, axis=1) > 1e-12)
    if moving.size == 0:
        raise InputError("trajectory never moves: no heading")
    dx, dy = steps[moving[-1]]
    return float(np.arctan2(dy, dx))


def heading_error(predicted: Any, reference: Any, *, degrees: bool = True) -> np.ndarray | float:
    """Absolute wrapped difference of headings (MMGR "Dir"), in [0, 180] degrees (or [0, pi])."""
    a = np.asarray(predicted, dtype=np.float64)
    b = np.asarray(reference, dtype=np.float64)
    period = 360.0 if degrees else 2 * np.pi
    d = np.abs((a - b + period / 2) % period - period / 2)
    return float(d) if d.ndim == 0 else d


def geo_align(prediction: Any, ground_truth: Any, *, goal: Any = None, radius: float = 3.0,
              alignment: str = "sim3", pred_heading: float | None = None, gt_heading: float | None = None,
              association: str = "auto", pred_times: Any = None, gt_times: Any = None) -> dict[str, Any]:
    """The whole Geo-Align suite for one episode.

    Parameters
    ----------
    prediction, ground_truth : array-like of shape (T, D)
        Positions in metres, D = 2 or 3 (at least 2 poses each).
    goal : array-like of shape (D,), optional
        Defaults to the ground truth's last point.
    radius : float
        Success radius (also the nDTW/sDTW threshold).
    alignment : {"none", "se3", "sim3"}
        Alignment before ATE/RPE.
    pred_heading, gt_heading : float, optional
        Radians; default: the direction of each trajectory's last step (x-y plane).
    association : {"auto", "index", "timestamps", "arclength"}
        Which poses ATE/RPE compare (:mod:`cvcheck.nav.association`). ``auto``: ``timestamps``
        when both time arrays are given, else ``index`` for equal lengths (then ATE/RPE equal
        the standalone functions), else ``arclength``.
    pred_times, gt_times : array-like of shape (T,), optional
        Time stamps for ``timestamps``.

    Returns
    -------
    dict
        ``sr``, ``spl``, ``ndtw``, ``sdtw``, ``ate``, ``rpe``, path lengths, ``nav_error``,
        ``dir_error_deg``, ``association`` (the rule used) and ``n_associated`` (pose pairs).
    """
    pred = as_trajectory(prediction, name="prediction", min_len=2)
    gt = as_trajectory(ground_truth, name="ground truth", min_len=2)
    g = gt[-1] if goal is None else as_point(goal, gt.shape[1])
    ok = success(pred, g, radius=radius)
    pl, gl = path_length(pred), path_length(gt)
    if association == "auto":
        association = ("timestamps" if pred_times is not None and gt_times is not None
                       else "index" if len(pred) == len(gt) else "arclength")
    p_assoc, g_assoc = associate(pred, gt, method=association, pred_times=pred_times, gt_times=gt_times)
    ph = final_heading(pred) if pred_heading is None else pred_heading
    gh = final_heading(gt) if gt_heading is None else gt_heading
    return {
        "sr": float(ok), "spl": float(spl(ok, gl, pl)),
        "ndtw": ndtw(pred, gt, threshold=radius), "sdtw": sdtw(pred, gt, g, threshold=radius),
        "ate": absolute_trajectory_error(p_assoc, g_assoc, alignment=alignment),
        "rpe": relative_pose_error(p_assoc, g_assoc, alignment=alignment),
        "association": association, "n_associated": len(g_assoc),
        "path_length_pred": pl, "path_length_gt": gl,
        "nav_error": final_distance_error(pred, g),
        "dir_error_deg": float(heading_error(np.degrees(ph), np.degrees(gh))),
    }
