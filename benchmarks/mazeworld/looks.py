"""Static boards (walls and background, no markers) in the three looks, with their geometry.

A :class:`Board` carries the affine ``cell_to_px`` mapping maze-cell coordinates ``[col, row, 1]``
(cell ``(r, c)`` centred on ``(r, c)``) to pixel-centre coordinates ``[x, y]`` in the board image.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from maze_dataset import LatticeMaze
from maze_dataset.plotting import MazePlot

LOOKS: tuple[str, ...] = ("mmgr", "mazeplot", "vmeval")


@dataclass(frozen=True, eq=False)
class Board:
    """A rendered maze without markers: ``image`` (H, W, 3) RGB uint8 and its cell geometry."""

    image: np.ndarray
    cell_to_px: np.ndarray
    wall_px: float

    @property
    def pitch(self) -> float:
        """Pixels from one cell centre to the next (mean of both axes)."""
        return float((abs(self.cell_to_px[0, 0]) + abs(self.cell_to_px[1, 1])) / 2)

    def to_px(self, rc: tuple[float, float]) -> tuple[float, float]:
        x, y = self.cell_to_px @ np.array([rc[1], rc[0], 1.0])
        return float(x), float(y)


def lattice_rgb(connection_list: np.ndarray) -> np.ndarray:
    """maze-dataset's ``as_pixels()`` of the bare lattice maze: black walls, white cells."""
    # the call-arg ignores here and below: maze-dataset's dataclass init (muutils, kw_only) is invisible to mypy
    return np.asarray(LatticeMaze(connection_list=connection_list.copy()).as_pixels(), dtype=np.uint8)  # type: ignore[call-arg]


def upscale(lattice: np.ndarray, lattice_px: int) -> np.ndarray:
    """Nearest-neighbour upscale of a lattice image by an integer factor."""
    return np.repeat(np.repeat(lattice, lattice_px, axis=0), lattice_px, axis=1)


def mmgr_affine(lattice_px: int) -> np.ndarray:
    """Cell -> pixel affine of a lattice upscaled by ``lattice_px`` (cell (r,c) = lattice (2r+1, 2c+1))."""
    k = float(lattice_px)
    off = 1.5 * k - 0.5
    return np.array([[2 * k, 0.0, off], [0.0, 2 * k, off]])


def mmgr_board(connection_list: np.ndarray, *, lattice_px: int) -> Board:
    """MMGR look: ``as_pixels()`` upscaled (nearest); walls as wide as corridors."""
    return Board(upscale(lattice_rgb(connection_list), lattice_px), mmgr_affine(lattice_px), float(lattice_px))


def _render(fig: Figure, canvas: FigureCanvasAgg) -> np.ndarray:
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[:, :, :3].copy()


def _data_affine(ax, unit_length: int, height: int) -> np.ndarray:
    """Cell -> pixel affine of a MazePlot axes (cell (r,c) at data (ul*(c+0.5), ul*(r+0.5)))."""
    ul = float(unit_length)
    pts = np.array([[0.5 * ul, 0.5 * ul], [1.5 * ul, 0.5 * ul], [0.5 * ul, 1.5 * ul]])
    disp = ax.transData.transform(pts)
    px = np.stack([disp[:, 0] - 0.5, height - disp[:, 1] - 0.5], axis=1)
    return np.array([
        [px[1, 0] - px[0, 0], px[2, 0] - px[0, 0], px[0, 0]],
        [px[1, 1] - px[0, 1], px[2, 1] - px[0, 1], px[0, 1]],
    ])


def mazeplot_board(connection_list: np.ndarray, *, size_px: tuple[int, int], unit_length: int,
                   title: str = "") -> Board:
    """maze-dataset ``MazePlot`` look: thin black lines, light grey grid, ticks and row/col labels.

    ``size_px`` is the figure's ``(width, height)``; the walls are one image pixel of the plot's
    lattice image, so ``unit_length`` sets their thickness relative to a cell.
    """
    w, h = size_px
    fig = Figure(figsize=(w / 100, h / 100), dpi=100, facecolor="white")
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    MazePlot(LatticeMaze(connection_list=connection_list.copy()), unit_length=unit_length).plot(  # type: ignore[call-arg]
        fig_ax=(fig, ax), title=title
    )
    rows, cols = connection_list.shape[1:]
    if rows != cols:  # MazePlot labels both axes with the row count; label columns properly
        ax.set_xticks(unit_length * (np.arange(cols) + 0.5), np.arange(cols))
    image = _render(fig, canvas)
    affine = _data_affine(ax, unit_length, h)
    return Board(image, affine, float(abs(affine[0, 0]) / unit_length))


def vmeval_board(connection_list: np.ndarray, *, maze_px: int, unit_length: int, pad_px: int = 10) -> Board:
    """VMEvalKit look: ``MazePlot(plain=True)`` cropped to the maze with a white margin.

    ``maze_px`` is the maze's height in pixels; walls are about ``1/unit_length`` of a cell.
    """
    rows, cols = connection_list.shape[1:]
    mh = maze_px
    mw = int(round(maze_px * (unit_length * cols + 1) / (unit_length * rows + 1)))
    w, h = mw + 2 * pad_px, mh + 2 * pad_px
    fig = Figure(figsize=(w / 100, h / 100), dpi=100, facecolor="white")
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((pad_px / w, pad_px / h, mw / w, mh / h))
    MazePlot(LatticeMaze(connection_list=connection_list.copy()), unit_length=unit_length).plot(  # type: ignore[call-arg]
        fig_ax=(fig, ax), plain=True
    )
    image = _render(fig, canvas)
    affine = _data_affine(ax, unit_length, h)
    return Board(image, affine, float(abs(affine[0, 0]) / unit_length))
