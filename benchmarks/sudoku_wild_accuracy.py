"""Sudoku grading from what users have, on answers made independently of cvcheck.

Cases come from ``benchmarks/sudoku_wild.py`` (its own exact-cover puzzles, its own labels,
fonts and pen strokes the reader was not tuned on, real video effects). Every case is
graded through the file API (``cvcheck.sudoku.task.grade``) with no solution given:

- images: the puzzle read from a separate puzzle picture (``--puzzle-image``);
- videos: the clues read from the video's first frames (and, with ``--video-modes``
  ``first_frames,image``, again from the puzzle picture);
- zoom/shift videos: every one zooms (smoothly or suddenly) or pans;
- pencil/fade pairs: each seed rendered plain and with pencil marks and fade-ins: the
  verdicts must be equal (and match the label).

    python benchmarks/sudoku_wild_accuracy.py --images 300 --videos 80 --zoom 40 --pairs 40 --workers 2

Prints gate agreement, cell accuracy (read vs drawn, empties included), unparseable and
error counts, per grid size; failures go to --out.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root, for benchmarks.sudoku_wild


def _grade(answer: Path, *, puzzle_image: Path | None) -> dict:
    from cvcheck.config import Config
    from cvcheck.sudoku.task import grade

    t = time.perf_counter()
    r = grade(answer, puzzle_image=puzzle_image, config=Config(), id=answer.name)
    return {"result": r, "seconds": time.perf_counter() - t}


def _save(path: Path, rgb: np.ndarray) -> Path:
    from PIL import Image

    Image.fromarray(rgb).save(path)
    return path


def _row(r, labels: dict, shown: np.ndarray, seconds: float, **extra) -> dict:
    grid = r.details.get("grid") or r.details.get("final_grid")
    cells = int(shown.size)
    correct = int((np.array(grid) == shown).sum()) if grid is not None and np.array(grid).shape == shown.shape else 0
    return {"status": r.status.value, "overall": r.overall, "label": labels["overall"], "cells": cells,
            "correct_cells": correct, "seconds": round(seconds, 3),
            "error": r.error.message if r.error else None, "reason": r.details.get("reason"),
            "notes": list(r.details.get("notes", []))[:6], **extra}


def image_job(seed: int) -> dict:
    from benchmarks.sudoku_wild import make_image_case
    from cvcheck.errors import CvcheckError

    case = make_image_case(seed)
    with tempfile.TemporaryDirectory() as tmp:
        ans = _save(Path(tmp) / "a.png", case.image)
        puz = _save(Path(tmp) / "p.png", case.puzzle_image)
        try:
            g = _grade(ans, puzzle_image=puz)
        except CvcheckError as exc:
            return {"seed": seed, "n": case.n, "status": "error", "overall": None, "label": case.labels["overall"],
                    "cells": case.n ** 2, "correct_cells": 0, "error": str(exc), "effects": case.effects,
                    "defect": case.defect}
    return {"seed": seed, "n": case.n, "defect": case.defect, "effects": case.effects,
            **_row(g["result"], case.labels, case.shown, g["seconds"])}


def video_job(args: tuple[int, str, str]) -> dict:
    """(seed, mode, variant): mode first_frames | image; variant random | zoom | plain | effects."""
    from benchmarks.sudoku_wild import make_video_case
    from cvcheck.errors import CvcheckError

    seed, mode, variant = args
    rng = np.random.default_rng(seed + 17)
    if variant == "zoom":
        extra = [e for e in ("pencil", "fade", "hand", "highlight", "cursor", "glow") if rng.random() < 0.3]
        geo = [["zoom"], ["shift"], ["zoom", "shift"]][int(rng.integers(3))]
        case = make_video_case(seed, effects=geo + extra)
    elif variant in ("plain", "effects"):
        case = make_video_case(seed, effects=["pencil", "fade"], plain=variant == "plain")
    else:
        case = make_video_case(seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = case.write_mp4(Path(tmp) / "v.mp4")
        puz = _save(Path(tmp) / "p.png", case.puzzle_image) if mode == "image" else None
        try:
            g = _grade(path, puzzle_image=puz)
        except CvcheckError as exc:
            return {"seed": seed, "n": case.n, "mode": mode, "variant": variant, "status": "error", "overall": None,
                    "label": case.labels["overall"], "cells": case.n ** 2, "correct_cells": 0, "error": str(exc),
                    "effects": case.effects, "defect": case.defect}
    r = g["result"]
    return {"seed": seed, "n": case.n, "mode": mode, "variant": variant, "defect": case.defect,
            "effects": case.effects, "frames": len(case.scenes), "fps": case.fps,
            "work": r.details.get("work"), **_row(r, case.labels, case.shown, g["seconds"])}


def summarise(rows: list[dict]) -> dict:
    if not rows:
        return {}
    agree = [r["overall"] is not None and int(r["overall"]) == r["label"] for r in rows]
    out = {"count": len(rows), "gate_agreement": round(float(np.mean(agree)), 4),
           "cell_accuracy": round(sum(r["correct_cells"] for r in rows) / sum(r["cells"] for r in rows), 5),
           "labelled_pass": sum(r["label"] for r in rows),
           "unparseable": sum(r["status"] == "unparseable" for r in rows),
           "errors": sum(r["status"] == "error" for r in rows),
           "median_seconds": round(float(np.median([r.get("seconds", 0) for r in rows])), 3)}
    by_n: dict[int, list[bool]] = defaultdict(list)
    for r, a in zip(rows, agree):
        by_n[r["n"]].append(a)
    out["gate_agreement_by_n"] = {f"{n}x{n}": f"{sum(v)}/{len(v)}" for n, v in sorted(by_n.items())}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--images", type=int, default=300)
    ap.add_argument("--videos", type=int, default=80)
    ap.add_argument("--zoom", type=int, default=40, help="videos that zoom or shift")
    ap.add_argument("--pairs", type=int, default=40, help="seeds rendered plain and with pencil marks + fade-ins")
    ap.add_argument("--video-modes", default="first_frames", help="first_frames and/or image, comma-separated")
    ap.add_argument("--seed0", type=int, default=7_000_000,
                    help="far from the seeds used while developing (< 1,000,000)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default="benchmarks/out/sudoku_wild_accuracy.json")
    args = ap.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    t0 = time.time()
    modes = [m for m in args.video_modes.split(",") if m]
    s = args.seed0
    jobs = [(s + 100_000 + i, m, "random") for i in range(args.videos) for m in modes]
    jobs += [(s + 200_000 + i, "first_frames", "zoom") for i in range(args.zoom)]
    jobs += [(s + 300_000 + i, "first_frames", v) for i in range(args.pairs) for v in ("plain", "effects")]
    with ProcessPoolExecutor(max_workers=args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        imgs = list(pool.map(image_job, range(s, s + args.images)))
        vids = list(pool.map(video_job, jobs))
    report: dict = {"wall_s": round(time.time() - t0, 1)}
    report["images (puzzle from image)"] = summarise(imgs)
    for m in modes:
        report[f"videos (puzzle from {m.replace('_', ' ')})"] = summarise(
            [r for r in vids if r["variant"] == "random" and r["mode"] == m])
    report["videos that zoom or shift"] = summarise([r for r in vids if r["variant"] == "zoom"])
    plain = {r["seed"]: r for r in vids if r["variant"] == "plain"}
    eff = {r["seed"]: r for r in vids if r["variant"] == "effects"}
    same = [plain[k]["overall"] == eff[k]["overall"] for k in plain if k in eff]
    report["pencil+fade pairs"] = {"pairs": len(same), "verdict_unchanged": sum(same),
                                   "effects_gate_agreement": summarise(list(eff.values())).get("gate_agreement"),
                                   "plain_gate_agreement": summarise(list(plain.values())).get("gate_agreement")}
    all_vids = [r for r in vids]
    report["all videos"] = summarise(all_vids)
    report["all videos"]["frames_total_vs_analysed"] = [
        sum((r.get("work") or {}).get("frames_total", 0) for r in all_vids),
        sum((r.get("work") or {}).get("frames_analysed", 0) for r in all_vids)]
    failures = [r for r in imgs + vids if r["overall"] is None or int(r["overall"]) != r["label"]]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({**report, "failures": failures}, indent=1, default=str))
    for k, v in report.items():
        print(f"{k:34s} {json.dumps(v)}")
    print(f"gate disagreements: {len(failures)} (details in {out})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
