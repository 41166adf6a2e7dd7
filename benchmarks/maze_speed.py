"""Maze image verify time vs PNG decode time, side by side, at 512 and 1024 px.

For each size, model-like answers are rendered at exactly that size, written as
PNG, then each file is (a) decoded and (b) verified from the decoded array, in
alternation so both see the same machine load. Medians and their ratio::

    python benchmarks/maze_speed.py --count 40 [--threads 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from cvcheck.maze import as_spec, verify_image
from cvcheck.media.image import load_image
from cvcheck.synth.maze_cases import make_case
from cvcheck.synth.maze_render import AnswerStyle, render_answer


def _answers(size: int, count: int, seed: int, clean: bool):
    for i in range(count):
        case = make_case(seed + i, defect="valid")
        st = case.style
        style = AnswerStyle(path_style=st["path_style"], cell_px=max(16, size // case.spec.walls.shape[0] + 4),
                            line_width=st["line_width"], jitter=st["jitter"], out_size=(size, size),
                            blur_sigma=0.0 if clean else 0.8, noise_sigma=0.0 if clean else 3.0)
        spec = case.spec
        img = render_answer(spec.walls, start=spec.start, goal=spec.goal, path=list(spec.solution),
                            style=style, rng=np.random.default_rng(i))
        yield img, case.reference


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--seed", type=int, default=4242)
    ap.add_argument("--clean", action="store_true",
                    help="flat synthetic renders (decode very fast) instead of blurred, noisy model-like ones")
    ap.add_argument("--threads", type=int, default=None, help="cv2.setNumThreads (default: OpenCV's)")
    args = ap.parse_args(argv)
    if args.threads is not None:
        cv2.setNumThreads(args.threads)
    print(f"OpenCV threads: {cv2.getNumThreads()}, images per size: {args.count}")
    with tempfile.TemporaryDirectory() as tmp:
        for size in (512, 1024):
            decode_cv, decode_pil, verify, verify_ref = [], [], [], []
            for i, (img, ref) in enumerate(_answers(size, args.count, args.seed, args.clean)):
                path = Path(tmp) / f"{size}_{i}.png"
                cv2.imwrite(str(path), img[:, :, ::-1])
                for _ in range(3):  # repeat to get stable per-image medians
                    t0 = time.perf_counter()
                    cv2.imread(str(path))
                    t1 = time.perf_counter()
                    arr = load_image(path)
                    t2 = time.perf_counter()
                    spec = as_spec(ref)
                    t3 = time.perf_counter()
                    verify_image(arr, spec)
                    t4 = time.perf_counter()
                    verify_image(arr, ref)
                    t5 = time.perf_counter()
                    decode_cv.append(t1 - t0)
                    decode_pil.append(t2 - t1)
                    verify.append(t4 - t3)
                    verify_ref.append(t5 - t4)
            med = {k: statistics.median(v) * 1000 for k, v in
                   (("decode_cv2", decode_cv), ("decode_cvcheck", decode_pil),
                    ("verify", verify), ("verify_incl_reference", verify_ref))}
            print(f"{size}px: " + ", ".join(f"{k} {v:.2f} ms" for k, v in med.items()))
            print(f"  ratio verify / decode(cv2.imread): {med['verify'] / med['decode_cv2']:.2f}x"
                  f"   verify / decode(cvcheck.load_image): {med['verify'] / med['decode_cvcheck']:.2f}x"
                  f"   incl. reference parsing / cv2 decode: {med['verify_incl_reference'] / med['decode_cv2']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
