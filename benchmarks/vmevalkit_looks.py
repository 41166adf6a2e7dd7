"""VMEvalKit's own maze puzzles, drawn as its task generator draws them, read and graded by cvcheck.

VMEvalKit (the video-reasoning benchmark whose maze tasks Sora, Veo, Luma, Runway ... were given)
draws its puzzles with maze-dataset's ``MazePlot`` and matplotlib markers, in two families:

* **Irregular**: a Kruskal maze of 3-8 cells a side, ``MazePlot(unit_length=14)`` drawn plain in
  an 832 x 480 figure at 100 dpi; the agent a green (#22c55e) circle of 18 pt with a 2-pt white
  edge, the goal a red (#ef4444) triangular flag with a white edge beside a 4-pt brown (#8b4513)
  pole, sized to 0.32 of a cell;
* **KnowWhat**: the cells of a shape (a square ring, a C, a U, a spiral; a cross or a Z) in an
  all-wall grid of 5, 7 or 9 cells, neighbouring path cells open to each other (rooms and loops:
  not a perfect maze), ``MazePlot(unit_length=20)`` drawn plain in an 8 x 8 in figure at 150 dpi;
  the agent a blue star of 20 pt, the goal a red circle of 20 pt, both with white edges. The
  diagonal strokes of a cross or a Z leave cells touching only at corners, walled in on every
  side; VMEvalKit keeps only puzzles whose goal can be reached (``MazePlot`` raises otherwise).

The sizes and colours are facts from VMEvalKit's public task code; the drawing here is maze-dataset
and matplotlib alone (nothing of cvcheck's or mazeworld's), and the truth is the maze drawn and
the motion planned here.

* **Puzzles**: each first frame is read with ``read_maze`` and compared with the truth: the grid,
  every wall segment, the start and the goal.
* **Videos**: the agent moves at a constant speed along a planned route (then holds still), drawn
  frame by frame by matplotlib, resized to a model's output size and encoded as H.264 at a CRF of
  18-35; the behaviours are ``valid`` (the shortest way to the goal), ``wall_pass`` (the straight
  way, through walls), ``stop_short`` (one cell before the goal) and ``reach_leave`` (to the goal
  and one cell back), and in KnowWhat mazes ``other_route`` (valid, by a shortest way other than
  the one a breadth-first search finds first: the grader must take the best-matching one). Each is
  graded the ``video`` way (the maze read from its first frames) and the ``maze`` way (the maze
  file); the gate must pass ``valid`` and ``other_route`` and fail every other. ``--strips``: also
  2-fps strips as papers' figures show them, one frame a cell of the route.

Needs the test extra (maze-dataset)::

    python benchmarks/vmevalkit_looks.py --puzzles 60 --videos 48 --workers 2 --json out.json
    python benchmarks/vmevalkit_looks.py --puzzles 0 --videos 48 --how boil,drift,crushed
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import tempfile
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BEHAVIOURS = ("valid", "wall_pass", "stop_short", "reach_leave")
OTHER_ROUTE = "other_route"  #: (KnowWhat only: a perfect maze has one shortest way) valid by another shortest way
FAMILIES = ("irregular", "knowwhat")
Cell = tuple[int, int]


@dataclass(frozen=True)
class Puzzle:
    """A maze as VMEvalKit poses it: ``connections`` in maze-dataset's ``connection_list`` form."""

    family: str
    connections: np.ndarray
    start: Cell
    goal: Cell
    shape: str = "kruskal"

    @property
    def size(self) -> int:
        return int(self.connections.shape[1])

    def to_json(self) -> dict[str, Any]:
        return {"grid": [self.size, self.size], "connection_list": self.connections.astype(int).tolist(),
                "start": list(self.start), "goal": list(self.goal)}


# -- the mazes ------------------------------------------------------------------------------------

def _ring(k: int) -> np.ndarray:
    out = np.ones((k, k), int)
    out[1:-1, 1:-1] = 0
    return out


def _c_shape(h: int, w: int) -> np.ndarray:
    out = np.zeros((h, w), int)
    out[0, :] = out[-1, :] = out[:, 0] = 1
    return out


def _spiral(n: int) -> np.ndarray:
    """A clockwise spiral of path cells from the top-left corner, one wall cell between its arms."""
    grid = np.zeros((n, n), int)
    r = c = d = 0
    grid[0, 0] = 1
    steps = ((0, 1), (1, 0), (0, -1), (-1, 0))
    while True:
        for turn in (0, 1):
            dr, dc = steps[(d + turn) % 4]
            nr, nc = r + dr, c + dc
            if not (0 <= nr < n and 0 <= nc < n) or grid[nr, nc]:
                continue
            around = [(nr + a, nc + b) for a, b in steps if (nr + a, nc + b) != (r, c)]
            if any(0 <= y < n and 0 <= x < n and grid[y, x] for y, x in around):
                continue
            grid[nr, nc], r, c, d = 1, nr, nc, (d + turn) % 4
            break
        else:
            return grid


def _diagonal(k: int, kind: str) -> np.ndarray:
    anti = np.fliplr(np.eye(k, dtype=int))
    if kind == "cross":
        return np.eye(k, dtype=int) | anti
    anti[0, :] = anti[-1, :] = 1  # a Z
    return anti


def _shape_cells(rng: np.random.Generator, n: int, shape: str) -> np.ndarray:
    if shape == "spiral":
        return np.rot90(_spiral(n), int(rng.integers(4)))
    k = int(rng.integers(3, n + 1))
    if shape == "ring":
        return _ring(k)
    if shape in ("C", "U"):
        c = _c_shape(k, int(rng.integers(3, k + 1)) if k > 3 else 3)
        return c if shape == "C" else np.rot90(c, 1)
    return _diagonal(k | 1 if shape == "cross" else k, shape)  # (a cross of odd side: no 2 x 2 middle)


def shortest_route(connections: np.ndarray, start: Cell, goal: Cell, *, flipped: bool = False) -> list[Cell] | None:
    """The cells of a shortest way from ``start`` to ``goal`` (breadth first, neighbours tried
    down, up, right, left; ``flipped``: the other way round, which finds another shortest way
    where a loop offers two), or None."""
    n, m = connections.shape[1:]
    came: dict[Cell, Cell | None] = {start: None}
    todo = deque([start])
    while todo:
        r, c = todo.popleft()
        steps = (((r + 1, c), r + 1 < n and connections[0, r, c]), ((r - 1, c), r > 0 and connections[0, r - 1, c]),
                 ((r, c + 1), c + 1 < m and connections[1, r, c]), ((r, c - 1), c > 0 and connections[1, r, c - 1]))
        for nb, open_ in steps[::-1] if flipped else steps:
            if open_ and nb not in came:
                came[nb] = (r, c)
                todo.append(nb)
    if goal not in came:
        return None
    route = [goal]
    while (prev := came[route[-1]]) is not None:
        route.append(prev)
    return route[::-1]


def irregular_puzzle(rng: np.random.Generator) -> Puzzle:
    from maze_dataset.generation import LatticeMazeGenerators

    n = int(rng.choice([3, 4, 5, 6, 7, 8]))
    # maze-dataset draws from the global RNGs: seeded from ``rng`` (and put back), a case is drawn
    # again alike (unseeded, the same --seed drew other mazes, then other frame counts, run to run)
    seed, states = int(rng.integers(2**32)), (random.getstate(), np.random.get_state())
    random.seed(seed)
    np.random.seed(seed)
    try:
        connections = np.asarray(LatticeMazeGenerators.gen_kruskal(grid_shape=(n, n)).connection_list, bool)
    finally:
        random.setstate(states[0])
        np.random.set_state(states[1])
    cells = [(r, c) for r in range(n) for c in range(n)]
    i, j = rng.choice(len(cells), 2, replace=False)
    return Puzzle("irregular", connections, cells[i], cells[j])


def knowwhat_puzzle(rng: np.random.Generator, *, shapes: tuple[str, ...] = ("ring", "C", "U", "spiral", "cross", "Z")
                    ) -> Puzzle:
    """A KnowWhat puzzle whose goal can be reached from its start (drawn again until so)."""
    while shortest_route((p := _knowwhat_draw(rng, shapes)).connections, p.start, p.goal) is None:
        pass
    return p


def _knowwhat_draw(rng: np.random.Generator, shapes: tuple[str, ...]) -> Puzzle:
    n = int(rng.choice([5, 7, 9]))
    shape = str(rng.choice(shapes))
    cells = _shape_cells(rng, n, shape)
    grid = np.zeros((n, n), int)
    r0, c0 = int(rng.integers(0, n - cells.shape[0] + 1)), int(rng.integers(0, n - cells.shape[1] + 1))
    grid[r0:r0 + cells.shape[0], c0:c0 + cells.shape[1]] = cells
    path = grid > 0
    connections = np.zeros((2, n, n), bool)
    connections[0, :-1] = path[:-1] & path[1:]
    connections[1, :, :-1] = path[:, :-1] & path[:, 1:]
    on = [tuple(int(v) for v in p) for p in np.argwhere(path)]
    pairs = [(a, b) for a in on for b in on if np.hypot(a[0] - b[0], a[1] - b[1]) >= 2]  # (VMEvalKit's rule)
    a, b = pairs[int(rng.integers(len(pairs)))]
    return Puzzle("knowwhat", connections, a, b, shape)  # type: ignore[arg-type]


# -- the drawing ----------------------------------------------------------------------------------

class Drawing:
    """A puzzle drawn as VMEvalKit draws it, the agent movable: :meth:`frame` at cell ``(row, col)``."""

    def __init__(self, puzzle: Puzzle) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from maze_dataset.maze.lattice_maze import TargetedLatticeMaze
        from maze_dataset.plotting import MazePlot

        self._plt = plt
        # call-arg: maze-dataset's dataclass init (muutils, kw_only) is invisible to mypy
        maze = TargetedLatticeMaze(connection_list=puzzle.connections, start_pos=puzzle.start,  # type: ignore[call-arg]
                                   end_pos=puzzle.goal)
        knowwhat = puzzle.family == "knowwhat"
        self.plot = MazePlot(maze, unit_length=20 if knowwhat else 14)
        self.plot.true_path, self.plot.predicted_paths = None, []
        self.fig, ax = plt.subplots(figsize=(8, 8) if knowwhat else (8.32, 4.8), dpi=150 if knowwhat else 100)
        self.plot.plot(fig_ax=(self.fig, ax), dpi=int(self.fig.dpi), plain=True)
        gx, gy = self.plot._rowcol_to_coord(np.array(puzzle.goal))
        if knowwhat:
            ax.plot(gx, gy, "o", color="red", markersize=20, markeredgecolor="white", markeredgewidth=2)
            (self.agent,) = ax.plot([0], [0], "*", color="blue", markersize=20, markeredgecolor="white",
                                    markeredgewidth=2)
        else:
            fs = self.plot.unit_length * 0.8 * 0.4
            fx = gx + 0.3 * fs
            ax.plot([gx, gx], [gy - 0.5 * fs, gy + 0.5 * fs], color="#8b4513", linewidth=4, zorder=10)
            ax.fill([fx, fx + 0.6 * fs, fx], [gy + 0.3 * fs, gy, gy - 0.3 * fs], color="#ef4444", edgecolor="white",
                    linewidth=1, zorder=11)
            (self.agent,) = ax.plot([0], [0], "o", color="#22c55e", markersize=18, markeredgecolor="white",
                                    markeredgewidth=2, zorder=10)
        ax.set_aspect("equal")
        ax.axis("off")
        self.fig.patch.set_facecolor("white")
        self.fig.tight_layout(pad=0.1 if knowwhat else 0)
        self.start = puzzle.start

    def puzzle_png(self, path: Path) -> None:
        """The first frame as VMEvalKit saves it (cropped tight to the drawing)."""
        self._place(self.start)
        self.fig.savefig(path, dpi=self.fig.dpi, bbox_inches="tight", facecolor="white")

    def frame(self, at: tuple[float, float], size: tuple[int, int]) -> np.ndarray:
        """The whole figure (RGB) with the agent at cell coordinates ``at``, resized to ``size`` (w, h)."""
        import cv2

        self._place(at)
        self.fig.canvas.draw()
        rgb = np.asarray(self.fig.canvas.buffer_rgba())[:, :, :3]  # type: ignore[attr-defined]
        return cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)

    def _place(self, at: tuple[float, float]) -> None:
        x, y = self.plot._rowcol_to_coord(np.array(at, float))
        self.agent.set_data([x], [y])

    def close(self) -> None:
        self._plt.close(self.fig)


def route_of(puzzle: Puzzle, behaviour: str) -> list[Cell] | None:
    """The cells the agent passes through for ``behaviour`` (None: this puzzle cannot show it)."""
    route = shortest_route(puzzle.connections, puzzle.start, puzzle.goal)
    if route is None or len(route) < 3:
        return None
    if behaviour == "wall_pass":  # one bend, straight through whatever lies between
        (sr, sc), (gr, gc) = puzzle.start, puzzle.goal
        corner = (sr, gc)
        straight = [puzzle.start, corner, puzzle.goal]
        cells = [(sr, c) for c in _between(sc, gc)] + [(r, gc) for r in _between(sr, gr)][1:]
        crossed = not all(_open(puzzle.connections, a, b) for a, b in zip(cells, cells[1:]))
        return straight if crossed else None
    if behaviour == "stop_short":
        return route[:-1]
    if behaviour == "reach_leave":
        return route + [route[-2]]
    if behaviour == "other_route":  # a shortest way other than the one the reader's solver may take
        other = shortest_route(puzzle.connections, puzzle.start, puzzle.goal, flipped=True)
        return other if other != route else None
    return route


def _open(connections: np.ndarray, a: Cell, b: Cell) -> bool:
    """Whether neighbouring cells ``a`` and ``b`` are joined (no wall between them)."""
    (r, c), below = min(a, b), max(a, b)[0] != min(a, b)[0]
    return bool(connections[0 if below else 1, r, c])


def _between(a: int, b: int) -> list[int]:
    return list(range(a, b + 1)) if b >= a else list(range(a, b - 1, -1))


def positions(route: list[Cell], frames: int, hold: int) -> list[tuple[float, float]]:
    """Cell coordinates per frame: constant speed along ``route``, then ``hold`` frames still."""
    pts = np.array(route, float)
    arc = np.r_[0.0, np.cumsum(np.hypot(*np.diff(pts, axis=0).T))]
    moving = frames - hold
    out = []
    for i in range(frames):
        d = arc[-1] * min(1.0, i / max(1, moving - 1))
        k = int(min(np.searchsorted(arc, d, side="right") - 1, len(pts) - 2))
        t = (d - arc[k]) / max(1e-9, arc[k + 1] - arc[k])
        p = pts[k] + t * (pts[k + 1] - pts[k])
        out.append((float(p[0]), float(p[1])))
    return out


# -- the checks -----------------------------------------------------------------------------------

def check_puzzle(family: str, seed: int, folder: Path) -> dict[str, Any]:
    """Draw puzzle ``seed`` of ``family``, read it back, and say what differs from the truth."""
    sys.path.insert(0, str(ROOT))
    from cvcheck.maze.read import read_maze
    from cvcheck.maze.spec_io import spec_from_dict
    from cvcheck.media.image import load_image
    from cvcheck.schema import Unparseable

    rng = np.random.default_rng([seed, 11])
    puzzle = irregular_puzzle(rng) if family == "irregular" else knowwhat_puzzle(rng)
    drawing = Drawing(puzzle)
    path = folder / f"{family}-{seed}.png"
    drawing.puzzle_png(path)
    drawing.close()
    reading = read_maze(load_image(path))
    case = {"family": family, "shape": puzzle.shape, "seed": seed, "size": puzzle.size}
    if isinstance(reading, Unparseable):
        return {**case, "ok": False, "got": f"unparseable: {reading.reason}"}
    truth, spec = spec_from_dict(puzzle.to_json()), reading.spec
    wrong = []
    if spec.walls.shape != truth.walls.shape:
        wrong.append(f"grid {spec.walls.shape} for {truth.walls.shape}")
    elif not np.array_equal(spec.walls, truth.walls):
        wrong.append(f"{int(np.count_nonzero(spec.walls != truth.walls))} wall segments")
    if spec.start != truth.start:
        wrong.append(f"start {spec.start} for {truth.start}")
    if spec.goal != truth.goal:
        wrong.append(f"goal {spec.goal} for {truth.goal}")
    return {**case, "ok": not wrong, "got": "; ".join(wrong) or "exact"}


def check_video(family: str, behaviour: str, seed: int, folder: Path, *, frames: int | None = None,
                how: tuple[str, ...] = (), strip: bool = False) -> list[dict[str, Any]]:
    """Draw and encode one answer video (``frames`` long, or 49, 81 or 121 as drawn; ``strip``: a
    paper's figure strip at 2 fps instead, one frame a cell of the route and two more at its end;
    degraded by each of ``how`` in turn, :mod:`benchmarks.maze_degraded`'s ways), grade it both
    ways; one case per way."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.mazeworld.encode import write_mp4
    from cvcheck.config import Config
    from cvcheck.maze.task import grade

    rng = np.random.default_rng([seed, 13])
    while True:
        puzzle = (irregular_puzzle(rng) if family == "irregular"
                  else knowwhat_puzzle(rng, shapes=("ring", "C", "U", "spiral")))
        if (route := route_of(puzzle, behaviour)) is not None:
            break
    frames = frames or int(rng.choice([49, 81, 121]))
    if family == "knowwhat":
        side = int(rng.choice([480, 640, 720]))
        size = (side, side)
    else:
        size = (832, 480) if rng.uniform() < 0.5 else (1280, 720)
    crf = int(rng.choice([18, 28, 35]))
    drawing = Drawing(puzzle)
    hold = int(rng.integers(4, 13))  # (drawn for strips too: the same seed draws the same video either way)
    if strip:
        cells = [route[0]] + [(r, c) for a, b in zip(route, route[1:]) for r in _between(a[0], b[0])
                              for c in _between(a[1], b[1])][1:]  # (one cell a frame: the legs are straight)
        cells = [c for i, c in enumerate(cells) if i == 0 or c != cells[i - 1]]
        at = [(float(r), float(c)) for r, c in cells + [route[-1]] * 2]
        frames, fps = len(at), 2.0
    else:
        at, fps = positions(route, frames, hold), 16.0
    pictures = [drawing.frame(p, size) for p in at]
    drawing.close()
    if how:
        from benchmarks.maze_degraded import CRF, _degraded

        for i, way in enumerate(how):
            pictures = _degraded(pictures, how=way, rng=np.random.default_rng([seed, 17, i]))
            crf = max(crf, CRF.get(way, crf))
    stem = folder / f"{family}-{behaviour}-{seed}{'-strip' if strip else ''}"
    write_mp4(stem.with_suffix(".mp4"), pictures, fps=fps, crf=crf)
    stem.with_suffix(".json").write_text(json.dumps(puzzle.to_json()) + "\n")
    config = Config()
    out = []
    for way in ("video", "maze"):
        given = {"maze": str(stem.with_suffix(".json"))} if way == "maze" else {}
        result = grade(stem.with_suffix(".mp4"), config=config, **given)
        want = 1.0 if behaviour in ("valid", OTHER_ROUTE) else 0.0
        failed = sorted(k for k, v in result.metrics.items() if k in ("maze_changed", "cross_wall") and v
                        ) + sorted(k for k, v in result.metrics.items() if k in ("target_achievement",) and not v)
        out.append({"family": family, "behaviour": behaviour, "seed": seed, "way": way, "frames": frames,
                    "strip": strip, "size": size, "crf": crf, "shape": puzzle.shape, "overall": result.overall,
                    "ok": result.overall == want,
                    "status": str(result.status), "failed": failed})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--puzzles", type=int, default=60, help="puzzles per family")
    ap.add_argument("--videos", type=int, default=32, help="videos in all (families and behaviours in turn)")
    ap.add_argument("--others", type=int, default=8, help="KnowWhat videos walking a shortest way other than "
                                                          "the one found first (valid: rooms and loops hold several)")
    ap.add_argument("--strips", type=int, default=0, help="also this many 2-fps strips (a paper's figure: the "
                                                         "agent a full cell a frame), families and behaviours in turn")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--how", default="", help="degrade each video so, in turn (benchmarks/maze_degraded.py's "
                                              "ways, comma-separated: e.g. boil,drift,crushed)")
    ap.add_argument("--out", type=Path, default=None, help="keep the drawn files here (default: a temporary folder)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.out or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            puzzles = [pool.submit(check_puzzle, f, args.seed + i, folder)
                       for f in FAMILIES for i in range(args.puzzles)]
            how = tuple(w for w in args.how.split(",") if w)
            videos = [pool.submit(check_video, FAMILIES[i % 2], BEHAVIOURS[(i // 2) % 4], args.seed + i, folder,
                                  how=how) for i in range(args.videos)]
            videos += [pool.submit(check_video, "knowwhat", OTHER_ROUTE, args.seed + 10_000 + i, folder, how=how)
                       for i in range(args.others)]
            videos += [pool.submit(check_video, FAMILIES[i % 2], BEHAVIOURS[(i // 2) % 4], args.seed + 20_000 + i,
                                   folder, how=how, strip=True) for i in range(args.strips)]
            read = [f.result() for f in puzzles]
            graded = [c for f in videos for c in f.result()]
    report: dict[str, Any] = {"puzzles": {}, "videos": {}}
    for family in FAMILIES:
        mine = [c for c in read if c["family"] == family]
        report["puzzles"][family] = {"read_exactly": f"{sum(c['ok'] for c in mine)}/{len(mine)}",
                                     "shapes": sorted({c["shape"] for c in mine})}
    for way in ("video", "maze"):
        mine = [c for c in graded if c["way"] == way]
        report["videos"][way] = {"gate_agreement": f"{sum(c['ok'] for c in mine)}/{len(mine)}",
                                 **{b: f"{sum(c['ok'] for c in mine if c['behaviour'] == b)}/"
                                       f"{sum(1 for c in mine if c['behaviour'] == b)}"
                                    for b in (*BEHAVIOURS, OTHER_ROUTE)}}
    report["misses"] = [c for c in read + graded if not c["ok"]]
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(json.dumps({**report, "puzzle_cases": read, "video_cases": graded}, indent=2) + "\n")
    return 0 if not report["misses"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
