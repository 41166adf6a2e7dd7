"""How thick the drawn strokes are: ink run lengths across lines, wall and corridor widths (lattice
or lines, stretched or not), and faint lines (a light cell grid)."""

from __future__ import annotations

import cv2
import numpy as np

from .ink import INK_MIN
from .regions import _index_runs

GRID_LINE_MIN = 0.015  #: median darkness along a row or column of the maze that makes it a faint grid line
STRETCHED_WALLS = 1.25  #: walls this much thicker one way than the other: the maze is stretched (cells not square)
STRETCHED_MIN_PX = 3.0  #: ... and by at least this many pixels (1- and 2-px lines are no stretch)
LATTICE_CORRIDORS = 2.5  #: ... in a lattice, whose corridors are about as wide as its walls each way (within
                         #: this ratio: blur widens one as it narrows the other); thin lines tell no aspect


def _row_runs(ink: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The runs of ink along each row of a binary map: their starts, as flat indices into the
    map widened by one column (``row * (width + 1) + column``), and their lengths."""
    padded = np.zeros((ink.shape[0], ink.shape[1] + 2), bool)
    padded[:, 1:-1] = ink != 0
    change = np.flatnonzero(padded[:, 1:] != padded[:, :-1])
    # every row opens and closes its runs (starts and ends alternate): each end less its start
    return change[0::2], change[1::2] - change[0::2]


def _run_lengths(ink: np.ndarray) -> np.ndarray:
    """Lengths of the runs of ink along each row of a binary map."""
    return _row_runs(ink)[1]


def _stroke_thickness(ink: np.ndarray) -> float:
    """Typical stroke width of a binary ink map: the most common run length across strokes.

    Across a wall, runs are as long as the wall is thick, and there is one per pixel of
    wall length; along a wall there are few, of many lengths; specks are short. Runs are
    counted with weight sqrt(length), so that specks do not outvote thick walls. (A
    skeleton's distance to the paper is thrown by the spurs noise grows on thick walls.)
    """
    return _typical_run(np.concatenate([_run_lengths(ink), _run_lengths(cv2.transpose(ink))]))


def _typical_run(runs: np.ndarray) -> float:
    """The most common of ``runs`` (lengths), each counted with weight sqrt(length); 1 if none."""
    if runs.size == 0:
        return 1.0
    score = np.bincount(runs) * np.sqrt(np.arange(runs.max() + 1))
    return float(max(1, int(np.argmax(score))))


def _wall_widths(ink: np.ndarray, stroke: float, corridor: float,
                 border: tuple[float, float]) -> tuple[float, float]:
    """The walls' thickness across rows (horizontal walls, pixels) and across columns (vertical
    ones): ``stroke`` both ways (cells are square), unless the walls running each way, with
    enough ink each, are more than STRETCHED_WALLS x and STRETCHED_MIN_PX pixels apart in
    thickness, and the corridors are too, each way about as wide as the walls (a square
    lattice maze stretched to another aspect: its walls and corridors are as much wider one way
    as its cells are; line walls keep their width however the maze is stretched). ``corridor``:
    the typical corridor width both ways; far wider than ``stroke``, the walls are lines, and
    nothing more is measured. ``border``: the border's bands across rows and across columns
    (the thinner of each pair), standing in for the walls where the ink inside runs mostly one
    way (a squeezed 3x3 lattice with no inner horizontal wall: mazeworld 56056 v00005 squeezed,
    read 2x3); the corridors must agree with them as with walls."""
    if corridor > 2 * LATTICE_CORRIDORS * stroke:  # (even stretched 2x one way)
        return stroke, stroke
    ty, tx = _widths_by_direction(ink) or border
    if max(ty, tx) < STRETCHED_WALLS * min(ty, tx) or abs(ty - tx) < STRETCHED_MIN_PX:
        return stroke, stroke
    corridors = _widths_by_direction(1 - ink)
    if corridors is None or (corridors[0] > corridors[1]) != (ty > tx) \
            or max(corridors) < STRETCHED_WALLS * min(corridors) \
            or not all(max(c, t) <= LATTICE_CORRIDORS * min(c, t) for c, t in zip(corridors, (ty, tx))):
        return stroke, stroke
    return _unblurred(ty, corridors[0]), _unblurred(tx, corridors[1])


def _unblurred(wall: float, corridor: float) -> float:
    """A wall's width from the measured widths of ink and corridors: where the ink measured
    wider, their mean - blur widens the one as it narrows the other, and a lattice's are
    alike - or the corridor's own where the ink measured over 1.5x it. Thin lines, far
    narrower than their corridors, keep their width."""
    if corridor >= wall:
        return wall
    return (wall + corridor) / 2 if wall <= 1.5 * corridor else corridor


def _widths_by_direction(ink: np.ndarray) -> tuple[float, float] | None:
    """Thickness of the strokes of a binary map running along rows (their runs down the columns)
    and of those running down columns (their runs along the rows), each the lower quartile of
    its pixels' runs: a pixel belongs to the stroke its longer run follows. None when either has
    under 50 pixels.

    Not the median: in a small lattice maze a wall segment joined to the post and the segment
    beside it is two or three units thick across, and such pixels may be the most of one
    direction's (a 4x4 MMGR maze squeezed to 0.7 of its height: its horizontal walls read 66 px
    thick, twice their 33, so the stretch went unseen and the maze read 3x4: mazeworld 58058
    v00003 squeezed). Runs are never shorter than the stroke, save a blurred edge's pixel or two."""
    along = _run_length_map(ink)
    down = _run_length_map(cv2.transpose(ink)).T
    horizontal = down[along > down]   # in strokes running along the rows: how thick they are
    vertical = along[down > along]
    if min(horizontal.size, vertical.size) < 50:
        return None
    return float(np.percentile(horizontal, 25)), float(np.percentile(vertical, 25))


def _run_length_map(ink: np.ndarray) -> np.ndarray:
    """For every set pixel of a binary map, the length of its run along its row (0 elsewhere)."""
    starts, lengths = _row_runs(ink)
    height, width = ink.shape
    out = np.zeros(height * (width + 1), np.int32)
    out[np.repeat(starts, lengths) + _ramp(lengths)] = np.repeat(lengths, lengths)
    return out.reshape(height, width + 1)[:, :width]


def _ramp(lengths: np.ndarray) -> np.ndarray:
    """0, 1, ..., n-1 for each n of ``lengths``, concatenated."""
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, np.int64)
    return np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)


def _faint_lines(region: np.ndarray, *, axis: int, max_width: int = 4, at_ends: bool = True) -> np.ndarray:
    """Rows (``axis=1``) or columns (``axis=0``) of a darkness map on which a faint line runs
    across it: a run of at most ``max_width`` whose median darkness is at least GRID_LINE_MIN,
    well above the typical row or column (paper noise) and below ink, with paper on both sides
    (not the blurred shoulder of a wall band). The region's ends count as paper; with
    ``at_ends=False`` a run touching them is left out (there it is the blurred flank of a
    band just beyond the region)."""
    med = np.median(region[::2] if axis == 0 else region[:, ::2], axis=axis)
    faint = (med >= GRID_LINE_MIN) & (med >= 3 * float(np.median(med)) + 0.005) & (med < INK_MIN)
    paper = np.concatenate([[True], med < GRID_LINE_MIN, [True]])  # padded: the region's ends count as paper
    keep = []
    for run in _index_runs(np.flatnonzero(faint)):
        if not at_ends and run.size and (run[0] == 0 or run[-1] == med.size - 1):
            continue
        if run.size and run.size <= max_width and paper[run[0]] and paper[run[-1] + 2]:
            keep.append(run)
    return np.concatenate(keep) if keep else np.zeros(0, np.int64)


def _line_centres(indices: np.ndarray) -> np.ndarray:
    """Centres of the runs of consecutive indices (one per line)."""
    if not indices.size:
        return np.zeros(0)
    return np.array([run.mean() for run in _index_runs(indices)])


def _near_lines(lines: np.ndarray, origin: float, pitch: float, thickness: float) -> np.ndarray:
    """Whether each line lies on a boundary of cells ``pitch`` apart from ``origin``."""
    off = (lines - origin) / pitch
    return np.abs(off - np.round(off)) * pitch <= thickness / 2 + max(1.0, 0.06 * pitch)
