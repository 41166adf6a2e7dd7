"""Throughput of ``cvcheck run``: 1 vs 2 workers (and optionally Ray) on the same corpus, side by side.

Each configuration runs the real CLI in a fresh process (start-up of the workers included) on the
same labelled corpus, ``--repeats`` times, alternating configurations so that background load hits
them alike; the table shows medians. Results of every run are checked identical (timing excluded).

    .venv/bin/python benchmarks/batch_throughput.py                 # ~150 samples, 3 repeats
    .venv/bin/python benchmarks/batch_throughput.py --ray           # also the Ray executor
    .venv/bin/python benchmarks/batch_throughput.py --mazes 40 --sudoku 10 --repeats 1   # quick look
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cvcheck.batch import read_records
from cvcheck.batch.store import comparable
from cvcheck.demo import GENERATORS, make_corpus

CLI = [sys.executable, "-c", "import sys; from cvcheck.cli import main; sys.exit(main())"]


def _run(manifest: Path, out: Path, *args: str) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + sys of the run and its workers)."""
    if out.exists():
        out.unlink()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([*CLI, "run", str(manifest), "-o", str(out), "--no-progress", *args], check=True,
                   stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mazes", type=int, default=120, help="maze answer images in the corpus")
    ap.add_argument("--sudoku", type=int, default=30, help="Sudoku answer images (OCR) in the corpus")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--ray", action="store_true", help="also time --executor ray --workers 2")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        scales = {"maze-image": args.mazes, "sudoku-image": args.sudoku}
        for kind, count in scales.items():
            if count:
                make_corpus(folder / kind, seed=42, scale=count / GENERATORS[kind][1], kinds=(kind,))
        # one manifest in one folder: rewrite relative paths under their kind's folder
        merged = []
        for kind in scales:
            mf = folder / kind / "manifest.jsonl"
            if mf.exists():
                for line in mf.read_text().splitlines():
                    s = json.loads(line)
                    for k in ("answer", "reference"):
                        if k in s:
                            s[k] = f"{kind}/{s[k]}"
                    merged.append(s)
        manifest = folder / "manifest.jsonl"
        manifest.write_text("".join(json.dumps(s) + "\n" for s in merged))
        n = len(merged)
        configs = {"1 worker": ["--workers", "1"], "2 workers": ["--workers", "2"]}
        if args.ray:
            configs["ray, 2 CPUs"] = ["--executor", "ray", "--workers", "2"]
        times: dict[str, list[float]] = {k: [] for k in configs}
        cpu: dict[str, list[float]] = {k: [] for k in configs}
        reference = None
        for rep in range(args.repeats):
            for name, extra in configs.items():
                out = folder / f"out-{name.replace(' ', '_').replace(',', '')}.jsonl"
                wall, used = _run(manifest, out, *extra)
                times[name].append(wall)
                cpu[name].append(used)
                got = {r["id"]: comparable(r) for r in read_records(out).records}
                assert len(got) == n, (name, len(got), n)
                reference = reference or got
                if got != reference:
                    diff = sorted(i for i in got if got[i] != reference.get(i))
                    keys = sorted({k for i in diff for k in got[i] if got[i][k] != reference[i].get(k)})
                    raise SystemExit(f"{name} (repeat {rep}): {len(diff)} results differ from the first run, "
                                     f"e.g. {diff[:3]} in {keys} (was the code changed while it ran?)")
        load = os.getloadavg()
        print(f"corpus: {n} samples ({args.mazes} maze images, {args.sudoku} Sudoku images), "
              f"{args.repeats} repeat(s), CPUs {os.cpu_count()}, load avg at end {load[0]:.2f}/{load[1]:.2f}")
        base = statistics.median(times["1 worker"])
        best = min(times["1 worker"])
        print(f"{'configuration':<14}{'median s':>10}{'samples/s':>11}{'speed-up':>10}{'best s':>8}{'speed-up':>10}"
              f"{'CPU s':>8}   all runs (s)")
        for name, ts in times.items():
            med = statistics.median(ts)
            print(f"{name:<14}{med:>10.2f}{n / med:>11.2f}{base / med:>9.2f}x{min(ts):>8.2f}{best / min(ts):>9.2f}x"
                  f"{statistics.median(cpu[name]):>8.2f}   " + ", ".join(f"{t:.2f}" for t in ts))
        print("CPU s: user+sys of the run and its workers (Ray's own daemons not counted); when other "
              "processes load the machine, wall-clock speed-up understates what idle cores give")
        print("results identical across all runs and configurations (timing fields excluded): yes")


if __name__ == "__main__":
    main()
