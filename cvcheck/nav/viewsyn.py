"""View-Syn metrics: SSIM and PSNR between generated and reference frames (uint8,
uint16 or float, the data range from the dtype as in scikit-image), and the Eq. (1)
normalisation of FID/FVD distances into [0, 1]. LPIPS, FID and FVD themselves are in
:mod:`cvcheck.nav.perceptual` (optional, local weights).

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


_INT_RANGES = {np.dtype(np.uint8): 255.0, np.dtype(np.uint16): 65535.0}


def _frames(frames: Any, name: str) -> np.ndarray:
    """``(T, H, W, C<=3)`` frames of dtype uint8, uint16 or float, validated."""
    arr = np.asarray(frames)
    if arr.ndim in (2, 3) and not (arr.ndim == 3 and arr.shape[-1] not in (1, 3, 4)):
        arr = arr[None]  # one image
    if arr.ndim == 3:  # (T, H, W) grey frames
        arr = arr[..., None]
    if arr.ndim != 4 or arr.shape[-1] not in (1, 3, 4):
        raise InputError(f"{name} must be (H, W[, C]) or (T, H, W[, C]) frames, got {np.shape(frames)}")
    if arr.dtype not in _INT_RANGES and arr.dtype.kind != "f":
        raise InputError(f"{name} must be uint8, uint16 or floating point, got {arr.dtype}")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise InputError(f"{name} contains NaN or infinite values")
    return arr[..., :3]


def _pairs(generated: Any, reference: Any) -> tuple[np.ndarray, np.ndarray]:
    g, r = _frames(generated, "generated"), _frames(reference, "reference")
    if g.shape != r.shape:
        raise InputError(f"generated {g.shape} and reference {r.shape} frames differ in shape")
    if g.dtype != r.dtype:
        raise InputError(f"generated ({g.dtype}) and reference ({r.dtype}) frames differ in dtype")
    return g, r


def data_range_of(reference: Any, data_range: float | None = None) -> float:
    """The data range used by PSNR/SSIM: ``data_range`` when given, else from the dtype.

    As scikit-image's ``peak_signal_noise_ratio``: uint8 -> 255, uint16 -> 65535, float ->
    1 for images in [0, 1] and 2 for images in [-1, 1] with negative values; float values
    outside [-1, 1] need an explicit ``data_range``.
    """
    if data_range is not None:
        if isinstance(data_range, bool) or not np.isfinite(data_range) or data_range <= 0:
            raise InputError(f"data_range must be a positive number, got {data_range!r}")
        return float(data_range)
    arr = np.asarray(reference)
    if arr.dtype in _INT_RANGES:
        return _INT_RANGES[arr.dtype]
    lo, hi = float(arr.min()), float(arr.max())
    if lo < -1.0 or hi > 1.0:
        raise InputError(f"float frames span [{lo:g}, {hi:g}], outside [-1, 1]: pass data_range "
                         "(e.g. data_range=255 for float frames in [0, 255])")
    return 1.0 if lo >= 0 else 2.0


def psnr(generated: Any, reference: Any, *, data_range: float | None = None) -> np.ndarray:
    """Per-frame PSNR in dB (``inf`` for identical frames).

    Parameters
    ----------
    generated, reference : array-like of shape (H, W[, C]) or (T, H, W[, C])
        uint8, uint16 or float frames of the same shape and dtype.
    data_range : float, optional
        Peak value range; default from the reference's dtype (:func:`data_range_of`).
    """
    g, r = _pairs(generated, reference)
    peak = data_range_of(r, data_range)
    mse = ((g.astype(np.float64) - r.astype(np.float64)) ** 2).reshape(len(g), -1).mean(axis=1)
    with np.errstate(divide="ignore"):
        return 10.0 * np.log10(peak ** 2 / mse)


def ssim(generated: Any, reference: Any, *, data_range: float | None = None) -> np.ndarray:
    """Per-frame SSIM (scikit-image, uniform 7x7 window, over channels).

    Same inputs and ``data_range`` rule as :func:`psnr`.
    """
    from skimage.metrics import structural_similarity

    g, r = _pairs(generated, reference)
    peak = data_range_of(r, data_range)
    if min(g.shape[1:3]) < 7:
        raise InputError(f"SSIM needs frames of at least 7x7 pixels, got {g.shape[1:3]}")
    chan = -1 if g.shape[-1] > 1 else None
    gg, rr = (g, r) if chan is not None else (g[..., 0], r[..., 0])
    return np.array([structural_similarity(a, b, data_range=peak, channel_axis=chan) for a, b in zip(gg, rr)])
