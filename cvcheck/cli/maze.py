"""``cvcheck maze ANSWER --reference SOLUTION.png``: grade one maze answer (image or video)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ._common import add_config_options, config_from_args, emit_result, guarded


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("maze", help="grade a maze answer image or video against its reference solution",
                       description="Grade a generated maze answer with MMGR's deterministic pixel pipeline.")
    p.add_argument("answer", help="the model's answer: an image (PNG/JPEG) or a video (mp4...)")
    p.add_argument("--reference", required=True, help="reference solution image (MMGR palette)")
    p.add_argument("--id", default=None, help="sample id written into the result (default: answer file name)")
    p.add_argument("--json", action="store_true", help="print the full result JSON")
    p.add_argument("--overlay", metavar="OUT.png", help="write an overlay picture of the verdict "
                   "(videos: the tracked trajectory, plus OUT_frames.png, a contact sheet of key frames)")
    p.add_argument("--style", choices=("mmgr", "mazeplot"), default=None,
                   help="video drawing style (default: maze.video_style, i.e. mmgr)")
    add_config_options(p)
    p.set_defaults(func=_run)


@guarded
def _run(args: argparse.Namespace) -> int:
    from ..maze.task import grade

    result = grade(args.answer, reference=args.reference, config=config_from_args(args),
                   id=args.id or Path(args.answer).name, style=args.style, overlay_path=args.overlay)
    return emit_result(result, as_json=args.json)
