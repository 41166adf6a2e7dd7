"""Analyse a generated maze-solving video against its maze (pure array code).

Pipeline: frames (any iterable of RGB arrays; :mod:`.task` streams files) -> per frame,
a rectified canvas with the wall IoU, agent and goal blobs (:mod:`.video_frames`) -> the
agent's track (:mod:`.track`) -> wall traversals/contacts, accumulated path, goal
settling (:mod:`.video_metrics`). :mod:`.verdict` turns the analysis into MMGR's gated
verdict for videos.
"""

from __future__ import annotations

import statistics
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain, islice
from typing import Any

import numpy as np

from ..config import MazeConfig
from ..schema import Unparseable
from ..vision.yuv import Frame, as_rgb_frame
from .lattice import Cell, MazeSpec
from .look import AgentLook, detected_profile, learn_agent
from .metrics import PathMatch, path_loops, path_match, upscale_cells
from .read import (
    KNOWN_AGREEMENT,
    SETTLE_FRAMES,
    Blocked,
    MazeLook,
    MazeReading,
    keep_hidden_walls,
    known_fit,
    read_maze,
    read_walls_again,
    settle_walls,
)
from .style import StyleProfile, get_style
from .track import Track, build_track, link_reach, seen_on_start_before, stand_in_on_start
from .video_canvas import CanvasGeometry
from .video_frames import FrameAnalyser
from .video_metrics import (
    NEAR_GOAL,
    CrossingReport,
    Settling,
    WallGeometry,
    analyse_crossings,
    cell_path,
    goal_settling,
    not_stopped,
    seen_leaving_goal,
    seen_pale_off_goal,
    unseen_route_share,
)
from .video_obs import FrameObs

LOCATE_WITHIN = 30   #: give up (unparseable) when no maze is found in this many first frames
CORE_PX = 5.0       #: canvas pixels across the agent's vivid core (see canvas_scale)
LEARN_FRAMES = 12    #: frames (from the first readable one) the agent's look is learned from
GOAL_COVERED = 0.08  #: goal checks pause while agent-coloured pixels cover this much of the goal cell
DEFAULT_FPS = 24.0   #: frame rate assumed for frames given without one
GOAL_SIZE_FRAMES = 24  #: the goal's usual size is the median of its last this many clear sightings
GOAL_SIZE_SLACK_PX = 12  #: ... and it is resized only when it is this many canvas pixels beyond 1/2-2x of it

#: ``on_canvas(frame_index, canvas)``: called with each analysed frame's canvas (overlays keep some)
CanvasSink = Callable[[int, np.ndarray], None]


@dataclass
class MazeVideoAnalysis:
    """Everything a video verdict is computed from (kept for overlays and debugging)."""

    spec: MazeSpec
    style: StyleProfile
    geometry: CanvasGeometry         #: how the maze lies on the analysed canvases
    ious: np.ndarray                 #: (T,) wall IoU per analysed frame (0 where no maze was found)
    goal_pos: np.ndarray             #: (T, 2) goal blob centre, NaN when absent
    goal_area: np.ndarray            #: (T,)
    track: Track
    crossing: CrossingReport
    cells: list[Cell]                #: lattice cells visited, in order
    path: PathMatch
    loops: list[tuple[float, float, float]]
    settling: Settling
    goal_bad: list[int]              #: frames where the goal was missing, moved or changed
    start_offset: float | None       #: maze cells
    box: tuple[int, int, int, int] | None
    relocations: int
    lowest_agent_floor: int | None = None  #: the lowest saturation floor the agent was followed at
    unseen_route: float = 0.0        #: share of its way gone unseen (:func:`~.video_metrics.unseen_route_share`)
    look: MazeLook | None = None     #: how the video draws the maze (read from its first frames)
    agent: AgentLook | None = None   #: how it draws the agent (learned)
    maze_frame: int = 0              #: the frame the maze was read from
    read: dict[str, Any] = field(default_factory=dict)  #: how the frames were read (set by the file reader)

    @property
    def frames(self) -> int:
        return len(self.ious)

    @property
    def k(self) -> int:
        """Canvas pixels per lattice cell."""
        return self.geometry.k

    def detected(self) -> dict[str, Any]:
        """What was detected, for the result's details."""
        return {"style": self.style.name, "walls": self.style.walls, "maze_frame": self.maze_frame,
                "maze": self.look.to_dict() if self.look else None,
                "agent": self.agent.to_dict() if self.agent else None, "canvas_cell_px": self.k}


def canvas_scale(agent: AgentLook, config: MazeConfig, grid: tuple[int, int]) -> int:
    """Canvas pixels per lattice cell: ``maze.video_canvas_cell_px``, more for a small agent
    (about 5 canvas pixels across its vivid core - the part at least half as vivid as its peak,
    its drawn size also under blur - since resampling pales its rim), up to 24, or up to a
    canvas about 480 pixels wide for few cells (a 4-px dot in a 3x3 maze at 720p), at most 64."""
    core = agent.core_area or agent.area
    across = 2.0 * 2.0 * float(np.sqrt(max(core, 1e-6) / np.pi))  # diameter, lattice cells
    cap = min(64.0, max(24.0, 480.0 / (2 * max(grid) + 1)))
    return int(min(cap, max(config.video_canvas_cell_px, np.ceil(CORE_PX / across))))


def analyse_video(frames: Iterable[Frame], spec: MazeSpec | None, *, config: MazeConfig,
                  style: str | StyleProfile | None = None, fps: float | None = None,
                  on_canvas: CanvasSink | None = None) -> MazeVideoAnalysis | Unparseable:
    """Analyse an answer video given as RGB frames (consumed once, in order).

    The maze's look (where it is, how thick its walls are, its markers) is read from the
    first readable frame, and the agent's look learned from the next few
    (:mod:`.look`); then every frame is analysed.

    Parameters
    ----------
    frames : iterable of ndarray (H, W, 3) uint8, or of :class:`~cvcheck.vision.yuv.YuvFrame`
        The answer's frames (e.g. a :class:`~cvcheck.media.video.FrameReader`); YUV frames
        are converted to RGB only where needed (the first frames whole, then the maze's
        region on the canvas).
    spec : MazeSpec or None
        The maze (from a reference, a puzzle image or a spec file); None: read it from
        the video's own first frames (the puzzle the model was given).
    config : MazeConfig
    style : str or StyleProfile, optional
        ``auto`` (default: ``config.video_style``): the look detected; ``mmgr`` or
        ``mazeplot`` (or a profile): fixed colour windows and wall kind.
    fps : float, optional
        The frame rate (the settle window is ``maze.video_settle_seconds``); 24 if unknown.
    on_canvas : callable, optional
        Receives ``(frame index, canvas)`` for every analysed frame (for overlays).

    Returns
    -------
    MazeVideoAnalysis, or Unparseable when no maze is found in the first frames.
    """
    it = iter(frames)
    head: list[Frame] = []
    reading, first = _read_puzzle(it, head, spec, config.grid_shape())
    if isinstance(reading, Unparseable):
        return Unparseable(f"no maze read in the first {len(head)} frame(s): {reading.reason}")
    maze = spec or reading.spec
    if len(head) - first < LEARN_FRAMES:
        for frame in it:  # a few more frames to learn the agent from
            head.append(frame)
            if len(head) - first >= LEARN_FRAMES:
                break
    agent = learn_agent([as_rgb_frame(f) for f in head[first:first + LEARN_FRAMES]], reading.look, maze)
    chosen = style or config.video_style
    prof = detected_profile(reading.look, agent) if chosen == "auto" else get_style(chosen)
    seen = agent.seen_at
    analyser = FrameAnalyser(maze, prof, config, look=reading.look, k=canvas_scale(agent, config, maze.shape),
                             fps=fps or DEFAULT_FPS, agent_seen=None if seen is None else (first + seen[0], *seen[1:]))
    # frames before the one the maze was read from are analysed too (a frame too blurred to
    # read a puzzle from still shows the maze it is compared with)
    obs: list[FrameObs] = []
    head.reverse()  # (popped as analysed: a reader frees a frame's buffer once it is gone)
    for i, frame in enumerate(chain(_popping(head), it)):
        ob, canvas = analyser.analyse(frame, i)
        obs.append(ob)
        if on_canvas is not None:
            on_canvas(i, canvas.copy())  # (the analyser reuses its canvas for the next frame)
    settle = max(1, int(round(config.video_settle_seconds * (fps or DEFAULT_FPS))))
    analysis = _analyse_observations(obs, maze, prof, config, analyser, settle=settle,
                                     line_halfwidth=_line_halfwidth(reading.look, agent) if analyser.lines else None,
                                     starts_unseen=agent.how == "appeared_near_start")
    analysis.look, analysis.agent, analysis.maze_frame = reading.look, agent, first
    return analysis


def _read_puzzle(it: Iterator[Frame], head: list[Frame], spec: MazeSpec | None, grid: tuple[int, int] | None
                 ) -> tuple[MazeReading | Unparseable, int]:
    """The maze read from the first frames that show it (taken from ``it`` into ``head``, at
    most LOCATE_WITHIN) and the frame its look was read from.

    Where the likeliest place first reads as a maze with no way from the start to the goal
    (:class:`~.read.Blocked`: a watermark's shadow drawn across corridors), its walls are read
    again there from the next frames, the look and markers kept from the blocked frame. Where
    none shows a way there, the frames from the blocked one are read as any other, every
    place tried (the maze may be elsewhere). Either way a wall the blocked frame drew stays
    where a later frame shows colour over it (:func:`~.read.keep_hidden_walls`: the agent
    crossing it).

    Where the maze is known (``spec``) and a frame reads unlike it (under
    ``KNOWN_AGREEMENT`` of its inner sides alike), the next frames are read too, and the first
    that reads like it is taken; where none does, the one that fits it best (its markers in
    place, then the most sides alike). A boiled, crushed first frame read as a maze in the
    whole frame, and every frame after it measured against that place: wall IoU 0 throughout
    (mazeworld 88088 v00252 boiled and crushed, with the maze file; nothing given, the maze was
    read from frame 1)."""
    reading: MazeReading | Unparseable = Unparseable("the video has no frames")
    blocked: Blocked | None = None
    unlike: tuple[tuple[int, float], MazeReading, int] | None = None  # the best reading unlike the known maze
    at = 0
    for frame in it:
        head.append(frame)
        rgb = as_rgb_frame(frame)
        if blocked is None:
            reading = read_maze(rgb, known=spec, grid=grid, blocked_first=spec is None)
            if isinstance(reading, Blocked):
                blocked, at = reading, len(head) - 1
            elif not isinstance(reading, Unparseable):
                at = len(head) - 1
                if spec is not None and (fit := known_fit(reading, spec))[1] < KNOWN_AGREEMENT:
                    if unlike is None or fit > unlike[0]:
                        unlike = fit, reading, at
                    if len(head) < LOCATE_WITHIN:
                        continue
                    return unlike[1], unlike[2]
                if spec is None and reading.ambiguous:  # segments near the threshold: the next frames settle them
                    head.extend(islice(it, SETTLE_FRAMES))
                    reading = settle_walls(reading, (as_rgb_frame(f) for f in head[at + 1:]))
                return reading, at
        elif (again := read_walls_again(rgb, blocked)) is not None:
            return again, at
        if len(head) >= LOCATE_WITHIN:
            break
    if unlike is not None and blocked is None:
        return unlike[1], unlike[2]
    if blocked is not None:
        passed: tuple[MazeReading, int] | None = None  # the first read with a way only under colour
        for i in range(at, len(head)):
            rgb = as_rgb_frame(head[i])
            reading = read_maze(rgb, known=spec, grid=grid)
            if isinstance(reading, Unparseable):
                continue
            if spec is None:
                kept = keep_hidden_walls(reading, rgb, blocked)
                if kept is None:  # a way only where colour (the agent) covers a wall the blocked frame drew
                    passed = passed or (reading, i)
                    continue
                reading = kept
            return reading, i
        if passed is not None:  # (no frame shows a way otherwise: that one, as read)
            return passed
    return reading, len(head) - 1


def _popping(items: list[Frame]) -> Iterator[Frame]:
    """The items from the end of ``items``, each removed as it is given."""
    while items:
        yield items.pop()


def _line_halfwidth(look: MazeLook, agent: AgentLook) -> float:
    """Half-width (lattice cells) of the band around a line wall that the agent's centre must
    enter for a contact: half the drawn line plus half the agent's radius (min 0.1)."""
    radius = 2.0 * float(np.sqrt(max(agent.area, 1e-6) / np.pi))
    return max(0.1, look.wall_thickness + 0.5 * radius)


def _analyse_observations(obs: list[FrameObs], spec: MazeSpec, prof: StyleProfile, cfg: MazeConfig,
                          analyser: FrameAnalyser, *, settle: int,
                          line_halfwidth: float | None, starts_unseen: bool = False) -> MazeVideoAnalysis:
    n = len(obs)
    ious = np.array([o.iou for o in obs])
    goal_pos = np.full((n, 2), np.nan)
    goal_area = np.zeros(n)
    covered = np.array([o.goal_covered for o in obs])
    for t, o in enumerate(obs):
        if o.goal is not None:
            goal_pos[t] = (o.goal.row, o.goal.col)
            goal_area[t] = o.goal.area
    start = (spec.start[0] + 0.5, spec.start[1] + 0.5) if prof.agent_is_start else None
    detections = [o.agents for o in obs]
    track = build_track(detections, start=start, max_gap=cfg.video_max_gap_frames,
                        reach=link_reach(len(spec.solution), n))
    if start is not None:
        if starts_unseen:
            stand_in_on_start(track, start, tolerance=2 * cfg.marker_tolerance)
        else:
            seen_on_start_before(track, detections, start, tolerance=2 * cfg.marker_tolerance)
    geo = WallGeometry(spec, erosion=cfg.video_wall_erosion, line_halfwidth=line_halfwidth)
    crossing = analyse_crossings(track, geo, contact_overlap=cfg.video_contact_overlap)
    settling = goal_settling(track, spec.goal, settle_frames=settle)
    if settling.stopped and settling.final_occluded and (
            seen_pale_off_goal(track, spec.goal, analyser.agent.pale_near_goal(), settle_frames=settle)
            or seen_leaving_goal(track, spec.goal, detections)):
        settling = not_stopped(settling)  # not hidden by the goal: paled beside it, or seen leaving
    cells = cell_path(track, geo, crossing, until=settling.final_entry)
    unseen = unseen_route_share(track, geo, until=settling.final_entry)
    k = analyser.k
    mask = np.zeros(spec.walls.shape, bool)
    for p in cells:
        mask[p] = True
    path_px = upscale_cells(mask, k)
    path, _ = path_match(path_px, spec, k, cfg)
    loops = path_loops(path_px, k, min_area=cfg.loop_min_area)
    faint = np.array([o.goal_faint for o in obs], bool)
    goal_bad = _goal_bad_frames(goal_pos, goal_area, covered, track, spec, prof, settling, cfg, faint=faint,
                                slack=GOAL_SIZE_SLACK_PX / (k * k))
    tracked = track.tracked
    start_offset = None
    if len(tracked):
        first = track.pos[tracked[0]]
        start_offset = float(np.hypot(*(first - (np.array(spec.start) + 0.5)))) / 2
    return MazeVideoAnalysis(spec=spec, style=prof, geometry=analyser.geometry, ious=ious,
                             goal_pos=goal_pos, goal_area=goal_area, track=track, crossing=crossing, cells=cells,
                             path=path, loops=loops, settling=settling, goal_bad=goal_bad, start_offset=start_offset,
                             box=analyser.place.box, relocations=analyser.place.relocations,
                             lowest_agent_floor=analyser.agent.lowest_floor, unseen_route=unseen)


def _goal_bad_frames(goal_pos: np.ndarray, goal_area: np.ndarray, covered: np.ndarray, track: Track,
                     spec: MazeSpec, prof: StyleProfile, settling: Settling, cfg: MazeConfig, *,
                     faint: np.ndarray | None = None, slack: float = 0.0) -> list[int]:
    """Frames where the goal is missing, displaced (> marker_tolerance cells) or resized
    (< 1/2 or > 2x its usual area, by more than ``slack`` lattice cells^2) while neither the
    agent nor anything of its colour (a trail, a left-behind marker) is on or next to it.
    ``faint``: frames where the goal was found only paled in its cell (:attr:`FrameObs.goal_faint`),
    in place but of no size to compare.

    ``slack``: a goal of a few canvas pixels has no size to measure: VMEvalKit's flag, a red
    triangle a fifth of a cell wide beside a brown pole, is 3 canvas pixels at 8 a lattice cell,
    and where compression bleeds the triangle's red into the pole (or a warm cast drifts the
    pole's hue into the red window) the two read as one goal for a dozen frames, then as the
    triangle again: 3x its area and back, in place."""
    centre = np.array(spec.goal, float) + 0.5
    n = len(goal_pos)
    visible = goal_area > 0
    faint = np.zeros(n, bool) if faint is None else faint
    offset = np.hypot(*(goal_pos - centre).T) / 2
    clear = visible & ~faint & (offset <= cfg.marker_tolerance) & (covered <= GOAL_COVERED)  # in place, uncovered
    # The goal's usual size: the median of its last GOAL_SIZE_FRAMES clear sightings, at first
    # those of its first frames. A redrawn goal is a step that stands out for half that many
    # frames; a small marker's measured area also drifts with compression and a moving camera,
    # by 2x over a long video, which is no change (mazeworld 16761 v00229).
    recent = deque(goal_area[clear][:10].tolist(), maxlen=GOAL_SIZE_FRAMES)
    cr, cc = float(centre[0]), float(centre[1])
    arrival = settling.first_arrival
    tolerance = cfg.marker_tolerance
    last: tuple[float, float] | None = None
    bad = []
    # (plain floats frame by frame: this loop runs once per frame of every video)
    for t, (row, col), area, seen, off, cover, is_clear, pale in zip(
            range(n), track.pos.tolist(), goal_area.tolist(), visible.tolist(), offset.tolist(), covered.tolist(),
            clear.tolist(), faint.tolist()):
        usual = statistics.median(recent) if recent else 0.0
        if is_clear:
            recent.append(area)
        if row == row:  # not NaN: the agent was seen
            last = (row, col)
        near = last is not None and max(abs(last[0] - cr), abs(last[1] - cc)) <= NEAR_GOAL
        arrived = arrival is not None and t >= arrival
        moved = seen and off > tolerance
        if near and not moved or cover > GOAL_COVERED and not moved:
            continue
        if prof.goal_changes_on_arrival and arrived:
            # arrival effects replace the goal (and the agent) by an icon where it was; a
            # goal drawn in another cell is still a changed maze
            if moved:
                bad.append(t)
            continue
        resized = bool(usual) and not pale and not (0.5 * usual - slack <= area <= 2.0 * usual + slack)
        if not seen or moved or resized:
            bad.append(t)
    return bad


__all__ = ["LOCATE_WITHIN", "MazeVideoAnalysis", "analyse_video"]
