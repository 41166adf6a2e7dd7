"""The small array helpers of the per-frame video analysis against what they stand for:
numpy's order statistics and OpenCV's bounding box."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from cvcheck.vision.masks import bounding_rect, elongation, rect_within, union_rect
from cvcheck.vision.order_stats import median, upper_quartile


@pytest.mark.parametrize("size", [1, 2, 3, 4, 7, 50, 333])
def test_the_upper_quartile_is_numpys_75th_percentile(size: int) -> None:
    rng = np.random.default_rng(size)
    for _ in range(50):
        values = rng.integers(0, 256, size).astype(np.uint8)
        assert upper_quartile(values) == float(np.percentile(values, 75))


@pytest.mark.parametrize("size", [1, 2, 3, 8, 41, 200])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_the_median_is_numpys(size: int, dtype: type) -> None:
    rng = np.random.default_rng(size)
    for _ in range(50):
        values = (rng.random(size) * 100).astype(dtype)
        assert median(values) == float(np.median(values))


@pytest.mark.parametrize("h, w, longest", [(7, 7, 1.01), (1, 1, 1.0), (2, 20, 12.0), (20, 3, 8.0)])
def test_elongation_of_a_square_a_pixel_and_bars(h: int, w: int, longest: float) -> None:
    ys, xs = np.nonzero(np.ones((h, w), bool))
    e = elongation(ys, xs)
    assert 1.0 <= e <= longest and (h == w or e >= 0.75 * max(h, w) / min(h, w))


def test_boxes_of_masks_and_their_union() -> None:
    rng = np.random.default_rng(5)
    for _ in range(200):
        mask = np.zeros((30, 40), np.uint8)
        for _ in range(int(rng.integers(0, 3))):
            y, x = int(rng.integers(0, 28)), int(rng.integers(0, 38))
            mask[y:y + int(rng.integers(1, 3)), x:x + int(rng.integers(1, 3))] = 255
        box = bounding_rect(mask)
        assert box == tuple(int(v) for v in cv2.boundingRect(mask))
        assert rect_within(mask, mask.any(axis=1)) == box  # (only the rows holding pixels are read)
        other = bounding_rect(np.roll(mask, (3, -5), axis=(0, 1)))
        both = bounding_rect(mask | np.roll(mask, (3, -5), axis=(0, 1)))
        assert union_rect(box, other) == both
    empty = (0, 0, 0, 0)
    assert bounding_rect(np.zeros((4, 4), np.uint8))[2] == 0
    assert union_rect(empty, (1, 2, 3, 4)) == (1, 2, 3, 4) == union_rect((1, 2, 3, 4), empty)
