"""``cvcheck sudoku ANSWER --puzzle P --solution S``: grade one Sudoku answer (image or video)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ._common import add_config_options, config_from_args, emit_result, guarded


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sudoku", help="grade a Sudoku answer image or video against its puzzle and solution (OCR)",
                       description="Grade a generated Sudoku answer with MMGR's OCR pipeline (offline PP-OCR).")
    p.add_argument("answer", help="the model's answer: an image (PNG/JPEG) or a video (mp4...)")
    p.add_argument("--puzzle", required=True,
                   help="puzzle grid: JSON file, JSON list, or a string like '1.3.4...' ('.' or '0' = empty)")
    p.add_argument("--solution", required=True, help="solution grid, same forms as --puzzle")
    p.add_argument("--id", default=None, help="sample id written into the result (default: answer file name)")
    p.add_argument("--json", action="store_true", help="print the full result JSON")
    p.add_argument("--overlay", metavar="OUT.png", help="write an overlay picture of the verdict")
    add_config_options(p)
    p.set_defaults(func=_run)


@guarded
def _run(args: argparse.Namespace) -> int:
    from ..sudoku.task import grade

    result = grade(args.answer, puzzle=args.puzzle, solution=args.solution, config=config_from_args(args),
                   id=args.id or Path(args.answer).name, overlay_path=args.overlay)
    return emit_result(result, as_json=args.json)
