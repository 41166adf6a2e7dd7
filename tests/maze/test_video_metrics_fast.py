"""The vectorised / flat-list helpers of the video analysis give exactly what their scalar
definitions give (same floats, same cells, same order): each test holds a helper against a
plain reimplementation of the per-item rule it replaces."""

from __future__ import annotations

from collections import deque
from itertools import product

import cv2
import numpy as np
import pytest

from cvcheck.config import MazeConfig
from cvcheck.maze.lattice import (
    MazeSpec,
    _joined,
    _layers,
    best_shortest_path,
    count_shortest_paths,
    shortest_path,
)
from cvcheck.maze.metrics import _no_growth, path_match, upscale_cells
from cvcheck.maze.track import STATIC_SPAN, Tracklet, _nearest_first, _still, _within
from cvcheck.maze.video_metrics import SAMPLE_STEP, WallGeometry, _line_bands, _sample_segments, _typical_speed
from cvcheck.maze.video_obs import Blob
from cvcheck.synth.maze_gen import make_maze


def _spec(seed: int, size: int = 5, loops: int = 0) -> MazeSpec:
    rng = np.random.default_rng(seed)
    walls = make_maze(size, rng=rng).walls.copy()
    for _ in range(loops):  # knock out walls between cells: cycles, several shortest paths
        r, c = int(rng.integers(1, walls.shape[0] - 1)), int(rng.integers(1, walls.shape[1] - 1))
        if (r + c) % 2:
            walls[r, c] = False
    return MazeSpec.from_lattice(walls, start=(0, 0), goal=(size - 1, size - 1))


def _points(rng: np.random.Generator, shape: tuple[int, int], n: int) -> np.ndarray:
    """Positions anywhere around the lattice, some on cell and core-pixel boundaries exactly."""
    pts = rng.uniform(-1, [shape[0] + 1, shape[1] + 1], (n, 2))
    pts[::3] = np.round(pts[::3] * 2) / 2
    pts[1::4] = np.round(pts[1::4] * 8) / 8
    return pts


# -- segment sampling ------------------------------------------------------------------------

def _segment_walls_scalar(geo: WallGeometry, p0: np.ndarray, p1: np.ndarray) -> list[tuple[int, int]]:
    n = max(2, int(np.ceil(np.hypot(*(p1 - p0)) / SAMPLE_STEP)) + 1)
    pts = p0[None, :] + np.linspace(0, 1, n)[:, None] * (p1 - p0)[None, :]
    out: list[tuple[int, int]] = []
    for r, c in np.floor(pts[geo.in_core(pts)]).astype(int):
        if not out or out[-1] != (int(r), int(c)):
            out.append((int(r), int(c)))
    return out


def test_segments_are_sampled_as_linspace_samples_each():
    rng = np.random.default_rng(0)
    p0 = rng.uniform(0, 20, (300, 2))
    p1 = p0 + rng.normal(0, 1, (300, 2)) * rng.choice([0.0, 1e-9, 0.01, 0.3, 3.0, 15.0], (300, 1))
    pts, seg = _sample_segments(p0, p1)
    for i in range(len(p0)):
        n = max(2, int(np.ceil(np.hypot(*(p1[i] - p0[i])) / SAMPLE_STEP)) + 1)
        want = p0[i][None, :] + np.linspace(0, 1, n)[:, None] * (p1[i] - p0[i])[None, :]
        assert np.array_equal(pts[seg == i], want)
    empty, owner = _sample_segments(np.zeros((0, 2)), np.zeros((0, 2)))
    assert empty.shape == (0, 2) and owner.shape == (0,)


@pytest.mark.parametrize("half", [None, 0.1, 0.3])
def test_segment_walls_match_the_scalar_rule(half):
    rng = np.random.default_rng(1)
    geo = WallGeometry(_spec(3, 6), erosion=0.3, line_halfwidth=half)
    pts = _points(rng, geo.walls.shape, 120)
    want = [_segment_walls_scalar(geo, a, b) for a, b in zip(pts[:-1], pts[1:])]
    assert geo.segments_walls(pts[:-1], pts[1:]) == want
    assert [geo.segment_walls(a, b) for a, b in zip(pts[:-1], pts[1:])] == want
    assert any(want)


def _line_bands_per_wall(walls: np.ndarray, q: int, half: float) -> np.ndarray:
    """One rectangle per wall segment."""
    core = np.zeros((walls.shape[0] * q, walls.shape[1] * q), np.uint8)
    hw = half * q
    for r, c in np.argwhere(walls):
        if r % 2 == 0 and c % 2 == 1:
            y, x0, x1 = (r + 0.5) * q, (c - 0.5) * q, (c + 1.5) * q
            cv2.rectangle(core, (int(round(x0)), int(round(y - hw))), (int(round(x1)), int(round(y + hw))), 1, -1)
        elif r % 2 == 1 and c % 2 == 0:
            x, y0, y1 = (c + 0.5) * q, (r - 0.5) * q, (r + 1.5) * q
            cv2.rectangle(core, (int(round(x - hw)), int(round(y0))), (int(round(x + hw)), int(round(y1))), 1, -1)
    return core.astype(bool)


def test_line_bands_draw_runs_as_their_segments():
    rng = np.random.default_rng(8)
    for _ in range(300):
        walls = rng.random((int(rng.integers(1, 12)), int(rng.integers(1, 12)))) < rng.uniform(0.2, 1)
        q, half = int(rng.integers(1, 40)), float(rng.choice([0.02, 0.1, 0.25, 0.5, 0.8, 1.5]))
        assert np.array_equal(_line_bands(walls, q, half), _line_bands_per_wall(walls, q, half))
    spec = _spec(9, 6)
    assert np.array_equal(_line_bands(spec.walls, 10, 0.3), _line_bands_per_wall(spec.walls, 10, 0.3))


# -- cells of positions ----------------------------------------------------------------------

def _cell_of_scalar(geo: WallGeometry, p: np.ndarray) -> tuple[int, int]:
    h, w = geo.walls.shape
    i, j = int(np.clip(np.floor(p[0]), 0, h - 1)), int(np.clip(np.floor(p[1]), 0, w - 1))
    if not geo.walls[i, j] or geo.in_core(p)[0]:
        return (i, j)
    best, best_d = (i, j), np.inf
    for di, dj in product((-1, 0, 1), (-1, 0, 1)):
        a, b = i + di, j + dj
        if 0 <= a < h and 0 <= b < w and not geo.walls[a, b]:
            d = float(np.hypot(p[0] - (a + 0.5), p[1] - (b + 0.5)))
            if d < best_d:
                best, best_d = (a, b), d
    return best


@pytest.mark.parametrize("half", [None, 0.15])
def test_cells_of_match_cell_of_rule(half):
    rng = np.random.default_rng(2)
    geo = WallGeometry(_spec(5, 5), erosion=0.3, line_halfwidth=half)
    pts = _points(rng, geo.walls.shape, 400)
    want = [_cell_of_scalar(geo, p) for p in pts]
    assert geo.cells_of(pts) == want
    assert geo.cells_of(pts, geo.in_core(pts)) == want
    assert [geo.cell_of(p) for p in pts] == want
    assert sum(bool(geo.walls[c]) for c in want) < len(want)  # fringe positions went to open cells


# -- corridor distances and routes ----------------------------------------------------------

def _bfs(walls: np.ndarray, source: tuple[int, int]) -> np.ndarray:
    h, w = walls.shape
    dist = np.full((h, w), -1, int)
    if not walls[source]:
        dist[source] = 0
        queue = deque([source])
        while queue:
            r, c = queue.popleft()
            for a, b in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if 0 <= a < h and 0 <= b < w and not walls[a, b] and dist[a, b] < 0:
                    dist[a, b] = dist[r, c] + 1
                    queue.append((a, b))
    return dist


def _route_scalar(walls: np.ndarray, a: tuple[int, int], b: tuple[int, int],
                  solution: frozenset[tuple[int, int]] = frozenset()) -> list[tuple[int, int]]:
    """Nearest step first; between steps as near, one on ``solution``, else the first."""
    dist = _bfs(walls, b)
    if dist[a] < 0:
        return []
    path, cur = [a], a
    while cur != b:
        r, c = cur
        cur = min(((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)),
                  key=lambda q: (dist[q] if 0 <= q[0] < dist.shape[0] and 0 <= q[1] < dist.shape[1]
                                 and dist[q] >= 0 else 10 ** 9, q not in solution))
        path.append(cur)
    return path


@pytest.mark.parametrize("loops", [0, 6])
def test_distances_and_routes_match_a_full_search(loops):
    spec = _spec(7, 5, loops)
    cells = list(product(range(spec.walls.shape[0]), range(spec.walls.shape[1])))
    geo = WallGeometry(spec, erosion=0.3)
    for a, b in [(a, b) for a in cells[::7] for b in cells[::5]]:
        # routes first: from searches stopped at their start, before any full search is cached
        assert geo.route(a, b) == _route_scalar(spec.walls, a, b, frozenset(spec.solution))
        assert geo._route_length(a, b) == _bfs(spec.walls, b)[a]
    for b in cells[::5]:
        want = _bfs(spec.walls, b)
        assert np.array_equal(geo.distances(b), want) and geo.distances(b).dtype == want.dtype
        assert np.array_equal(_layers(spec.walls, b), want)


# -- tracking --------------------------------------------------------------------------------

def test_within_and_nearest_first_follow_np_hypot():
    rng = np.random.default_rng(3)
    for reach in (3.0, STATIC_SPAN):
        steps = rng.uniform(-4, 4, (3000, 2))
        steps[:500] = np.round(steps[:500] * 4) / 4
        steps[500:600] = 0.0
        steps[600:603] = [(reach, 0.0), (0.0, -reach), (reach * 0.6, reach * 0.8)]
        on = np.hypot(steps[:, 0], steps[:, 1])
        assert [_within(dr, dc, reach) for dr, dc in steps.tolist()] == (on <= reach).tolist()
    for _ in range(500):
        n = int(rng.integers(2, 7))
        st = rng.choice([0.0, 0.25, 0.5, 1.0, -0.5], (n, 2)) if rng.random() < 0.5 else rng.normal(0, 1, (n, 2))
        pairs = [(float(dr * dr + dc * dc), int(a), int(b), float(dr), float(dc))
                 for (dr, dc), a, b in zip(st, rng.permutation(n), rng.permutation(n))]
        want = sorted(pairs, key=lambda q: (float(np.hypot(q[3], q[4])), q[1], q[2]))
        _nearest_first(pairs)
        assert pairs == want


def test_still_is_a_span_below_static_span():
    rng = np.random.default_rng(4)
    for _ in range(300):
        pts = rng.uniform(0, 1, (int(rng.integers(1, 6)), 2)) * rng.choice([0.3, 0.6, 1.0])
        tr = Tracklet(frames=list(range(len(pts))), blobs=[Blob(float(r), float(c), 1.0) for r, c in pts])
        assert _still(tr) == (len(pts) >= 2 and float(np.ptp(pts, axis=0).max()) < STATIC_SPAN)
    nan = Tracklet(frames=[0, 1], blobs=[Blob(1.0, 1.0, 1.0), Blob(float("nan"), 1.0, 1.0)])
    assert not _still(nan)


def test_typical_speed_is_np_median():
    rng = np.random.default_rng(5)
    for n in range(0, 40):
        t = np.flatnonzero(rng.random(n + 5) < 0.8)
        pos = rng.normal(0, 0.3, (len(t), 2)).cumsum(axis=0)
        steps = np.hypot(*(pos[1:] - pos[:-1]).T)[np.diff(t) == 1] if len(t) > 1 else np.zeros(0)
        moving = steps[steps > 0.02]
        want = float(np.median(moving)) if moving.size else 0.0
        assert _typical_speed(t, pos) == want


# -- shortest paths on the lattice -----------------------------------------------------------

def _all_shortest(walls: np.ndarray, s: tuple[int, int], g: tuple[int, int]) -> list[tuple]:
    """Every shortest path, by brute force over the BFS layers."""
    ds = _bfs(walls, s)
    if ds[g] < 0:
        return []
    paths = [[g]]
    while paths[0][-1] != s:
        paths = [p + [q] for p in paths for q in ((p[-1][0] + dr, p[-1][1] + dc) for dr, dc in
                 ((-1, 0), (1, 0), (0, -1), (0, 1)))
                 if 0 <= q[0] < walls.shape[0] and 0 <= q[1] < walls.shape[1] and ds[q] == ds[p[-1]] - 1]
    return [tuple(reversed(p)) for p in paths]


@pytest.mark.parametrize("loops", [0, 3, 10])
def test_path_counts_and_best_paths(loops):
    rng = np.random.default_rng(loops)
    for seed in range(6):
        spec = _spec(seed, 4, loops)
        walls = spec.walls
        cells = list(product(range(walls.shape[0]), range(walls.shape[1])))
        for _ in range(15):
            s, g = cells[rng.integers(len(cells))], cells[rng.integers(len(cells))]
            every = _all_shortest(walls, s, g)
            for limit in (1, 2, 3):
                assert count_shortest_paths(walls, s, g, limit=limit) == min(limit, len(every))
            prefer = {cells[i] for i in rng.integers(0, len(cells), 8)}
            best = best_shortest_path(walls, s, g, prefer=prefer)
            assert (best in every) if every else best == ()
            if every:
                top = max(sum(c in prefer for c in p) for p in every)
                assert sum(c in prefer for c in best) == top
            path = shortest_path(walls, s, g)
            assert (path in every) if every else path == ()
            assert _joined(~walls, s, g) == bool(every)


def test_shortest_path_cells_keep_the_start_s_integer_type():
    spec = _spec(1, 4)
    s = (np.int64(spec.start[0]), np.int64(spec.start[1]))
    path = shortest_path(spec.walls, s, spec.goal)
    assert path[0] is s and path[-1] == spec.goal
    assert all(type(v) is np.int64 for p in path[1:-1] for v in p)


# -- path matching ---------------------------------------------------------------------------

def test_no_growth_only_where_the_percentile_rule_grows_nothing():
    rng = np.random.default_rng(6)
    decided = 0
    for _ in range(200):
        k = int(rng.choice([4, 8, 9, 16]))
        mask = rng.random((7, 7)) < 0.4
        path = upscale_cells(mask, k)
        if rng.random() < 0.5:  # thin lines and ragged edges
            path = path & (rng.random(path.shape) < rng.choice([0.5, 0.95]))
        if not path.any():
            continue
        dist = cv2.distanceTransform(path.astype(np.uint8), cv2.DIST_L2, 3)
        grow = int(round(k / 2 - float(np.percentile(dist[path], 95))))
        if _no_growth(dist, path, k):
            decided += 1
            assert grow <= 0
    assert decided > 20


def test_path_match_counts_blocks_as_pixels():
    rng = np.random.default_rng(7)
    spec = _spec(2, 5)
    cfg = MazeConfig()
    for k in (4, 8, 13):
        for _ in range(10):
            mask = rng.random(spec.walls.shape) < 0.3
            path = upscale_cells(mask, k) & (rng.random((mask.shape[0] * k, mask.shape[1] * k)) < 0.9)
            match, dilated = path_match(path, spec, k, cfg)
            ref = np.zeros(mask.shape, bool)
            for p in match.solution:
                ref[p] = True
            ref_px = upscale_cells(ref, k)
            inter, union = np.count_nonzero(dilated & ref_px), np.count_nonzero(dilated | ref_px)
            assert match.iou == (inter / union if union else 0.0)
            assert match.precision == (inter / np.count_nonzero(dilated) if dilated.any() else 0.0)
            assert match.recall == (inter / np.count_nonzero(ref_px) if ref_px.any() else 0.0)
