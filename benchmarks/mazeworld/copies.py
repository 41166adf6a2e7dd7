"""The command line the corpus copiers share (``maze_degraded.py``, ``maze_formats.py``,
``maze_frame_rates.py``): a mazeworld corpus in, a copy of it out."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_copy_arguments(ap: argparse.ArgumentParser) -> None:
    """``--corpus`` (a mazeworld corpus) and ``--out`` (where the copy goes, replaced)."""
    ap.add_argument("--corpus", type=Path, required=True, help="a mazeworld corpus (cases.jsonl and case folders)")
    ap.add_argument("--out", type=Path, required=True, help="where the copy goes (replaced)")


def check_copy_arguments(ap: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Exit with a usage error unless ``--corpus`` holds a cases.jsonl and ``--out`` is another
    folder (the copy replaces ``--out``: the corpus itself would be deleted)."""
    if not (args.corpus / "cases.jsonl").is_file():
        ap.error(f"{args.corpus} has no cases.jsonl")
    if args.out.resolve() == args.corpus.resolve():
        ap.error("--out must differ from --corpus")
