"""Report on a big results file: time and peak memory of ``cvcheck report`` on N records.

Grades a small labelled corpus once, then replicates its records (new ids) into a
results file of ``--records`` lines, and runs ``cvcheck report`` on it in a fresh
process, reporting wall time and peak RSS, next to the peak RSS of merely loading
every record (``json.loads`` of each line) as a reference for the memory the slim
aggregation saves.

    .venv/bin/python benchmarks/batch_report.py --records 20000
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CLI = "import sys; from cvcheck.cli import main; rc = main(sys.argv[1:]); "
RSS = ("import resource; print('peak_kib', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); "
       "sys.exit(rc)")
LOAD_ALL = ("import sys, json, resource; recs = [json.loads(l) for l in open(sys.argv[1], 'rb')]; "
            "print('peak_kib', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)")


def _peak(cmd: list[str]) -> tuple[float, int]:
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t0
    kib = int(next(ln.split()[1] for ln in res.stderr.splitlines() if ln.startswith("peak_kib")))
    return wall, kib


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=20000)
    args = ap.parse_args()
    from cvcheck.batch import read_records, run_manifest
    from cvcheck.demo import make_corpus

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        corpus = make_corpus(folder / "corpus", seed=5, scale=0.5, kinds=("maze-image", "sudoku-image"))
        run_manifest(corpus.manifest, folder / "small.jsonl", workers=2)
        base = read_records(folder / "small.jsonl").records
        big = folder / "big.jsonl"
        with open(big, "w", encoding="utf-8") as fh:
            for i in range(args.records):
                r = base[i % len(base)]
                fh.write(json.dumps({**r, "id": f"{r['id']}-{i}"}) + "\n")
        size_mb = big.stat().st_size / 1e6
        wall, kib = _peak([sys.executable, "-c", CLI + RSS, "report", str(big), "-o", str(folder / "report")])
        _, load_kib = _peak([sys.executable, "-c", LOAD_ALL, str(big)])
        print(f"{args.records} records ({size_mb:.1f} MB of JSONL)")
        print(f"cvcheck report:            {wall:6.1f} s, peak RSS {kib / 1024:7.1f} MiB "
              "(gallery of 48 overlays included)")
        print(f"json.loads of every line:           peak RSS {load_kib / 1024:7.1f} MiB "
              "(what keeping full records costs)")


if __name__ == "__main__":
    main()
