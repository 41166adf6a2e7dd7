"""Behaviours real outputs show that the mazeworld generator never plans, drawn with its pieces
(maze-dataset mazes, the mazeworld composer and looks): an agent that walks around the outside of
the maze, and a copy of the agent that appears on the goal while the agent itself stops half way.
Neither is a solve, whichever way the maze is given."""

from __future__ import annotations

import json
from collections import deque
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("maze_dataset", reason="needs maze-dataset (pip install -e '.[test]')")

from benchmarks.mazeworld.encode import write_mp4  # noqa: E402
from benchmarks.mazeworld.mazes import Cell, Maze  # noqa: E402
from benchmarks.mazeworld.motion import Timeline, glide_timeline  # noqa: E402
from benchmarks.mazeworld.plans import Plan, PlanError  # noqa: E402
from benchmarks.mazeworld.sampling import sample_video  # noqa: E402
from benchmarks.mazeworld.video import VideoComposer  # noqa: E402
from cvcheck.config import Config  # noqa: E402
from cvcheck.maze.task import grade  # noqa: E402
from cvcheck.schema import Status  # noqa: E402

LOOKS = ("mmgr", "mazeplot", "vmeval")


def _around_the_outside(maze: Maze) -> tuple[tuple[Cell, ...], tuple[str, ...]] | None:
    """The shortest way from the start out through the border, along the ring of cells just
    outside the maze, and in through the border to the goal (None where either is inside)."""
    rows, cols = maze.grid

    def exits(cell: Cell) -> list[Cell]:
        r, c = cell
        return [o for o, edge in (((-1, c), r == 0), ((rows, c), r == rows - 1), ((r, -1), c == 0),
                                  ((r, cols), c == cols - 1)) if edge]

    ring = {(r, c) for r in range(-1, rows + 1) for c in range(-1, cols + 1) if r in (-1, rows) or c in (-1, cols)}
    best: list[Cell] | None = None
    for a in exits(maze.start):
        for b in exits(maze.goal):
            came: dict[Cell, Cell | None] = {a: None}
            queue = deque([a])
            while queue and b not in came:
                r, c = queue.popleft()
                for step in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                    if step in ring and step not in came:
                        came[step] = (r, c)
                        queue.append(step)
            way = [b]
            while (prev := came[way[-1]]) is not None:
                way.append(prev)
            if best is None or len(way) < len(best):
                best = way[::-1]
    if best is None:
        return None
    return (maze.start, *best, maze.goal), ("wall", *["walk"] * (len(best) - 1), "wall")


def _draw(tmp_path: Path, look: str, seed: int, behaviour: str) -> tuple[Path, Path]:
    """An answer video of ``behaviour`` (``outside`` or ``copy_on_goal``) and its maze file."""
    rng = np.random.default_rng([seed, 99])
    for _ in range(40):
        draw = sample_video(rng, look, "valid", seed)
        maze, plan = draw.maze, draw.plan
        if behaviour == "outside":
            way = _around_the_outside(maze)
            if way is None or len(way[0]) > 3 * len(maze.solution):
                continue
            plan = Plan("outside", *way)
        try:
            timeline = glide_timeline(plan, rng, hide_first=look == "mazeplot", icon_frames=0, glide_in=False)
            break
        except PlanError:
            continue
    else:
        raise AssertionError("no maze hosts the behaviour")
    style = replace(draw.style, wall_change=None, goal_change=None, icon=None)
    if behaviour == "outside":
        frames = VideoComposer(maze, plan, timeline, style).frames()
    else:
        frames = _copy_on_goal(maze, plan, timeline, style)
    video, spec = tmp_path / f"{behaviour}-{look}.mp4", tmp_path / f"{behaviour}-{look}.json"
    write_mp4(video, frames, fps=style.fps, crf=style.crf)
    spec.write_text(json.dumps(maze.to_json()))
    return video, spec


def _copy_on_goal(maze: Maze, plan: Plan, timeline: Timeline, style):
    """The agent walks half its solution and stays; from 60 % of the video a second agent stands
    on the goal."""
    n, half = timeline.n_frames, np.array(maze.solution[len(maze.solution) // 2], float)
    pos = timeline.positions.copy()
    there = next(f for f in range(n) if timeline.visible[f] and np.allclose(np.round(pos[f]), half))
    pos[there:] = half
    pos[~timeline.visible] = np.nan
    walker = VideoComposer(maze, plan, Timeline(pos, timeline.visible.copy(), timeline.mode, timeline.speed), style)
    on_goal = np.tile(np.array(maze.goal, float), (n, 1))
    copy = VideoComposer(maze, plan, Timeline(on_goal, timeline.visible.copy(), timeline.mode, timeline.speed), style)
    for f in range(n):
        frame = walker.frame(f)
        if f >= int(0.6 * n):
            drawn = copy.frame(f)
            agent = (drawn != copy.frame(f, agent=False)).any(axis=2)
            frame = frame.copy()
            frame[agent] = drawn[agent]
        yield frame


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize(("behaviour", "metric", "value"), [
    ("outside", "cross_wall", 1),                   # it crosses the border twice
    ("copy_on_goal", "target_achievement", 0),      # the agent itself never reaches the goal
])
def test_unplanned_behaviours_are_no_solve(tmp_path: Path, look: str, behaviour: str, metric: str,
                                           value: int) -> None:
    video, spec = _draw(tmp_path, look, 1000, behaviour)
    for maze in (spec, None):
        r = grade(video, config=Config(), maze=maze)
        assert r.status is Status.OK and r.overall == 0, (look, maze, r.details.get("notes"))
        assert r.metrics[metric] == value, (look, maze, r.details.get("notes"))
