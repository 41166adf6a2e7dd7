"""Reports: MMGR-style tables, escaping of model text, charts, gallery overlays, CSV/markdown, CLI."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from urllib.parse import unquote

import numpy as np
import pytest
from batch_helpers import maze_corpus

from cvcheck.batch import read_records, run_manifest
from cvcheck.cli import main
from cvcheck.media.write import save_image
from cvcheck.report.tables import cascade, metric_rows, pivot

EVIL = '<script>alert("x")</script>&'


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Real maze verdicts, plus an unparseable answer, an error and a hostile model name."""
    tmp = tmp_path_factory.mktemp("report")
    manifest = maze_corpus(tmp / "corpus", 8, seed=5)
    rows = [json.loads(x) for x in manifest.read_text().splitlines()]
    rows[0]["model"] = EVIL
    save_image(tmp / "corpus" / "blank.png", np.full((64, 64, 3), 255, np.uint8))
    rows.append({**rows[1], "id": "blank", "answer": "blank.png"})
    rows.append({**rows[1], "id": "missing", "answer": "missing.png"})
    manifest.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp / "results.jsonl"
    run_manifest(manifest, out, workers=2)
    return out


def test_tables_count_verdicts_and_errors_apart(results: Path) -> None:
    recs = read_records(results).records
    t = pivot(recs, "model", "task")
    assert t.total.n == 10 and t.total.errors == 1 and t.total.unparseable == 1 and t.total.verdicts == 9
    assert t.total.passed == sum(1 for r in recs if r["status"] == "ok" and r["overall"] == 1.0)
    fine, diag = metric_rows(recs)
    names = [m.name for m in fine]
    assert names[:4] == ["maze_changed", "cross_wall", "target_achievement", "reflection"]
    assert "layout_iou" in [d.name for d in diag] and "crossed_walls" not in names
    cas = cascade(recs, "maze")
    assert cas.verdicts == 9 and [s.check for s in cas.steps][0] == "layout_match"
    cum = [s.cumulative for s in cas.steps]
    assert cum == sorted(cum, reverse=True) and cum[-1] == cas.overall


def test_report_folder(results: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    assert main(["report", str(results), "-o", str(out), "--by", "metadata.defect"]) == 0
    page = (out / "index.html").read_text(encoding="utf-8")
    assert EVIL not in page and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;" in page
    assert "<script" not in page.lower()  # no script at all: nothing can run
    assert "Overall (%) by model and task" in page and "metric cascade" in page and "by metadata.defect" in page
    assert "Errors (1: not verdicts)" in page and "bad_media" in page and "Grading time" in page
    # self-contained: every <img> is embedded; links point at overlay files that exist
    srcs = re.findall(r'<img src="([^"]+)"', page)
    assert srcs and all(s.startswith("data:image/") for s in srcs)
    links = re.findall(r'<a href="([^"]+)"', page)
    assert links and all(h.startswith("./") for h in links)  # relative paths, never a scheme
    assert all((out / unquote(h)).is_file() for h in links)  # overlays and answer files
    failing = sum(1 for r in read_records(results).records if r["status"] != "error" and r["overall"] != 1.0)
    overlays = [h for h in links if h.startswith("./overlays/")]
    assert len(overlays) == failing  # one overlay per failing verdict (all fit in the gallery)
    assert len(links) == 2 * failing  # and a link to each answer file
    assert len(list((out / "charts").glob("*.png"))) >= 3
    rows = list(csv.DictReader(io.StringIO((out / "summary.csv").read_text())))
    assert sum(int(r["samples"]) for r in rows) == 10 and sum(int(r["errors"]) for r in rows) == 1
    md = (out / "summary.md").read_text()
    assert "| Model | maze | All |" in md and "maze_changed ↓" in md


def test_report_refuses_empty_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "e.jsonl").write_text("")
    assert main(["report", str(tmp_path / "e.jsonl"), "-o", str(tmp_path / "r")]) == 2
    assert "no results" in capsys.readouterr().err
    assert main(["report", str(tmp_path), "-o", str(tmp_path / "r")]) == 2
    assert "is not a file" in capsys.readouterr().err


def test_failure_phi_hand_checked() -> None:
    from cvcheck.report.tables import failure_phi

    pairs = [(1, 1)] * 20 + [(1, 0)] * 5 + [(0, 1)] * 10 + [(0, 0)] * 15
    recs = [{"status": "ok", "metrics": {"maze_changed": a, "cross_wall": b, "c": 1}} for a, b in pairs]
    recs.append({"status": "error", "metrics": {"maze_changed": 1, "cross_wall": 0}})  # not a verdict
    phis = failure_phi(recs, ["maze_changed", "cross_wall", "c"])
    phi, n = phis[("maze_changed", "cross_wall")]
    assert n == 50 and phi == pytest.approx(250 / 375_000 ** 0.5)  # (20*15 - 5*10) / sqrt(25*25*30*20)
    assert phis[("maze_changed", "c")] == (None, 50)  # c is constant


def test_overlay_file_names_are_safe() -> None:
    from cvcheck.report.overlays import safe_name

    names = {safe_name(s) for s in ("../../etc/passwd", "a/b", "a_b", "..", "", "x" * 500, "é ü")}
    assert len(names) == 7  # distinct ids never share a file (hash suffix)
    assert all("/" not in n and not n.startswith(".") and len(n) <= 90 for n in names)
