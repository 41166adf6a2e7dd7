"""Sudoku verifier accuracy on labelled synthetic images and videos from unseen seeds.

Reports cell-reading accuracy (images, empty cells included; an unparseable image counts
all its cells wrong), gate agreement (images, videos), per-metric agreement and
action-reflection agreement (videos, real H.264 MP4 files), plus failures by style.

    python benchmarks/sudoku_accuracy.py --images 300 --videos 80 --workers 2
    python benchmarks/sudoku_accuracy.py --images 0 --videos 80 --video-format gif332

``--video-format``: each answer video re-encoded from its MP4 in another file format real
outputs come in (``benchmarks/maze_formats.py``'s formats: ``gif``, ``gif332``, ``webp``,
``apng``, ``webm`` ...); the labels stand.

Seeds start at --seed0 (default 900000), far from the seeds used while developing (< 1000).
"""

from __future__ import annotations

import argparse
import functools
import json
import multiprocessing
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np


def image_job(seed: int) -> dict:
    from cvcheck.config import Config
    from cvcheck.sudoku.verify import verify_image
    from cvcheck.synth.sudoku import make_image_case

    case = make_image_case(seed)
    t = time.perf_counter()
    r = verify_image(case.image, case.puzzle, case.solution, config=Config(), id=str(seed))
    dt = time.perf_counter() - t
    cells = case.n * case.n
    if r.status.value == "ok":
        read = np.array(r.details["grid"])
        correct = int((read == case.answer).sum())
    else:
        correct = 0
    return {"seed": seed, "n": case.n, "defect": case.defect, "status": r.status.value, "cells": cells,
            "correct_cells": correct, "label": case.labels, "overall": r.overall,
            "metrics": {k: r.metrics.get(k) for k in ("clues_changed", "constraint_violation", "completion_accuracy")},
            "low_conf": r.metrics.get("low_confidence_cells", 0), "seconds": dt,
            "style": {k: case.style.__dict__[k] for k in ("size", "font", "blur", "jpeg", "rotation", "uneven")}}


def video_job(seed: int, video_format: str = "") -> dict:
    from cvcheck.config import Config
    from cvcheck.sudoku.task import verify_video_file
    from cvcheck.synth.sudoku_video import make_video_case

    case = make_video_case(seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = case.write_mp4(Path(tmp) / "v.mp4")
        if video_format:
            from benchmarks.maze_formats import FORMATS, reencode

            path, mp4 = Path(tmp) / f"v-{video_format}{FORMATS[video_format].suffix}", path
            reencode(mp4, path, video_format)
        t = time.perf_counter()
        r = verify_video_file(path, case.puzzle, case.solution, config=Config(), id=str(seed))
        dt = time.perf_counter() - t
    m = r.metrics
    return {"seed": seed, "n": case.n, "kind": case.kind, "status": r.status.value, "label": case.labels,
            "overall": r.overall, "frames": case.frames, "seconds": dt,
            "metrics": {k: m.get(k) for k in ("clues_changed", "constraint_violation", "completion_accuracy",
                                              "action_reflection", "total_updates", "ocr_calls", "naive_ocr_calls")}}


def _agree(rows: list[dict], key: str) -> float:
    ok = [r["metrics"][key] is not None and abs(float(r["metrics"][key]) - float(r["label"][key])) < 1e-6 for r in rows]
    return float(np.mean(ok)) if ok else float("nan")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--images", type=int, default=300)
    ap.add_argument("--videos", type=int, default=80)
    ap.add_argument("--seed0", type=int, default=900_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--video-format", default="", help="re-encode each answer video so (a format of "
                    "benchmarks/maze_formats.py; default: the MP4 as drawn)")
    ap.add_argument("--out", default="benchmarks/out/sudoku_accuracy.json")
    args = ap.parse_args(argv)
    if args.video_format:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # (spawned workers inherit it)
        from benchmarks.maze_formats import FORMATS

        if args.video_format not in FORMATS:
            ap.error(f"--video-format must be one of {', '.join(sorted(FORMATS))}")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    t0 = time.time()
    with ProcessPoolExecutor(max_workers=args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        imgs = list(pool.map(image_job, range(args.seed0, args.seed0 + args.images)))
        vids = list(pool.map(functools.partial(video_job, video_format=args.video_format),
                             range(args.seed0 + 50_000, args.seed0 + 50_000 + args.videos)))
    report: dict = {"images": len(imgs), "videos": len(vids), "video_format": args.video_format or "mp4",
                    "wall_s": round(time.time() - t0, 1)}
    if imgs:
        cells = sum(r["cells"] for r in imgs)
        report["image_cell_accuracy"] = sum(r["correct_cells"] for r in imgs) / cells
        report["image_cells"] = cells
        report["image_gate_agreement"] = float(np.mean([r["overall"] == r["label"]["overall"] for r in imgs]))
        report["image_unparseable"] = sum(r["status"] != "ok" for r in imgs)
        for k in ("clues_changed", "constraint_violation", "completion_accuracy"):
            report[f"image_{k}_agreement"] = _agree(imgs, k)
        report["image_passes_labelled"] = sum(r["label"]["overall"] for r in imgs)
        report["image_low_confidence_cells"] = sum(r["low_conf"] for r in imgs)
        shown = ("seed", "n", "defect", "status", "correct_cells", "cells", "style")
        report["image_failures"] = [{k: r[k] for k in shown} for r in imgs
                                    if r["correct_cells"] != r["cells"] or r["overall"] != r["label"]["overall"]]
    if vids:
        report["video_gate_agreement"] = float(np.mean([r["overall"] == r["label"]["overall"] for r in vids]))
        report["video_action_reflection_agreement"] = _agree(vids, "action_reflection")
        report["video_action_reflection_positive_labels"] = sum(r["label"]["action_reflection"] for r in vids)
        report["video_passes_labelled"] = sum(r["label"]["overall"] for r in vids)
        for k in ("clues_changed", "constraint_violation", "completion_accuracy", "total_updates"):
            report[f"video_{k}_agreement"] = _agree(vids, k)
        report["video_kinds"] = {k: sum(r["kind"] == k for r in vids) for k in sorted({r["kind"] for r in vids})}
        report["video_ocr_calls_vs_naive"] = [sum(r["metrics"]["ocr_calls"] or 0 for r in vids),
                                              sum(r["metrics"]["naive_ocr_calls"] or 0 for r in vids)]
        report["video_failures"] = [{"seed": r["seed"], "kind": r["kind"], "n": r["n"], "label": r["label"],
                                     "got": r["metrics"], "overall": r["overall"]}
                                    for r in vids if r["overall"] != r["label"]["overall"]
                                    or r["metrics"]["action_reflection"] != r["label"]["action_reflection"]]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1))
    for k, v in report.items():
        if not k.endswith("failures"):
            print(f"{k:42s} {v}")
    print(f"image failures: {len(report.get('image_failures', []))}, video failures: "
          f"{len(report.get('video_failures', []))} (details in {out})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
