"""``cvcheck demo [OUT]``: make a small labelled corpus, score it, report and audit it."""

from __future__ import annotations

import argparse
import time

from ._common import guarded


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="generate a labelled mixed corpus, score it, write the report and the audit",
                       description="Generate synthetic maze and Sudoku answers (images and videos, valid and "
                                   "defective) with ground-truth labels, grade them, and write an HTML report "
                                   "and an audit of the verdicts against the labels.")
    p.add_argument("output", nargs="?", default="cvcheck-demo", help="output folder (default: ./cvcheck-demo)")
    p.add_argument("--seed", type=int, default=0, help="corpus seed (default 0)")
    p.add_argument("--scale", type=float, default=1.0, help="corpus size multiplier (default 1 = ~40 samples)")
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: all CPUs)")
    p.set_defaults(func=_run)


@guarded
def _run(args: argparse.Namespace) -> int:
    from ..audit import audit_text
    from ..demo import run_demo
    from .progress import ProgressBar

    t0 = time.monotonic()
    print(f"cvcheck demo: writing a labelled corpus into {args.output}/corpus ...", flush=True)
    bar = ProgressBar("grading")
    try:
        out = run_demo(args.output, seed=args.seed, scale=args.scale, workers=args.workers, progress=bar)
    finally:
        bar.close()
    s = out.summary
    print(f"corpus: {s.total} samples ({', '.join(f'{k} {v}' for k, v in out.corpus.counts.items())}); "
          f"graded in {s.elapsed_s:.1f} s with {s.workers} workers; {s.passed} passed, {s.errors} errors")
    print(audit_text(out.audit_result))
    print(f"\nmanifest: {out.corpus.manifest}\nresults:  {out.results}\naudit:    {out.audit}")
    print(f"report:   {out.report}\n(open the report in a browser; total {time.monotonic() - t0:.0f} s)")
    return 0
