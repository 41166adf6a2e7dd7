"""What the frame analyser hands on: each frame's objects and layout match, in lattice
coordinates (:mod:`.video_frames` makes them; :mod:`.track` and :mod:`.video_metrics`
read them, with no need of the canvas machinery behind them).

Lattice cell ``(i, j)`` spans ``[i, i+1) x [j, j+1)``, so maze cell ``(r, c)`` has its
centre at ``(2r+1.5, 2c+1.5)`` (see :class:`~.video_canvas.CanvasGeometry`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Blob:
    """A coloured object in one frame (lattice coordinates)."""

    row: float
    col: float
    area: float           #: lattice cells^2
    overlap: float = 0.0  #: share of its pixels inside eroded wall cores (lattice style)
    fresh: bool = True    #: False when the position is held from an earlier frame (a still trail)


@dataclass(frozen=True)
class FrameObs:
    """What one frame shows."""

    index: int                      #: analysed frame number (0-based, after stride)
    iou: float                      #: wall layout IoU against the reference
    agents: tuple[Blob, ...]        #: agent-coloured objects
    goal: Blob | None               #: the largest goal-coloured object
    located: bool = True
    goal_covered: float = 0.0       #: share of the reference goal cell covered by agent-coloured pixels
    goal_faint: bool = False        #: the goal was found only paled in its cell (its size not measured)
