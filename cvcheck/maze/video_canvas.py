"""Where a maze lies on a video's canvas: one geometry for every reader of the canvas.

Each frame of a maze video is resampled onto a canvas of ``k`` pixels per lattice cell
(:mod:`.video_place`). Lattice walls fill the canvas from its first pixel. A thin-line
maze's border lines sit at the centres of the wall lattice cells, so its canvas starts half
a lattice cell into the maze and keeps a margin of ``pad`` pixels around it, which holds
border lines that jitter by a pixel or two. The per-frame analysis, the wall layout, the
sampler and the overlays all place things with :class:`CanvasGeometry`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from .lattice import MazeSpec
from .style import StyleProfile

Coord = TypeVar("Coord", float, np.ndarray)


@dataclass(frozen=True)
class CanvasGeometry:
    """How a maze of ``grid`` cells lies on a canvas of ``k`` pixels per lattice cell.

    Coordinates: canvas pixel ``i`` spans ``[i, i+1)`` (its centre at ``i + 0.5``); lattice
    cell ``(i, j)`` spans ``[i, i+1) x [j, j+1)`` (see :mod:`.video_frames`).
    """

    grid: tuple[int, int]  #: maze cells (rows, cols)
    k: int                 #: canvas pixels per lattice cell
    lines: bool            #: thin-line walls (else lattice walls)
    pad: int = field(init=False)       #: canvas margin (px) around a thin-line maze (0 for lattice walls)
    offset: float = field(init=False)  #: lattice cells into the maze where the canvas's maze part starts
    lattice: tuple[int, int] = field(init=False)  #: lattice cells the canvas spans inside its margin
    inner: tuple[int, int] = field(init=False)    #: (height, width) of that part, pixels
    size: tuple[int, int] = field(init=False)     #: canvas (height, width), pixels: ``inner`` and the margin

    def __post_init__(self) -> None:
        rows, cols = self.grid
        if rows < 1 or cols < 1 or self.k < 1:
            raise ValueError(f"a canvas needs a grid of at least 1x1 cells and k >= 1, got {self.grid}, k={self.k}")
        pad = self.k // 4 if self.lines else 0
        lattice = (2 * rows, 2 * cols) if self.lines else (2 * rows + 1, 2 * cols + 1)
        object.__setattr__(self, "pad", pad)
        object.__setattr__(self, "offset", 0.5 if self.lines else 0.0)
        inner = (lattice[0] * self.k, lattice[1] * self.k)
        object.__setattr__(self, "lattice", lattice)
        object.__setattr__(self, "inner", inner)
        object.__setattr__(self, "size", (inner[0] + 2 * pad, inner[1] + 2 * pad))

    @classmethod
    def of(cls, spec: MazeSpec, style: StyleProfile, k: int) -> CanvasGeometry:
        """The canvas of ``spec`` drawn with ``style``'s wall kind at ``k`` pixels a lattice cell."""
        rows, cols = spec.shape
        return cls(grid=(int(rows), int(cols)), k=int(k), lines=style.walls == "lines")

    def to_lattice(self, canvas_px: Coord) -> Coord:
        """Canvas pixel coordinates (rows or columns; a pixel's centre at ``i + 0.5``: pass the
        pixel index ``i``) in lattice cells."""
        return (canvas_px + 0.5 - self.pad) / float(self.k) + self.offset

    def to_canvas(self, lattice: Coord) -> Coord:
        """Lattice coordinates (rows or columns) as continuous canvas coordinates (pixel ``i``
        spans ``[i, i+1)``): the inverse of :meth:`to_lattice` but for the half pixel."""
        return (lattice - self.offset) * self.k + self.pad


__all__ = ["CanvasGeometry"]
