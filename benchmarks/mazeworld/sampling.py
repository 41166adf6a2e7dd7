"""Per-case random choices: maze, plan, motion and style, all drawn from one seeded generator."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .effects import Camera
from .image import ImageStyle
from .markers import MarkerStyle
from .mazes import Maze, MazeConstraintError, generate_maze
from .motion import Timeline, glide_timeline, strip_timeline
from .plans import NEEDS_OPEN_GOAL, Plan, PlanError, make_plan
from .video import BoardSpec, VideoStyle

_GEN_WEIGHTS = {"dfs": 0.24, "wilson": 0.2, "kruskal": 0.2, "prim": 0.14, "dfs_percolation": 0.14, "percolation": 0.08}
VIDEO_SIZES: tuple[tuple[int, int], ...] = ((832, 480), (854, 480), (848, 480), (960, 544), (1024, 576), (1280, 720))
_VIDEO_SIZE_P = (0.3, 0.2, 0.1, 0.1, 0.1, 0.2)
#: frame-size sets a corpus can be drawn at: ``standard`` (the 480p-720p landscape sizes above)
#: and ``wide`` (1080p, portrait, square and 704p outputs: Veo, Sora, Wan and square-only models)
FRAME_SIZE_SETS: dict[str, tuple[tuple[tuple[int, int], ...], tuple[float, ...]]] = {
    "standard": (VIDEO_SIZES, _VIDEO_SIZE_P),
    "wide": (((1920, 1080), (720, 1280), (480, 832), (1024, 1024), (512, 512), (1280, 704)),
             (0.25, 0.2, 0.15, 0.15, 0.1, 0.15)),
}
PLOT_FIGURES: tuple[tuple[int, int], ...] = ((832, 480), (640, 480), (800, 600), (768, 512), (1024, 768), (512, 512),
                                            (1024, 1024))
IMAGE_SIZES: tuple[tuple[int, int], ...] = ((1024, 1024), (768, 768), (512, 512), (1024, 768), (1280, 720))


@dataclass(frozen=True, eq=False)
class VideoDraw:
    """One sampled video case."""

    maze: Maze
    plan: Plan
    timeline: Timeline
    style: VideoStyle
    effects: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class ImageDraw:
    """One sampled image case."""

    maze: Maze
    plan: Plan
    style: ImageStyle
    effects: tuple[str, ...]


def _choice(rng: np.random.Generator, options, p=None):
    return options[int(rng.choice(len(options), p=p))]


def _grid(rng: np.random.Generator, lo: int, hi: int) -> tuple[int, int]:
    rows = int(rng.integers(lo, hi + 1))
    if rng.uniform() < 0.2:
        cols = int(np.clip(rows + rng.integers(-3, 4), lo, hi))
        return rows, cols
    return rows, rows


def sample_maze_and_plan(rng: np.random.Generator, behaviour: str, *, grid_range: tuple[int, int],
                         max_solution: int | None = None, tries: int = 60) -> tuple[Maze, Plan]:
    """A maze from maze-dataset that can host ``behaviour`` and its plan."""
    gens = list(_GEN_WEIGHTS)
    weights = np.array([_GEN_WEIGHTS[g] for g in gens])
    last: Exception | None = None
    for _ in range(tries):
        generator = _choice(rng, gens, weights / weights.sum())
        try:
            maze = generate_maze(
                rng, grid=_grid(rng, *grid_range), generator=generator,
                endpoints="corner" if rng.uniform() < 0.55 else "random",
                goal_min_degree=2 if behaviour in NEEDS_OPEN_GOAL else 1,
                min_solution=3, max_solution=max_solution, attempts=10,
            )
            return maze, make_plan(behaviour, maze, rng)
        except (PlanError, MazeConstraintError) as err:
            last = err
    raise RuntimeError(f"no maze could host {behaviour!r}: {last}")


def _walls_class(rng: np.random.Generator, look: str) -> str:
    if look == "mmgr":
        return "thick"
    p = (0.6, 0.3, 0.1) if look == "mazeplot" else (0.2, 0.6, 0.2)
    return _choice(rng, ("thin", "medium", "thick"), p)


def _board_spec(rng: np.random.Generator, look: str, grid: tuple[int, int], walls: str, index: int) -> BoardSpec:
    rows, cols = grid
    if look == "mmgr":
        target = float(rng.uniform(256, 1024))
        return BoardSpec("mmgr", lattice_px=max(2, int(round(target / (2 * max(rows, cols) + 1)))))
    if look == "mazeplot":
        size = _choice(rng, PLOT_FIGURES)
        pitch = 0.77 * min(size[1] / rows, size[0] / cols)  # default subplot box, equal aspect
        ul = {"thin": max(8, int(round(pitch / rng.uniform(1.1, 1.9)))), "medium": 14,
              "thick": int(rng.integers(7, 9))}[walls]
        title = _choice(rng, ("", "", "", f"maze {rows}x{cols}", f"maze{rows}_{index:04d}"))
        return BoardSpec("mazeplot", size_px=size, unit_length=ul, title=title)
    maze_px = int(rng.integers(400, 640))
    ul = {"thin": int(rng.integers(28, 41)), "medium": int(rng.integers(13, 17)),
          "thick": int(rng.integers(7, 10))}[walls]
    if walls == "thin":
        ul = max(ul, int(maze_px / max(rows, cols) / 1.6))
    return BoardSpec("vmeval", maze_px=maze_px, unit_length=ul)


def _bar(rng: np.random.Generator) -> tuple[int, int, int]:
    return _choice(rng, ((255, 255, 255), (236, 236, 236), (0, 0, 0)), (0.75, 0.1, 0.15))


def sample_video(rng: np.random.Generator, look: str, behaviour: str, index: int, *,
                 frame_sizes: str = "standard") -> VideoDraw:
    """Draw a maze, a plan, a motion timeline and a style for one video case (its frame size
    from the ``frame_sizes`` set of :data:`FRAME_SIZE_SETS`)."""
    strip = behaviour != "wall_pass" and rng.uniform() < (0.35 if look == "vmeval" else 0.12)
    maze, plan = sample_maze_and_plan(rng, behaviour, grid_range=(3, 6) if strip else (3, 13),
                                      max_solution=10 if strip else None)
    effects: list[str] = []
    hide_first = look == "mazeplot"
    glide_in = look == "mazeplot" or rng.uniform() < 0.5
    icon_roll = rng.uniform()
    icon_frames_roll = int(rng.integers(1, 4))
    for _ in range(4):
        ends_at_goal = plan.path[-1] == maze.goal and plan.goal_after is None
        icon = None
        if ends_at_goal and (look == "mazeplot" or icon_roll < (0.25 if look == "vmeval" else 0.1)):
            icon = "trophy" if look == "mazeplot" else "sparkle"
        icon_frames = icon_frames_roll if icon else 0
        try:
            timeline = (strip_timeline(plan, rng, hide_first=hide_first, icon_frames=icon_frames) if strip else
                        glide_timeline(plan, rng, hide_first=hide_first, icon_frames=icon_frames, glide_in=glide_in))
            break
        except PlanError:  # too long for a strip / for the longest glide: fall back, then shrink the maze
            if strip:
                strip = False
            else:
                maze, plan = sample_maze_and_plan(rng, behaviour, grid_range=(3, 9))
    else:
        raise RuntimeError(f"no timeline fits {behaviour!r}")
    n = timeline.n_frames
    walls = _walls_class(rng, look)
    board = _board_spec(rng, look, maze.grid, walls, index)
    small = look == "vmeval" and rng.uniform() < 0.5
    markers = MarkerStyle(look, agent_scale=float(rng.uniform(0.85, 1.1)),
                          small_agent_px=float(rng.uniform(3, 5)) if small else None,
                          agent_edge=look == "vmeval" and rng.uniform() < 0.5)
    if look == "mazeplot" and 480 <= board.size_px[1] <= 720 and board.size_px[0] >= 640 and rng.uniform() < 0.5:
        frame_size, fill = board.size_px, 1.0  # the video is the figure itself (MiniVeo3-style)
    else:
        frame_size, fill = _choice(rng, *FRAME_SIZE_SETS[frame_sizes]), float(rng.uniform(0.85, 1.0))
    drift = not strip and rng.uniform() < 0.25
    camera = Camera()
    if drift:
        fill = min(fill, 0.9)
        camera = Camera(zoom=float(rng.choice([-1, 1]) * rng.uniform(0.01, 0.04)),
                        shift=(float(rng.uniform(-0.015, 0.015) * frame_size[0]),
                               float(rng.uniform(-0.015, 0.015) * frame_size[1])))
    caption = None
    if look == "vmeval" and strip:
        caption = "top" if rng.uniform() < 0.7 else "bottom"
    distractor = None
    if look == "vmeval" and rng.uniform() < 0.35:
        distractor = (int(rng.integers(1, maze.grid[0])) - 0.5, int(rng.integers(1, maze.grid[1])) - 0.5)
    wall_change = None
    if plan.drawn_walls is not None:
        begin = int(rng.integers(1, n - 1)) if strip else int(rng.integers(int(0.15 * n), int(0.7 * n)))
        end = n if rng.uniform() < 0.7 else min(n, begin + int(rng.integers(1 if strip else 3, 3 if strip else 11)))
        wall_change = (begin, end)
        if end < n:
            effects.append("wall_change_transient")
    goal_change = None
    if plan.goal_after is not None:
        to_new = plan.path[-1] == plan.goal_after
        goal_change = (int(rng.integers(1, max(2, int(0.3 * n)))) if to_new
                       else int(rng.integers(int(0.2 * n), int(0.7 * n))))
    style = VideoStyle(
        board=board, markers=markers, frame_size=frame_size, fill=fill,
        place=(float(rng.uniform(0.3, 0.7)), float(rng.uniform(0.3, 0.7))),
        bar=(255, 255, 255) if caption else _bar(rng),  # captioned strips are paper figures on white
        camera=camera, blur_sigma=float(rng.uniform(0.5, 1.3)) if rng.uniform() < 0.3 else 0.0,
        fps=float(_choice(rng, (1.0, 2.0)) if strip else _choice(rng, (15.0, 16.0, 24.0, 30.0))),
        crf=int(rng.integers(23, 36)), recolour=float(rng.uniform(0.2, 0.5)) if rng.uniform() < 0.2 else 0.0,
        trail=behaviour == "trail", start_left=look != "mazeplot" and rng.uniform() < 0.3,
        distractor=distractor, distractor_px=float(rng.uniform(2.0, 3.5)), icon=icon, icon_frames=icon_frames,
        caption=caption,
        caption_gap=int(_choice(rng, (0, 0, 1, 2))), caption_step=int(_choice(rng, (1, 8, 12, 16, 24))),
        wall_change=wall_change, goal_change=goal_change,
    )
    effects += _video_effects(style, timeline, glide_in, walls)
    return VideoDraw(maze, plan, timeline, style, tuple(sorted(set(effects))))


def _video_effects(style: VideoStyle, timeline: Timeline, glide_in: bool, walls: str) -> list[str]:
    look = style.board.look
    out = [f"walls_{walls}", "h264"]
    if not timeline.visible[0]:
        out.append("agent_absent_frame0")
    if look == "mazeplot" or style.start_left:
        out.append("start_marker_left_behind")
    if glide_in and timeline.mode == "glide":
        out.append("glide_in")
    if style.icon:
        out.append(f"arrival_{style.icon}")
    if look == "mazeplot":
        out.append("axis_labels")
        if style.board.title:
            out.append("title")
    if style.caption:
        out.append("caption_touching")
    if timeline.mode == "strip":
        out.append(f"strip_{int(style.fps)}fps")
    if style.blur_sigma > 0:
        out.append("blur")
    if style.distractor is not None:
        out.append("distractor")
    if style.recolour > 0:
        out.append("agent_recolour")
    if not style.camera.still:
        out.append("camera_drift")
    native = look == "mazeplot" and style.frame_size == style.board.size_px and style.fill == 1.0
    if not native:
        out.append("letterbox_black" if style.bar == (0, 0, 0) else "letterbox")
    if style.trail:
        out.append("trail")
    return out


def sample_image(rng: np.random.Generator, look: str, behaviour: str, index: int) -> ImageDraw:
    """Draw a maze, a plan and a style for one image case."""
    maze, plan = sample_maze_and_plan(rng, behaviour, grid_range=(3, 13))
    walls = _walls_class(rng, look)
    board = _board_spec(rng, look, maze.grid, walls, index)
    markers = MarkerStyle(look, agent_scale=float(rng.uniform(0.85, 1.1)))
    out_size = _choice(rng, IMAGE_SIZES[:3]) if look == "mmgr" else _choice(rng, IMAGE_SIZES)
    style = ImageStyle(
        board=board, markers=markers, out_size=out_size, fill=float(rng.uniform(0.85, 1.0)),
        place=(float(rng.uniform(0.3, 0.7)), float(rng.uniform(0.3, 0.7))),
        bar=_bar(rng) if look == "mmgr" else (255, 255, 255),
        path_width=float(rng.uniform(0.12, 0.3)),
        blur_sigma=float(rng.uniform(0.5, 1.2)) if rng.uniform() < 0.3 else 0.0,
        jpeg_quality=int(rng.integers(60, 96)) if rng.uniform() < 0.4 else None,
    )
    effects = [f"walls_{walls}", "resampled"]
    if look == "mazeplot":
        effects.append("axis_labels")
        if board.title:
            effects.append("title")
    if style.blur_sigma > 0:
        effects.append("blur")
    if style.jpeg_quality is not None:
        effects.append("jpeg")
    if style.fill < 1.0:
        effects.append("letterbox_black" if style.bar == (0, 0, 0) else "letterbox")
    return ImageDraw(maze, plan, style, tuple(sorted(effects)))


def case_rng(seed: int, modality: str, index: int) -> np.random.Generator:
    """The generator of one case: a function of the corpus seed, the modality and the index only."""
    return np.random.default_rng([int(seed), 0 if modality == "video" else 1, int(index)])

