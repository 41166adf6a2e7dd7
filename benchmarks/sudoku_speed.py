"""Sudoku verifier speed: ms per 9x9 image on one core, and a 360-frame 9x9 video read
change-driven vs naively (every frame, every cell), side by side in one run, for a clean
render and for one with per-frame grain and sub-pixel camera shake.

    python benchmarks/sudoku_speed.py                 # 20 images x 3 reps, 360-frame video
    python benchmarks/sudoku_speed.py --naive-every 1 # time the naive reading on every frame

All timings use one onnxruntime thread (sudoku.ocr_threads=1) and one process; medians.
CPU time (process_time) is printed next to wall time: on a shared machine it is the
better measure of the cost on one core.
The naive reading (every frame, every non-blank cell recognised, no sharing) is timed on
every --naive-every'th frame (default 4) and scaled to all frames (said so in the output);
its OCR-call count is exact (sum over frames of the non-blank cells).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--images", type=int, default=20)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--frames", type=int, default=360)
    ap.add_argument("--naive-every", type=int, default=4)
    ap.add_argument("--seed0", type=int, default=910_000)
    args = ap.parse_args(argv)

    from cvcheck.config import Config
    from cvcheck.media.video import iter_frames
    from cvcheck.sudoku.grid import find_grid
    from cvcheck.sudoku.ocr import get_engine
    from cvcheck.sudoku.read import read_grid
    from cvcheck.sudoku.task import verify_video_file
    from cvcheck.synth.sudoku import make_image_case
    from cvcheck.synth.sudoku_video import make_video_case

    cfg = Config()
    engine = get_engine(cfg.sudoku)
    print(f"engine: {engine.name} providers={getattr(engine, 'providers', '?')} threads={cfg.sudoku.ocr_threads}")

    # -- images ------------------------------------------------------------------------------
    every = Config().with_overrides(["sudoku.ocr_glyph_share=0"]).sudoku
    cases = [make_image_case(s, n=9) for s in range(args.seed0, args.seed0 + args.images)]
    read_grid(cases[0].image, 9, config=cfg.sudoku)  # warm-up
    times: dict[str, list[float]] = {"shared": [], "every": []}
    cpu: dict[str, list[float]] = {"shared": [], "every": []}
    calls: dict[str, list[int]] = {"shared": [], "every": []}
    per_grid = []
    for case in cases:
        for key, conf in (("shared", cfg.sudoku), ("every", every)):
            reps, cpus = [], []
            for _ in range(args.reps):
                t, c = time.perf_counter(), time.process_time()
                g = read_grid(case.image, 9, config=conf)
                reps.append(time.perf_counter() - t)
                cpus.append(time.process_time() - c)
            times[key].append(float(np.median(reps)))
            cpu[key].append(float(np.median(cpus)))
            calls[key].append(g.ocr_calls if g else 0)
        t = time.perf_counter()
        find_grid(case.image, 9)
        per_grid.append(time.perf_counter() - t)
    print(f"9x9 images ({len(cases)}, {np.mean(calls['every']):.1f} non-blank cells each), whole read "
          f"(grid + cells + OCR), median of {args.reps} runs per image:")
    for key, label in (("shared", f"one recognition per glyph group (share={cfg.sudoku.ocr_glyph_share})"),
                       ("every", "every non-blank cell recognised (share=0)")):
        print(f"  {label:58s} wall median {1000 * np.median(times[key]):6.1f} ms (p90 "
              f"{1000 * np.percentile(times[key], 90):6.1f}), CPU median {1000 * np.median(cpu[key]):6.1f} ms, "
              f"{np.mean(calls[key]):5.1f} OCR crops")
    print(f"  grid finding + rectification alone: median {1000 * np.median(per_grid):.1f} ms")
    crops = [np.full((48, 32, 3), 255, np.uint8)] * 81
    t = time.perf_counter()
    engine.read_digits(crops, n=9)
    print(f"  PP-OCR recognition of 81 crops in one batch: {1000 * (time.perf_counter() - t):.1f} ms")

    # -- video -------------------------------------------------------------------------------
    for label, noise, shake in (("clean render", 0.0, 0.0), ("grain 3 + camera shake 0.7 px", 3.0, 0.7)):
        vcase = make_video_case(args.seed0 + 999, n=9, kind="gradual", frames=args.frames, noise=noise, shake=shake)
        with tempfile.TemporaryDirectory() as tmp:
            path = vcase.write_mp4(Path(tmp) / "v.mp4")
            t = time.perf_counter()
            r = verify_video_file(path, vcase.puzzle, vcase.solution, config=cfg)
            ours_s = time.perf_counter() - t
            m = r.metrics
            naive_calls = sum(int((vcase.states[int(s)] != 0).sum()) for s in vcase.state_of)
            t = time.perf_counter()
            timed = 0
            for i, frame in enumerate(iter_frames(path)):
                if i % args.naive_every == 0:
                    read_grid(frame, 9, config=every)
                    timed += 1
            naive_s = (time.perf_counter() - t) * (m["frames"] / max(timed, 1))
        print(f"\n9x9 video, {label}, {m['frames']} frames ({vcase.style.size} px H.264): verdict overall="
              f"{r.overall} (label {vcase.labels['overall']}), AR={m['action_reflection']} "
              f"(label {vcase.labels['action_reflection']})")
        print(f"{'':28s}{'change-driven':>16s}{'naive':>16s}{'ratio':>10s}")
        print(f"{'OCR calls (crops)':28s}{m['ocr_calls']:>16d}{naive_calls:>16d}"
              f"{naive_calls / max(m['ocr_calls'], 1):>9.1f}x")
        print(f"{'cell reads (incl. blanks)':28s}{m['cell_reads']:>16d}{m['naive_ocr_calls']:>16d}"
              f"{m['naive_ocr_calls'] / max(m['cell_reads'], 1):>9.1f}x")
        note = "" if args.naive_every == 1 else f" (naive timed on every {args.naive_every}th frame, scaled)"
        print(f"{'seconds':28s}{ours_s:>16.2f}{naive_s:>16.2f}{naive_s / ours_s:>9.1f}x{note}")
    return 0

if __name__ == "__main__":
    sys.exit(main())
