"""View-Syn perceptual metrics from local weights: LPIPS, FID and FVD (extra ``perceptual``).

Nothing is downloaded: each network comes from a local file named by an argument, and an
empty argument or a missing file is an error naming that argument. PyTorch is imported
only when a network is needed (``pip install "cvcheck[perceptual]"``).

* :func:`frechet_distance` (numpy/scipy only): the Fréchet distance between two feature
  sets, ``|mu_a - mu_b|^2 + Tr(S_a + S_b - 2 (S_a S_b)^(1/2))`` (FID, FVD). The trace of the
  matrix square root is taken as the sum of the square roots of the eigenvalues of the
  symmetric ``S_a^(1/2) S_b S_a^(1/2)``, which is real and stable where ``sqrtm`` of the
  product can turn complex.
* :func:`fid` / :func:`fvd`: features from ``extractor``, a local ``torch.export`` program
  (``.pt2``) or TorchScript file mapping a float32 batch in [0, 1] of shape (N, 3, H, W)
  (images) or (N, 3, T, H, W) (videos) to (N, D) features, e.g. a wrapper around the
  Inception-V3 pool features (FID) or the I3D logits (FVD) that resizes/normalises as
  that network needs. Load only files you trust.
* :func:`lpips`: LPIPS v0.1 with the AlexNet trunk, defined here. ``weights``: the
  linear-layer file (``lin0.model.1.weight`` ... ``lin4``, the lpips package's
  ``weights/v0.1/alex.pth``); ``backbone_weights``: torchvision's AlexNet state dict
  (``features.0.weight`` ...). A full ``lpips.LPIPS`` state dict (``net.sliceK.N.*`` keys
  too) can be given as ``weights`` alone.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..errors import InputError, MissingDependencyError
from .viewsyn import _frames, _pairs, data_range_of

_ALEX = ((0, 4, 2), (3, 1, 2), (6, 1, 1), (8, 1, 1), (10, 1, 1))  # (features index, stride, padding)
_ALEX_SHAPES = ((64, 3, 11), (192, 64, 5), (384, 192, 3), (256, 384, 3), (256, 256, 3))
_SHIFT = (-0.030, -0.088, -0.188)
_SCALE = (0.458, 0.448, 0.450)


def _torch() -> Any:
    try:
        import torch
    except ImportError as exc:
        raise MissingDependencyError('LPIPS, FID and FVD need PyTorch: pip install "cvcheck[perceptual]"') from exc
    return torch


def _file(path: str | Path | None, setting: str, what: str) -> Path:
    if path is None or not str(path).strip():
        raise MissingDependencyError(f"{what} needs {setting}=<a local file>; nothing is downloaded")
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{setting}={str(path)!r}: no such file")
    return p


# -- Fréchet distance ----------------------------------------------------------------------

def _matrix(x: Any, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != 2 or len(arr) < 2 or arr.shape[1] < 1:
        raise InputError(f"{name} must be (N, D) with N >= 2, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise InputError(f"{name} contains NaN or infinite values")
    return arr


def frechet_from_stats(mu_a: Any, cov_a: Any, mu_b: Any, cov_b: Any) -> float:
    """Fréchet distance between Gaussians ``N(mu_a, cov_a)`` and ``N(mu_b, cov_b)``."""
    ma, mb = np.atleast_1d(np.asarray(mu_a, np.float64)), np.atleast_1d(np.asarray(mu_b, np.float64))
    sa, sb = np.atleast_2d(np.asarray(cov_a, np.float64)), np.atleast_2d(np.asarray(cov_b, np.float64))
    d = ma.shape[0]
    if ma.shape != (d,) or mb.shape != (d,) or sa.shape != (d, d) or sb.shape != (d, d):
        raise InputError(f"means must be (D,) and covariances (D, D) alike, got {ma.shape}, {sa.shape}, "
                         f"{mb.shape}, {sb.shape}")
    if not all(np.isfinite(a).all() for a in (ma, mb, sa, sb)):
        raise InputError("means and covariances must be finite")
    w, v = np.linalg.eigh((sa + sa.T) / 2)
    root_a = (v * np.sqrt(np.clip(w, 0.0, None))) @ v.T
    m = root_a @ ((sb + sb.T) / 2) @ root_a
    tr_covmean = float(np.sqrt(np.clip(np.linalg.eigvalsh((m + m.T) / 2), 0.0, None)).sum())
    diff = ma - mb
    return float(diff @ diff + np.trace(sa) + np.trace(sb) - 2.0 * tr_covmean)


def frechet_distance(features_a: Any, features_b: Any) -> float:
    """Fréchet distance between two feature sets ``(N, D)`` and ``(M, D)`` (sample covariances)."""
    a, b = _matrix(features_a, "features_a"), _matrix(features_b, "features_b")
    if a.shape[1] != b.shape[1]:
        raise InputError(f"feature sizes differ: {a.shape[1]} vs {b.shape[1]}")
    return frechet_from_stats(a.mean(0), np.cov(a, rowvar=False), b.mean(0), np.cov(b, rowvar=False))


# -- feature extractors (FID / FVD) --------------------------------------------------------

def load_extractor(path: str | Path | None, *, setting: str = "extractor", what: str = "FID/FVD") -> Any:
    """A feature extractor from a local ``.pt2`` (``torch.export``) or TorchScript file."""
    p = _file(path, setting, what)
    torch = _torch()
    try:
        if p.suffix == ".pt2":
            return torch.export.load(str(p)).module()
        with warnings.catch_warnings():  # TorchScript is deprecated in recent PyTorch, still loadable
            warnings.simplefilter("ignore", DeprecationWarning)
            return torch.jit.load(str(p), map_location="cpu").eval()
    except Exception as exc:  # noqa: BLE001 - any loader failure is a bad file
        raise InputError(f"{setting}={str(path)!r}: not a loadable .pt2 or TorchScript file "
                         f"({type(exc).__name__}: {exc})") from exc


def _unit(frames: np.ndarray) -> np.ndarray:
    """Frames as float32 in [0, 1] (floats in [-1, 1] with negatives are mapped from [-1, 1])."""
    rng = data_range_of(frames)
    x = frames.astype(np.float32)
    return (x + 1.0) / 2.0 if rng == 2.0 and frames.dtype.kind == "f" else x / np.float32(rng)


def _features(model: Any, batch: np.ndarray, batch_size: int, setting: str) -> np.ndarray:
    torch = _torch()
    out = []
    with torch.no_grad():
        for i in range(0, len(batch), batch_size):
            chunk = torch.from_numpy(np.ascontiguousarray(batch[i:i + batch_size]))
            try:
                feats = model(chunk)
            except Exception as exc:  # noqa: BLE001 - report the extractor's complaint as bad input
                raise InputError(f"{setting} failed on a batch of shape {tuple(chunk.shape)}: "
                                 f"{type(exc).__name__}: {exc}") from exc
            if not isinstance(feats, torch.Tensor) or feats.ndim < 1 or feats.shape[0] != len(chunk):
                raise InputError(f"{setting} must return a (N, D) tensor, got {getattr(feats, 'shape', feats)!r}")
            out.append(feats.reshape(len(chunk), -1).double().numpy())
    return np.concatenate(out)


def _images(images: Any, name: str) -> np.ndarray:
    x = _unit(_frames(images, name))  # (N, H, W, C)
    x = np.repeat(x, 3, axis=-1) if x.shape[-1] == 1 else x
    return x.transpose(0, 3, 1, 2)


def _videos(videos: Any, name: str) -> np.ndarray:
    arr = np.asarray(videos)
    if arr.ndim == 4:
        arr = arr[..., None]
    if arr.ndim != 5 or arr.shape[-1] not in (1, 3, 4):
        raise InputError(f"{name} must be (N, T, H, W[, C]) videos, got shape {arr.shape}")
    n, t = arr.shape[:2]
    x = _images(arr.reshape(n * t, *arr.shape[2:]), name)  # (N*T, 3, H, W)
    return x.reshape(n, t, *x.shape[1:]).transpose(0, 2, 1, 3, 4)


def _positive_int(v: int, name: str) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
        raise InputError(f"{name} must be a positive integer, got {v!r}")
    return int(v)


def fid(generated: Any, reference: Any, *, extractor: str | Path | None, batch_size: int = 32) -> float:
    """FID between two image sets ``(N, H, W[, C])`` (uint8, uint16 or float; N >= 2 each).

    ``extractor``: the local feature-extractor file (module docstring).
    """
    model = load_extractor(extractor, what="FID")
    bs = _positive_int(batch_size, "batch_size")
    fg = _features(model, _images(generated, "generated"), bs, "extractor")
    fr = _features(model, _images(reference, "reference"), bs, "extractor")
    return frechet_distance(fg, fr)


def fvd(generated: Any, reference: Any, *, extractor: str | Path | None, batch_size: int = 8) -> float:
    """FVD between two video sets ``(N, T, H, W[, C])`` (N >= 2 each), from a local extractor."""
    model = load_extractor(extractor, what="FVD")
    bs = _positive_int(batch_size, "batch_size")
    fg = _features(model, _videos(generated, "generated"), bs, "extractor")
    fr = _features(model, _videos(reference, "reference"), bs, "extractor")
    return frechet_distance(fg, fr)


# -- LPIPS ---------------------------------------------------------------------------------

def _state(path: Path, setting: str) -> dict[str, Any]:
    torch = _torch()
    try:
        sd = torch.load(str(path), map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - any loader failure is a bad file
        raise InputError(f"{setting}={str(path)!r}: not a PyTorch state dict ({type(exc).__name__}: {exc})") from exc
    if not isinstance(sd, dict):
        raise InputError(f"{setting}={str(path)!r}: not a state dict")
    return {re.sub(r"^module\.", "", str(k)): v for k, v in sd.items()}


def _lpips_params(weights: str | Path | None, backbone_weights: str | Path | None) -> tuple[list[Any], list[Any]]:
    lin_sd = _state(_file(weights, "weights", "LPIPS"), "weights")
    trunk = {f"features.{m.group(1)}.{m.group(2)}": v for k, v in lin_sd.items()
             if (m := re.fullmatch(r"net\.slice\d+\.(\d+)\.(weight|bias)", k))}
    if backbone_weights is not None or not trunk:
        if backbone_weights is None:
            raise MissingDependencyError("LPIPS needs backbone_weights=<local torchvision AlexNet state dict> "
                                         "(the weights file holds only the linear layers); nothing is downloaded")
        trunk = _state(_file(backbone_weights, "backbone_weights", "LPIPS"), "backbone_weights")
    convs, lins = [], []
    for (idx, _, _), (cout, cin, k) in zip(_ALEX, _ALEX_SHAPES):
        w, b = trunk.get(f"features.{idx}.weight"), trunk.get(f"features.{idx}.bias")
        if w is None or b is None or tuple(w.shape) != (cout, cin, k, k) or tuple(b.shape) != (cout,):
            raise InputError(f"backbone_weights: features.{idx} must be a ({cout}, {cin}, {k}, {k}) conv with bias")
        convs.append((w.float(), b.float()))
    for i, (cout, _, _) in enumerate(_ALEX_SHAPES):
        w = lin_sd.get(f"lin{i}.model.1.weight")
        if w is None or tuple(w.shape) != (1, cout, 1, 1):
            raise InputError(f"weights: lin{i}.model.1.weight must have shape (1, {cout}, 1, 1)")
        lins.append(w.float())
    return convs, lins


def _alexnet_taps(x: Any, convs: Sequence[Any]) -> list[Any]:
    """relu1 ... relu5 of torchvision's AlexNet ``features`` (LPIPS' five taps)."""
    f = _torch().nn.functional
    taps = []
    for (w, b), (idx, stride, pad) in zip(convs, _ALEX):
        if idx in (3, 6):  # max pools before conv2 and conv3
            x = f.max_pool2d(x, kernel_size=3, stride=2)
        x = f.relu(f.conv2d(x, w, b, stride=stride, padding=pad))
        taps.append(x)
    return taps


def lpips_from_features(feats_a: Sequence[Any], feats_b: Sequence[Any], lin_weights: Sequence[Any]) -> Any:
    """LPIPS from per-layer features ``(N, C_l, H_l, W_l)``: per layer, unit-normalise over
    channels, square the difference, weight the channels by ``lin_weights[l]`` ``(1, C_l, 1, 1)``,
    average over space; sum over layers. Returns a tensor ``(N,)``."""
    total = 0
    for fa, fb, w in zip(feats_a, feats_b, lin_weights, strict=True):
        na = fa / (fa.pow(2).sum(dim=1, keepdim=True).sqrt() + 1e-10)
        nb = fb / (fb.pow(2).sum(dim=1, keepdim=True).sqrt() + 1e-10)
        total = total + ((na - nb).pow(2) * w).sum(dim=1).mean(dim=(1, 2))
    return total


def lpips(generated: Any, reference: Any, *, weights: str | Path | None,
          backbone_weights: str | Path | None = None, batch_size: int = 16) -> np.ndarray:
    """Per-frame LPIPS (v0.1, AlexNet; lower = more similar) between frames of equal shape.

    Frames ``(H, W[, C])`` or ``(T, H, W[, C])``, uint8, uint16 or float, at least 31x31
    pixels; they are mapped to [-1, 1] as LPIPS expects. Weight files: module docstring.
    """
    g, r = _pairs(generated, reference)
    if min(g.shape[1:3]) < 31:
        raise InputError(f"LPIPS (AlexNet) needs frames of at least 31x31 pixels, got {g.shape[1:3]}")
    bs = _positive_int(batch_size, "batch_size")
    convs, lins = _lpips_params(weights, backbone_weights)  # names an empty setting before importing torch
    torch = _torch()
    shift = torch.tensor(_SHIFT).view(1, 3, 1, 1)
    scale = torch.tensor(_SCALE).view(1, 3, 1, 1)

    def prep(x: np.ndarray) -> Any:
        x = np.repeat(x, 3, axis=-1) if x.shape[-1] == 1 else x
        t = torch.from_numpy(np.ascontiguousarray(_unit(x).transpose(0, 3, 1, 2)))
        return ((t * 2 - 1) - shift) / scale

    out = []
    with torch.no_grad():
        for i in range(0, len(g), bs):
            ta, tb = _alexnet_taps(prep(g[i:i + bs]), convs), _alexnet_taps(prep(r[i:i + bs]), convs)
            out.append(lpips_from_features(ta, tb, lins).double().numpy())
    return np.concatenate(out)
