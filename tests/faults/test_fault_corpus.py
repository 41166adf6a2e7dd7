"""The fault corpus (``fault_cases.py``): every bad input ends in exit 0/1/2 or an error result, never a
traceback, an internal error (exit 3) or a hang; manifests that ``validate`` accepts run to one result per sample."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from fault_cases import CASES, Assets, execute


@pytest.fixture(scope="module")
def assets(tmp_path_factory: pytest.TempPathFactory) -> Assets:
    return Assets(tmp_path_factory.mktemp("fault-assets"))


def test_the_corpus_is_large_and_covers_every_kind_of_input() -> None:
    groups = Counter(c.group for c in CASES)
    assert len(CASES) >= 300 and len({c.name for c in CASES}) == len(CASES)
    assert set(groups) == {"image", "video", "grid", "mazefile", "manifest", "config", "flag"}
    assert min(groups.values()) >= 15


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_ends_cleanly(case, assets: Assets, tmp_path: Path) -> None:
    outcomes, problems = execute(case, assets, tmp_path / "case")
    assert outcomes, "the case ran no command"
    assert not problems, "\n".join(problems)


def test_a_manifest_of_bad_answers_runs_to_one_result_each_in_worker_processes(assets: Assets,
                                                                               tmp_path: Path) -> None:
    """The real batch path (spawned workers): bad answer files never cost a sample or a run."""
    import json

    from fault_cases import KNOWN_CODES, png_declaring, run_cli

    files = {"empty.png": b"", "junk.png": b"junk" * 100, "half.png": assets.answer.read_bytes()[:500],
             "bomb.png": png_declaring(100_000, 100_000), "thin.png": png_declaring(100_000, 2),
             "empty.mp4": b"", "junk.mp4": b"\x00" * 4000, "half.mp4": assets.clip.read_bytes()[:1500],
             "ok.png": assets.answer.read_bytes()}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    rows = [{"id": f"m-{name}", "task": "maze", "answer": name, "reference": str(assets.ref)} for name in files]
    rows += [{"id": f"s-{name}", "task": "sudoku", "answer": name, "puzzle": str(assets.puzzle),
              "solution": str(assets.solution)} for name in files]
    manifest = tmp_path / "m.jsonl"
    manifest.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert run_cli(["validate", str(manifest)]).code == 0
    out = tmp_path / "results.jsonl"
    done = run_cli(["run", str(manifest), "-o", str(out), "--workers", "2", "--no-progress", "--timeout", "120"])
    assert done.code == 0, done.err
    results = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(r["id"] for r in results) == sorted(r["id"] for r in rows)
    errors = {r["id"]: r["error"]["code"] for r in results if r["status"] == "error"}
    assert set(errors.values()) <= KNOWN_CODES and "m-ok.png" not in errors and len(errors) >= 14
