"""Sudoku from what users have: puzzles read from images and first frames, solutions computed,
grids of every size, real video effects, readable verdicts and bounded video work.

Cases come from ``benchmarks/sudoku_wild.py``: puzzles, labels and renders made without cvcheck.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from benchmarks.sudoku_wild import Scene, gate_labels, make_image_case, make_pair, make_video_case, random_look, render
from cvcheck.config import Config
from cvcheck.errors import InputError
from cvcheck.registry import get_grader
from cvcheck.schema import Status
from cvcheck.sudoku import verify_image, verify_video
from cvcheck.sudoku.cells import BLANK, DIGIT, cell_ink
from cvcheck.sudoku.render import header_text, render_overlay
from cvcheck.sudoku.video import debounce_frames, read_timeline

CFG = Config()


def _image_case(n: int, seed: int, *, defect: str = "solved", effects: tuple[str, ...] = ()):
    """An image case of size n with a chosen defect (searching seeds deterministically)."""
    for s in range(seed, seed + 400):
        case = make_image_case(s, n=n)
        if case.defect == defect and set(effects) <= set(case.effects) and case.image.shape[0] >= 320:
            return case
    raise AssertionError("no such case")


@pytest.mark.parametrize("n", [3, 4, 6, 9])
def test_every_size_graded_with_the_puzzle_read_from_its_picture(n):
    case = _image_case(n, 10 * n)
    r = verify_image(case.image, puzzle_image=case.puzzle_image, config=CFG, id="x")
    assert r.status is Status.OK and int(r.overall) == case.labels["overall"] == 1, r.details["notes"]
    d = r.details
    assert d["puzzle_source"] == "image" and d["solution_source"] == "solved"
    assert d["puzzle_read"] == case.puzzle.tolist() and d["grid"] == case.shown.tolist()
    assert d["boxes"] == {3: "none", 4: "2x2", 6: "2x3", 9: "3x3"}[n]
    assert any(note.startswith("puzzle read from the puzzle image") for note in d["notes"])


def test_wrong_cells_and_repeated_digits_are_named_in_notes_and_overlay_header():
    case = _image_case(6, 300, defect="wrong_cell")
    r = verify_image(case.image, case.puzzle, config=CFG)
    (row, col), = np.argwhere(case.shown != case.solution)
    note = f"r{row + 1}c{col + 1}: read {case.shown[row, col]}, expected {case.solution[row, col]}"
    assert note in r.details["notes"]
    assert any(n.startswith(f"row {row + 1}: {case.shown[row, col]} appears twice") for n in r.details["notes"])
    head = header_text(r)
    assert head.startswith("FAIL  failed: ") and "completion_perfect" in head and "ok" not in head.lower()
    picture = render_overlay(case.image, r)
    assert picture.shape[0] > case.image.shape[0] and picture.shape[1] == case.image.shape[1]


def test_a_given_puzzle_without_solution_is_solved_and_bad_puzzles_are_named(tmp_path):
    case = _image_case(4, 40)
    r = verify_image(case.image, case.puzzle, config=CFG)
    assert r.passed and r.details["solution_source"] == "solved" and r.details["puzzle_source"] == "given"
    several = case.puzzle.copy()
    several[several != 0] = 0
    several[0, 0] = case.solution[0, 0]
    with pytest.raises(InputError, match="several solutions"):
        verify_image(case.image, several, config=CFG)
    path = tmp_path / "a.png"
    Image.fromarray(case.image).save(path)
    blank = tmp_path / "blank.png"
    Image.fromarray(np.full((200, 200, 3), 255, np.uint8)).save(blank)
    grade = get_grader("sudoku")
    r = grade({"id": "p", "task": "sudoku", "answer": str(path), "puzzle_image": str(blank)}, config=CFG)
    assert r.status is Status.ERROR and "no Sudoku grid found in the puzzle image" in r.error.message
    r = grade({"id": "q", "task": "sudoku", "answer": str(path)}, config=CFG)
    assert r.status is Status.ERROR and "needs 'puzzle' or 'puzzle_image'" in r.error.message
    r = grade({"id": "r", "task": "sudoku", "answer": str(path), "puzzle": several.tolist()}, config=CFG)
    assert r.status is Status.ERROR and "several solutions" in r.error.message


def test_boxes_option_changes_the_constraints():
    case = _image_case(6, 600)
    r = verify_image(case.image, case.puzzle, case.solution, boxes="none", config=CFG)
    assert r.passed and r.details["boxes"] == "none"
    with pytest.raises(InputError, match="do not tile"):
        verify_image(case.image, case.puzzle, case.solution, boxes="2x2", config=CFG)


def test_pencil_marks_are_not_entries_and_an_entry_keeps_its_own_glyph():
    rng = np.random.default_rng(0)
    puzzle, _ = make_pair(rng, 9)
    look = random_look(rng, size=540)
    digits = np.zeros((9, 9), np.int8)
    digits[0, 1] = 7
    img = render(look, np.zeros((9, 9), np.int8), Scene(digits=digits, pencil={(0, 0): [1, 5, 9], (0, 1): [2, 4]}))
    from cvcheck.sudoku.cells import OUTER_INSET, cell_patches
    from cvcheck.sudoku.grid import find_grid

    fit = find_grid(img, 9)
    patches = cell_patches(fit, inset=OUTER_INSET)
    assert cell_ink(patches[0][0], core=0.0625)[0] == BLANK
    kind, mask = cell_ink(patches[0][1], core=0.0625)
    assert kind == DIGIT and mask is not None
    rows = np.flatnonzero(mask.any(axis=1))
    assert rows[-1] - rows[0] > 0.3 * patches[0][1].shape[0]


def _video(seed: int, n: int, effects: list[str], defect: str = "solved"):
    return make_video_case(seed, n=n, effects=effects, defect=defect)


def test_video_clues_read_from_the_first_stable_frames_past_a_blurry_start():
    case = _video(5, 9, ["blurry_start", "highlight"])
    r = verify_video(case.frames(), config=CFG, fps=case.fps)
    assert r.status is Status.OK and int(r.overall) == case.labels["overall"] == 1, r.details["notes"]
    assert r.details["puzzle_source"] == "first_frames" and r.details["puzzle_frame"] <= 2
    assert r.details["puzzle_read"] == case.puzzle.tolist()


def test_zoom_shift_hand_pencil_and_fade_change_no_verdict(tmp_path):
    for seed, effects, defect in ((21, ["zoom", "hand"], "solved"), (22, ["shift", "cursor", "glow"], "clue_changed"),
                                  (23, ["pencil", "fade"], "wrong_final")):
        case = _video(seed, 4, effects, defect)
        path = case.write_mp4(tmp_path / f"{seed}.mp4")
        r = get_grader("sudoku")({"id": str(seed), "task": "sudoku", "answer": str(path)}, config=CFG)
        assert int(r.overall) == case.labels["overall"], (effects, r.details["notes"])
        assert r.details["final_grid"] == case.shown.tolist()
        plain = _video(seed, 4, effects, defect)
        if "pencil" in effects:
            plain = make_video_case(seed, n=4, effects=effects, defect=defect, plain=True)
            assert int(verify_video(plain.frames(), config=CFG).overall) == int(r.overall)
    r = verify_video(_video(22, 4, ["shift"], "clue_changed").frames(), config=CFG)
    assert any("clue" in n and "at frame" in n for n in r.details["notes"]), r.details["notes"]


def test_low_fps_strip_and_its_debounce():
    assert debounce_frames(CFG.sudoku, 24) == 3 and debounce_frames(CFG.sudoku, 2) == 1
    assert debounce_frames(CFG.sudoku, None) == 3
    case = _video(31, 4, ["lowfps"])
    assert case.fps in (1, 2)
    r = verify_video(case.frames(), config=CFG, fps=case.fps)
    assert int(r.overall) == case.labels["overall"] and r.details["work"]["debounce_frames"] == 1


def test_gate_labels_are_computed_independently():
    puzzle = np.array([[1, 0, 0], [0, 0, 0], [0, 0, 2]], np.int8)
    solution = np.array([[1, 2, 3], [2, 3, 1], [3, 1, 2]], np.int8)
    wrong = solution.copy()
    wrong[1, 1] = 1
    assert gate_labels(puzzle, solution, [solution])["overall"] == 1
    labels = gate_labels(puzzle, solution, [wrong])
    assert labels["constraint_violation"] == pytest.approx(2 / 6) and labels["overall"] == 0


# -- bounded work on long videos (counters, never wall-clock) -------------------------------

def _still_frames(count: int):
    case = _video(41, 4, [])
    first = next(case.frames())
    return case, (first for _ in range(count))


def test_long_video_is_strided_and_unchanged_frames_cost_a_thumbnail():
    case, frames = _still_frames(20_000)
    cfg = Config().with_overrides(["sudoku.video_max_frames=2000"])
    tl = read_timeline(frames, None, config=cfg.sudoku, total_frames=20_000)
    assert tl.stride == 10 and tl.frames_total == 20_000
    assert tl.frames_strided == 20_000 - 2001  # every 10th frame and the last one
    assert tl.frames_analysed + tl.frames_still == 2001 and tl.frames_analysed <= 5
    assert tl.spec is not None and tl.spec.puzzle.tolist() == case.puzzle.tolist()


def test_time_budget_stops_the_video_with_a_clear_error():
    from cvcheck.sudoku.verdict import video_result

    ticks = iter(range(10**6))
    _, frames = _still_frames(5000)
    cfg = Config().with_overrides(["sudoku.video_max_seconds=100"])
    tl = read_timeline(frames, None, config=cfg.sudoku, clock=lambda: float(next(ticks)))
    assert tl.budget_stopped and tl.frames_total == 101  # one clock tick per frame
    r = video_result(tl, id="long", config=cfg)
    assert r.status is Status.ERROR and r.error.code == "video_budget"
    assert "video_max_seconds=100" in r.error.message and "101 frame(s)" in r.error.message


def test_a_video_cut_by_media_max_frames_is_refused_not_graded_on_a_middle_frame(tmp_path):
    from cvcheck.registry import grade

    video = _video(51, 4, ["cursor"]).write_mp4(tmp_path / "v.mp4")
    sample = {"id": "v", "task": "sudoku", "answer": str(video)}
    assert grade(sample, config=CFG).status is Status.OK
    r = grade(sample, config=Config().with_overrides(["media.max_frames=3"]))
    assert r.status is Status.ERROR and r.error.code == "bad_media" and "media.max_frames" in r.error.message


def test_cli_puzzle_image_boxes_and_video_without_puzzle(tmp_path, capsys):
    from cvcheck.cli import main

    case = _image_case(6, 700, defect="wrong_cell")
    Image.fromarray(case.image).save(tmp_path / "a.png")
    Image.fromarray(case.puzzle_image).save(tmp_path / "p.png")
    rc = main(["sudoku", str(tmp_path / "a.png"), "--puzzle-image", str(tmp_path / "p.png"),
               "--overlay", str(tmp_path / "o.png")])
    out = capsys.readouterr().out
    assert rc == 0 and "FAIL" in out and ": read " in out and "expected" in out
    assert (tmp_path / "o.png").stat().st_size > 0
    assert main(["sudoku", str(tmp_path / "a.png"), "--puzzle-image", str(tmp_path / "p.png"),
                 "--boxes", "4x4"]) == 2
    video = _video(51, 4, ["cursor"]).write_mp4(tmp_path / "v.mp4")
    rc = main(["sudoku", str(video), "--json"])
    result = json.loads(capsys.readouterr().out)
    assert rc == 0 and result["details"]["puzzle_source"] == "first_frames"


def test_manifest_sample_with_only_an_answer_validates(tmp_path):
    from cvcheck.batch.manifest import load_manifest

    (tmp_path / "m.jsonl").write_text(json.dumps({"id": "v", "task": "sudoku", "answer": "v.mp4"}) + "\n"
                                      + json.dumps({"id": "i", "task": "sudoku", "answer": "i.png",
                                                    "puzzle_image": "p.png", "boxes": "2x3"}) + "\n")
    samples = load_manifest(tmp_path / "m.jsonl").samples
    assert [s["id"] for s in samples] == ["v", "i"] and samples[1]["puzzle_image"].endswith("p.png")


def test_puzzle_image_path_resolves_against_the_manifest_folder_and_bad_values_are_input_errors(tmp_path):
    from cvcheck.batch.manifest import load_manifest
    from cvcheck.registry import grade

    (tmp_path / "m.jsonl").write_text(json.dumps({"id": "i", "task": "sudoku", "answer": "i.png",
                                                  "puzzle_image": "pictures/p"}) + "\n")
    assert load_manifest(tmp_path / "m.jsonl").samples[0]["puzzle_image"] == str(tmp_path / "pictures" / "p")
    for value in (5, [str(tmp_path / "p.png")], {"path": "p.png"}):
        r = grade({"id": "x", "task": "sudoku", "answer": str(tmp_path / "a.png"), "puzzle_image": value}, config=CFG)
        assert r.status is Status.ERROR and r.error.code == "bad_input", value
        assert "puzzle_image must be the path of an image file" in r.error.message


@pytest.mark.parametrize("bad", [True, False, 0, 2.5, [2.0, 2], [True, 4], ["2", 2], [2, 2, 1], {"r": 2},
                                 [float("inf"), 2], "\u0662x\u0662", "\u00b2x2", "2x", "9" * 5000 + "x1"])
def test_box_shapes_refuse_floats_bools_and_non_ascii_digits(bad):
    from cvcheck.sudoku.boxes import parse_boxes

    with pytest.raises(InputError, match="boxes must be") as info:
        parse_boxes(bad)
    assert len(str(info.value)) < 200


def test_a_sample_boxes_false_or_zero_is_refused_not_taken_for_auto(tmp_path):
    from cvcheck.registry import grade

    for value in (False, 0, []):
        r = grade({"id": "x", "task": "sudoku", "answer": str(tmp_path / "a.png"), "puzzle": "1" + "." * 15,
                   "boxes": value}, config=CFG)
        assert r.status is Status.ERROR and "boxes must be" in r.error.message, value


def test_glyph_bank_reuses_only_confident_matching_readings():
    from cvcheck.sudoku.ocr import GlyphBank, Reading

    a = np.zeros((48, 32), np.float32)
    a[8:40, 14:18] = 1.0
    b = a.copy()
    b[8:12, 6:26] = 1.0
    bank = GlyphBank(max_diff=0.2, min_confidence=0.6)
    assert bank.find(a) is None
    bank.add(a, Reading(1, 0.95))
    bank.add(b, Reading(7, 0.3))  # unsure: not remembered
    assert bank.find(np.clip(a + 0.05, 0, 1)) == Reading(1, 0.95) and bank.find(b) is None


def test_a_hand_over_the_grid_covers_cells_and_a_highlight_does_not():
    from cvcheck.sudoku.cells import covered_cells
    from cvcheck.sudoku.grid import find_grid

    rng = np.random.default_rng(3)
    puzzle, _ = make_pair(rng, 6)
    look = random_look(rng, size=480)
    plain = render(look, puzzle, Scene(digits=puzzle, highlight=[(0, 0), (2, 3)]))
    fit = find_grid(plain, 6)
    paper = float(np.percentile(fit.canvas[::4, ::4], 25))
    assert not covered_cells(fit, paper).any()
    hand = render(look, puzzle, Scene(digits=puzzle, hand=(2.0, 2.0)))
    fit = find_grid(hand, 6) or fit
    from dataclasses import replace

    from cvcheck.sudoku.tracker import warp_canvas

    fit = replace(fit, canvas=warp_canvas(hand, fit.corners[:, ::-1], fit.canvas.shape[0]))
    covered = covered_cells(fit, paper)
    assert covered[2, 2] and covered.sum() >= 3 and not covered[0, 0]
