"""LPIPS / FID / FVD from local weights: the maths against independent computations, the
real loading code on weights written here, and clear errors when a setting is empty."""

from __future__ import annotations

import importlib.util
import sys
import warnings

import numpy as np
import pytest
from scipy.linalg import sqrtm

from cvcheck.errors import InputError, MissingDependencyError
from cvcheck.nav.perceptual import fid, frechet_distance, frechet_from_stats, fvd, lpips

needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch not installed")


def _reference_fid(a: np.ndarray, b: np.ndarray) -> float:
    """pytorch-fid's formula: |mu1 - mu2|^2 + Tr(S1) + Tr(S2) - 2 Tr(sqrtm(S1 S2))."""
    s1, s2 = np.cov(a, rowvar=False), np.cov(b, rowvar=False)
    covmean = np.real(sqrtm(s1 @ s2))
    diff = a.mean(0) - b.mean(0)
    return float(diff @ diff + np.trace(s1) + np.trace(s2) - 2 * np.trace(covmean))


@pytest.mark.parametrize("seed,n,m,d", [(0, 50, 60, 6), (1, 200, 150, 16), (2, 30, 30, 3), (3, 80, 40, 10)])
def test_frechet_distance_equals_scipy_sqrtm_reference(seed, n, m, d):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, d)) @ rng.normal(size=(d, d))
    b = rng.normal(loc=0.5, size=(m, d)) @ rng.normal(size=(d, d))
    assert frechet_distance(a, b) == pytest.approx(_reference_fid(a, b), rel=1e-7, abs=1e-9)


def test_frechet_hand_values():
    # 1-D: means 1 and 3, sample variances 2 and 4: (1-3)^2 + 2 + 4 - 2 sqrt(8)
    assert frechet_distance([[0.0], [2.0]], [[1.0], [3.0], [5.0]]) == pytest.approx(10 - 2 * np.sqrt(8))
    x = np.random.default_rng(4).normal(size=(20, 5))
    assert frechet_distance(x, x) == pytest.approx(0.0, abs=1e-9)
    assert frechet_from_stats(np.zeros(2), np.eye(2), np.ones(2), 4 * np.eye(2)) == pytest.approx(2 + 2 + 8 - 2 * 4)
    for bad in (([[1.0]], [[1.0], [2.0]]), (np.zeros((3, 2)), np.zeros((3, 3))), ([[np.nan], [1]], [[0], [1]])):
        with pytest.raises(InputError):
            frechet_distance(*bad)
    with pytest.raises(InputError):
        frechet_from_stats(np.zeros(2), np.eye(3), np.zeros(2), np.eye(2))


def test_settings_named_when_empty_and_torch_named_when_absent(monkeypatch, tmp_path):
    img = np.zeros((2, 32, 32, 3), np.uint8)
    with pytest.raises(MissingDependencyError, match="extractor="):
        fid(img, img, extractor=None)
    with pytest.raises(MissingDependencyError, match="weights="):
        lpips(img, img, weights="")
    with pytest.raises(InputError, match="no such file"):
        fvd(img[None], img[None], extractor=tmp_path / "i3d.pt2")
    (tmp_path / "w.pth").write_bytes(b"x")
    monkeypatch.setitem(sys.modules, "torch", None)  # as if torch were not installed
    with pytest.raises(MissingDependencyError, match="perceptual"):
        lpips(img, img, weights=tmp_path / "w.pth")


# -- FID / FVD with a real extractor file ----------------------------------------------------

def _tiny_extractor(video: bool):
    import torch

    class Stats(torch.nn.Module):
        """Per-channel mean and mean square over space (and time), mixed by a fixed matrix."""

        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(torch.tensor(np.random.default_rng(7).normal(size=(6, 4)),
                                                     dtype=torch.float32))

        def forward(self, x):
            dims = (2, 3, 4) if video else (2, 3)
            return torch.cat([x.mean(dim=dims), (x * x).mean(dim=dims)], dim=1) @ self.w

    return Stats().eval()


def _numpy_features(unit: np.ndarray, video: bool) -> np.ndarray:
    w = np.random.default_rng(7).normal(size=(6, 4)).astype(np.float32).astype(np.float64)
    axes = (1, 2, 3) if video else (1, 2)  # channels-last input here
    return np.concatenate([unit.mean(axis=axes), (unit ** 2).mean(axis=axes)], axis=1) @ w


def _save(model, example, path, fmt):
    import torch

    if fmt == "pt2":
        torch.export.save(torch.export.export(model, (example,), dynamic_shapes=({0: torch.export.Dim.AUTO},)), path)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            torch.jit.save(torch.jit.trace(model, example), path)
    return path


@needs_torch
@pytest.mark.parametrize("fmt", ["pt2", "torchscript"])
def test_fid_with_a_local_extractor_equals_the_features_by_hand(tmp_path, fmt):
    import torch

    rng = np.random.default_rng(8)
    gen = rng.integers(0, 256, size=(9, 12, 12, 3), dtype=np.uint8)
    ref = rng.integers(40, 200, size=(7, 12, 12, 3), dtype=np.uint8)
    path = _save(_tiny_extractor(False), torch.rand(3, 3, 12, 12), tmp_path / f"ext.{fmt}", fmt)
    want = frechet_distance(_numpy_features(gen / 255.0, False), _numpy_features(ref / 255.0, False))
    assert fid(gen, ref, extractor=path, batch_size=4) == pytest.approx(want, rel=1e-4)
    assert fid(gen.astype(np.float32) / 255, ref.astype(np.float32) / 255, extractor=path) == pytest.approx(
        want, rel=1e-4)
    with pytest.raises(InputError):
        fid(gen, ref, extractor=path, batch_size=0)


@needs_torch
def test_fvd_with_a_local_extractor_equals_the_features_by_hand(tmp_path):
    import torch

    rng = np.random.default_rng(9)
    gen = rng.integers(0, 256, size=(5, 4, 8, 8, 3), dtype=np.uint8)
    ref = rng.integers(0, 128, size=(6, 4, 8, 8, 3), dtype=np.uint8)
    path = _save(_tiny_extractor(True), torch.rand(2, 3, 4, 8, 8), tmp_path / "i3d.pt2", "pt2")
    want = frechet_distance(_numpy_features(gen / 255.0, True), _numpy_features(ref / 255.0, True))
    assert fvd(gen, ref, extractor=path, batch_size=2) == pytest.approx(want, rel=1e-4)
    with pytest.raises(InputError, match="extractor"):  # the exported program fixes H, W: a clear error
        fvd(gen[:, :, :6, :6], ref[:, :, :6, :6], extractor=path)
    (tmp_path / "junk.pt2").write_bytes(b"not a program")
    with pytest.raises(InputError, match="junk"):
        fvd(gen, ref, extractor=tmp_path / "junk.pt2")


# -- LPIPS -----------------------------------------------------------------------------------

def _numpy_lpips(feats_a, feats_b, lins):
    total = 0.0
    for fa, fb, w in zip(feats_a, feats_b, lins):
        na = fa / (np.sqrt((fa ** 2).sum(axis=1, keepdims=True)) + 1e-10)
        nb = fb / (np.sqrt((fb ** 2).sum(axis=1, keepdims=True)) + 1e-10)
        total = total + ((na - nb) ** 2 * w.reshape(1, -1, 1, 1)).sum(axis=1).mean(axis=(1, 2))
    return total


@needs_torch
def test_lpips_distance_formula_on_given_features():
    import torch

    from cvcheck.nav.perceptual import lpips_from_features

    rng = np.random.default_rng(10)
    shapes = [(2, 4, 5, 5), (2, 3, 2, 2)]
    fa = [rng.normal(size=s) for s in shapes]
    fb = [rng.normal(size=s) for s in shapes]
    lins = [rng.uniform(size=(1, s[1], 1, 1)) for s in shapes]
    got = lpips_from_features(*([torch.tensor(x) for x in xs] for xs in (fa, fb, lins)))
    np.testing.assert_allclose(got.numpy(), _numpy_lpips(fa, fb, lins), rtol=1e-12)


def _alexnet_features():
    """torchvision's ``alexnet().features``, spelled out."""
    import torch.nn as nn

    return nn.Sequential(nn.Conv2d(3, 64, 11, 4, 2), nn.ReLU(), nn.MaxPool2d(3, 2), nn.Conv2d(64, 192, 5, padding=2),
                         nn.ReLU(), nn.MaxPool2d(3, 2), nn.Conv2d(192, 384, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(384, 256, 3, padding=1), nn.ReLU(), nn.Conv2d(256, 256, 3, padding=1), nn.ReLU(),
                         nn.MaxPool2d(3, 2)).eval()


@needs_torch
def test_lpips_on_random_weights_written_to_disk(tmp_path):
    import torch

    torch.manual_seed(0)
    trunk = _alexnet_features()
    lins = {f"lin{i}.model.1.weight": torch.rand(1, c, 1, 1) for i, c in enumerate((64, 192, 384, 256, 256))}
    torch.save({f"features.{k}": v for k, v in trunk.state_dict().items()}, tmp_path / "alexnet.pth")
    torch.save(lins, tmp_path / "alex.pth")
    rng = np.random.default_rng(11)
    a = rng.integers(0, 256, size=(3, 40, 44, 3), dtype=np.uint8)
    b = np.clip(a.astype(int) + rng.integers(-60, 60, size=a.shape), 0, 255).astype(np.uint8)

    # independent reference: the Sequential's ReLU outputs (indices 1, 4, 7, 9, 11) and the numpy formula
    def taps(x):
        t = torch.tensor(x.transpose(0, 3, 1, 2) / 255.0 * 2 - 1, dtype=torch.float32)
        t = (t - torch.tensor([-0.030, -0.088, -0.188]).view(1, 3, 1, 1)) / torch.tensor(
            [0.458, 0.448, 0.450]).view(1, 3, 1, 1)
        out = []
        with torch.no_grad():
            for i, layer in enumerate(trunk[:12]):  # up to relu5
                t = layer(t)
                if i in (1, 4, 7, 9, 11):
                    out.append(t.double().numpy())
        return out

    want = _numpy_lpips(taps(a), taps(b), [w.double().numpy() for w in lins.values()])
    got = lpips(a, b, weights=tmp_path / "alex.pth", backbone_weights=tmp_path / "alexnet.pth", batch_size=2)
    np.testing.assert_allclose(got, want, rtol=1e-4)
    assert (got > 0).all()
    np.testing.assert_allclose(lpips(a, a, weights=tmp_path / "alex.pth", backbone_weights=tmp_path / "alexnet.pth"),
                               0.0, atol=1e-12)
    # a full lpips.LPIPS state dict (net.sliceK.N keys) alone gives the same numbers
    slices = {0: 1, 3: 2, 6: 3, 8: 4, 10: 5}
    full = {f"net.slice{slices[int(k.split('.')[0])]}.{k}": v for k, v in trunk.state_dict().items()}
    torch.save({**full, **lins, "scaling_layer.shift": torch.zeros(1, 3, 1, 1)}, tmp_path / "full.pth")
    np.testing.assert_allclose(lpips(a, b, weights=tmp_path / "full.pth"), got, rtol=1e-6)
    # clear errors
    with pytest.raises(MissingDependencyError, match="backbone_weights="):
        lpips(a, b, weights=tmp_path / "alex.pth")
    with pytest.raises(InputError, match="lin2"):
        torch.save({**lins, "lin2.model.1.weight": torch.rand(1, 3, 1, 1)}, tmp_path / "bad.pth")
        lpips(a, b, weights=tmp_path / "bad.pth", backbone_weights=tmp_path / "alexnet.pth")
    with pytest.raises(InputError, match="31x31"):
        lpips(a[:, :20, :20], b[:, :20, :20], weights=tmp_path / "alex.pth", backbone_weights=tmp_path / "alexnet.pth")
    (tmp_path / "junk.pth").write_bytes(b"junk")
    with pytest.raises(InputError, match="state dict"):
        lpips(a, b, weights=tmp_path / "junk.pth", backbone_weights=tmp_path / "alexnet.pth")
