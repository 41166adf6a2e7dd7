"""Resuming checks the configuration: results graded with other settings are not silently kept
(``cvcheck run`` with another config used to grade 0 samples and say nothing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from batch_helpers import maze_corpus

from cvcheck.batch import read_records, run_manifest
from cvcheck.batch.runner import config_mismatches, expected_hashes
from cvcheck.batch.store import write_records
from cvcheck.cli import main
from cvcheck.config import Config
from cvcheck.errors import InputError
from cvcheck.registry import TASKS

OTHER = ["--set", "maze.layout_iou_min=0.75"]


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A maze manifest and its results, graded with the default configuration."""
    tmp = tmp_path_factory.mktemp("resume-config")
    manifest = maze_corpus(tmp / "corpus", 3, seed=4)
    out = tmp / "results.jsonl"
    run_manifest(manifest, out, executor="serial")
    return manifest, out


def _copy(src: Path, tmp: Path) -> Path:
    dst = tmp / "r.jsonl"
    dst.write_bytes(src.read_bytes())
    return dst


def test_resume_with_the_same_config_skips_everything(graded: tuple[Path, Path], tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    manifest, src = graded
    out = _copy(src, tmp_path)
    assert main(["run", str(manifest), "-o", str(out), "--no-progress", "--executor", "serial"]) == 0
    assert "3 samples: 3 already done, 0 graded" in capsys.readouterr().out
    # the maze task's declared config section is the one its grader hashes
    hashes = {r["config_hash"] for r in read_records(out).records}
    assert hashes == expected_hashes(Config(), TASKS["maze"]) == {Config().section_hash("maze")}


def test_resume_with_another_config_is_refused_with_the_three_ways_on(
        graded: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest, src = graded
    out = _copy(src, tmp_path)
    before = out.read_bytes()
    assert main(["run", str(manifest), "-o", str(out), "--no-progress", *OTHER]) == 2
    err = capsys.readouterr().err
    old, new = Config().section_hash("maze"), Config().with_overrides(["maze.layout_iou_min=0.75"]).section_hash("maze")
    assert f"task maze: 3 result(s) with config_hash {old} (this run's is {new})" in err
    assert "--restart" in err and "--retry-errors" in err and "--allow-mixed-config" in err
    assert out.read_bytes() == before  # nothing written, nothing dropped


def test_allow_mixed_config_resumes_and_says_so(graded: tuple[Path, Path], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    manifest, src = graded
    out = _copy(src, tmp_path)
    assert main(["run", str(manifest), "-o", str(out), "--no-progress", "--allow-mixed-config", *OTHER]) == 0
    cap = capsys.readouterr()
    assert "3 already done, 0 graded" in cap.out and "kept results graded with another configuration" in cap.err


def test_restart_regrades_everything_with_the_new_config(graded: tuple[Path, Path], tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    manifest, src = graded
    out = _copy(src, tmp_path)
    assert main(["run", str(manifest), "-o", str(out), "--no-progress", "--executor", "serial", "--restart",
                 *OTHER]) == 0
    assert "0 already done, 3 graded" in capsys.readouterr().out
    new = Config().with_overrides(["maze.layout_iou_min=0.75"]).section_hash("maze")
    assert {r["config_hash"] for r in read_records(out).records} == {new}


def test_retry_errors_regrades_only_errors_and_keeps_the_rest(graded: tuple[Path, Path], tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    manifest, src = graded
    out = _copy(src, tmp_path)
    recs = read_records(out).records
    recs[0] = {**recs[0], "status": "error", "overall": None, "config_hash": "",
               "error": {"code": "bad_media", "message": "too many pixels"}}
    write_records(out, recs)
    assert main(["run", str(manifest), "-o", str(out), "--no-progress", "--executor", "serial", "--retry-errors",
                 *OTHER]) == 0
    cap = capsys.readouterr()
    assert "2 already done, 1 graded" in cap.out and "kept results graded with another configuration" in cap.err
    got = read_records(out).by_id()
    assert got[recs[0]["id"]]["status"] == "ok" and len(got) == 3


def test_config_mismatches_on_hostile_and_hashless_records() -> None:
    cfg = Config()
    recs = [{"id": "1", "task": "sudoku", "config_hash": cfg.section_hash("sudoku")},
            {"id": "2", "task": "sudoku", "config_hash": "0123456789abcdef"},
            {"id": "3", "task": "sudoku", "config_hash": "0123456789abcdef"},
            {"id": "4", "task": "maze", "status": "error", "config_hash": ""},      # a timeout: no hash
            {"id": "5", "task": "maze", "config_hash": None},
            {"id": "6", "task": "my-task", "config_hash": cfg.section_hash("maze", "judge")},  # undeclared: any combo
            {"id": "7", "task": "my-task", "config_hash": "ffff"}]
    got = config_mismatches(recs, cfg)
    assert [(m.task, m.found, m.count, m.expected) for m in got] == [
        ("my-task", "ffff", 1, None), ("sudoku", "0123456789abcdef", 2, cfg.section_hash("sudoku"))]


def test_run_samples_raises_input_error_on_a_mismatch(graded: tuple[Path, Path], tmp_path: Path) -> None:
    from cvcheck.batch import load_manifest, run_samples

    manifest, src = graded
    out = _copy(src, tmp_path)
    other = Config().with_overrides(["maze.layout_iou_min=0.75"])
    with pytest.raises(InputError, match="another configuration"):
        run_samples(load_manifest(manifest).samples, out, config=other, executor="serial")
    summary = run_samples(load_manifest(manifest).samples, out, config=other, executor="serial",
                          allow_mixed_config=True)
    assert summary.skipped == 3 and [m.count for m in summary.mixed_config] == [3]
    assert json.loads(out.read_text().splitlines()[0])["config_hash"] == Config().section_hash("maze")
