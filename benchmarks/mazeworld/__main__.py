"""``python -m benchmarks.mazeworld --out DIR --videos N --images M --seed S``: write a corpus."""

from __future__ import annotations

import argparse
import sys

from .corpus import ALIASES, write_corpus
from .looks import LOOKS
from .plans import IMAGE_BEHAVIOURS, VIDEO_BEHAVIOURS
from .sampling import FRAME_SIZE_SETS


def main(argv: list[str] | None = None) -> int:
    names = sorted(set(VIDEO_BEHAVIOURS) | set(IMAGE_BEHAVIOURS) | set(ALIASES))
    p = argparse.ArgumentParser(prog="python -m benchmarks.mazeworld", description=__doc__)
    p.add_argument("--out", required=True, help="output folder (case folders and cases.jsonl)")
    p.add_argument("--videos", type=int, default=0, help="number of video cases")
    p.add_argument("--images", type=int, default=0, help="number of image cases")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--looks", nargs="+", default=list(LOOKS), choices=LOOKS)
    p.add_argument("--behaviours", nargs="+", default=None, choices=names, metavar="BEHAVIOUR",
                   help=f"subset of: {', '.join(names)}")
    p.add_argument("--frame-sizes", default="standard", choices=sorted(FRAME_SIZE_SETS),
                   help="video frame sizes: standard (480p-720p landscape) or wide (1080p, portrait, square, 704p)")
    p.add_argument("--workers", type=int, default=2, help="parallel processes")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    if args.videos < 0 or args.images < 0 or args.videos + args.images == 0:
        p.error("ask for at least one video or image case (--videos N / --images M)")
    path = write_corpus(args.out, videos=args.videos, images=args.images, seed=args.seed, looks=args.looks,
                        behaviours=args.behaviours, workers=args.workers, progress=not args.quiet,
                        frame_sizes=args.frame_sizes)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
