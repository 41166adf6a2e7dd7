"""``cvcheck sudoku ANSWER [--puzzle P | --puzzle-image P.png] [--solution S] [--boxes RxC|none]``."""

from __future__ import annotations

import argparse
from pathlib import Path

from ._common import add_config_options, config_from_args, emit_result, guarded


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sudoku", help="grade a Sudoku answer image or video against its puzzle (OCR)",
                       description="Grade a generated Sudoku answer with MMGR's OCR pipeline (offline PP-OCR).")
    p.add_argument("answer", help="the model's answer: an image (PNG/JPEG) or a video (mp4...)")
    given = p.add_mutually_exclusive_group()
    given.add_argument("--puzzle",
                       help="puzzle grid: JSON file, JSON list, or a string like '1.3.4...' ('.' or '0' = empty)")
    given.add_argument("--puzzle-image", metavar="P.png",
                       help="a picture of the puzzle, read for its clues (videos without either: their first frames)")
    p.add_argument("--solution", default=None,
                   help="solution grid, same forms as --puzzle (default: solved from the puzzle)")
    p.add_argument("--boxes", default="auto", metavar="RxC|none",
                   help="box shape, e.g. 2x3, or 'none' for rows and columns only (default: from N: "
                        "4 -> 2x2, 6 -> 2x3, 9 -> 3x3, 3 -> none)")
    p.add_argument("--id", default=None, help="sample id written into the result (default: answer file name)")
    p.add_argument("--json", action="store_true", help="print the full result JSON")
    p.add_argument("--overlay", metavar="OUT.png", help="write an overlay picture of the verdict")
    add_config_options(p)
    p.set_defaults(func=_run)


@guarded
def _run(args: argparse.Namespace) -> int:
    from ..sudoku.task import grade

    result = grade(args.answer, puzzle=args.puzzle, puzzle_image=args.puzzle_image, solution=args.solution,
                   boxes=args.boxes, config=config_from_args(args), id=args.id or Path(args.answer).name,
                   overlay_path=args.overlay)
    return emit_result(result, as_json=args.json)
