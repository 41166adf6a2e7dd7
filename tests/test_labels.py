"""Sparse masks labelled box by box: exactly OpenCV's components, labels in its order."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cvcheck.vision.labels import components, occupied_boxes


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(3, 120), st.integers(3, 120), st.integers(1, 8), st.booleans())
def test_components_are_opencvs(seed: int, h: int, w: int, blobs: int, specks: bool) -> None:
    rng = np.random.default_rng(seed)
    mask = np.zeros((h, w), np.uint8)
    for _ in range(blobs):
        y, x = int(rng.integers(0, h)), int(rng.integers(0, w))
        mask[y:y + int(rng.integers(1, 7)), x:x + int(rng.integers(1, 7))] = 255
    if specks:
        mask[rng.random((h, w)) < 0.003] = 255
    count, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    got = components(mask)
    assert got[0] == count and np.array_equal(got[1], labels)
    assert np.array_equal(got[2][1:], stats[1:]) and got[2][0, cv2.CC_STAT_AREA] == stats[0, cv2.CC_STAT_AREA]
    assert np.array_equal(got[3][1:], cents[1:])  # bit-identical centroids


def test_far_apart_pixels_are_labelled_in_small_boxes() -> None:
    mask = np.zeros((300, 240), np.uint8)
    mask[3:9, 5:11] = mask[280:286, 220:226] = mask[150, 120] = 255
    assert occupied_boxes(mask) == [(5, 3, 6, 6), (120, 150, 1, 1), (220, 280, 6, 6)]
    count, labels, _, _ = components(mask)
    assert count == 4 and labels[150, 120] == 2 and labels[283, 223] == 3
