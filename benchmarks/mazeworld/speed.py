"""Generation speed per look, side by side: seconds per 81-frame video at 480p and 720p.

Each case is a valid 7x7 maze walked in exactly 81 frames; stages are timed separately on one
core (``python -m benchmarks.mazeworld.speed --count 8``).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from .encode import write_mp4
from .looks import LOOKS
from .motion import glide_timeline
from .sampling import sample_maze_and_plan, sample_video
from .video import VideoComposer


def time_case(look: str, seed: int, frame_size: tuple[int, int], folder: Path) -> dict[str, float]:
    rng = np.random.default_rng([seed, 7])
    t0 = time.perf_counter()
    maze, plan = sample_maze_and_plan(rng, "valid", grid_range=(7, 7))
    draw = sample_video(rng, look, "valid", seed)
    timeline = glide_timeline(plan, rng, hide_first=look == "mazeplot", icon_frames=draw.style.icon_frames,
                              glide_in=True, speed_range=(0.1, 1.0), frame_options=(81,))
    style = replace(draw.style, frame_size=frame_size, camera=draw.style.camera, wall_change=None, goal_change=None)
    t1 = time.perf_counter()
    comp = VideoComposer(maze, plan, timeline, style)
    t2 = time.perf_counter()
    frames = list(comp.frames())
    t3 = time.perf_counter()
    write_mp4(folder / f"{look}-{seed}.mp4", frames, fps=style.fps, crf=style.crf)
    t4 = time.perf_counter()
    return {"plan": t1 - t0, "board": t2 - t1, "frames": t3 - t2, "encode": t4 - t3, "total": t4 - t0}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--count", type=int, default=8)
    args = p.parse_args(argv)
    sizes = {"480p": (832, 480), "720p": (1280, 720)}
    with tempfile.TemporaryDirectory() as tmp:
        time_case("mazeplot", 0, sizes["480p"], Path(tmp))  # warm-up (imports, fonts)
        print(f"{'look':10s} {'size':5s} "
              + " ".join(f"{k:>8s}" for k in ("plan", "board", "frames", "encode", "total")))
        for look in LOOKS:
            for name, size in sizes.items():
                runs = [time_case(look, s, size, Path(tmp)) for s in range(args.count)]
                med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
                print(f"{look:10s} {name:5s} " + " ".join(f"{med[k]:8.3f}" for k in med))


if __name__ == "__main__":
    main()
