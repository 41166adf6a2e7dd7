"""Geo-Align: ATE/RPE on given trajectories (index-matched when lengths agree) and the
documented association otherwise; PSNR/SSIM data ranges as scikit-image."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
from skimage.metrics import peak_signal_noise_ratio, structural_similarity

from cvcheck.errors import InputError
from cvcheck.nav import (
    absolute_trajectory_error,
    association,
    geo_align,
    psnr,
    relative_pose_error,
    resample_by_arclength,
    ssim,
)
from cvcheck.nav.association import associate
from cvcheck.nav.viewsyn import data_range_of

ISSUE_GT = [[0, 0], [1, 0], [2, 0], [3, 0]]
ISSUE_PRED = [[0, 0], [0.5, 0], [2, 0], [3, 0]]


def _random_case(seed: int, dim: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    gt = np.cumsum(rng.normal(size=(int(rng.integers(3, 15)), dim)), axis=0)
    return gt + rng.normal(scale=0.7, size=gt.shape), gt


@pytest.mark.parametrize("alignment", ["none", "se3", "sim3"])
@pytest.mark.parametrize("case", [("issue", None)] + [(s, d) for s in range(6) for d in (2, 3)])
def test_equal_lengths_match_the_standalone_functions(case, alignment):
    seed, dim = case
    pred, gt = (np.array(ISSUE_PRED, float), np.array(ISSUE_GT, float)) if seed == "issue" else _random_case(seed, dim)
    out = geo_align(pred, gt, alignment=alignment)
    assert out["association"] == "index" and out["n_associated"] == len(gt)
    assert out["ate"] == absolute_trajectory_error(pred, gt, alignment=alignment)
    assert out["rpe"] == relative_pose_error(pred, gt, alignment=alignment)


def test_issue_example_hand_values():
    out = geo_align(ISSUE_PRED, ISSUE_GT, alignment="none")
    assert out["ate"] == pytest.approx(0.25)  # one pose 0.5 m off among 4: sqrt(0.25 / 4)
    assert out["rpe"] == pytest.approx(math.sqrt((0.25 + 0.25) / 3))  # steps 0.5 and 1.5 instead of 1


def test_unequal_lengths_use_a_named_arclength_association():
    gt = np.array([[0, 0], [1, 0], [2, 0], [3, 0]], float)
    pred = np.array([[0, 0], [3, 0]], float)  # the same straight path with two poses
    out = geo_align(pred, gt, alignment="none")
    assert out["association"] == "arclength" and out["n_associated"] == 4
    assert out["ate"] == pytest.approx(0.0, abs=1e-12) and out["rpe"] == pytest.approx(0.0, abs=1e-12)
    rng = np.random.default_rng(3)
    pred, gt = rng.normal(size=(7, 3)), rng.normal(size=(4, 3))
    out = geo_align(pred, gt)
    want = absolute_trajectory_error(resample_by_arclength(pred, 7), resample_by_arclength(gt, 7))
    assert out["ate"] == pytest.approx(want)
    with pytest.raises(InputError):
        geo_align(pred, gt, association="index")
    with pytest.raises(InputError):
        geo_align(pred, gt, association="nearest")


def test_timestamps_association_interpolates_the_prediction():
    gt = np.array([[0, 0], [1, 0], [2, 0], [3, 0]], float)
    pred = np.array([[0, 0], [2, 1], [4, 0]], float)
    p, g = associate(pred, gt, method="timestamps", pred_times=[0, 1, 2], gt_times=[0, 0.5, 1, 3])
    np.testing.assert_allclose(p, [[0, 0], [1, 0.5], [2, 1]])  # t = 3 lies after the prediction ends
    np.testing.assert_allclose(g, gt[:3])
    out = geo_align(pred, gt, alignment="none", pred_times=[0, 1, 2], gt_times=[0, 0.5, 1, 3])
    assert out["association"] == "timestamps" and out["n_associated"] == 3
    assert out["ate"] == pytest.approx(math.sqrt((0 + 0.25 + 1) / 3))
    for bad in ({"pred_times": [0, 1, 1], "gt_times": [0, 1, 2, 3]}, {"pred_times": [0, 1], "gt_times": [0, 1, 2, 3]},
                {"pred_times": [10, 11, 12], "gt_times": [0, 1, 2, 3]}, {"pred_times": [0, 1, 2]}):
        with pytest.raises(InputError):
            associate(pred, gt, method="timestamps", **bad)


def test_association_doctests():
    assert doctest.testmod(association).failed == 0


# -- PSNR / SSIM ---------------------------------------------------------------------------

def _pair(dtype, lo=0.0, hi=1.0, seed=0, shape=(2, 16, 16, 3)):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "u":
        top = np.iinfo(dtype).max
        a = rng.integers(0, top + 1, size=shape).astype(dtype)
        b = np.clip(a.astype(np.int64) + rng.integers(-top // 20, top // 20, size=shape), 0, top).astype(dtype)
        return a, b
    a = rng.uniform(lo, hi, size=shape).astype(dtype)
    return a, np.clip(a + rng.normal(scale=0.05 * (hi - lo), size=shape), lo, hi).astype(dtype)


@pytest.mark.parametrize("dtype,lo,hi", [(np.uint8, 0, 255), (np.uint16, 0, 65535), (np.float32, 0.0, 1.0),
                                         (np.float64, 0.0, 1.0), (np.float64, -1.0, 1.0), (np.float16, 0.0, 1.0)])
def test_psnr_equals_scikit_image(dtype, lo, hi):
    gen, ref = _pair(dtype, lo, hi)
    want = [peak_signal_noise_ratio(r, g) for g, r in zip(gen, ref)]  # skimage: data range from the dtype
    np.testing.assert_allclose(psnr(gen, ref), want, rtol=1e-6)


def test_psnr_float_hand_value_and_given_range():
    a = np.zeros((8, 8), np.float64)
    assert psnr(a + 0.1, a)[0] == pytest.approx(10 * math.log10(1 / 0.01))
    b = np.full((8, 8), 10.0)
    assert psnr(b, np.zeros((8, 8)), data_range=255)[0] == pytest.approx(10 * math.log10(255 ** 2 / 100))
    with pytest.raises(InputError):  # float values outside [-1, 1] need a data range
        psnr(b, b * 2)
    for bad in ({"data_range": 0}, {"data_range": float("nan")}):
        with pytest.raises(InputError):
            psnr(a, a, **bad)


@pytest.mark.parametrize("bad", [np.zeros((8, 8), np.int32), np.zeros((8, 8), bool), np.full((8, 8), np.nan)])
def test_psnr_refuses_other_dtypes_and_nan(bad):
    with pytest.raises(InputError):
        psnr(bad, bad)


def test_psnr_refuses_mixed_dtypes():
    with pytest.raises(InputError):
        psnr(np.zeros((8, 8), np.uint8), np.zeros((8, 8), np.float64))


@pytest.mark.parametrize("dtype,lo,hi", [(np.uint8, 0, 255), (np.uint16, 0, 65535), (np.float32, 0.0, 1.0),
                                         (np.float64, -1.0, 1.0)])
def test_ssim_equals_scikit_image_with_the_dtype_range(dtype, lo, hi):
    gen, ref = _pair(dtype, lo, hi, seed=1)
    rng = data_range_of(ref)
    assert rng == {np.uint8: 255.0, np.uint16: 65535.0}.get(dtype, 2.0 if lo < 0 else 1.0)
    want = [structural_similarity(g, r, data_range=rng, channel_axis=-1) for g, r in zip(gen, ref)]
    np.testing.assert_allclose(ssim(gen, ref), want, rtol=1e-6)
    assert ssim(ref, ref) == pytest.approx(1.0)
