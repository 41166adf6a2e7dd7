"""The demo: a labelled mixed corpus (mazes and Sudoku, images and videos) scored, reported, audited."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cvcheck.batch import load_manifest, read_records
from cvcheck.cli import main
from cvcheck.demo import make_corpus


def test_corpus_is_labelled_and_mixed(tmp_path: Path) -> None:
    c = make_corpus(tmp_path, seed=1, scale=0.2)
    m = load_manifest(c.manifest, check_files=True, check_references=True)
    assert not m.missing_files
    labels = read_records(c.labels).by_id()
    assert sorted(labels) == sorted(m.ids)
    kinds = {(s["task"], Path(s["answer"]).suffix) for s in m.samples}
    assert {("maze", ".png"), ("sudoku", ".png"), ("sudoku", ".mp4")} <= {(t, ".png" if x == ".jpg" else x)
                                                                         for t, x in kinds}
    assert {s["model"] for s in m.samples} == {"model-alpha", "model-beta"}
    lab = next(iter(labels.values()))
    assert lab["pipeline"] == "labels" and lab["gate"]["required"]
    # deterministic in the seed
    again = make_corpus(tmp_path / "again", seed=1, scale=0.2)
    strip = lambda p: [{k: v for k, v in json.loads(x).items()} for x in p.read_text().splitlines()]  # noqa: E731
    assert strip(again.manifest) == strip(c.manifest) and strip(again.labels) == strip(c.labels)


def test_demo_cli_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "demo"
    assert main(["demo", str(out), "--scale", "0.25", "--workers", "2"]) == 0
    text = capsys.readouterr().out
    assert f"report:   {out / 'report' / 'index.html'}" in text
    assert (out / "report" / "index.html").is_file() and (out / "audit" / "index.html").is_file()
    audit = json.loads((out / "audit" / "audit.json").read_text())
    overall = next(m for m in audit["metrics"] if m["metric"] == "overall")
    assert overall["n"] == audit["matched"] >= 10
    assert overall["agreement"] >= 0.85  # the verifiers recover the synthetic ground truth
    assert "agree %" in text and "overall" in text
