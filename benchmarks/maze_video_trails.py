"""Stress set for agents that draw a trail behind them (a known weak spot of the tracker).

Three trail looks (MMGR squares with a 0.6 or 0.3 wide trail, MazePlot stars with a 0.5 wide
trail) x seeds x eight behaviours, 7x7 mazes, graded from in-memory frames (no encoding).
Prints every disagreement with the labels and the agreement count.

Usage::

    python benchmarks/maze_video_trails.py [--seeds 31 32 33 34]
"""

from __future__ import annotations

import argparse

from cvcheck.config import Config
from cvcheck.maze import verify_video
from cvcheck.synth.maze_video import VideoLook, make_video_case

METRICS = ("maze_changed", "cross_wall", "target_achievement", "reflection")
BEHAVIOURS = ("valid", "teleport", "reach_leave", "vanish", "distractor", "backtrack", "stop_short", "wall_pass")
LOOKS = {
    "square_trail_0.6_12fps": VideoLook(trail=0.6, fps=12),
    "square_trail_0.3": VideoLook(trail=0.3),
    "star_trail_0.5": VideoLook(style="mazeplot", agent_rgb=(30, 60, 230), agent_scale=0.65, trail=0.5),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, nargs="+", default=[31, 32, 33, 34])
    args = ap.parse_args(argv)
    n = agree = 0
    for name, look in LOOKS.items():
        cfg = Config().with_overrides([f"maze.video_style={look.style}"])
        for seed in args.seeds:
            for behaviour in BEHAVIOURS:
                case = make_video_case(seed, behaviour=behaviour, look=look, size=7)
                result = verify_video(case.frames(), case.spec, config=cfg, id=case.id)
                assert result.overall is not None  # None only for an error result
                got = {m: result.metrics[m] for m in METRICS} | {"overall": int(result.overall)}
                want = {m: case.labels[m] for m in METRICS + ("overall",)}
                n += 1
                agree += got == want
                if got != want:
                    print(f"DISAGREE {name} seed={seed} {behaviour}: got {got} labels {want} "
                          f"notes {result.details['notes'][:2]}")
    print(f"agreement {agree}/{n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
