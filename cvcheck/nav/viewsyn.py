"""View-Syn metrics: SSIM and PSNR between generated and reference frames, and the
Eq. (1) normalisation of FID/FVD distances into [0, 1].

>>> float(normalize_distance(30.0, d_min=10.0, d_max=50.0))
0.5
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError


def normalize_distance(d: Any, *, d_min: float, d_max: float) -> np.ndarray | float:
    """MMGR Eq. (1): ``S = max(0, min(1, 1 - (d - d_min) / (d_max - d_min)))`` (element-wise)."""
    if not (np.isfinite(d_min) and np.isfinite(d_max)) or d_max <= d_min:
        raise InputError(f"need finite bounds with d_max > d_min, got d_min={d_min}, d_max={d_max}")
    arr = np.asarray(d, dtype=np.float64)
    if np.isnan(arr).any():
        raise InputError("distance is NaN")
    out = np.clip(1.0 - (arr - d_min) / (d_max - d_min), 0.0, 1.0)
    return float(out) if out.ndim == 0 else out


def _frames(frames: Any, name: str) -> np.ndarray:
    arr = np.asarray(frames)
    if arr.ndim in (2, 3) and not (arr.ndim == 3 and arr.shape[-1] not in (1, 3, 4)):
        arr = arr[None]  # one image
    if arr.ndim == 3:  # (T, H, W) grey frames
        arr = arr[..., None]
    if arr.ndim != 4 or arr.shape[-1] not in (1, 3, 4):
        raise InputError(f"{name} must be (H, W[, C]) or (T, H, W[, C]) frames, got {np.shape(frames)}")
    if arr.dtype != np.uint8:
        raise InputError(f"{name} must be uint8, got {arr.dtype}")
    return arr[..., :3]


def _pairs(generated: Any, reference: Any) -> tuple[np.ndarray, np.ndarray]:
    g, r = _frames(generated, "generated"), _frames(reference, "reference")
    if g.shape != r.shape:
        raise InputError(f"generated {g.shape} and reference {r.shape} frames differ in shape")
    return g, r


def psnr(generated: Any, reference: Any) -> np.ndarray:
    """Per-frame PSNR in dB (``inf`` for identical frames), data range 255."""
    g, r = _pairs(generated, reference)
    mse = ((g.astype(np.float64) - r.astype(np.float64)) ** 2).reshape(len(g), -1).mean(axis=1)
    with np.errstate(divide="ignore"):
        return 10.0 * np.log10(255.0 ** 2 / mse)


def ssim(generated: Any, reference: Any) -> np.ndarray:
    """Per-frame SSIM (scikit-image, Gaussian-free 7x7 window, data range 255, over channels)."""
    from skimage.metrics import structural_similarity

    g, r = _pairs(generated, reference)
    if min(g.shape[1:3]) < 7:
        raise InputError(f"SSIM needs frames of at least 7x7 pixels, got {g.shape[1:3]}")
    chan = -1 if g.shape[-1] > 1 else None
    gg, rr = (g, r) if chan is not None else (g[..., 0], r[..., 0])
    return np.array([structural_similarity(a, b, data_range=255, channel_axis=chan) for a, b in zip(gg, rr)])
