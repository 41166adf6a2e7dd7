"""Helpers shared by CLI commands: config options, result printing, error handling."""

from __future__ import annotations

import argparse
import functools
import math
import os
import sys
from collections.abc import Sequence
from typing import Callable

from ..config import Config
from ..errors import CvcheckError, InputError, scrub
from ..limits import printable
from ..schema import Result, Status

MAX_SECONDS = 7 * 24 * 3600   #: the longest time limit a flag accepts (a week)
MAX_WORKERS = 1024            #: the most worker processes a flag accepts


def check_timeout(value: float | None) -> float | None:
    """A ``--timeout`` value: finite seconds in [0, a week] (0: none); ``inf``, ``nan``, negatives refused."""
    if value is None:
        return None
    if not math.isfinite(value) or not 0 <= value <= MAX_SECONDS:
        raise InputError(f"timeout must be >= 0 and at most {MAX_SECONDS:,} seconds (0: none), got {value!r}")
    return value


def check_workers(value: int | None) -> int | None:
    """A ``--workers`` value: 1..1024 (None: the default)."""
    if value is not None and not 1 <= value <= MAX_WORKERS:
        raise InputError(f"workers must be an integer in [1, {MAX_WORKERS}], got {value}")
    return value


def add_config_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", help="JSON config file (sections: media, maze, sudoku, judge)")
    parser.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                        help="override one setting, e.g. --set maze.layout_iou_min=0.75 (repeatable)")


def config_from_args(args: argparse.Namespace) -> Config:
    cfg = Config.load(args.config) if getattr(args, "config", None) else Config()
    return cfg.with_overrides(getattr(args, "set", []) or [])


def guarded(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Turn errors into a one-line message (exit 2 for bad input, 3 for a bug), never a traceback."""

    @functools.wraps(func)
    def wrapper(args: argparse.Namespace) -> int:
        try:
            return func(args)
        except CvcheckError as exc:
            print(f"cvcheck: error: {safe_text(str(exc))}", file=sys.stderr)
            return 2
        except OSError as exc:  # unreadable/unwritable paths, full disks...
            if isinstance(exc, BrokenPipeError):
                raise
            print(f"cvcheck: error: {safe_text(scrub(str(exc)))}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("cvcheck: interrupted", file=sys.stderr)
            return 130
        except Exception as exc:  # a bug: one line, the traceback only on request
            if os.environ.get("CVCHECK_DEBUG"):
                raise
            print(f"cvcheck: internal error: {type(exc).__name__}: {safe_text(scrub(str(exc)))} "
                  "(set CVCHECK_DEBUG=1 for the traceback, and please report it)", file=sys.stderr)
            return 3

    return wrapper


def format_summary(result: Result) -> str:
    """A short human summary of one result."""
    head = f"{result.task} [{result.pipeline}/{result.modality}] {result.id}: "
    if result.status is Status.ERROR:
        assert result.error is not None
        return head + f"ERROR ({result.error.code}) {result.error.message}"
    if result.status is Status.UNPARSEABLE:
        reason = result.details.get("reason", "output could not be read")
        return head + f"UNPARSEABLE (overall 0): {reason}"
    verdict = "PASS" if result.passed else "FAIL"
    lines = [head + f"{verdict} (overall {result.overall:g})"]
    if result.gate is not None:
        for check in result.gate.required:
            mark = "x" if check in result.gate.failed else "ok"
            lines.append(f"  [{mark:>2}] {check}")
    shown = {k: v for k, v in result.metrics.items() if not isinstance(v, (dict, list))}
    if shown:
        lines.append("  metrics: " + ", ".join(f"{k}={_fmt(v)}" for k, v in shown.items()))
    for note in result.details.get("notes", []) or []:
        lines.append(f"  - {note}")
    return "\n".join(lines)


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def safe_text(text: str) -> str:
    """``text`` printable on any stream: lone surrogates (from undecodable file names) escaped."""
    return printable(text, limit=len(text))


def emit_result(result: Result, *, as_json: bool, extra: Sequence[str] = ()) -> int:
    """Print a result (a summary then ``extra`` lines, or the JSON); exit 0 for a verdict
    (ok/unparseable), 1 for an error result."""
    text = format_summary(result) + "".join(f"\n  {line}" for line in extra)
    print(result.to_json(indent=2) if as_json else safe_text(text))
    return 1 if result.status is Status.ERROR else 0
