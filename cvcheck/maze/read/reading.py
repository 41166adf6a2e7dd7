"""What the maze reader returns: the maze read (:class:`MazeReading`), how it is drawn
(:class:`MazeLook`), its markers (:class:`Marker`), and a maze read whole with no way from the
start to the goal (:class:`Blocked`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...schema import Unparseable
from ..lattice import Cell, MazeSpec

LATTICE_THICKNESS = 0.3  #: walls at least this thick (cells) are read as a lattice (MMGR), thinner ones as lines

Box = tuple[float, float, float, float]  # top, left, bottom, right (floats: line centres)


@dataclass(frozen=True)
class Marker:
    """A coloured blob in the maze: its cell, where in it, how big, what colour."""

    cell: Cell                   #: maze cell (row, col)
    row: float                   #: centroid in cell units (cell (r, c) spans [r, r+1) x [c, c+1))
    col: float
    area: float                  #: in cells^2
    hue: int                     #: OpenCV hue (0-179) of the blob's median colour
    rgb: tuple[int, int, int]    #: median colour
    peak_saturation: int = 0     #: its most vivid part (3x3 mean; a small dot's rim is paler)
    core_area: float = 0.0       #: cells^2 at least half as vivid as its peak (its drawn size under blur)

    def to_dict(self) -> dict[str, Any]:
        return {"cell": list(self.cell), "row": round(self.row, 3), "col": round(self.col, 3),
                "area_cells": round(self.area, 4), "hue": self.hue, "rgb": list(self.rgb)}


@dataclass(frozen=True)
class MazeLook:
    """How a maze is drawn in one picture (what the reader measured)."""

    box: Box                          #: centres of the outer border lines, image pixels
    grid: tuple[int, int]             #: (rows, cols)
    wall_thickness: float             #: interior walls, in cells (MMGR lattice: 0.5)
    border_thickness: float           #: outer border, in cells
    wall_level: float                 #: darkness of the drawn walls (0-1)
    open_level: float                 #: darkness of open boundaries (0 on white; a faint cell grid shows here)
    start: Marker | None = None
    goal: Marker | None = None

    @property
    def walls(self) -> str:
        """``lattice`` (walls as wide as corridors) or ``lines`` (thin walls on cell boundaries)."""
        return "lattice" if self.wall_thickness >= LATTICE_THICKNESS else "lines"

    @property
    def pitch(self) -> tuple[float, float]:
        """Cell size in pixels (rows, cols)."""
        t, l, b, r = self.box
        return ((b - t) / self.grid[0], (r - l) / self.grid[1])

    def to_dict(self) -> dict[str, Any]:
        return {"walls": self.walls, "grid": list(self.grid), "box": [round(v, 1) for v in self.box],
                "pitch_px": [round(v, 2) for v in self.pitch], "wall_thickness_cells": round(self.wall_thickness, 4),
                "border_thickness_cells": round(self.border_thickness, 4), "wall_level": round(self.wall_level, 3),
                "open_level": round(self.open_level, 3),
                "start": self.start.to_dict() if self.start else None,
                "goal": self.goal.to_dict() if self.goal else None}


@dataclass(frozen=True)
class MazeReading:
    """A maze read from a picture: the maze itself and how it is drawn."""

    spec: MazeSpec
    look: MazeLook
    vertical: np.ndarray = field(repr=False)    #: (rows, cols+1) darkness of each vertical boundary segment
    horizontal: np.ndarray = field(repr=False)  #: (rows+1, cols) darkness of each horizontal boundary segment
    threshold: float = 0.0                      #: darkness at or above which a segment is a wall
    ambiguous: int = 0                          #: segments close to the threshold


@dataclass(frozen=True)
class Blocked(Unparseable):
    """A maze read whole - its border, grid, walls and both markers - with no way from the
    start to the goal: the walls as read (``reading``, its spec without a solution) and the
    place it was read at (a :func:`~.box.box_candidates` box and its border bands). In a video, an
    occluder drawn over the puzzle (a watermark's shadow, a caption) can add walls that the
    next frames no longer show (see :func:`~.reader.read_walls_again`)."""

    reading: MazeReading = field(repr=False, compare=False)
    place: Box
    #: which segments (vertical, horizontal) colour covers in the frame read (the markers, the agent)
    covered: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False, compare=False)
