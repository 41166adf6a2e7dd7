"""Maze image verifier: contract, defect families, reference parsing, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from cvcheck.config import Config, MazeConfig
from cvcheck.errors import InputError
from cvcheck.maze import MazeSpec, verify_image
from cvcheck.maze.extract import parse_reference
from cvcheck.schema import Result, Status
from cvcheck.synth.maze_cases import DEFECTS, make_case
from cvcheck.synth.maze_gen import make_maze
from cvcheck.synth.maze_render import render_solution

BINARY = ("maze_changed", "cross_wall", "target_achievement", "reflection")


@pytest.fixture(scope="module")
def valid_case():
    return make_case(11, defect="valid")


def test_valid_answer_passes_every_check(valid_case):
    r = verify_image(valid_case.answer, valid_case.reference, id="v")
    assert r.status is Status.OK and r.overall == 1.0 and r.gate.passed
    assert [r.metrics[m] for m in BINARY] == [0, 0, 1, 0]
    assert r.details["crossings"] == [] and r.details["missed_cells"] == []


@pytest.mark.parametrize("defect", [d for d in DEFECTS if d != "valid"])
def test_each_defect_family_matches_its_labels(defect):
    for seed in (3, 4):
        case = make_case(seed, defect=defect)
        r = verify_image(case.answer, case.reference)
        got = {m: r.metrics[m] for m in BINARY} | {"overall": int(r.overall)}
        want = {m: case.labels[m] for m in BINARY + ("overall",)}
        assert got == want, (case.id, r.details["notes"])


def test_crossing_names_the_wall_between_two_cells():
    case = make_case(21, defect="shortcut")
    r = verify_image(case.answer, case.reference)
    crossed = {tuple(c["lattice"]) for c in r.details["crossings"]}
    assert crossed == {tuple(p) for p in case.labels["crossed_walls"]}
    assert all(c["kind"] in ("wall", "post") for c in r.details["crossings"])
    assert any("crosses" in n for n in r.details["notes"])


def test_two_runs_identical_and_inputs_unchanged(valid_case):
    answer, reference = valid_case.answer.copy(), valid_case.reference.copy()
    a = verify_image(valid_case.answer, valid_case.reference)
    b = verify_image(valid_case.answer, valid_case.reference)
    assert a == b and a.to_json() == b.to_json()
    assert np.array_equal(answer, valid_case.answer) and np.array_equal(reference, valid_case.reference)


def test_result_json_round_trip_and_graph_report(valid_case):
    r = verify_image(valid_case.answer, valid_case.reference, id="x")
    assert Result.from_json(r.to_json()) == r
    maze = r.details["maze"]
    rows, cols = valid_case.spec.shape
    assert maze["rows"] == rows and len(maze["open_walls"]) == rows * cols - 1  # a perfect maze is a tree
    assert r.details["path_maze_cells"][0] == maze["start"]


@pytest.mark.parametrize("answer", [
    np.full((300, 300, 3), 255, np.uint8),             # blank page
    np.zeros((300, 300, 3), np.uint8),                  # all black
    np.random.default_rng(0).integers(200, 256, (64, 80, 3)).astype(np.uint8),  # pale noise
])
def test_no_readable_maze_is_unparseable_not_an_error(valid_case, answer):
    r = verify_image(answer, valid_case.reference)
    assert r.status is Status.UNPARSEABLE and r.overall == 0.0 and r.details["reason"]


def test_tiny_and_odd_shaped_inputs_never_crash(valid_case):
    for shape in ((1, 1, 3), (3, 500, 3), (500, 2, 3), (5, 5)):
        r = verify_image(np.zeros(shape, np.uint8), valid_case.reference)
        assert r.status in (Status.OK, Status.UNPARSEABLE)
    with pytest.raises(InputError, match="empty"):
        verify_image(np.zeros((0, 10, 3), np.uint8), valid_case.reference)


@pytest.mark.parametrize("cell_px", [1, 3, 8, 17])
def test_reference_parsed_at_any_scale(cell_px):
    spec = make_maze(7, rng=np.random.default_rng(cell_px), endpoints="random")
    parsed = parse_reference(render_solution(spec, cell_px=cell_px))
    assert np.array_equal(parsed.walls, spec.walls)
    assert (parsed.start, parsed.goal, parsed.solution) == (spec.start, spec.goal, spec.solution)


def test_puzzle_without_path_gets_the_unique_solution():
    spec = make_maze(6, rng=np.random.default_rng(5))
    parsed = parse_reference(render_solution(spec, cell_px=10, with_path=False))
    assert parsed.solution == spec.solution


def test_reference_without_maze_or_markers_is_refused():
    with pytest.raises(InputError):
        parse_reference(np.full((100, 100, 3), 255, np.uint8))
    spec = make_maze(5, rng=np.random.default_rng(1))
    img = render_solution(spec, cell_px=8)
    img[(img == [0, 255, 0]).all(axis=2)] = 255  # erase the start marker
    with pytest.raises(InputError, match="marker"):
        parse_reference(img)


def test_spec_input_and_config_thresholds_are_honoured(valid_case):
    strict = Config().with_overrides(["maze.layout_iou_min=1.0"])
    r = verify_image(valid_case.answer, valid_case.spec, config=strict)
    assert r.metrics["maze_changed"] == 1 and "layout_match" in r.gate.failed
    assert r.config_hash == strict.section_hash("maze") != Config().section_hash("maze")
    assert verify_image(valid_case.answer, valid_case.spec, config=MazeConfig()).overall == 1.0


def test_mazespec_validates_its_lattice():
    with pytest.raises(InputError):
        MazeSpec.from_lattice(np.ones((4, 5), bool), start=(0, 0), goal=(0, 1))
    with pytest.raises(InputError):
        MazeSpec.from_lattice(np.ones((5, 5), bool), start=(0, 0), goal=(9, 9))


def test_maze_on_a_dark_canvas_is_trimmed_to_its_outer_wall(valid_case):
    import cv2

    from cvcheck.synth.maze_render import AnswerStyle, render_answer

    spec = valid_case.spec
    answer = render_answer(spec.walls, start=spec.start, goal=spec.goal, path=list(spec.solution),
                           style=AnswerStyle(out_size=(600, 600), blur_sigma=0.7), rng=np.random.default_rng(0))
    answer = cv2.copyMakeBorder(answer, 40, 25, 30, 60, cv2.BORDER_CONSTANT, value=(20, 20, 20))
    r = verify_image(answer, valid_case.reference)
    assert r.overall == 1.0, r.details["notes"]
