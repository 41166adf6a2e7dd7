"""Property tests (hypothesis) for the navigation geometry."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from cvcheck.nav import absolute_trajectory_error, dtw_distance, heading_error, ndtw, path_length
from cvcheck.nav.regions import inside_region, path_touches_region

coords = st.floats(-50, 50, allow_nan=False, width=64)
traj3 = arrays(np.float64, st.tuples(st.integers(3, 12), st.just(3)), elements=coords)
traj2 = arrays(np.float64, st.tuples(st.integers(2, 10), st.just(2)), elements=coords)
FAST = settings(max_examples=40, deadline=None)


@FAST
@given(traj3, traj3)
def test_dtw_symmetric_nonnegative_and_zero_on_self(a, b):
    assert dtw_distance(a, b) >= 0
    assert np.isclose(dtw_distance(a, b), dtw_distance(b, a))
    assert dtw_distance(a, a) < 1e-9 and ndtw(a, a) == pytest.approx(1.0)
    assert 0.0 <= ndtw(a, b) <= 1.0


@FAST
@given(traj3, st.floats(0.1, 10), st.floats(-np.pi, np.pi), arrays(np.float64, 3, elements=coords))
def test_ate_sim3_invariant_to_similarity_transforms(gt, scale, angle, shift):
    if np.ptp(gt, axis=0).max() < 1e-3:
        return  # degenerate (all points equal): no alignment is defined
    c, s = np.cos(angle), np.sin(angle)
    rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    moved = scale * gt @ rot.T + shift
    assert absolute_trajectory_error(moved, gt, alignment="sim3") < 1e-6 * (1 + np.abs(gt).max())
    assert np.isclose(path_length(moved), scale * path_length(gt))


@FAST
@given(st.floats(-1000, 1000), st.floats(-1000, 1000))
def test_heading_error_symmetric_and_bounded(a, b):
    e = heading_error(a, b)
    assert 0.0 <= e <= 180.0 + 1e-9 and np.isclose(e, heading_error(b, a))


@FAST
@given(traj2, st.floats(-20, 20), st.floats(-20, 20), st.floats(0.5, 10), st.floats(0.5, 10))
def test_box_touch_agrees_with_dense_sampling(traj, x0, y0, w, h):
    box = {"box": [[x0, y0], [x0 + w, y0 + h]]}
    t = np.linspace(0, 1, 400)[:, None]
    dense = np.concatenate([a + t * (b - a) for a, b in zip(traj[:-1], traj[1:])])
    sampled = bool(((dense >= [x0, y0]) & (dense <= [x0 + w, y0 + h])).all(axis=1).any())
    touches = path_touches_region(traj, box)
    assert touches or not sampled  # sampling can only miss a touch, never invent one
    if inside_region(traj[-1], box):
        assert touches


def test_a_vanishingly_small_step_does_not_warn_or_mislead():
    # a step of one subnormal overflows (lo - a) / d to inf (a hypothesis example found it):
    # no RuntimeWarning, and the slab test still answers right
    import warnings

    box = {"box": [[1.0, -1.0], [2.0, 1.0]]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not path_touches_region([[0.0, 0.0], [5e-324, 0.0]], box)
        assert path_touches_region([[0.0, 0.0], [3.0, 5e-324]], box)
