"""Done-when: the Ray executor on a local Ray instance gives results identical to the process pool.

Needs the ``ray`` extra (``pip install -e '.[ray]'``); skipped without it, except in CI
where ``.ci/run`` installs it and sets ``CVCHECK_REQUIRE_RAY=1`` so a skip cannot hide.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from batch_helpers import maze_corpus

from cvcheck.batch import read_records, run_manifest
from cvcheck.batch.store import comparable

if os.environ.get("CVCHECK_REQUIRE_RAY") != "1":
    pytest.importorskip("ray", reason="Ray not installed: pip install -e '.[ray]'")


@pytest.mark.slow
def test_ray_local_instance_equals_process_pool(tmp_path: Path) -> None:
    manifest = maze_corpus(tmp_path / "corpus", 8, seed=3)
    pool, ray_out = tmp_path / "pool.jsonl", tmp_path / "ray.jsonl"
    run_manifest(manifest, pool, workers=2)
    summary = run_manifest(manifest, ray_out, executor="ray", workers=2)
    assert summary.graded == 8 and summary.executor == "ray"
    a, b = read_records(pool).by_id(), read_records(ray_out).by_id()
    assert sorted(a) == sorted(b) and len(a) == 8
    assert {i: comparable(r) for i, r in a.items()} == {i: comparable(r) for i, r in b.items()}
    assert all(r["timing"]["worker"] == "ray" for r in b.values())
    # resuming on Ray skips what is done, like the pool
    again = run_manifest(manifest, ray_out, executor="ray", workers=2)
    assert again.skipped == 8 and again.graded == 0


@pytest.mark.slow
def test_ray_timeout_and_grader_errors_become_error_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from batch_helpers import TARGET, TASK

    from cvcheck import registry
    from cvcheck.batch import run_samples

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(Path(__file__).parents[1]), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setitem(registry.TASKS, TASK, registry.Task(TASK, TARGET))
    from cvcheck.batch.ray_executor import chunk_size

    samples = [{"id": "hang", "task": TASK, "answer": "x.png", "sleep": 120},
               {"id": "ok", "task": TASK, "answer": "x.png", "value": 1},
               {"id": "bug", "task": TASK, "answer": "x.png", "boom": True}]
    samples += [{"id": f"f{i}", "task": TASK, "answer": "x.png", "value": i % 2} for i in range(13)]
    assert chunk_size(len(samples), 2) == 2  # the hang shares a chunk: the chunk times out, then it alone
    summary = run_samples(samples, tmp_path / "r.jsonl", executor="ray", workers=2, timeout_s=3)
    recs = read_records(tmp_path / "r.jsonl").by_id()
    assert sorted(recs) == sorted(s["id"] for s in samples)
    assert recs["hang"]["error"]["code"] == "timeout" and recs["ok"]["overall"] == 1.0
    assert recs["bug"]["error"]["code"] == "RuntimeError"
    assert [recs[f"f{i}"]["overall"] for i in range(13)] == [float(i % 2) for i in range(13)]
    assert summary.timeouts == 1 and summary.elapsed_s < 100
