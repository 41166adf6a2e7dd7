"""Reading a maze from a picture: each place it may be tried, its grid, walls and markers read there
(:func:`read_maze`), and its walls read again where an occluder blocked the way
(:func:`read_walls_again`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import cv2
import numpy as np

from ...errors import InputError
from ...schema import Unparseable
from ...vision.arrays import as_rgb
from ..lattice import MazeSpec, lattice_to_cell
from .box import _box_shift, _new_box, box_candidates
from .grid import MAX_GRID, _best_grid, estimate_grid
from .ink import _ink_and_colour, colour_mask
from .markers import SMALL_MARKER_MIN_AREA, SMALL_MARKER_PX_PER_CELL, find_markers, start_and_goal
from .reading import Blocked, Box, MazeLook, MazeReading
from .rims import RIM_SHARE, rim_free_sides
from .walls import lattice_from_segments, read_segments, wall_threshold


def locate(image: np.ndarray, grid: tuple[int, int]) -> Box | None:
    """The centres of the border lines of a maze with a known grid (re-locating it in a frame):
    the likeliest of :func:`locations`, or None."""
    return next(locations(image, grid), None)


def locations(image: np.ndarray, grid: tuple[int, int]) -> Iterator[Box]:
    """Where a maze with a known grid may be in a frame (the centres of its border lines), the
    likeliest first: each of :func:`~.box.box_candidates` read with that grid, found as asked for. A
    lattice maze on black whose camera pulls back shows no border of its own; the first
    candidate is then a ring of walls inside it, and the extent of its corridors, next, is the
    maze (mazeworld 15151 v00000 zoomed)."""
    rgb = as_rgb(image, name="frame")
    dark, _, colour = _ink_and_colour(rgb)
    given: list[Box] = []
    for found in box_candidates(dark, outer=True):
        try:
            box = estimate_grid(dark, found[0], found[1], colour, grid=grid).box
        except InputError:
            continue
        if _new_box(box, given):
            given.append(box)
            yield box


def read_maze(image: np.ndarray, *, grid: tuple[int, int] | None = None,
              known: MazeSpec | None = None, blocked_first: bool = False) -> MazeReading | Unparseable:
    """Read a maze puzzle (or a video frame) of any look into a :class:`~.reading.MazeReading`.

    The maze is read at the likeliest place that reads (:func:`~.box.box_candidates`). Where its
    maze cuts cells off from the start, a place inside it is taken instead when it reads with
    fewer cut off, the cells beyond it hold no maze (:func:`_no_maze_beyond`), and either the
    first place is bounded by a dark bar or its cells are of another size: black bars' edge or
    a plot's frame read as the border, the margin as cells - not a row walled off inside a
    drawn border, which stays a row. Where the first place is bounded by dark bars on every
    side, a place inside it whose maze cuts none off is taken likewise, though the first cut
    none off either: the bars' edge around a pale, blurred maze reads as a coarse maze of
    paper (mazeworld 62062 v00031 made smaller, flickered and crushed: 3x3 for a 10x10).

    Parameters
    ----------
    image : ndarray of shape (H, W, 3) (or grey / RGBA)
    grid : (rows, cols), optional
        The grid size when known (``maze.grid``); otherwise measured.
    known : MazeSpec, optional
        The maze when it is known (a spec file, a reference): its grid is used, and its
        start and goal stand in for markers that cannot be seen; the reading then tells
        how the picture draws the maze.
    blocked_first : bool
        Return :class:`~.reading.Blocked` as soon as the likeliest place reads whole but with no way
        from the start to the goal, before trying the other places (a video reads its walls
        again from the next frames there: :func:`read_walls_again`).

    Returns
    -------
    MazeReading, or Unparseable with the reason (no maze, no grid, no start or goal,
    goal not reachable from the start: :class:`~.reading.Blocked`).
    """
    rgb = as_rgb(image, name="maze image")
    grid = known.shape if known is not None else grid
    dark, _, colour = _ink_and_colour(rgb)
    if grid is not None and (min(grid) < 1 or max(grid) > MAX_GRID or grid[0] * grid[1] < 2):
        return Unparseable(f"grid {grid[0]}x{grid[1]} is out of range (1..{MAX_GRID} cells per side)")
    # the likeliest place first; another only when the maze cannot be read there (or, for a
    # known maze, reads unlike it, or, for an unknown one, cuts cells off and a place inside it
    # reads better, as above: a row walled off inside a drawn border, mazeworld 33535 i00040,
    # stays a row)
    readings: list[MazeReading | Unparseable] = []
    cut_off: MazeReading | None = None
    open_grid: MazeReading | None = None  # a first reading with next to no inner walls (_open_grid)
    reached, barred = 1.0, False  # (the share of cells cut_off reaches, and whether a bar bounds it)
    for box, borders in box_candidates(dark, outer=known is not None):
        reading = _read_at(rgb, dark, colour, box, borders, grid=grid, known=known)
        if open_grid is not None:
            if isinstance(reading, MazeReading) and _walled_inside(reading, open_grid):
                return reading
            continue
        if isinstance(reading, MazeReading) and known is None:
            if cut_off is None:
                reached = _reached_share(reading.spec)
                if reached == 1.0 and not _beside_a_bar(reading, borders, every_side=True):
                    if _open_grid(reading):
                        open_grid = reading
                        continue
                    return reading
                cut_off, barred = reading, _beside_a_bar(reading, borders)
            elif _inside(reading.look.box, cut_off.look.box) and _no_maze_beyond(cut_off, reading.look.box) and \
                    (barred or not _same_pitch(reading.look, cut_off.look)) and \
                    ((share := _reached_share(reading.spec)) > reached or share == 1.0):
                return reading
            continue
        if isinstance(reading, MazeReading) and known is not None and _agreement(reading, known) >= KNOWN_AGREEMENT:
            return reading
        if blocked_first and not readings and cut_off is None and isinstance(reading, Blocked):
            return reading
        readings.append(reading)
    if open_grid is not None:
        return open_grid
    if cut_off is not None:
        return cut_off
    if not readings:
        return Unparseable("no maze found (no bordered structure of dark lines)")

    def rank(r: MazeReading | Unparseable) -> tuple[int, float]:  # a reading before a failure
        if isinstance(r, Unparseable):
            return -1, -1.0
        return known_fit(r, known) if known is not None else (0, 0.0)

    # Where the answer redrew its walls no place agrees, and a place elsewhere may agree better
    # by chance: the place that shows the known maze's markers in their cells first (a corner
    # of the maze read as a whole one, without them, agreed 0.61 against the maze's own 0.39:
    # mazeworld 58058 i00156), then, of those that agree about as well as the best, the likeliest
    # (one a row short, its top row read as a border, agreed 0.53 against 0.52: 56056 i00116).
    ranks = [rank(r) for r in readings]
    shown = max(m for m, _ in ranks)
    best = max(a for m, a in ranks if m == shown)
    return next(r for r, (m, a) in zip(readings, ranks) if m == shown and a >= best - AGREEMENT_TIE)


KNOWN_AGREEMENT = 0.9  #: share of a known maze's inner boundary segments a reading in the right place gets right
AGREEMENT_TIE = 0.05   #: ... and readings of a known maze this near the best agreement are tied (the likeliest wins)


def known_fit(reading: MazeReading, known: MazeSpec) -> tuple[int, float]:
    """How well a reading shows a known maze: the start and goal markers seen in their cells
    (0-2), and the share of its inner boundary segments read alike; readings rank by it."""
    return _markers_in_place(reading, known), _agreement(reading, known)


def _agreement(reading: MazeReading, known: MazeSpec) -> float:
    """Share of the known maze's inner boundary segments (walls and openings) read alike."""
    if reading.spec.walls.shape != known.walls.shape:
        return 0.0
    inner = _inner_sides(known.walls.shape)
    return float(np.mean(reading.spec.walls[inner] == known.walls[inner])) if inner.any() else 1.0


def _inner_sides(shape: tuple[int, ...]) -> np.ndarray:
    """Which cells of a wall lattice of ``shape`` are sides between two of its maze cells."""
    inner = np.zeros(shape, bool)
    inner[1:-1:2, 2:-1:2] = inner[2:-1:2, 1:-1:2] = True
    return inner


def _markers_in_place(reading: MazeReading, known: MazeSpec) -> int:
    """How many of the known maze's start and goal markers the reading sees in their cells."""
    look = reading.look
    return sum(m is not None and m.cell == lattice_to_cell(at)
               for m, at in ((look.start, known.start), (look.goal, known.goal)))


def _read_at(rgb: np.ndarray, dark: np.ndarray, colour: np.ndarray, box: Box, borders: tuple[float, ...], *,
             grid: tuple[int, int] | None, known: MazeSpec | None) -> MazeReading | Unparseable:
    """Read the maze whose border runs through ``box`` (see :func:`read_maze`; ``colour``: its
    :func:`~.ink.colour_mask`)."""
    place = box
    try:
        estimate = estimate_grid(dark, box, borders, colour, grid=grid)
    except InputError as exc:
        return Unparseable(str(exc))
    thickness, box = estimate.thickness, estimate.box
    shape, vert, horiz = _best_grid(dark, estimate)
    thr, level, open_level = wall_threshold(vert, horiz)
    if level < 0.1:
        return Unparseable("the maze's border is too faint to tell walls from corridors")
    start, goal = start_and_goal(find_markers(rgb, box, shape))
    if start is None or goal is None:  # markers of a few pixels (a 4-px dot in a large cell): a finer look
        small = start_and_goal(find_markers(rgb, box, shape, px_per_cell=SMALL_MARKER_PX_PER_CELL,
                                            min_area=SMALL_MARKER_MIN_AREA))
        start, goal = start or small[0], goal or small[1]
    vert, horiz = rim_free_sides(dark, colour, box, shape, thickness, vert, horiz,
                                 [m.cell for m in (start, goal) if m is not None], threshold=thr, level=level)
    vw, hw = vert >= thr, horiz >= thr
    ambiguous = int(sum(m.sum() for m in _ambiguous(vert, horiz, thr, level, open_level)))
    pitch = ((box[2] - box[0]) / shape[0] + (box[3] - box[1]) / shape[1]) / 2
    if thickness.y == thickness.x:
        walls_cells = thickness.y / pitch
    else:  # each way in its own cells
        walls_cells = (thickness.y * shape[0] / (box[2] - box[0]) + thickness.x * shape[1] / (box[3] - box[1])) / 2
    look = MazeLook(box=box, grid=shape, wall_thickness=walls_cells,
                    border_thickness=float(np.median(borders)) / pitch, wall_level=level, open_level=open_level,
                    start=start, goal=goal)
    walls = maze_walls(vw, hw)
    if known is not None:
        spec = MazeSpec.from_lattice(walls, start=lattice_to_cell(known.start), goal=lattice_to_cell(known.goal))
        return MazeReading(spec=spec, look=look, vertical=vert, horizontal=horiz, threshold=thr, ambiguous=ambiguous)
    if start is None or goal is None:
        return Unparseable("maze read, but its " + ("start and goal markers were" if start is goal is None else
                                                    "start marker was" if start is None else "goal marker was")
                           + " not found (coloured blobs: the goal red, the start another colour)")
    if start.cell == goal.cell:
        return Unparseable(f"start and goal markers are in the same cell {list(start.cell)}")
    spec = MazeSpec.from_lattice(walls, start=start.cell, goal=goal.cell)
    if not spec.solution:  # a marker's blurred rim over a side of its cell may read as a wall
        spec = _marker_sides_opened(vert, horiz, vw, hw, (start.cell, goal.cell), level) or spec
    reading = MazeReading(spec=spec, look=look, vertical=vert, horizontal=horiz, threshold=thr, ambiguous=ambiguous)
    if not spec.solution:
        return Blocked(f"the maze as read ({shape[0]}x{shape[1]}) has no way from the start "
                       f"{list(start.cell)} to the goal {list(goal.cell)}", reading=reading, place=place,
                       covered=_covered_segments(colour, look))
    return reading


def _marker_sides_opened(vert: np.ndarray, horiz: np.ndarray, vw: np.ndarray, hw: np.ndarray,
                         cells: Sequence[tuple[int, int]], level: float) -> MazeSpec | None:
    """The maze of the wall segments ``vw``, ``hw`` (read from the darkness ``vert``, ``horiz``;
    ``level``: a wall's) with a way from the start to the goal (``cells``, in that order) found
    by opening the fewest inner sides of those two cells read fainter than RIM_SHARE of a wall,
    the faintest first; None where opening them all leaves none.

    A marker's rim, blurred over a side of its cell, darkens it as a wall of faint lines is
    dark: a MazePlot start circle blurred (sigma 1.3 px) read the open side beside it at 0.16,
    the walls at 0.20-0.23 (mazeworld 81081 v00249 blurred: no way, "unparseable"). A maze to
    grade has a way, so one read without is misread, and the faint sides by the markers are where
    it most likely is."""
    rows, cols = vw.shape[0], hw.shape[1]
    sides: list[tuple[float, str, int, int]] = []
    for r, c in cells:
        for kind, i, j, inner in (("v", r, c, c > 0), ("v", r, c + 1, c + 1 < cols),
                                  ("h", r, c, r > 0), ("h", r + 1, c, r + 1 < rows)):
            read, dark = (vw, vert) if kind == "v" else (hw, horiz)
            if inner and read[i, j] and dark[i, j] < RIM_SHARE * level:
                sides.append((float(dark[i, j]), kind, i, j))
    vw, hw = vw.copy(), hw.copy()
    for _, kind, i, j in sorted(sides):
        (vw if kind == "v" else hw)[i, j] = False
        spec = MazeSpec.from_lattice(maze_walls(vw, hw), start=cells[0], goal=cells[1])
        if spec.solution:
            return spec
    return None


def _reached_share(spec: MazeSpec) -> float:
    """The share of the maze's cells a way from the start reaches."""
    _, labels = cv2.connectedComponents((~spec.walls).astype(np.uint8), connectivity=4)
    cells = labels[1::2, 1::2]
    return float(np.count_nonzero(cells == labels[spec.start])) / cells.size


def _inside(box: Box, other: Box) -> bool:
    """Whether ``box`` lies within ``other`` (2 px to spare), smaller on some side."""
    (t, l, b, r), (ot, ol, ob, orr) = box, other
    return t >= ot - 2 and l >= ol - 2 and b <= ob + 2 and r <= orr + 2 and \
        max(t - ot, l - ol, ob - b, orr - r) > 2


BAR_BAND = 2.5  #: a border band this many times as thick as the walls (and 2 px) is a dark bar, not a line


def _beside_a_bar(reading: MazeReading, borders: tuple[float, ...], *, every_side: bool = False) -> bool:
    """Whether the place ``reading`` was read at is bounded on some side (``every_side``: on
    each) by a band BAR_BAND times as thick as its walls: a dark bar (a letterbox, a
    pillarbox), not a drawn border."""
    (t, l, b, r), (rows, cols) = reading.look.box, reading.look.grid
    walls = reading.look.wall_thickness * min((b - t) / rows, (r - l) / cols)
    return (min(borders) if every_side else max(borders)) > BAR_BAND * walls + 2


SAME_PITCH = 0.25  #: cells within this share of each other's size each way are the same cells


def _same_pitch(look: MazeLook, other: MazeLook) -> bool:
    """Whether two readings' cells are about the same size each way (SAME_PITCH): the one
    inside the other is then the other less whole rows or columns."""
    (t, l, b, r), (rows, cols) = look.box, look.grid
    (ot, ol, ob, orr), (orows, ocols) = other.box, other.grid
    return abs((b - t) * orows / max(1e-9, (ob - ot) * rows) - 1) <= SAME_PITCH and \
        abs((r - l) * ocols / max(1e-9, (orr - ol) * cols) - 1) <= SAME_PITCH


MARGIN_MIXED = 0.1  #: cells with more than this share of their sides walls, and of openings, hold a maze


def _no_maze_beyond(reading: MazeReading, box: Box) -> bool:
    """Whether ``reading``'s cells whose centres lie outside ``box`` hold no maze: the sides
    between two of them nearly all open (empty paper, a plot's labels) or nearly all walls
    (dark bars), not a mix of walls and openings (MARGIN_MIXED). A plot's frame read as the
    maze's border reads its margin as cells cut off from the start; a maze whose wall cuts
    some of its cells off reads a maze there (mazeworld 84848 v00112 squeezed, ghosted and
    shaken: a 3x3 maze that leaves 3 cells unreached, not the 3x2 inside it)."""
    t, l, b, r = reading.look.box
    (rows, cols), (it, il, ib, ir) = reading.spec.shape, box
    ys = t + (np.arange(rows) + 0.5) * (b - t) / rows
    xs = l + (np.arange(cols) + 0.5) * (r - l) / cols
    out = ~((ys[:, None] >= it) & (ys[:, None] <= ib) & (xs[None, :] >= il) & (xs[None, :] <= ir))
    w = reading.spec.walls
    across = w[1::2, 2:-1:2][out[:, :-1] & out[:, 1:]]  # sides between two cells beyond the box, left-right
    down = w[2:-1:2, 1::2][out[:-1, :] & out[1:, :]]    # ... and top-bottom
    sides = np.concatenate([across, down])
    return not sides.size or not MARGIN_MIXED < float(sides.mean()) < 1 - MARGIN_MIXED


OPEN_GRID = 1 / 3  #: a reading with fewer inner walls than this share of a perfect maze's may be misplaced


def _inner_walls(spec: MazeSpec) -> int:
    """How many sides between two of ``spec``'s cells are walls."""
    return int(np.count_nonzero(spec.walls[_inner_sides(spec.walls.shape)]))


def _open_grid(reading: MazeReading) -> bool:
    """Whether ``reading`` has fewer than OPEN_GRID of the inner walls a perfect maze of its
    grid has ((rows - 1) (cols - 1), four at least): nearly every side open, as where a
    plot's frame beyond the maze's own border, a blurred 1-px line, was read as the border
    and the cells cut across the walls (mazeworld 81081 v00140 blurred: a 5x4 maze read with
    one inner wall of twelve)."""
    rows, cols = reading.spec.shape
    perfect = (rows - 1) * (cols - 1)
    return perfect >= 4 and _inner_walls(reading.spec) < OPEN_GRID * perfect


def _walled_inside(reading: MazeReading, open_grid: MazeReading) -> bool:
    """Whether ``reading`` is the maze that ``open_grid`` (:func:`_open_grid`) was misplaced
    from: read inside its place, with its grid, start and goal, every cell reached, no maze
    beyond it, and not an open grid itself."""
    return _inside(reading.look.box, open_grid.look.box) and reading.spec.shape == open_grid.spec.shape \
        and (reading.spec.start, reading.spec.goal) == (open_grid.spec.start, open_grid.spec.goal) \
        and _reached_share(reading.spec) == 1.0 and not _open_grid(reading) \
        and _no_maze_beyond(open_grid, reading.look.box)


SAME_PLACE = 0.25  #: a box within this share of a cell of another's every side is the same place


def read_walls_again(image: np.ndarray, blocked: Blocked) -> MazeReading | None:
    """The maze of ``blocked`` with its walls read again from ``image`` (another frame of the
    video) at the same place (within SAME_PLACE of a cell): where they leave a way from the
    start to the goal and agree with the blocked ones (KNOWN_AGREEMENT: the same maze), the
    reading with those walls - its look, start and goal those of ``blocked`` (the frame its
    markers were read from) - else None.

    A watermark over the puzzle in the first frames (Sora's jumps about) draws its dark
    shadow across corridors, read as walls that block every way; the frames after it has
    moved show the maze as it is (mazeworld 15151 v00025 tilted, flickered and
    watermarked: the enclosing paper was read as a 10x9 maze instead).

    A wall of ``blocked`` that ``image`` shows covered by colour stays a wall: the agent hides
    the wall it is crossing, and opened it (mazeworld 65065 v00136, a MazePlot star gliding
    through a wall, passed with no maze given: the first frames read one corridor closed, and
    the frame that opened it showed the star over the wall)."""
    found = _read_at_place(image, blocked.reading, blocked.place)
    if found is None:
        return None
    reading, colour = found
    return _with_hidden_walls(reading, colour, blocked, look=blocked.reading.look)


def keep_hidden_walls(reading: MazeReading, image: np.ndarray, blocked: Blocked) -> MazeReading | None:
    """``reading`` of ``image`` (a frame after ``blocked``'s, read as any other) with the walls of
    ``blocked`` that ``image`` shows covered by colour kept (see :func:`read_walls_again`), where
    it is read with ``blocked``'s grid at its place (within SAME_PLACE of a cell); None where those
    walls leave no way from the start to the goal. Read elsewhere or with another grid, it is
    returned as it is."""
    first = blocked.reading
    if reading.spec.shape != first.spec.shape or \
            _box_shift(reading.look.box, first.look.box) > SAME_PLACE * _pitch(blocked.place, first.spec.shape):
        return reading
    return _with_hidden_walls(reading, colour_mask(as_rgb(image, name="frame")), blocked, look=reading.look)


def _with_hidden_walls(reading: MazeReading, colour: np.ndarray, blocked: Blocked, *,
                       look: MazeLook) -> MazeReading | None:
    """``reading`` with ``blocked``'s walls kept where ``colour`` (its frame's colour mask) covers
    them and the blocked frame's did not (the markers cover the same segments in both) - but for
    the start cell's sides, where the agent appears and may rest for a while - and ``look``;
    None where that leaves no way from the start to the goal."""
    first = blocked.reading
    hidden_v, hidden_h = _covered_segments(colour, reading.look)
    if blocked.covered is not None:
        hidden_v, hidden_h = hidden_v & ~blocked.covered[0], hidden_h & ~blocked.covered[1]
    _clear_start_sides(hidden_v, hidden_h, first.spec)  # (the agent rests there through the first frames)
    vert = (reading.vertical >= reading.threshold) | (hidden_v & (first.vertical >= first.threshold))
    horiz = (reading.horizontal >= reading.threshold) | (hidden_h & (first.horizontal >= first.threshold))
    return _with_walls(reading, vert, horiz, look=look)


def _clear_start_sides(vert: np.ndarray, horiz: np.ndarray, maze: MazeSpec) -> None:
    """Set the start cell's four sides to False in segment masks (vertical, horizontal), in place:
    the agent appears there and may rest through the first frames, so what covers or darkens
    them then says nothing of the walls."""
    r, c = lattice_to_cell(maze.start)
    vert[r, c:c + 2] = False
    horiz[r:r + 2, c] = False


def maze_walls(vert: np.ndarray, horiz: np.ndarray) -> np.ndarray:
    """The wall lattice of a puzzle read as boundary segments (vertical, horizontal walls), its
    outer border closed: every maze cvcheck grades (MMGR's, maze-dataset's, VMEvalKit's, and
    any maze file) is walled all round, start and goal inside, and connection lists have no
    way out. A border segment read open is something over it - a semi-transparent watermark
    across the top border, washing out four segments of a blurred MazePlot maze (mazeworld
    67067 v00211 rolled, blurred and watermarked) - and left open it would let an agent walk
    out over the border uncounted. (What an *answer* draws is read from its segments: a model
    erasing a border segment still changes the maze.)"""
    walls = lattice_from_segments(vert, horiz)
    walls[0, :] = walls[-1, :] = True
    walls[:, 0] = walls[:, -1] = True
    return walls


def _with_walls(reading: MazeReading, vert: np.ndarray, horiz: np.ndarray, *, look: MazeLook) -> MazeReading | None:
    """``reading`` with the walls ``vert`` and ``horiz`` (boolean segments) and ``look``, its
    darkness, threshold and ``ambiguous`` kept; None where those walls leave no way from the
    start to the goal."""
    maze = reading.spec
    spec = MazeSpec.from_lattice(maze_walls(vert, horiz), start=lattice_to_cell(maze.start),
                                 goal=lattice_to_cell(maze.goal))
    if not spec.solution:
        return None
    return MazeReading(spec=spec, look=look, vertical=reading.vertical, horizontal=reading.horizontal,
                       threshold=reading.threshold, ambiguous=reading.ambiguous)


COVERED = 0.25  #: a segment with colour across this share of its central half is hidden in that frame


def _covered_segments(colour: np.ndarray, look: MazeLook) -> tuple[np.ndarray, np.ndarray]:
    """Which boundary segments (vertical, horizontal) of the maze read as ``look`` have colour
    (``colour``: a 0/255 :func:`~.ink.colour_mask`) across them along COVERED of their central
    half: hidden from that frame (the agent, its trail, a marker), whatever it reads there."""
    thickness = max(1.0, look.wall_thickness * sum(look.pitch) / 2)
    vert, horiz = read_segments((colour > 0).astype(np.float32), look.box, look.grid, thickness)
    return vert > COVERED, horiz > COVERED


def _read_at_place(image: np.ndarray, reading: MazeReading, place: Box
                   ) -> tuple[MazeReading, np.ndarray] | None:
    """``reading``'s maze read again from ``image`` where its border was found (``place``,
    within SAME_PLACE of a cell), with its grid: the reading (its own walls, look and markers)
    and the image's colour mask, where it agrees with ``reading``'s walls (KNOWN_AGREEMENT),
    else None."""
    rgb = as_rgb(image, name="frame")
    dark, _, colour = _ink_and_colour(rgb)
    maze = reading.spec
    pitch = _pitch(place, maze.shape)
    for box, borders in box_candidates(dark):
        if _box_shift(box, place) > SAME_PLACE * pitch:
            continue
        again = _read_at(rgb, dark, colour, box, borders, grid=maze.shape, known=maze)
        if isinstance(again, Unparseable) or _agreement(again, maze) < KNOWN_AGREEMENT:
            return None
        return again, colour
    return None


def _pitch(place: Box, shape: tuple[int, int]) -> float:
    """The larger cell size (px) of a maze of ``shape`` cells with its border at ``place``."""
    t, l, b, r = place
    return max((b - t) / shape[0], (r - l) / shape[1])


SETTLE_FRAMES = 4   #: frames after the first whose walls settle its ambiguous segments (see settle_walls)
SETTLE_SHARE = 0.75  #: ... of which this share (and at least two) must show a segment drawn clearly


AMBIGUOUS_MARGIN = 0.15  #: segments this share of the way from open to wall darkness off the threshold are ambiguous


def ambiguous_segments(reading: MazeReading) -> tuple[np.ndarray, np.ndarray]:
    """Which inner wall segments (vertical (rows, cols+1), horizontal (rows+1, cols)) read within
    AMBIGUOUS_MARGIN of the threshold (their count is ``reading.ambiguous``)."""
    look = reading.look
    return _ambiguous(reading.vertical, reading.horizontal, reading.threshold, look.wall_level, look.open_level)


def _ambiguous(vert: np.ndarray, horiz: np.ndarray, thr: float, level: float,
               open_level: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ambiguous_segments` of segment darkness read with threshold ``thr`` between the
    open boundaries' darkness ``open_level`` and the walls' ``level`` (the border's segments never)."""
    margin = AMBIGUOUS_MARGIN * (level - open_level)
    v, h = np.abs(vert - thr) < margin, np.abs(horiz - thr) < margin
    v[:, [0, -1]] = False
    h[[0, -1], :] = False
    return v, h


def settle_walls(reading: MazeReading, frames: Iterable[np.ndarray]) -> MazeReading:
    """``reading`` (of a video's first frame that shows the maze) with its ambiguous segments
    (:func:`ambiguous_segments`) read as walls where most of ``frames`` (the next ones, RGB;
    at least two, SETTLE_SHARE of those read at the same place) show them drawn clearly. Only
    that way, and only by most frames: a later frame hides a wall (the agent, its trail, an
    icon over it) more readily than it draws one, and what one frame draws over a segment (a
    ghost of the agent, a dark fringe) moves on - but for the start cell's sides, beside which
    the agent may rest through the first frames (its dark fringe read as a line drawn:
    mazeworld 57057 v00064 squeezed, 56056 v00214 ghosted). Every other segment, the look and
    the markers stay the first frame's, and so does everything where the settled maze would
    leave no way from the start to the goal.

    A faint line a flicker paled below the threshold in the first frame alone read as open,
    and a teleport through it passed (mazeworld 62062 v00018 made smaller, flickered and
    crushed: four segments 0.064-0.072 under a threshold of 0.078, read as walls from the
    third frame on). (Its darkness, threshold and ``ambiguous`` stay the first frame's.)"""
    if not reading.ambiguous:
        return reading
    av, ah = ambiguous_segments(reading)
    _clear_start_sides(av, ah, reading.spec)  # (the agent's fringe there reads as ink)
    if not (av.any() or ah.any()):
        return reading
    votes_v, votes_h, read = np.zeros(av.shape, int), np.zeros(ah.shape, int), 0
    for image in frames:
        found = _read_at_place(image, reading, reading.look.box)
        if found is None:
            continue
        again = found[0]
        read += 1
        bv, bh = ambiguous_segments(again)
        votes_v += ~bv & (again.vertical >= again.threshold)
        votes_h += ~bh & (again.horizontal >= again.threshold)
    need = max(2, int(np.ceil(SETTLE_SHARE * read)))
    drawn_v, drawn_h = av & (votes_v >= need), ah & (votes_h >= need)
    if read < 2 or not (drawn_v.any() or drawn_h.any()):
        return reading
    settled = _with_walls(reading, (reading.vertical >= reading.threshold) | drawn_v,
                          (reading.horizontal >= reading.threshold) | drawn_h, look=reading.look)
    return settled if settled is not None else reading
