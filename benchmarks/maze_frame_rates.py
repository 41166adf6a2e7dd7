"""A mazeworld corpus copied at another frame rate: a probe of how the video reader follows an
agent that moves farther, or not at all, between frames.

Video models write 8 fps (CogVideoX) to 60 fps (interpolated outputs); mazeworld draws 15-30 fps
and 1-2 fps strips. ``--fps 8`` keeps every k-th frame of each answer (k = its rate / 8, rounded;
the last frame kept too), so a gliding agent moves k times as far between frames; ``--fps 60``
shows each frame k times (k = 60 / its rate, rounded), so it stands still for k - 1 frames in k.
The pixels of the frames kept are the generator's, re-encoded with H.264 at CRF 23::

    python -m benchmarks.mazeworld --out /tmp/mw --seed 46048 --videos 200 --images 0
    python benchmarks/maze_frame_rates.py --corpus /tmp/mw --out /tmp/mw-8fps --fps 8
    python benchmarks/maze_real_accuracy.py --corpus /tmp/mw-8fps --ways video,maze

The labels stay those of the plan, so answers whose label can hang on a dropped frame are left
out of the copy: ``maze_changed`` (a wall changed for a frame or two may fall between the frames
kept) and 1-2 fps strips (already a cell a frame). The other labels are not recomputed: a wall
crossed or a goal left still shows in the frames kept, as the agent takes several frames of the
original to do either. A detour may not: with an agent faster than a cell a frame, its dead-end
turns can fall between the frames kept (docs/maze-videos-measured.md, "Other frame rates").
Images are left out too.

``--strip-step K`` copies instead the 1-2 fps strips labelled a valid solve, every K-th frame
kept (the last one too): an agent K cells a frame, as in strips assembled from a few frames of a
longer video. Their labels hold (a valid walk stays one; only where it was between frames is
not shown)::

    python benchmarks/maze_frame_rates.py --corpus /tmp/mw --out /tmp/mw-strips2 --strip-step 2
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CRF = 23


def retimed(frames: list[np.ndarray], fps: float, target: float) -> tuple[list[np.ndarray], float, int, int]:
    """``frames`` at about ``target`` fps: ``(frames, fps, step, repeat)`` - every ``step``-th
    frame kept (the last one too), or each one shown ``repeat`` times."""
    if target < fps:
        step = max(1, round(fps / target))
        kept = frames[::step]
        if (len(frames) - 1) % step:
            kept.append(frames[-1])
        return kept, fps / step, step, 1
    repeat = max(1, round(target / fps))
    return [f for f in frames for _ in range(repeat)], fps * repeat, 1, repeat


def retime_video(src: Path, dst: Path, target: float, *, step: int | None = None) -> tuple[int, float, int, int]:
    """Write the video ``src`` to ``dst`` at about ``target`` fps (:func:`retimed`, H.264 at
    CRF), or with every ``step``-th frame kept; returns ``(frames written, fps, step, repeat)``."""
    from benchmarks.mazeworld.encode import read_rgb, write_mp4

    frames, rate = read_rgb(src)
    out, fps, step, repeat = retimed(frames, float(rate), float(rate) / step if step else target)
    write_mp4(dst, out, fps=fps, crf=CRF)
    return len(out), fps, step, repeat


def kept_case(case: dict, *, strips: bool = False) -> bool:
    """Whether an answer's label holds at another frame rate (see the module docstring); with
    ``strips``, whether it is a strip labelled a valid solve."""
    strip = any(e.startswith("strip") for e in case["effects"])
    if strips:
        return case["modality"] == "video" and strip and case["labels"]["overall"] == 1
    return case["modality"] == "video" and case["behaviour"] != "maze_changed" and not strip


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    from benchmarks.mazeworld.copies import add_copy_arguments, check_copy_arguments

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_copy_arguments(ap)
    how = ap.add_mutually_exclusive_group(required=True)
    how.add_argument("--fps", type=float, help="the frame rate to copy the answers at, 1-120")
    how.add_argument("--strip-step", type=int, help="instead, copy the strips labelled a valid solve with every "
                                                    "K-th frame kept (2-8)")
    args = ap.parse_args(argv)

    check_copy_arguments(ap, args)
    if args.fps is not None and not 1.0 <= args.fps <= 120.0:
        ap.error("--fps takes a frame rate in [1, 120]")
    if args.strip_step is not None and not 2 <= args.strip_step <= 8:
        ap.error("--strip-step takes 2 to 8")
    if args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True)
    lines = []
    for line in (args.corpus / "cases.jsonl").read_text().splitlines():
        case = json.loads(line)
        if not kept_case(case, strips=args.strip_step is not None):
            continue
        folder = Path(case["answer"]).parent
        shutil.copytree(args.corpus / folder, args.out / folder)
        count, fps, step, repeat = retime_video(args.corpus / case["answer"], args.out / case["answer"],
                                                args.fps or 0.0, step=args.strip_step)
        arrival = case["labels"].get("arrival_frame")
        if arrival is not None:  # the first frame kept at or after it
            case["labels"]["arrival_frame"] = min(count - 1, math.ceil(arrival / step) * repeat)
        params = case["params"]
        case["params"] = {**params, "fps": round(fps, 3), "n_frames": count,
                          "speed": round(params["speed"] * step / repeat, 4)}  # (cells a frame of the copy)
        retimed_as = f"one_frame_in_{step}" if args.strip_step else f"retimed_{args.fps:g}fps"
        case["effects"] = case["effects"] + [retimed_as]
        lines.append(json.dumps(case))
    (args.out / "cases.jsonl").write_text("\n".join(lines) + "\n")
    how_copied = f"with one frame in {args.strip_step} kept" if args.strip_step else f"at about {args.fps:g} fps"
    print(f"{len(lines)} answer videos copied {how_copied} in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
