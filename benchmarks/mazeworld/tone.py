"""Tone drift: a mazeworld corpus re-drawn with the washed-out, tinted, noisy colours video models give.

Video models rarely keep the puzzle's colours: the paper turns grey, blacks lift, a colour cast
creeps in, colours pale, grain appears, brightness flickers - all at once from the first frame,
or growing over the video from the puzzle's own colours. None of it changes the maze, so every
label of the source corpus stands. Per case, from ``(seed, modality, index)``:

* contrast 0.7-0.95 and a black level of 0-35 (white lands at 180-240);
* per-channel gains 0.93-1.04 (a cast); saturation 0.8-1.0 of the source;
* Gaussian grain of sigma 0-5; per-frame brightness flicker of up to 4 %;
* half the videos drift from the source's colours at frame 0 to all of it at the last frame.

::

    python -m benchmarks.mazeworld.tone --src CORPUS --out CORPUS_TONE [--seed 9911] [--workers 2]

The answer files are re-drawn (videos re-encoded at the source's CRF); everything else is
linked to the source's files. Nothing here imports ``cvcheck``.
"""

from __future__ import annotations

import argparse
import json
import os
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from .encode import redraw_mp4

DEFAULT_SEED = 9911


def tone_params(seed: int, modality: str, index: int) -> dict[str, Any]:
    """The tone change of one case."""
    rng = np.random.default_rng([seed, 0 if modality == "video" else 1, index])
    return {"contrast": float(rng.uniform(0.7, 0.95)), "black": float(rng.uniform(0, 35)),
            "gain": [float(g) for g in rng.uniform(0.93, 1.04, 3)], "grain": float(rng.uniform(0, 5)),
            "flicker": float(rng.uniform(0, 0.04)), "saturation": float(rng.uniform(0.8, 1.0)),
            "drift": bool(rng.uniform() < 0.5), "noise_seed": int(rng.integers(1 << 30))}


def retone(image: np.ndarray, p: dict[str, Any], amount: float, rng: np.random.Generator,
           flicker: float = 0.0) -> np.ndarray:
    """``image`` (RGB uint8) with ``amount`` (0-1) of the tone change ``p``."""
    x = image.astype(np.float32)
    grey = x.mean(axis=2, keepdims=True)
    x = grey + (x - grey) * (1 - amount * (1 - p["saturation"]))
    gain = 1 - amount * (1 - np.asarray(p["gain"], np.float32))
    x = amount * p["black"] + (1 - amount * (1 - p["contrast"])) * x * gain[None, None, :] * (1 + flicker)
    if p["grain"] > 0:
        x += rng.normal(0, p["grain"] * max(amount, 0.3), x.shape).astype(np.float32)
    return np.clip(x + 0.5, 0, 255).astype(np.uint8)


def retone_video(src: Path, dst: Path, p: dict[str, Any], *, crf: int) -> int:
    """Re-draw the video ``src`` with the tone change ``p`` into ``dst``; returns the frame count."""
    def draw(frames: list[np.ndarray]) -> list[np.ndarray]:
        rng = np.random.default_rng(p["noise_seed"])
        last = max(1, len(frames) - 1)
        return [retone(f, p, k / last if p["drift"] else 1.0, rng, float(rng.uniform(-1, 1)) * p["flicker"])
                for k, f in enumerate(frames)]

    return redraw_mp4(src, dst, draw, crf=crf)


def _case(job: tuple[Path, Path, int, dict[str, Any]]) -> dict[str, Any]:
    src_root, dst_root, seed, case = job
    p = tone_params(seed, case["modality"], int(case["id"][1:6]))
    src, dst = src_root / case["id"], dst_root / case["id"]
    dst.mkdir(parents=True, exist_ok=True)
    for f in src.iterdir():
        if not f.name.startswith("answer") and not (dst / f.name).exists():
            os.symlink(f.resolve(), dst / f.name)
    if case["modality"] == "video":
        retone_video(src / "answer.mp4", dst / "answer.mp4", p, crf=int(case["params"].get("crf", 28)))
    else:
        bgr = cv2.imread(str(src / "answer.png"))
        assert bgr is not None, f"cannot read {src / 'answer.png'}"
        rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
        toned = retone(rgb, p, 1.0, np.random.default_rng(p["noise_seed"]))
        cv2.imwrite(str(dst / "answer.png"), cv2.cvtColor(toned, cv2.COLOR_RGB2BGR))
    return {**case, "effects": case["effects"] + ["tone_drift" if p["drift"] and case["modality"] == "video"
                                                   else "tone"], "tone": p}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", type=Path, required=True, help="a mazeworld corpus (with cases.jsonl)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    cases = [json.loads(line) for line in (args.src / "cases.jsonl").read_text().splitlines() if line.strip()]
    args.out.mkdir(parents=True, exist_ok=True)
    jobs = [(args.src, args.out, args.seed, c) for c in cases]
    with get_context("spawn").Pool(max(1, args.workers)) as pool:  # (not forked: see maze_real_accuracy)
        done = pool.map(_case, jobs, chunksize=4)
    (args.out / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in done))
    print(f"{len(done)} cases re-toned into {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
