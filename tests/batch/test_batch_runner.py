"""The runner: process pool with timeouts and crash recovery, resume, serial == pool, the run CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from batch_helpers import TARGET, TASK, maze_corpus, write_jsonl

from cvcheck import registry
from cvcheck.batch import load_manifest, read_records, run_manifest, run_samples
from cvcheck.batch.store import comparable
from cvcheck.cli import main


@pytest.fixture()
def test_task():
    registry.register(TASK, TARGET)
    yield TASK
    registry.TASKS.pop(TASK, None)


def _samples(**special: dict) -> list[dict]:
    out = [{"id": f"t{i}", "task": TASK, "answer": f"/x/{i}.png", "value": i % 2} for i in range(6)]
    for sid, extra in special.items():
        out[int(sid[1:])].update(extra)
    return out


#: the timeout under test: far beyond what a good sample takes on a loaded machine (milliseconds), while the
#: hung sample waits for a file that never comes, so it is always past it
TIMEOUT_S = 20.0


def test_hung_crashing_and_buggy_samples_become_error_results(tmp_path: Path, test_task: str) -> None:
    samples = _samples(t1={"gate": str(tmp_path / "never")}, t2={"crash": True}, t3={"boom": True})
    out = tmp_path / "r.jsonl"
    summary = run_samples(samples, out, workers=2, timeout_s=TIMEOUT_S)
    recs = read_records(out).by_id()
    assert sorted(recs) == [s["id"] for s in samples]
    assert recs["t1"]["error"]["code"] == "timeout" and recs["t1"]["status"] == "error"
    assert recs["t2"]["error"]["code"] == "worker_died"
    assert recs["t3"]["error"]["code"] == "RuntimeError" and "boom" in recs["t3"]["error"]["message"]
    assert [recs[i]["overall"] for i in ("t0", "t4", "t5")] == [0.0, 0.0, 1.0]  # replaced workers kept going
    assert summary.errors == 3 and summary.timeouts == 1 and summary.graded == 6
    assert "longer than 20 s" in recs["t1"]["error"]["message"]


def test_resume_skips_done_ids_and_carries_sample_fields(tmp_path: Path, test_task: str) -> None:
    samples = _samples()
    for s in samples:
        s.update(model="M1", difficulty="hard", metadata={"k": s["id"]})
    out = tmp_path / "r.jsonl"
    first = run_samples(samples[:4], out, executor="serial")
    assert first.graded == 4
    second = run_samples(samples, out, workers=2)
    assert second.skipped == 4 and second.graded == 2
    recs = read_records(out).records
    assert sorted(r["id"] for r in recs) == sorted(s["id"] for s in samples) and len(recs) == 6
    assert all(r["sample"]["model"] == "M1" and r["sample"]["metadata"]["k"] == r["id"] for r in recs)
    third = run_samples(samples, out, resume=False, executor="serial")
    assert third.skipped == 0 and len(read_records(out).records) == 6


def test_pool_equals_serial_on_real_mazes_and_caches_references(tmp_path: Path) -> None:
    manifest = maze_corpus(tmp_path / "corpus", 6)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    run_manifest(manifest, a, executor="serial")
    run_manifest(manifest, b, workers=2)
    ra, rb = read_records(a).by_id(), read_records(b).by_id()
    assert sorted(ra) == sorted(rb) and len(ra) == 6
    assert all(comparable(ra[i]) == comparable(rb[i]) for i in ra)
    assert all(r["status"] == "ok" for r in ra.values())
    assert ra[next(iter(ra))]["sample"]["line"] >= 1

    # the reference cache: one parse per reference file per process
    from cvcheck.config import Config
    from cvcheck.maze import task as maze_task

    ref = load_manifest(manifest).samples[0]["reference"]
    before = maze_task.load_reference.cache_info()
    maze_task.load_reference(ref, config=Config())
    maze_task.load_reference(ref, config=Config())
    after = maze_task.load_reference.cache_info()
    assert after.hits - before.hits >= 1 and after.misses - before.misses <= 1


def test_run_cli_progress_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = maze_corpus(tmp_path / "corpus", 3)
    out = tmp_path / "r.jsonl"
    assert main(["run", str(manifest), "-o", str(out), "--workers", "1"]) == 0
    cap = capsys.readouterr()
    assert "3 samples: 0 already done, 3 graded" in cap.out and "grading 3/3 100.0%" in cap.err
    assert main(["run", str(manifest), "-o", str(out), "--no-progress"]) == 0
    assert "3 samples: 3 already done, 0 graded" in capsys.readouterr().out
    # an answer that is missing becomes an error result, not a crash
    bad = write_jsonl(tmp_path / "corpus" / "bad.jsonl",
                      [{"id": "x", "task": "maze", "answer": "nope.png", "reference": "nope.png"}])
    assert main(["run", str(bad), "-o", str(tmp_path / "bad.jsonl"), "--executor", "serial"]) == 0
    rec = json.loads((tmp_path / "bad.jsonl").read_text().splitlines()[0])
    assert rec["status"] == "error" and rec["error"]["code"] == "bad_media"
    assert main(["run", str(bad), "-o", str(tmp_path / "b2.jsonl"), "--workers", "0"]) == 2
    assert main(["run", str(bad), "-o", str(tmp_path / "b2.jsonl"), "--timeout", "-1"]) == 2
    assert "timeout must be >= 0" in capsys.readouterr().err
    assert main(["run", str(bad), "-o", str(tmp_path)]) == 2  # a folder is not a results file
    assert "is a folder" in capsys.readouterr().err


def test_ray_chunk_size() -> None:
    from cvcheck.batch.ray_executor import MAX_CHUNK, chunk_size

    assert chunk_size(3, 2) == 1 and chunk_size(16, 2) == 2 and chunk_size(10_000, 2) == MAX_CHUNK
    assert chunk_size(10_000, 1000) == 2 and chunk_size(0, 4) == 1


def test_retry_errors_grades_error_results_again(tmp_path: Path, test_task: str) -> None:
    samples = _samples(t2={"boom": True})
    out = tmp_path / "r.jsonl"
    run_samples(samples, out, executor="serial")
    assert read_records(out).by_id()["t2"]["status"] == "error"
    samples[2].pop("boom")  # the cause is fixed
    again = run_samples(samples, out, executor="serial", retry_errors=True)
    assert again.retried == 1 and again.graded == 1 and again.skipped == 5
    recs = read_records(out)
    assert len(recs.records) == 6 and not recs.duplicates and recs.by_id()["t2"]["status"] == "ok"


def test_thread_executor_equals_serial_and_keeps_every_sample(tmp_path: Path, test_task: str) -> None:
    samples = _samples(t3={"boom": True})
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    run_samples(samples, a, executor="serial")
    summary = run_samples(samples, b, executor="thread", workers=3)
    ra, rb = read_records(a).by_id(), read_records(b).by_id()
    assert sorted(rb) == sorted(s["id"] for s in samples) and len(read_records(b).records) == len(samples)
    assert all(comparable(ra[i]) == comparable(rb[i]) for i in ra)
    assert rb["t3"]["error"]["code"] == "RuntimeError" and summary.errors == 1
    assert {r["timing"]["worker"] for r in rb.values()} == {"thread"}
