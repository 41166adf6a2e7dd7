"""Audits: hand-checked agreement, Cohen's kappa and phi; matching, binarising, the CLI and folder."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from cvcheck.audit import Confusion, audit_records, binarise
from cvcheck.batch.store import write_records
from cvcheck.cli import main


@pytest.mark.parametrize(("table", "agreement", "kappa", "phi"), [
    # po = 35/50; pe = .5*.6 + .5*.4 = .5; kappa = .2/.5; phi = (300-50)/sqrt(25*25*30*20)
    ((20, 5, 10, 15), 0.7, 0.4, 250 / math.sqrt(375_000)),
    # po = .6; pe = .6*.7 + .4*.3 = .54; kappa = .06/.46; phi = (675-375)/sqrt(60*40*70*30)
    ((45, 15, 25, 15), 0.6, 0.06 / 0.46, 300 / math.sqrt(5_040_000)),
    ((3, 0, 0, 2), 1.0, 1.0, 1.0),             # perfect agreement
    ((0, 3, 3, 0), 0.0, -1.0, -1.0),           # perfect disagreement: pe = .5
    ((0, 0, 0, 5), 1.0, None, None),           # both constant: kappa and phi undefined
    ((4, 1, 0, 0), 0.8, 0.0, None),            # B constant: pe = po, phi has an empty column
])
def test_hand_checked_coefficients(table, agreement, kappa, phi) -> None:
    c = Confusion(*table)
    assert c.agreement == pytest.approx(agreement)
    assert (c.kappa is None) if kappa is None else c.kappa == pytest.approx(kappa)
    assert (c.phi is None) if phi is None else c.phi == pytest.approx(phi)
    assert c.matrix() == [[table[3], table[2]], [table[1], table[0]]]


def test_binarise() -> None:
    assert binarise("cross_wall", 1) == 1 and binarise("cross_wall", False) == 0
    assert binarise("constraint_violation", 0.0) == 0 and binarise("constraint_violation", 0.1) == 1
    assert binarise("completion_accuracy", 0.99) == 0 and binarise("completion_accuracy", 1.0) == 1
    assert binarise("layout_iou", 0.93) is None and binarise("notes", "x") is None
    assert binarise("overall", None, {"status": "unparseable", "overall": 0.0}) == 0
    assert binarise("overall", None, {"status": "ok", "overall": 1.0}) == 1
    assert binarise("overall", None, {"status": "error", "overall": None}) is None


def _r(sid: str, overall: float | None, status: str = "ok", task: str = "maze", model: str = "m", **metrics):
    return {"schema": "cvcheck.result/1", "id": sid, "task": task, "pipeline": "p", "modality": "image",
            "status": status, "overall": overall, "metrics": metrics, "gate": None, "details": {},
            "sample": {"id": sid, "model": model}}


def test_audit_records_matching_and_disagreements() -> None:
    a = [_r("1", 1.0, cross_wall=0), _r("2", 0.0, cross_wall=1), _r("3", 0.0, "unparseable", cross_wall=1),
         _r("4", None, "error"), _r("5", 1.0, cross_wall=0, model="n"), _r("only-a", 1.0)]
    b = [_r("1", 1.0, cross_wall=0), _r("2", 1.0, cross_wall=0), _r("3", 0.0, cross_wall=1),
         _r("4", 1.0, cross_wall=0), _r("5", 1.0, cross_wall=1, model="n"), _r("only-b", 0.0)]
    au = audit_records(a, b, names=("pixel", "judge"))
    assert au.matched == 5 and au.only_a == ["only-a"] and au.only_b == ["only-b"] and au.errors == ["4"]
    ov, cw = au.metric("overall"), au.metric("cross_wall")
    assert ov.confusion == Confusion(n11=2, n10=0, n01=1, n00=1) and ov.disagree == ["2"]
    assert cw.confusion == Confusion(n11=1, n10=1, n01=1, n00=1) and sorted(cw.disagree) == ["2", "5"]
    assert [d.id for d in au.disagreements] == ["2", "5"]
    assert au.disagreements[0].metrics == {"overall": (0, 1), "cross_wall": (1, 0)}
    assert au.overall_by_model[("maze", "m")].agreement == pytest.approx(2 / 3)
    assert au.overall_by_model[("maze", "n")].agreement == 1.0
    only = audit_records(a, b, metrics=["cross_wall"])
    assert [m.metric for m in only.metrics] == ["cross_wall"]


def test_audit_cli_and_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = write_records(tmp_path / "a.jsonl", [_r("1", 1.0, cross_wall=0), _r("2", 0.0, cross_wall=1)])
    b = write_records(tmp_path / "b.jsonl", [_r("1", 1.0, cross_wall=0), _r("2", 1.0, cross_wall=0)])
    assert main(["audit", str(a), str(b), "--names", "pixel,labels", "-o", str(tmp_path / "au")]) == 0
    out = capsys.readouterr().out
    assert "audit: pixel vs labels: 2 matched ids" in out and "1 disagreeing sample(s)" in out
    assert "overall" in out and "50.00" in out
    data = json.loads((tmp_path / "au" / "audit.json").read_text())
    assert data["metrics"][0]["confusion"] == {"a0_b0": 0, "a0_b1": 1, "a1_b0": 0, "a1_b1": 1}
    page = (tmp_path / "au" / "index.html").read_text()
    assert "Disagreeing samples (1)" in page and "MMGR Table 5" in page
    assert "| overall |" in (tmp_path / "au" / "audit.md").read_text()
    assert main(["audit", str(a), str(b), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["matched"] == 2
    c = write_records(tmp_path / "c.jsonl", [_r("z", 1.0)])
    assert main(["audit", str(a), str(c)]) == 2
    assert "no sample id is in both" in capsys.readouterr().err


def test_audit_folder_draws_overlays_of_disagreements(tmp_path: Path) -> None:
    from batch_helpers import maze_corpus

    from cvcheck.batch import read_records, run_manifest

    manifest = maze_corpus(tmp_path / "corpus", 3, seed=21)
    run_manifest(manifest, tmp_path / "a.jsonl", executor="serial")
    recs = read_records(tmp_path / "a.jsonl").records
    flipped = [{**r, "overall": 1.0 - r["overall"]} if i == 0 else r for i, r in enumerate(recs)]
    write_records(tmp_path / "b.jsonl", flipped)
    assert main(["audit", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"), "-o", str(tmp_path / "au")]) == 0
    page = (tmp_path / "au" / "index.html").read_text()
    pngs = list((tmp_path / "au" / "overlays").glob("*.png"))
    assert len(pngs) == 1 and f'href="./overlays/{pngs[0].name}"' in page and recs[0]["id"] in page


def test_pixel_vs_recorded_judge_audit_through_the_batch_runner(tmp_path: Path) -> None:
    """MMGR's Table 5 use: the pixel verdicts vs a (recorded) VLM judge on the same samples."""
    from batch_helpers import maze_corpus, write_jsonl

    from cvcheck.batch import load_manifest, read_records, run_manifest

    manifest = maze_corpus(tmp_path / "corpus", 4, seed=8)
    run_manifest(manifest, tmp_path / "pixel.jsonl", executor="serial")
    labels = read_records(tmp_path / "corpus" / "labels.jsonl").by_id()
    yes = {0: "no", 1: "yes"}
    judged = []
    for i, s in enumerate(load_manifest(manifest).samples):
        m = labels[s["id"]]["metrics"]
        answers = {k: yes[int(m[k])] for k in ("maze_changed", "cross_wall", "target_achievement")}
        if i == 0:  # the judge misses (or invents) a wall crossing on the first sample
            answers["cross_wall"] = yes[1 - int(m["cross_wall"])]
        judged.append({"id": s["id"], "task": "maze-vlm", "answer": s["answer"], "judge_answers": answers,
                       "model": s["model"]})
    write_jsonl(tmp_path / "corpus" / "judged.jsonl", judged)
    run_manifest(tmp_path / "corpus" / "judged.jsonl", tmp_path / "judge.jsonl", executor="serial")
    au = audit_records(read_records(tmp_path / "pixel.jsonl").records, read_records(tmp_path / "judge.jsonl").records)
    assert au.matched == 4 and not au.errors
    assert au.metric("cross_wall").confusion.n == 4 and au.metric("cross_wall").confusion.agreement == 0.75
    assert au.metric("maze_changed").confusion.agreement == 1.0
    assert judged[0]["id"] in [d.id for d in au.disagreements]
