"""``cvcheck maze ANSWER --reference SOLUTION.png``: grade one maze answer (image or video)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ._common import add_config_options, config_from_args, emit_result, guarded


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("maze", help="grade a maze answer image or video (against a reference, a puzzle or a maze file)",
                       description="Grade a generated maze answer with MMGR's deterministic pixel pipeline. The maze "
                                   "is given one way (--reference, --puzzle or --maze); a video without one is graded "
                                   "against the maze read from its own first frames.")
    p.add_argument("answer", help="the model's answer: an image (PNG/JPEG) or a video (mp4...)")
    way = p.add_mutually_exclusive_group()
    way.add_argument("--reference", metavar="SOLUTION.png", help="the MMGR solution image (lattice look, blue path)")
    way.add_argument("--puzzle", metavar="PUZZLE.png", help="the unsolved puzzle image, any look")
    way.add_argument("--maze", metavar="SPEC", help="a maze file: maze-dataset connection_list JSON or its ASCII form")
    p.add_argument("--id", default=None, help="sample id written into the result (default: answer file name)")
    p.add_argument("--json", action="store_true", help="print the full result JSON")
    p.add_argument("--overlay", metavar="OUT.png", help="write an overlay picture of the verdict "
                   "(videos: the tracked trajectory, plus OUT_frames.png, a contact sheet of key frames)")
    p.add_argument("--style", choices=("auto", "mmgr", "mazeplot"), default=None,
                   help="video look: auto (read from the video; the default, maze.video_style) or fixed colours")
    add_config_options(p)
    p.set_defaults(func=_run)


@guarded
def _run(args: argparse.Namespace) -> int:
    from ..maze.task import grade
    from ..maze.verdict import describe_reading

    result = grade(args.answer, reference=args.reference, puzzle=args.puzzle, maze=args.maze,
                   config=config_from_args(args), id=args.id or Path(args.answer).name, style=args.style,
                   overlay_path=args.overlay)
    return emit_result(result, as_json=args.json, extra=describe_reading(result.details))
