"""How the maze reader reads every puzzle image and first video frame of mazeworld corpora; two
such dumps compared: a reader change checked case by case, not only by the verdicts it flips.

Each reading is the grid, a hash of the walls, the start and goal (lattice cells), the box and
the wall thickness - or the reason it is unparseable::

    python benchmarks/maze_readings.py dump --out new.json /tmp/mw-81818 /tmp/mw-91919
    PYTHONPATH=/path/to/old/checkout python benchmarks/maze_readings.py dump --out old.json ...
    python benchmarks/maze_readings.py compare old.json new.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any


def reading_of(image: Any) -> list[Any] | str:
    """What the reader makes of one RGB image (a JSON-able summary)."""
    from cvcheck.maze.read import read_maze
    from cvcheck.schema import Unparseable

    r = read_maze(image)
    if isinstance(r, Unparseable):
        return "unparseable: " + r.reason
    return [list(r.look.grid), hashlib.md5(r.spec.walls.tobytes()).hexdigest()[:8], list(r.spec.start),
            list(r.spec.goal), [round(v, 1) for v in r.look.box], round(r.look.wall_thickness, 3)]


def dump(corpora: list[Path]) -> dict[str, Any]:
    import cv2

    from cvcheck.errors import CvcheckError
    from cvcheck.media.video import iter_frames

    out: dict[str, Any] = {}
    for root in corpora:
        for line in (root / "cases.jsonl").read_text().splitlines():
            case = json.loads(line)
            key = f"{root}/{case['id']}"
            if case["modality"] == "video":
                try:
                    with iter_frames(root / case["answer"]) as frames:
                        out[key + ":frame0"] = reading_of(next(frames))
                except (CvcheckError, StopIteration) as exc:
                    out[key + ":frame0"] = f"error: {exc}"
            if case.get("puzzle"):
                img = cv2.imread(str(root / case["puzzle"]))
                out[key + ":puzzle"] = reading_of(cv2.cvtColor(img, cv2.COLOR_BGR2RGB)) if img is not None \
                    else "error: unreadable puzzle image"
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump", help="read every puzzle and first frame of the corpora")
    d.add_argument("--out", type=Path, required=True)
    d.add_argument("corpora", type=Path, nargs="+", help="mazeworld corpora (folders with cases.jsonl)")
    c = sub.add_parser("compare", help="the readings that differ between two dumps")
    c.add_argument("old", type=Path)
    c.add_argument("new", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "dump":  # (cvcheck as installed, or as PYTHONPATH puts first: another checkout)
        for root in args.corpora:
            if not (root / "cases.jsonl").is_file():
                ap.error(f"{root} has no cases.jsonl")
        readings = dump(args.corpora)
        args.out.write_text(json.dumps(readings) + "\n")
        print(f"{len(readings)} readings in {args.out}")
        return 0
    for dumped in (args.old, args.new):
        if not dumped.is_file():
            ap.error(f"{dumped} is not a file (made by: maze_readings.py dump --out FILE ...)")
    old, new = json.loads(args.old.read_text()), json.loads(args.new.read_text())
    changed = sorted(k for k in old.keys() & new.keys() if old[k] != new[k])
    print(f"{len(old.keys() & new.keys())} readings in both, {len(changed)} differ; by corpus: "
          f"{dict(Counter(k.rsplit('/', 1)[0] for k in changed))}")
    for k in changed:
        print(f"  {k}: {old[k]} -> {new[k]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
