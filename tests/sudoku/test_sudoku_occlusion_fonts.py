"""Regression cases from the independent generator (issue 13): an arm over a clue is no
erased clue; a flagged handwritten "1" is not read as "7"."""

from __future__ import annotations

import cv2
import numpy as np

from benchmarks.sudoku_wild import Scene, make_video_case, render
from cvcheck.config import Config
from cvcheck.sudoku.cells import BLANK, DIGIT, OCCLUDED, cell_ink
from cvcheck.sudoku.ocr import Reading, second_look, with_margin
from cvcheck.sudoku.read import read_grid
from cvcheck.sudoku.spec import SudokuSpec
from cvcheck.sudoku.video import read_timeline

CFG = Config()


def _patch(*, arm: bool, digit: bool = True) -> np.ndarray:
    """A darkness patch (paper 25): a "6", optionally under a mid-tone arm (darkness 124,
    as dark as the blurred grey lines of its grid) that leaves a piece of the 6 showing."""
    patch = np.full((40, 40), 230, np.uint8)
    if digit:
        cv2.putText(patch, "6", (10, 32), cv2.FONT_HERSHEY_SIMPLEX, 1.1, 0, 3, cv2.LINE_AA)
    if arm:
        cv2.line(patch, (0, 0), (40, 40), 131, 34)
    return 255 - patch


def test_a_cell_mostly_under_a_mid_tone_arm_is_occluded_not_blank():
    core = 0.0625
    assert cell_ink(_patch(arm=False), core=core, paper=25.0)[0] == DIGIT
    assert cell_ink(_patch(arm=False, digit=False), core=core, paper=25.0)[0] == BLANK  # erased: paper only
    kind, _ = cell_ink(_patch(arm=True), core=core, paper=25.0)
    assert kind == OCCLUDED
    # without the paper level (a still image) nothing says the cell is covered
    assert cell_ink(_patch(arm=True), core=core)[0] != OCCLUDED


def test_an_arm_over_clues_of_a_grid_with_grey_blurred_lines_erases_no_clue():
    case = make_video_case(7100003)  # 9x9, grey lines, blur 1.0, a skin-coloured arm to the corner
    spec = SudokuSpec.from_values(case.puzzle, case.solution)
    plain = render(case.look, case.puzzle, Scene(digits=case.puzzle))
    arm = render(case.look, case.puzzle, Scene(digits=case.puzzle, hand=(0.12, 2.31)))
    tl = read_timeline([plain] * 3 + [arm] * 6 + [plain] * 3, spec, config=CFG.sudoku)
    assert tl.occluded_reads > 0
    assert not tl.clue_changes, tl.clue_changes
    assert not tl.updates, tl.updates


class _Fake:
    """Reads a tight crop unsurely as 7, the same crop with margins surely as 1."""

    name = "fake"
    calls = 0

    def read_digits(self, crops, *, n):
        self.calls += len(crops)
        return [Reading(1, 0.95) if (c[:6] == 255).all() else Reading(7, 0.6) for c in crops]


def test_second_look_replaces_only_unsure_readings_by_surer_ones():
    tight = np.zeros((48, 32, 3), np.uint8)
    wide = with_margin(tight)
    assert wide.shape == tight.shape and (wide[:6] == 255).all() and (wide[20:28, 10:22] == 0).all()
    out, looked = second_look(_Fake(), [tight, tight], [Reading(7, 0.6), Reading(3, 0.97)], n=9, below=0.9)
    assert out == [Reading(1, 0.95, first_confidence=0.6, first_digit=7), Reading(3, 0.97)] and looked == 1
    assert out[0].first_look_confidence == 0.0 and out[1].first_look_confidence == 0.97  # 1 was not the first look
    out, looked = second_look(_Fake(), [tight], [Reading(2, 0.8)], n=9, below=0.0)
    assert out == [Reading(2, 0.8)] and looked == 0
    out, _ = second_look(_Fake(), [tight], [Reading(4, 0.97)], n=9, below=0.99)
    assert out == [Reading(4, 0.97)]  # a less sure second look never wins


def test_flagged_handwritten_ones_after_h264_read_as_one(tmp_path):
    from cvcheck.media.video import iter_frames

    case = make_video_case(7100070)  # pen clues: "1" with a long flag; 320 px 9x9
    case.scenes = case.scenes[:1]
    reader = iter_frames(case.write_mp4(tmp_path / "v.mp4"), config=CFG.media)
    frame = next(iter(reader))
    reader.close()
    digits = read_grid(frame, 9, config=CFG.sudoku).digits
    assert digits.tolist() == case.puzzle.tolist()


def test_over_a_clue_another_digit_is_sure_only_if_sure_at_first_look():
    from cvcheck.sudoku.video import _Reader

    solution = [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]]
    spec = SudokuSpec.from_values([[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]], solution, boxes=(2, 2))
    reader = _Reader(spec, CFG.sudoku, None, None, "auto", None, False)
    looked = Reading(4, 0.95, first_confidence=0.4, first_digit=4)
    assert reader._confidence(0, 0, looked) == 0.4          # a clue changed only on a sure first look
    assert reader._confidence(0, 0, Reading(4, 0.95, first_confidence=0.7, first_digit=1)) == 0.0  # a flip
    assert reader._confidence(0, 0, Reading(1, 0.95, first_confidence=0.4, first_digit=1)) == 0.95  # the clue itself
    assert reader._confidence(0, 1, looked) == 0.95         # an entry: the surer reading
