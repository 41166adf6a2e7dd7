"""Done-when: two runs on one results file lose nothing. One run at a time holds the file: a
second is refused at once (naming the holder's PID) or, with --wait, queues behind it.

The runs are real ``cvcheck run`` processes. Their order is set by files, not sleeps: the
first run's first sample creates ``started`` and then waits for ``gate``, which the test
creates once the second run has been refused (or has said it is waiting).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from batch_helpers import TARGET, TASK, wait_for_file, write_jsonl

from cvcheck import registry
from cvcheck.batch import read_records, run_samples
from cvcheck.batch.lock import ResultsLock, ResultsLockedError, lock_path
from cvcheck.cli import main

CODE = ("import sys; from cvcheck import registry;"
        f" registry.register({TASK!r}, {TARGET!r});"
        " from cvcheck.cli import main; sys.exit(main())")
LIMIT_S = 600  # only stops a broken test; nothing here waits on time


@pytest.fixture()
def test_task():
    registry.register(TASK, TARGET)
    yield TASK
    registry.TASKS.pop(TASK, None)


def _env() -> dict[str, str]:
    tests = str(Path(__file__).parents[1])
    return {**os.environ, "PYTHONPATH": os.pathsep.join([tests, os.environ.get("PYTHONPATH", "")])}


def _run(manifest: Path, out: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", CODE, "run", str(manifest), "-o", str(out), "--no-progress",
                             *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())


def _manifest(path: Path, ids: list[str], **first: str) -> Path:
    rows = [{"id": sid, "task": TASK, "answer": f"{sid}.png", "value": k % 2} for k, sid in enumerate(ids)]
    rows[0].update(first)
    return write_jsonl(path, rows)


def _stderr_line(proc: subprocess.Popen[str], text: str) -> str:
    """The first stderr line of ``proc`` containing ``text``, read from the pipe as it comes (unbuffered,
    so nothing is held back), without blocking the test forever if it never comes."""
    assert proc.stderr is not None
    fd = proc.stderr.fileno()
    got = b""
    while True:
        for line in got.decode(errors="replace").splitlines(keepends=True):
            if text in line and line.endswith("\n"):
                return line
        ready, _, _ = select.select([fd], [], [], LIMIT_S)
        assert ready, f"no line with {text!r} on stderr: {got!r}"
        chunk = os.read(fd, 65536)
        assert chunk, f"stderr closed without {text!r}: {got!r}"
        got += chunk


def _check_file(out: Path, ids: list[str]) -> None:
    """Every id exactly once, every line whole."""
    data = out.read_bytes()
    assert data.endswith(b"\n")
    lines = data.split(b"\n")[:-1]
    assert sorted(json.loads(x)["id"] for x in lines) == sorted(ids)
    found = read_records(out)
    assert not found.torn_tail and not found.duplicates
    assert not lock_path(out).exists()  # the last holder removed its lock file


def test_a_second_run_on_the_same_file_is_refused_at_once_and_reports_still_read_it(tmp_path: Path) -> None:
    started, gate = tmp_path / "started", tmp_path / "gate"
    ids = [f"a{i}" for i in range(6)]
    rows = [{"id": sid, "task": TASK, "answer": f"{sid}.png", "value": k % 2} for k, sid in enumerate(ids)]
    rows[2].update(started=str(started), gate=str(gate))  # serial: a0 and a1 are written before a2 waits
    m = write_jsonl(tmp_path / "a.jsonl", rows)
    out = tmp_path / "r.jsonl"
    first = _run(m, out, "--executor", "serial")
    try:
        wait_for_file(started, alive=first)  # the first run holds the file and is grading
        second = _run(m, out, "--workers", "2")
        _, err = second.communicate(timeout=LIMIT_S)  # refused without waiting for the gate
        assert second.returncode == 2, err
        assert f"results file {out} is being written by another cvcheck run (PID {first.pid}" in err
        assert "--wait" in err and "Traceback" not in err
        # readers take no lock: a report of what is there so far
        assert main(["report", str(out), "-o", str(tmp_path / "report")]) == 0
        assert "a0" in (tmp_path / "report" / "index.html").read_text(encoding="utf-8")
        assert len(read_records(out).records) == 2
    finally:
        gate.touch()
        stdout, err = first.communicate(timeout=LIMIT_S)
    assert first.returncode == 0, err
    assert "6 samples: 0 already done, 6 graded" in stdout
    _check_file(out, ids)


def test_with_wait_both_runs_finish_and_nothing_is_lost(tmp_path: Path) -> None:
    started, gate = tmp_path / "started", tmp_path / "gate"
    a_ids = [f"a{i}" for i in range(6)]
    b_ids = a_ids + [f"b{i}" for i in range(6)]
    ma = _manifest(tmp_path / "a.jsonl", a_ids, started=str(started), gate=str(gate))
    mb = _manifest(tmp_path / "b.jsonl", b_ids)
    out = tmp_path / "r.jsonl"
    first = _run(ma, out, "--workers", "2")
    second = None
    try:
        wait_for_file(started, alive=first)
        second = _run(mb, out, "--workers", "2", "--wait")
        line = _stderr_line(second, "waiting for the run that holds")  # said just before it blocks
        assert f"PID {first.pid}" in line, line
    finally:
        gate.touch()
        a_out, a_err = first.communicate(timeout=LIMIT_S)
    assert first.returncode == 0, a_err
    b_out, b_err = second.communicate(timeout=LIMIT_S)
    assert second.returncode == 0, b_err
    assert "6 samples: 0 already done, 6 graded" in a_out
    assert "12 samples: 6 already done, 6 graded" in b_out  # it resumed after the first run, not beside it
    _check_file(out, b_ids)


def test_two_runs_started_together_with_wait_lose_nothing(tmp_path: Path) -> None:
    """No ordering at all: two runs race for the file; whichever comes second resumes after the first."""
    ids_a = [f"s{i}" for i in range(0, 12)]
    ids_b = [f"s{i}" for i in range(6, 18)]
    ma, mb = _manifest(tmp_path / "a.jsonl", ids_a), _manifest(tmp_path / "b.jsonl", ids_b)
    out = tmp_path / "r.jsonl"
    runs = [_run(ma, out, "--workers", "1", "--wait"), _run(mb, out, "--workers", "1", "--wait")]
    for run in runs:
        _, err = run.communicate(timeout=LIMIT_S)
        assert run.returncode == 0, err
    _check_file(out, sorted(set(ids_a) | set(ids_b)))


def test_run_samples_refuses_a_held_file_and_names_the_holder(tmp_path: Path, test_task: str) -> None:
    out = tmp_path / "r.jsonl"
    samples = [{"id": f"t{i}", "task": TASK, "answer": "x.png"} for i in range(3)]
    with ResultsLock(out) as held:
        assert held.held and lock_path(out).read_text().split()[0] == str(os.getpid())
        with pytest.raises(ResultsLockedError, match=rf"PID {os.getpid()}"):
            run_samples(samples, out, executor="serial")
        with pytest.raises(ResultsLockedError):  # --restart is refused too: it would delete the file
            run_samples(samples, out, executor="serial", resume=False)
        assert not out.exists()
    assert run_samples(samples, out, executor="serial").graded == 3
    assert not lock_path(out).exists()


def test_a_lock_file_left_by_a_killed_run_does_not_block(tmp_path: Path, test_task: str) -> None:
    out = tmp_path / "r.jsonl"
    lock_path(out).write_text("999999999 elsewhere\n")  # the holder died: the kernel dropped its flock
    summary = run_samples([{"id": "t0", "task": TASK, "answer": "x.png"}], out, executor="serial")
    assert summary.graded == 1 and not lock_path(out).exists()


def test_a_waiter_never_shares_the_lock_with_a_newcomer(tmp_path: Path) -> None:
    """The holder removes the lock file when done; a waiter that then gets the removed file's lock
    takes the new one instead, so it and a third run never both hold the results file."""
    out = tmp_path / "r.jsonl"
    first = ResultsLock(out)
    first.acquire()
    waiting = threading.Event()
    got: list[ResultsLock] = []
    second = ResultsLock(out, wait=True, on_wait=lambda _msg: waiting.set())
    thread = threading.Thread(target=lambda: (second.acquire(), got.append(second)))
    thread.start()
    assert waiting.wait(LIMIT_S)
    first.release()
    thread.join(LIMIT_S)
    assert got and second.held and lock_path(out).exists()
    with pytest.raises(ResultsLockedError):
        ResultsLock(out).acquire()
    second.release()
    third = ResultsLock(out)
    third.acquire()
    third.release()
