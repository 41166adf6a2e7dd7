"""The ``cvcheck`` command line: a thin layer that parses, calls the library and prints.

Each sub-command lives in its own module with ``register(subparsers)``; only the
module of the command being run is imported.
"""

from __future__ import annotations

import argparse
import importlib
import sys

#: command -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "maze": ("cvcheck.cli.maze", "grade a maze answer image or video against its reference solution"),
    "run": ("cvcheck.cli.run", "grade every sample of a manifest into a results JSONL (resumable)"),
    "validate": ("cvcheck.cli.validate", "check a manifest: fields, tasks, duplicate ids, paths, missing files"),
    "report": ("cvcheck.cli.report", "write an HTML report (tables, charts, failure gallery) and CSV/markdown"),
    "audit": ("cvcheck.cli.audit", "agreement between two result sets (pixel vs judge, verifier vs labels)"),
    "demo": ("cvcheck.cli.demo", "generate a labelled corpus, score it, write the report and the audit"),
    "sudoku": ("cvcheck.cli.sudoku", "grade a Sudoku answer image or video against its puzzle (OCR)"),
    "judge": ("cvcheck.cli.judge", "grade judged tasks (MMGR VLM gates, MM-Vet, MARVEL, GGBench) with a cached judge"),
}


def _parser(selected: str | None) -> argparse.ArgumentParser:
    from .._version import __version__

    parser = argparse.ArgumentParser(
        prog="cvcheck",
        description="Deterministic grading of generated puzzle images and videos (MMGR mazes, Sudoku, judged tasks).",
    )
    parser.add_argument("--version", action="version", version=f"cvcheck {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        if name == selected:
            importlib.import_module(module).register(sub)
        else:
            sub.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    selected = next((a for a in argv if not a.startswith("-")), None)
    parser = _parser(selected if selected in COMMANDS else None)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0 if not argv else 2
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # e.g. `cvcheck ... | head`: stop quietly like other Unix tools
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
