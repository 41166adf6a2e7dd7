"""Geo-Align / View-Syn metrics against hand-worked values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cvcheck.errors import InputError
from cvcheck.nav import (
    absolute_trajectory_error,
    dtw_distance,
    final_distance_error,
    final_heading,
    geo_align,
    heading_error,
    ndtw,
    normalize_distance,
    oracle_success,
    path_length,
    psnr,
    relative_pose_error,
    resample_by_arclength,
    sdtw,
    spl,
    ssim,
    success,
)

L_PATH = np.array([[0.0, 0.0], [3.0, 4.0], [3.0, 0.0]])


def test_path_length_and_final_distance():
    assert path_length(L_PATH) == 9.0
    assert final_distance_error(L_PATH, [0.0, 4.0]) == 5.0


def test_success_and_oracle_success_use_segments():
    traj = [[0.0, 0.0], [10.0, 0.0]]
    assert not success(traj, [5.0, 1.0], radius=1.5)
    assert oracle_success(traj, [5.0, 1.0], radius=1.5)  # the segment passes 1 m from the goal
    assert not oracle_success(traj, [5.0, 2.0], radius=1.5)
    assert success(traj, [10.0, 1.0], radius=1.0)  # boundary counts as inside


def test_spl_hand_values_and_vectorised():
    assert spl(1, 10.0, 12.5) == pytest.approx(0.8)
    assert spl(1, 10.0, 8.0) == 1.0  # shorter than the reference is clipped to 1
    np.testing.assert_allclose(spl([1, 0, 1], [10, 10, 4], [12.5, 10, 8]), [0.8, 0.0, 0.5])


def test_dtw_ndtw_sdtw_hand_values():
    ref = [[0, 0], [1, 0], [2, 0]]
    assert dtw_distance([[0, 0], [2, 0]], ref) == pytest.approx(1.0)
    assert dtw_distance(ref, ref) == pytest.approx(0.0, abs=1e-12)
    assert ndtw([[0, 0], [2, 0]], ref, threshold=1.0) == pytest.approx(math.exp(-1 / 3))
    assert sdtw([[0, 0], [2, 0]], ref, threshold=1.0) == pytest.approx(math.exp(-1 / 3))
    assert sdtw([[0, 0], [0.5, 0]], ref, threshold=1.0) == 0.0  # ends 1.5 m from the goal
    # DTW against a brute-force recursion on a random case
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(6, 3)), rng.normal(size=(4, 3))
    c = np.linalg.norm(a[:, None] - b[None], axis=2)
    acc = np.full((7, 5), np.inf)
    acc[0, 0] = 0
    for i in range(1, 7):
        for j in range(1, 5):
            acc[i, j] = c[i - 1, j - 1] + min(acc[i - 1, j], acc[i, j - 1], acc[i - 1, j - 1])
    assert dtw_distance(a, b) == pytest.approx(acc[6, 4])


def test_ate_alignment_modes():
    gt = np.array([[0, 0, 0], [1, 0, 0], [2, 1, 0], [3, 3, 1]], float)
    shifted = gt + [0.3, 0.4, 0.0]
    assert absolute_trajectory_error(shifted, gt, alignment="none") == pytest.approx(0.5)
    assert absolute_trajectory_error(shifted, gt, alignment="se3") == pytest.approx(0.0, abs=1e-12)
    theta = 0.7
    rot = np.array([[np.cos(theta), -np.sin(theta), 0], [np.sin(theta), np.cos(theta), 0], [0, 0, 1]])
    sim = 2.0 * gt @ rot.T + [5, -1, 2]
    assert absolute_trajectory_error(sim, gt, alignment="sim3") == pytest.approx(0.0, abs=1e-9)
    assert absolute_trajectory_error(sim, gt, alignment="se3") > 0.5
    with pytest.raises(InputError):
        absolute_trajectory_error(gt[:3], gt)


def test_rpe_hand_value():
    gt = np.array([[0, 0], [1, 0], [2, 0], [3, 0]], float)
    pred = np.array([[0, 0], [1, 0], [3, 0], [4, 0]], float)  # one step of 2 m instead of 1 m
    assert relative_pose_error(pred, gt, alignment="none") == pytest.approx(math.sqrt(1 / 3))
    assert relative_pose_error(gt, gt) == pytest.approx(0.0, abs=1e-12)


def test_headings_wrap():
    assert heading_error(350.0, 10.0) == pytest.approx(20.0)
    assert heading_error(-170.0, 170.0) == pytest.approx(20.0)
    np.testing.assert_allclose(heading_error([0, 90, 180], [180, 270, 180]), [180, 180, 0])
    assert final_heading([[0, 0], [1, 0], [1, 1], [1, 1]]) == pytest.approx(math.pi / 2)


def test_resample_and_geo_align_suite():
    r = resample_by_arclength(L_PATH, 4)  # 9 m path, points every 3 m
    np.testing.assert_allclose(r, [[0, 0], [1.8, 2.4], [3, 3], [3, 0]])
    gt = np.array([[0, 0], [1, 0], [2, 0], [3, 0]], float)
    out = geo_align(gt.copy(), gt, radius=0.5)
    assert out["sr"] == 1.0 and out["spl"] == 1.0 and out["ndtw"] == 1.0 and out["sdtw"] == 1.0
    assert out["ate"] == pytest.approx(0, abs=1e-9) and out["nav_error"] == 0 and out["dir_error_deg"] == 0


def test_inputs_validated_and_not_modified():
    traj = np.array([[0.0, 0.0], [1.0, 1.0]])
    before = traj.copy()
    path_length(traj), ndtw(traj, traj), absolute_trajectory_error(traj, traj)
    np.testing.assert_array_equal(traj, before)
    for bad in ([[0, 0, 0, 0]], [[np.nan, 0]], [1, 2, 3]):
        with pytest.raises(InputError):
            path_length(bad)


def test_psnr_ssim_hand_values():
    a = np.zeros((2, 8, 8, 3), np.uint8)
    b = np.full((2, 8, 8, 3), 10, np.uint8)
    np.testing.assert_allclose(psnr(b, a), 10 * np.log10(255 ** 2 / 100.0))
    assert np.isinf(psnr(a, a)).all()
    rng = np.random.default_rng(1)
    img = rng.integers(0, 256, size=(16, 16, 3), dtype=np.uint8)
    assert ssim(img, img)[0] == pytest.approx(1.0)
    assert ssim(img, 255 - img)[0] < 0.0
    with pytest.raises(InputError):
        ssim(img, img[:8])


def test_eq1_normalisation():
    assert normalize_distance(10.0, d_min=10.0, d_max=50.0) == 1.0
    assert normalize_distance(60.0, d_min=10.0, d_max=50.0) == 0.0
    np.testing.assert_allclose(normalize_distance([0, 20, 40], d_min=10, d_max=50), [1.0, 0.75, 0.25])
    with pytest.raises(InputError):
        normalize_distance(1.0, d_min=5.0, d_max=5.0)
