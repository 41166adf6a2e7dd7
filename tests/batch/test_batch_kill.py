"""Done-when: ``cvcheck run`` killed with SIGKILL at random moments, then resumed, loses and
duplicates nothing, and ends equal to an uninterrupted run (timing fields excluded)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from batch_helpers import maze_corpus, wait_for_file, write_jsonl

from cvcheck.batch import read_records
from cvcheck.batch.store import comparable

TRIALS = 10
RUN = [sys.executable, "-c", "import sys; from cvcheck.cli import main; sys.exit(main())", "run"]


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except OSError:
        return 0


def _run(manifest: Path, out: Path, *, kill_after: float | None = None, kill_at_results: int | None = None,
         final: bool = False) -> int | None:
    """Run ``cvcheck run``; SIGKILL it after ``kill_after`` s or once ``kill_at_results`` lines are
    written (whichever comes first). Returns -9 when killed, else its exit code."""
    proc = subprocess.Popen([*RUN, str(manifest), "-o", str(out), "--workers", "2", "--no-progress"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if final:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err.decode()
        return proc.returncode
    t0 = time.monotonic()
    while proc.poll() is None:
        if (kill_after is not None and time.monotonic() - t0 >= kill_after) or (
                kill_at_results is not None and _lines(out) >= kill_at_results):
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            proc.stderr.close()
            return -9
        time.sleep(0.005)
    proc.stderr.close()
    return proc.returncode


@pytest.mark.slow
def test_sigkill_at_random_points_then_resume_equals_uninterrupted(tmp_path: Path) -> None:
    manifest = maze_corpus(tmp_path / "corpus", 16, seed=11)
    reference = tmp_path / "reference.jsonl"
    t0 = time.monotonic()
    _run(manifest, reference, final=True)
    full_s = time.monotonic() - t0
    want = {r["id"]: comparable(r) for r in read_records(reference).records}
    assert len(want) == 16

    rng = random.Random(20261130)
    progress_at_kill = []
    for trial in range(TRIALS):
        out = tmp_path / f"trial{trial}.jsonl"
        for k in range(3):  # up to three kills per trial
            if trial == 1 and k == 0:      # during start-up, before any result
                plan = {"kill_after": rng.uniform(0.05, 0.3)}
            elif (trial + k) % 2 == 0:     # at a random moment (or, on a faster run, as the last result lands)
                plan = {"kill_after": rng.uniform(0.05, full_s), "kill_at_results": len(want)}
            else:                          # just as the n-th result lands (n random): mid-run for sure
                plan = {"kill_at_results": _lines(out) + rng.randint(1, 6), "kill_after": 2 * full_s + 5}
            if _run(manifest, out, **plan) != -9:
                break
            found = read_records(out, must_exist=False)
            assert not found.duplicates
            progress_at_kill.append(len(found.records))
            if trial % 3 == 1 and out.exists():
                # what a kill in the middle of a write leaves: half a line (a single write()
                # of a line is rarely cut by a signal, so make sure the repair path is hit)
                with open(out, "ab") as fh:
                    fh.write(b'{"schema": "cvcheck.result/1", "id": "maze-img-0')
        _run(manifest, out, final=True)
        lines = out.read_bytes().split(b"\n")
        assert lines[-1] == b""                      # no torn tail left behind
        got = read_records(out)
        assert not got.torn_tail and not got.duplicates
        assert len(lines) - 1 == len(want)           # every id exactly once
        assert {r["id"]: comparable(r) for r in got.records} == want
    print("results present at each kill:", progress_at_kill)
    assert len(progress_at_kill) >= TRIALS  # at least as many kills as trials really happened
    # the kills really landed at different stages (before any result, mid-run)
    assert any(n == 0 for n in progress_at_kill) and any(0 < n < 16 for n in progress_at_kill), progress_at_kill


def _children_of(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")
def test_workers_do_not_outlive_a_killed_run(tmp_path: Path) -> None:
    """Workers busy on a long sample die with their parent instead of grading for nobody."""
    manifest = tmp_path / "m.jsonl"
    never = tmp_path / "never"  # the samples wait for this file: they are busy until killed
    write_jsonl(manifest, [{"id": f"s{i}", "task": "batch-test", "answer": "x.png", "gate": str(never),
                            "started": str(tmp_path / f"started-{i}")} for i in range(2)])
    code = ("import sys; from cvcheck import registry;"
            " registry.register('batch-test', 'batch_helpers:grade_sample');"
            " from cvcheck.cli import main; sys.exit(main())")
    tests = str(Path(__file__).parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([tests, os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-c", code, "run", str(manifest), "-o", str(tmp_path / "r.jsonl"),
                             "--workers", "2", "--no-progress"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=env)
    for i in range(2):  # both workers are now inside a sample
        wait_for_file(tmp_path / f"started-{i}", alive=proc)
    workers = [p for p in _children_of(proc.pid) if "spawn_main" in _cmdline(p)]
    assert len(workers) == 2, workers
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 300  # only stops a broken test: the kernel kills them at once
    while time.monotonic() < deadline and any(_alive(p) for p in workers):
        time.sleep(0.05)
    assert not any(_alive(p) for p in workers)


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
