"""Sudoku video work bounds: a very long video and a 4K video without a grid.

Makes (once, cached under --dir) a 30,000-frame 512x512 H.264 gradual-fill 9x9 video and
a 10 s 3840x2160 video with no grid (a moving gradient), grades each with the default
settings and prints wall time, CPU time and the work counters (frames analysed, skipped
as unchanged, left out by the stride, without a grid). With --baseline SRC (a source
tree of an older cvcheck, e.g. ``git archive <commit> | tar -x -C SRC``) the same files,
or their first --baseline-frames frames, are graded by it in a subprocess, side by side.

    python benchmarks/sudoku_long_video.py --dir /tmp/sudoku-long
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def make_long(path: Path, frames: int) -> dict:
    """A gradual 9x9 fill with per-frame grain (sigma 3) and sub-pixel camera shake (0.7 px),
    like generated videos: no two frames are alike."""
    import av
    import cv2

    from cvcheck.synth.sudoku import Style
    from cvcheck.synth.sudoku_video import make_video_case

    case = make_video_case(4242, n=9, kind="gradual", frames=frames, style=Style(size=512), noise=0.0, shake=0.0)
    if not path.exists():
        rng = np.random.default_rng(7)
        grain = [rng.normal(0, 3.0, (512, 512, 3)).astype(np.float32) for _ in range(8)]
        with av.open(str(path), mode="w") as container:
            stream = container.add_stream("libx264", rate=24)
            stream.width = stream.height = 512
            stream.pix_fmt = "yuv420p"
            stream.options = {"crf": "23", "preset": "ultrafast"}
            for i, rgb in enumerate(case.iter_frames()):
                dx, dy = rng.uniform(-0.7, 0.7, 2)
                m = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
                moved = cv2.warpAffine(rgb, m, (512, 512), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                frame = np.clip(moved + grain[i % 8], 0, 255).astype(np.uint8)
                for packet in stream.encode(av.VideoFrame.from_ndarray(frame, format="rgb24")):
                    container.mux(packet)
            for packet in stream.encode():
                container.mux(packet)
    return {"puzzle": case.puzzle.tolist(), "labels": case.labels}


def make_4k(path: Path, seconds: int = 10, fps: int = 24) -> None:
    import av

    if path.exists():
        return
    w, h = 3840, 2160
    x = np.linspace(0, 1, w, dtype=np.float32)[None, :]
    y = np.linspace(0, 1, h, dtype=np.float32)[:, None]
    with av.open(str(path), mode="w") as container:
        stream = container.add_stream("libx264", rate=fps)
        stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
        stream.options = {"crf": "28", "preset": "ultrafast"}
        for t in range(seconds * fps):
            phase = t / (seconds * fps)
            g = (0.5 + 0.5 * np.sin(6.28 * (x + 0.5 * y + phase))) * 200 + 30
            rgb = np.repeat(g.astype(np.uint8)[:, :, None], 3, axis=2)
            for packet in stream.encode(av.VideoFrame.from_ndarray(rgb, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)


_BASELINE = """
import json, sys, time
from cvcheck.config import Config
from cvcheck.media.video import iter_frames
from cvcheck.sudoku.task import load_spec
from cvcheck.sudoku.verdict import video_result
from cvcheck.sudoku.video import read_timeline
path, puzzle, solution, limit = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3]), int(sys.argv[4])
cfg = Config()
spec = load_spec(puzzle, solution)
t, c = time.perf_counter(), time.process_time()
tl = read_timeline(iter_frames(path, max_frames=limit, config=cfg.media), spec, config=cfg.sudoku)
print(json.dumps({"wall_s": time.perf_counter() - t, "cpu_s": time.process_time() - c, "frames": tl.frames,
                  "ocr_calls": tl.ocr_calls}))
"""


def baseline(src: str, path: Path, puzzle, solution, limit: int) -> dict:
    env = {**os.environ, "PYTHONPATH": src, "OMP_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", _BASELINE, str(path), json.dumps(puzzle), json.dumps(solution),
                          str(limit)], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def grade(path: Path, puzzle, overrides: list[str], limit: int | None = None) -> dict:
    from cvcheck.config import Config
    from cvcheck.media.video import iter_frames
    from cvcheck.sudoku.verdict import video_result
    from cvcheck.sudoku.verify import make_spec
    from cvcheck.sudoku.video import read_timeline

    cfg = Config().with_overrides(overrides)
    spec = make_spec(puzzle, config=cfg) if puzzle is not None else None
    reader = iter_frames(path, max_frames=limit, config=cfg.media)
    info = reader.info
    t, c = time.perf_counter(), time.process_time()
    tl = read_timeline(reader, spec, config=cfg.sudoku, fps=info.fps if info else None,
                       total_frames=min(info.frames, limit or info.frames) if info else None)
    r = video_result(tl, id=path.name, config=cfg)
    return {"wall_s": round(time.perf_counter() - t, 2), "cpu_s": round(time.process_time() - c, 2),
            "status": r.status.value, "overall": r.overall, "error": r.error.code if r.error else None,
            "frames_total": tl.frames_total, "frames_analysed": tl.frames_analysed, "frames_still": tl.frames_still,
            "frames_strided": tl.frames_strided, "frames_without_grid": tl.frames_without_grid,
            "stride": tl.stride, "grid_searches": tl.grid_searches, "ocr_calls": tl.ocr_calls}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default="benchmarks/out/long")
    ap.add_argument("--frames", type=int, default=30_000)
    ap.add_argument("--baseline", default="", help="source tree of the cvcheck to compare with")
    ap.add_argument("--baseline-frames", type=int, default=3000)
    args = ap.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    long_path, k4_path = folder / f"long_{args.frames}.mp4", folder / "nogrid_4k.mp4"
    t = time.perf_counter()
    meta = make_long(long_path, args.frames)
    make_4k(k4_path)
    print(f"videos ready in {time.perf_counter() - t:.0f} s: {long_path}, {k4_path}")
    puzzle = meta["puzzle"]
    print("long 9x9 video, default settings:", json.dumps(grade(long_path, puzzle, [])), "label", meta["labels"])
    print("long video, sudoku.video_max_frames=0 (no stride):",
          json.dumps(grade(long_path, puzzle, ["sudoku.video_max_frames=0"])))
    print("long video, sudoku.video_max_seconds=2:",
          json.dumps(grade(long_path, puzzle, ["sudoku.video_max_seconds=2"])))
    print("4K video without a grid:", json.dumps(grade(k4_path, puzzle, [])))
    if args.baseline:
        from cvcheck.sudoku.solver import solve_unique

        solution = solve_unique(np.array(puzzle, np.int8)).tolist()
        n = args.baseline_frames
        ours = grade(long_path, puzzle, ["sudoku.video_max_frames=0"], limit=n)
        base = baseline(args.baseline, long_path, puzzle, solution, n)
        print(f"first {n} frames of the long video, side by side (no stride): this {json.dumps(ours)}; "
              f"baseline {json.dumps(base)}; wall ratio {base['wall_s'] / max(ours['wall_s'], 1e-6):.1f}x")
        ours = grade(k4_path, puzzle, [])
        base = baseline(args.baseline, k4_path, puzzle, solution, 10**6)
        print(f"4K without a grid, side by side: this {json.dumps(ours)}; baseline {json.dumps(base)}; "
              f"wall ratio {base['wall_s'] / max(ours['wall_s'], 1e-6):.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
