"""mazeworld against maze-dataset itself: paths, solutions and the ASCII/JSON maze files."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("maze_dataset", reason="benchmarks.mazeworld needs maze-dataset (pip install -e '.[test]')")

from maze_dataset import SolvedMaze  # noqa: E402

from benchmarks.mazeworld.corpus import CaseSpec, build_case  # noqa: E402
from benchmarks.mazeworld.mazes import GENERATORS, PERFECT_GENERATORS, generate_maze  # noqa: E402
from benchmarks.mazeworld.plans import make_plan  # noqa: E402
from benchmarks.mazeworld.sampling import case_rng, sample_image, sample_video  # noqa: E402


@pytest.mark.parametrize("generator", GENERATORS)
def test_solution_is_maze_datasets_shortest_path(generator):
    rng = np.random.default_rng(1)
    for _ in range(5):
        maze = generate_maze(rng, grid=(int(rng.integers(3, 10)), int(rng.integers(3, 10))), generator=generator,
                             endpoints="random")
        lm = maze.lattice_maze()
        sol = np.array(maze.solution)
        assert lm.is_valid_path(sol)
        assert [tuple(c) for c in lm.find_shortest_path(maze.start, maze.goal)] == list(maze.solution)
        assert len(sol) - 1 == maze.distances(maze.start)[maze.goal]
        if generator in PERFECT_GENERATORS:  # spanning tree: connected, cells - 1 passages
            assert int(maze.connection_list.sum()) == maze.grid[0] * maze.grid[1] - 1
            assert (maze.distances(maze.start) >= 0).all()


def test_planned_paths_agree_with_is_valid_path():
    """Walk-only plans are valid maze-dataset paths; plans crossing a wall are not."""
    for index in range(6):
        for behaviour in ("valid", "detour", "backtrack", "reach_leave", "teleport", "wall_pass"):
            draw = sample_video(case_rng(21, "video", index), ("mmgr", "vmeval")[index % 2], behaviour, index)
            valid = draw.maze.lattice_maze().is_valid_path(np.array(draw.plan.path))
            assert valid == (behaviour not in ("teleport", "wall_pass")), (behaviour, index)
        draw = sample_image(case_rng(22, "image", index), "mazeplot", "shortcut", index)
        assert not draw.maze.lattice_maze().is_valid_path(np.array(draw.plan.path))


def test_valid_plan_is_the_solution():
    rng = np.random.default_rng(4)
    maze = generate_maze(rng, grid=(5, 5), generator="wilson")
    assert make_plan("valid", maze, rng).path == maze.solution


@pytest.mark.parametrize("modality,behaviour", [("image", "valid"), ("image", "wrong_start"), ("video", "detour")])
def test_maze_files_round_trip_through_maze_dataset(tmp_path, modality, behaviour):
    record = build_case(CaseSpec(seed=9, modality=modality, index=1, look="mmgr", behaviour=behaviour), tmp_path)
    maze = json.loads((tmp_path / record["maze"]).read_text())
    ascii_ = (tmp_path / record["maze_ascii"]).read_text()
    back = SolvedMaze.from_ascii(ascii_)
    assert back.connection_list.tolist() == maze["connection_list"]
    assert back.solution.tolist() == maze["solution"]
    assert back.start_pos.tolist() == maze["start"] and back.end_pos.tolist() == maze["goal"]
    assert maze["grid"] == list(back.grid_shape)
    cl = np.array(maze["connection_list"])
    assert cl.shape == (2, *maze["grid"])
    assert not cl[0, -1, :].any() and not cl[1, :, -1].any()  # no passage out of the grid


def test_frame_size_sets():
    """``wide`` corpora draw 1080p, portrait and square frames; the standard set stays 480p-720p
    (a MazePlot video may still be its own figure); an unknown set is refused."""
    from benchmarks.mazeworld.corpus import plan_cases
    from benchmarks.mazeworld.sampling import FRAME_SIZE_SETS

    wide, standard = set(FRAME_SIZE_SETS["wide"][0]), set(FRAME_SIZE_SETS["standard"][0])
    for index in range(8):
        look = ("mmgr", "vmeval")[index % 2]
        assert sample_video(case_rng(5, "video", index), look, "valid", index, frame_sizes="wide").style.frame_size \
            in wide
        assert sample_video(case_rng(5, "video", index), look, "valid", index).style.frame_size in standard
    assert {s.frame_sizes for s in plan_cases(videos=3, images=1, seed=1, frame_sizes="wide")} == {"wide"}
    with pytest.raises(ValueError, match="frame-size set"):
        plan_cases(videos=1, images=0, seed=1, frame_sizes="4k")
