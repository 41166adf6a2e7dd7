"""Loops of the path (reflection): holes of the path mask, but not slivers beside a marker."""

from __future__ import annotations

import numpy as np

from cvcheck.maze.metrics import path_loops

K = 16  #: canvas pixels per lattice cell


def _band_with_gap() -> np.ndarray:
    """A path band 12 px tall with a 2-px column gap (rows 21-30, columns 50-51)."""
    path = np.zeros((60, 80), bool)
    path[20:32, 0:62] = True
    path[21:31, 50:52] = False
    return path


def test_an_eye_in_the_path_is_a_loop() -> None:
    path = _band_with_gap()  # the gap is closed by the path above and below: a small cycle
    assert len(path_loops(path, K, min_area=0.04)) == 1


def test_a_pole_across_the_path_beside_a_marker_is_no_loop() -> None:
    # a flag's pole cuts the path's end (rows 20-31 open at columns 50-51); the flag above and
    # the pole's foot below are marker-coloured: the sliver between them is no cycle of the path
    path = np.zeros((60, 80), bool)
    path[20:32, 0:62] = True
    path[20:32, 50:52] = False
    markers = np.zeros_like(path)
    markers[12:19, 48:60] = True   # the flag
    markers[33:37, 48:54] = True   # the pole's foot
    assert path_loops(path, K, min_area=0.04, markers=markers) == []


def test_a_wide_hole_beside_a_marker_is_still_a_loop() -> None:
    # the path circles a whole lattice cell (a wall) next to the goal marker
    path = np.zeros((80, 80), bool)
    path[10:50, 10:50] = True
    path[18:42, 18:42] = False     # a 24-px hole: 1.5 lattice cells across
    markers = np.zeros_like(path)
    markers[44:56, 44:56] = True
    loops = path_loops(path, K, min_area=0.04, markers=markers)
    assert len(loops) == 1 and loops[0][2] > 1.0
