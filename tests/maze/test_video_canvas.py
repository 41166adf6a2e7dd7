"""CanvasGeometry: the one place a video canvas's pixels and the maze lattice are related."""

from __future__ import annotations

import numpy as np
import pytest

from cvcheck.maze.style import get_style
from cvcheck.maze.video_canvas import CanvasGeometry
from cvcheck.maze.video_layout import WallLayout
from cvcheck.synth.maze_gen import make_maze


@pytest.mark.parametrize("lines", [False, True])
@pytest.mark.parametrize("k", [1, 4, 8, 13])
def test_pixel_and_lattice_coordinates_are_inverse(lines: bool, k: int) -> None:
    geo = CanvasGeometry(grid=(3, 5), k=k, lines=lines)
    px = np.arange(geo.size[1], dtype=float)
    # a pixel's centre (i + 0.5 on the canvas) maps back onto itself
    assert np.allclose(geo.to_canvas(geo.to_lattice(px)), px + 0.5)
    assert geo.to_lattice(float(geo.pad) - 0.5) == pytest.approx(geo.offset)


def test_lattice_walls_fill_the_canvas() -> None:
    geo = CanvasGeometry(grid=(3, 5), k=8, lines=False)
    assert (geo.pad, geo.offset, geo.lattice, geo.inner, geo.size) == (0, 0.0, (7, 11), (56, 88), (56, 88))
    # the centre of lattice cell 1 (1.5) lies 12 px in at 8 px a lattice cell
    assert geo.to_canvas(1.5) == 12.0


def test_thin_lines_start_half_a_cell_in_with_a_margin() -> None:
    geo = CanvasGeometry(grid=(3, 5), k=8, lines=True)
    assert (geo.pad, geo.offset, geo.lattice, geo.inner, geo.size) == (2, 0.5, (6, 10), (48, 80), (52, 84))
    # the border lines (lattice 0.5 and 2 * cells + 0.5) fall at pad and pad + lattice * k
    assert geo.to_canvas(0.5) == geo.pad
    assert geo.to_canvas(2 * 5 + 0.5) == geo.pad + 10 * 8


def test_of_reads_the_grid_and_the_wall_kind() -> None:
    spec = make_maze(4, rng=np.random.default_rng(0))
    assert CanvasGeometry.of(spec, get_style("mazeplot"), 6) == CanvasGeometry(grid=spec.shape, k=6, lines=True)
    assert not CanvasGeometry.of(spec, get_style("mmgr"), 6).lines


@pytest.mark.parametrize("grid, k", [((0, 3), 8), ((3, 3), 0)])
def test_an_empty_canvas_is_refused(grid: tuple[int, int], k: int) -> None:
    with pytest.raises(ValueError, match="at least 1x1"):
        CanvasGeometry(grid=grid, k=k, lines=True)


def test_the_wall_layout_refuses_the_canvas_of_another_maze() -> None:
    spec = make_maze(4, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="not one of this 4x4 maze with lines walls"):
        WallLayout(spec, get_style("mazeplot"), CanvasGeometry(grid=(4, 5), k=6, lines=True))
    with pytest.raises(ValueError, match="with lattice walls"):
        WallLayout(spec, get_style("mmgr"), CanvasGeometry(grid=(4, 4), k=6, lines=True))
    assert WallLayout(spec, get_style("mmgr"), CanvasGeometry(grid=(4, 4), k=6, lines=False)).k == 6
