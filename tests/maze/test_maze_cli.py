"""The `cvcheck maze` command: summaries, JSON, overlays, exit codes, clean errors."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from cvcheck.cli import main
from cvcheck.synth.maze_cases import make_case


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("maze_cli")
    out = {}
    for defect in ("valid", "shortcut"):
        case = make_case(17, defect=defect)
        cv2.imwrite(str(tmp / f"{defect}.png"), case.answer[:, :, ::-1])
        cv2.imwrite(str(tmp / "ref.png"), case.reference[:, :, ::-1])
        out[defect] = str(tmp / f"{defect}.png")
    out["ref"] = str(tmp / "ref.png")
    out["tmp"] = tmp
    return out


def test_summary_and_exit_code_zero_for_a_fail_verdict(files, capsys):
    assert main(["maze", files["shortcut"], "--reference", files["ref"]]) == 0
    text = capsys.readouterr().out
    assert "FAIL" in text and "no_cross_wall" in text and "crosses" in text


def test_json_output_is_a_result(files, capsys):
    assert main(["maze", files["valid"], "--reference", files["ref"], "--json", "--id", "s1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["id"] == "s1" and data["overall"] == 1.0 and data["schema"] == "cvcheck.result/1"


def test_overlay_is_written(files):
    out = files["tmp"] / "sub" / "overlay.png"
    assert main(["maze", files["shortcut"], "--reference", files["ref"], "--overlay", str(out)]) == 0
    img = cv2.imread(str(out))
    assert img is not None and min(img.shape[:2]) >= 256


@pytest.mark.parametrize("argv, message", [
    (["maze", "/nonexistent.png", "--reference", "REF"], "cannot read image"),
    (["maze", "ANS", "--reference", "ANS", "--set", "maze.bogus=1"], "unknown setting"),
    (["maze", "ANS", "--reference", "/nonexistent.png"], "cannot read image"),
])
def test_bad_input_is_one_line_and_exit_2(files, capsys, argv, message):
    argv = [a.replace("REF", files["ref"]).replace("ANS", files["valid"]) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_reference_that_is_not_a_maze_is_a_clear_error(files, capsys, tmp_path):
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((64, 64, 3), 255, np.uint8))
    assert main(["maze", files["valid"], "--reference", str(blank)]) == 2
    assert "reference" in capsys.readouterr().err


def test_an_unexpected_bug_is_one_line_exit_3(files, capsys, monkeypatch):
    import cvcheck.maze.task as task

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(task, "analyse_image", broken)
    monkeypatch.delenv("CVCHECK_DEBUG", raising=False)
    assert main(["maze", files["valid"], "--reference", files["ref"]]) == 3
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: boom" in err and "Traceback" not in err
