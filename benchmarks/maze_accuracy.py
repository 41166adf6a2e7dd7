"""Agreement of the maze image verifier with synthetic ground truth.

Regenerates a labelled corpus from a seed (every defect and rendering family) and
scores it. Usage::

    python benchmarks/maze_accuracy.py --seed 90210 --count 300 [--failures out/]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from cvcheck.maze import verify_image
from cvcheck.synth.maze_cases import make_corpus

METRICS = ("maze_changed", "cross_wall", "target_achievement", "reflection")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=90210)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--failures", type=Path, help="write disagreeing cases (answer, reference, result) here")
    args = ap.parse_args(argv)
    agree: Counter[str] = Counter()
    per_defect: dict[str, Counter[str]] = defaultdict(Counter)
    crossings_total = crossings_caught = 0
    times, failures = [], []
    cases = make_corpus(args.seed, args.count)
    for case in cases:
        t0 = time.perf_counter()
        result = verify_image(case.answer, case.reference, id=case.id)
        times.append(time.perf_counter() - t0)
        got: dict[str, Any] = {m: result.metrics.get(m) for m in METRICS} | {"overall": int(result.overall or 0)}
        ok_all = True
        for name in METRICS + ("overall",):
            hit = int(got[name]) == int(case.labels[name])
            agree[name] += hit
            ok_all &= hit
        per_defect[case.defect]["n"] += 1
        per_defect[case.defect]["overall_ok"] += int(got["overall"]) == case.labels["overall"]
        if case.labels["cross_wall"]:
            crossings_total += 1
            crossings_caught += int(got["cross_wall"]) == 1
        if not ok_all:
            failures.append({"id": case.id, "defect": case.defect, "got": got,
                             "labels": {k: case.labels[k] for k in METRICS + ("overall",)},
                             "notes": result.details.get("notes"), "style": case.style})
            if args.failures:
                import cv2
                args.failures.mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(args.failures / f"{case.id}_answer.png"), case.answer[:, :, ::-1])
                cv2.imwrite(str(args.failures / f"{case.id}_reference.png"), case.reference[:, :, ::-1])
    n = len(cases)
    print(f"cases: {n} (seed {args.seed})")
    for name in ("overall",) + METRICS:
        print(f"  {name:<20} agreement {agree[name] / n:7.2%}  ({agree[name]}/{n})")
    print(f"  injected wall crossings caught: {crossings_caught}/{crossings_total}")
    print("  per defect (overall agreement): " + ", ".join(
        f"{d} {c['overall_ok']}/{c['n']}" for d, c in sorted(per_defect.items())))
    print(f"  verify time per case: median {np.median(times) * 1000:.1f} ms")
    for f in failures[:20]:
        print("  DISAGREE", json.dumps(f, default=str)[:600])
    return 0


if __name__ == "__main__":
    sys.exit(main())
