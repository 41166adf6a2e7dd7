"""``cvcheck run MANIFEST -o results.jsonl``: grade a whole manifest, resumably."""

from __future__ import annotations

import argparse
import sys

from ..batch.executors import EXECUTORS
from ._common import add_config_options, check_timeout, check_workers, config_from_args, guarded


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="grade every sample of a manifest into a results JSONL (resumable)",
                       description="Grade every sample of a manifest (JSONL or CSV). One result line is "
                                   "appended per finished sample; re-running skips the ids already in the "
                                   "results file, so an interrupted run (even kill -9) resumes where it was. One run "
                                   "at a time holds a results file: a second one is refused (or waits with --wait). "
                                   "Exit codes: 0 done (error results included), 2 bad input or a refused run, "
                                   "3 internal error, 130 interrupted.")
    p.add_argument("manifest", help="manifest file (.jsonl or .csv)")
    p.add_argument("-o", "--output", required=True, help="results file (JSONL), appended to")
    p.add_argument("--workers", type=int, default=None,
                   help="worker processes / Ray CPUs (default: all CPUs that memory allows)")
    p.add_argument("--executor", choices=tuple(EXECUTORS), default="process",
                   help="process pool (default), in-process serial, or Ray")
    p.add_argument("--address", default=None, help="Ray cluster address (default: start a local instance)")
    p.add_argument("--timeout", type=float, default=300.0,
                   help="per-sample limit in seconds (0 = none); a sample past it becomes an error result")
    p.add_argument("--restart", action="store_true", help="discard an existing results file instead of resuming")
    p.add_argument("--retry-errors", action="store_true",
                   help="grade again the samples whose result is an error (timeouts, missing files...)")
    p.add_argument("--allow-mixed-config", action="store_true",
                   help="resume into results graded with another configuration (refused otherwise)")
    p.add_argument("--wait", action="store_true",
                   help="when another run is writing the results file, wait for it instead of refusing")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    add_config_options(p)
    p.set_defaults(func=_run)


@guarded
def _run(args: argparse.Namespace) -> int:
    from ..batch.manifest import load_manifest
    from ..batch.runner import run_manifest
    from .progress import ProgressBar

    timeout, workers = check_timeout(args.timeout), check_workers(args.workers)
    config = config_from_args(args)
    manifest = load_manifest(args.manifest)
    bar = None if args.no_progress else ProgressBar("grading")
    try:
        summary = run_manifest(manifest, args.output, config=config, executor=args.executor, workers=workers,
                               timeout_s=timeout, address=args.address, resume=not args.restart, progress=bar,
                               retry_errors=args.retry_errors, allow_mixed_config=args.allow_mixed_config,
                               wait=args.wait, on_wait=_tell)
    finally:
        if bar is not None:
            bar.close()
    if summary.torn_tail_repaired:
        print("cvcheck: note: cut an incomplete last line left by an interrupted run", file=sys.stderr)
    if summary.retried:
        print(f"cvcheck: note: {summary.retried} error result(s) dropped to be graded again", file=sys.stderr)
    for mismatch in summary.mixed_config:
        print(f"cvcheck: note: kept results graded with another configuration: {mismatch}", file=sys.stderr)
    if summary.extra_ids:
        print(f"cvcheck: note: {len(summary.extra_ids)} result(s) in {args.output} are not in the manifest",
              file=sys.stderr)
    print(f"{summary.total} samples: {summary.skipped} already done, {summary.graded} graded "
          f"({summary.passed} passed, {summary.errors} errors, {summary.timeouts} timeouts) in "
          f"{summary.elapsed_s:.1f} s with {summary.workers} {summary.executor} worker(s) -> {summary.output}")
    return 0


def _tell(message: str) -> None:
    print(f"cvcheck: {message}", file=sys.stderr, flush=True)
