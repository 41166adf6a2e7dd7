"""Property tests: paths inside corridors never cross; a step through a wall always does."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cvcheck.maze import verify_image
from cvcheck.maze.lattice import shortest_path
from cvcheck.synth.maze_gen import make_maze
from cvcheck.synth.maze_render import AnswerStyle, render_answer, render_solution

STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _corridor_walk(walls: np.ndarray, start, rng, length: int) -> list:
    walk = [start]
    for _ in range(length):
        r, c = walk[-1]
        options = [(r + dr, c + dc) for dr, dc in STEPS if not walls[r + dr, c + dc]]
        walk.append(options[int(rng.integers(len(options)))])
    return walk


def _style(draw_seed: int, size: int, polyline: bool) -> AnswerStyle:
    rng = np.random.default_rng(draw_seed)
    side = 2 * size + 1
    return AnswerStyle(
        path_style="polyline" if polyline else "cells", cell_px=24,
        line_width=float(rng.uniform(0.25, 0.6)), jitter=float(rng.uniform(0, 0.1)) if polyline else 0.0,
        out_size=(int(rng.integers(max(256, 8 * side), 700)),) * 2,
        blur_sigma=float(rng.choice([0.0, 0.8])), jpeg_quality=int(rng.choice([60, 90])),
        padding=(0.05, 0.02, 0.0, 0.08),
    )


maze_params = st.tuples(st.integers(0, 10_000), st.integers(3, 11), st.booleans(), st.integers(2, 40))


@SETTINGS
@given(maze_params)
def test_a_path_inside_corridors_never_reports_a_crossing(params):
    seed, size, polyline, length = params
    rng = np.random.default_rng(seed)
    spec = make_maze(size, rng=rng, endpoints="random")
    walk = _corridor_walk(spec.walls, spec.start, rng, length)
    answer = render_answer(spec.walls, start=spec.start, goal=spec.goal, path=walk,
                           style=_style(seed, size, polyline), rng=rng)
    before = answer.copy()
    r = verify_image(answer, render_solution(spec, cell_px=6))
    assert r.metrics["cross_wall"] == 0, r.details["crossings"]
    assert np.array_equal(answer, before)


@SETTINGS
@given(maze_params)
def test_a_step_through_a_wall_is_always_caught_and_named(params):
    seed, size, polyline, length = params
    rng = np.random.default_rng(seed)
    spec = make_maze(size, rng=rng, endpoints="random")
    walk = _corridor_walk(spec.walls, spec.start, rng, length)
    h, w = spec.walls.shape
    # from the last cell visited (else any cell, reached through corridors), go through an
    # interior wall into the neighbouring cell
    cells = [p for p in reversed(walk) if p[0] % 2 and p[1] % 2]
    cells += [(r, c) for r in range(1, h, 2) for c in range(1, w, 2) if (r, c) not in cells]
    through = None
    for r, c in cells:
        for dr, dc in STEPS:
            wall, beyond = (r + dr, c + dc), (r + 2 * dr, c + 2 * dc)
            if 0 < beyond[0] < h and 0 < beyond[1] < w and spec.walls[wall]:
                through = (r, c), wall, beyond
                break
        if through:
            break
    assert through is not None
    cell, wall, beyond = through
    if cell in walk:
        path = walk[: walk.index(cell) + 1] + [wall, beyond]
    else:
        path = walk + list(shortest_path(spec.walls, walk[-1], cell))[1:] + [wall, beyond]
    answer = render_answer(spec.walls, start=spec.start, goal=spec.goal, path=path,
                           style=_style(seed, size, polyline), rng=rng)
    r = verify_image(answer, render_solution(spec, cell_px=6))
    assert r.metrics["cross_wall"] == 1
    assert list(wall) in [c["lattice"] for c in r.details["crossings"]]
