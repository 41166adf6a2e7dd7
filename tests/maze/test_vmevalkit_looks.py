"""VMEvalKit's two maze families (Irregular: green dot and red flag; KnowWhat: blue star and red
circle in shape mazes with rooms), drawn with maze-dataset and matplotlib as VMEvalKit's task
code draws them (benchmarks/vmevalkit_looks.py): read exactly, and graded right both ways in."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("maze_dataset", reason="needs maze-dataset (pip install -e '.[test]')")

from benchmarks.vmevalkit_looks import (  # noqa: E402
    _spiral,
    check_puzzle,
    check_video,
    knowwhat_puzzle,
    shortest_route,
)


@pytest.mark.parametrize("family,seed", [("irregular", 3), ("irregular", 8), ("knowwhat", 2), ("knowwhat", 5)])
def test_first_frames_are_read_exactly(family: str, seed: int, tmp_path: Path) -> None:
    case = check_puzzle(family, seed, tmp_path)
    assert case["ok"], case


def test_knowwhat_mazes_have_rooms_and_a_way_to_the_goal() -> None:
    rng = np.random.default_rng(0)
    for _ in range(20):
        p = knowwhat_puzzle(rng)
        assert shortest_route(p.connections, p.start, p.goal) is not None
    spiral = _spiral(7)
    assert spiral[0].all() and spiral[:, -1].all()  # the outer arms
    assert not spiral[1, :-1].any()  # one wall cell between the top arm and the next


def test_a_valid_knowwhat_walk_passes_read_from_its_first_frames(tmp_path: Path) -> None:
    video, spec = check_video("knowwhat", "valid", 1, tmp_path, frames=41)
    assert video["way"] == "video" and video["ok"], video
    assert spec["way"] == "maze" and spec["ok"], spec


def test_an_irregular_walk_through_walls_fails_on_the_walls(tmp_path: Path) -> None:
    for case in check_video("irregular", "wall_pass", 3, tmp_path, frames=41):
        assert case["overall"] == 0.0 and "cross_wall" in case["failed"], case


def test_a_knowwhat_walk_by_another_shortest_way_passes(tmp_path: Path) -> None:
    # a ring offers two shortest ways: the one a breadth-first search finds first is not the
    # only right answer (the grader takes the best-matching shortest path)
    for case in check_video("knowwhat", "other_route", 2, tmp_path, frames=41):
        assert case["ok"], case


def test_a_two_fps_strip_is_graded_as_a_walk(tmp_path: Path) -> None:
    # a paper's figure strip: the agent a full cell a frame (and through walls, a full cell too)
    valid, _ = check_video("irregular", "valid", 4, tmp_path, strip=True)
    assert valid["strip"] and valid["ok"], valid
    through, _ = check_video("knowwhat", "wall_pass", 5, tmp_path, strip=True)
    assert through["overall"] == 0.0 and "cross_wall" in through["failed"], through
