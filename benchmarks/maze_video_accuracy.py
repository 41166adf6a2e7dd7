"""Agreement of the maze video verifier with synthetic ground truth (real H.264 files).

Generates a labelled corpus from a seed (every behaviour of
:mod:`cvcheck.synth.maze_video`, both styles, 480p-720p, 12-30 fps, compression, blur,
jitter, recoloured/drifting agents, goal occlusion), encodes each case as an mp4,
grades the file with ``verify_video_file`` and compares with the labels.

Seeds used while developing the verifier: 1-8, 11, 77, 1000-1011, 100016 (corpus
seeds 1-8 of ``make_video_corpus``). Use any other seed for held-out figures.

Usage::

    python benchmarks/maze_video_accuracy.py --seed 2027 --count 144 [--large-every 6] [--failures out/]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

from cvcheck.config import Config
from cvcheck.maze.task import verify_video_file
from cvcheck.synth.maze_video import BEHAVIOURS, make_video_case

METRICS = ("maze_changed", "cross_wall", "target_achievement", "reflection")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=2027)
    ap.add_argument("--count", type=int, default=144)
    ap.add_argument("--large-every", type=int, default=6, help="every Nth case may be up to 720p")
    ap.add_argument("--failures", type=Path, help="keep disagreeing videos, references and results here")
    ap.add_argument("--trails", action="store_true", help="also draw agents that leave a trail (harder extra family)")
    ap.add_argument("--style", choices=("case", "auto"), default="auto",
                    help="auto: the look read from each video (the default); "
                         "case: the generator's style as an override")
    args = ap.parse_args(argv)
    agree: Counter[str] = Counter()
    per_behaviour: dict[str, Counter[str]] = defaultdict(Counter)
    per_style: dict[str, Counter[str]] = defaultdict(Counter)
    per_family: dict[str, Counter[str]] = defaultdict(Counter)
    teleport_videos = teleports_caught = crossing_videos = crossings_caught = 0
    valid = valid_pass = 0
    frames = 0
    t_start = time.perf_counter()
    verify_s = 0.0
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.count):
            behaviour = BEHAVIOURS[i % len(BEHAVIOURS)]
            large = args.large_every > 0 and i % args.large_every == args.large_every - 1
            case = make_video_case(args.seed * 100_003 + i, behaviour=behaviour, small=not large, trails=args.trails)
            path = case.write(Path(tmp) / f"{case.id}.mp4")
            cfg = Config().with_overrides([f"maze.video_style={case.look.style if args.style == 'case' else 'auto'}"])
            t0 = time.perf_counter()
            result = verify_video_file(path, case.spec, config=cfg, id=case.id)
            verify_s += time.perf_counter() - t0
            frames += case.n_frames
            got = {m: int(result.metrics.get(m, -1)) for m in METRICS} | {"overall": int(result.overall or 0)}
            ok_all = True
            for name in METRICS + ("overall",):
                hit = got[name] == int(case.labels[name])
                agree[name] += hit
                ok_all &= hit
            family = "trail" if case.look.trail else "no_trail"
            for table, key in ((per_behaviour, behaviour), (per_style, case.look.style), (per_family, family)):
                table[key]["n"] += 1
                table[key]["overall_ok"] += got["overall"] == case.labels["overall"]
                table[key]["cross_wall_ok"] += got["cross_wall"] == case.labels["cross_wall"]
            if case.labels["teleports"]:
                teleport_videos += 1
                teleports_caught += got["cross_wall"] == 1 and result.metrics.get("teleports", 0) >= 1
            if case.labels["cross_wall"]:
                crossing_videos += 1
                crossings_caught += got["cross_wall"] == 1
            if case.labels["overall"] == 1:
                valid += 1
                valid_pass += got["overall"] == 1
            if not ok_all:
                failures.append({"id": case.id, "behaviour": behaviour, "got": got,
                                 "labels": {k: case.labels[k] for k in METRICS + ("overall",)},
                                 "notes": result.details.get("notes"), "look": case.describe()["look"]})
                if args.failures:
                    args.failures.mkdir(parents=True, exist_ok=True)
                    import shutil

                    import cv2
                    shutil.copy(path, args.failures / path.name)
                    cv2.imwrite(str(args.failures / f"{case.id}_reference.png"), case.reference[:, :, ::-1])
                    (args.failures / f"{case.id}.json").write_text(result.to_json(indent=1))
    n = args.count
    report = {
        "seed": args.seed, "videos": n, "frames": frames,
        "gate_agreement": round(agree["overall"] / n, 4),
        "metric_agreement": {m: round(agree[m] / n, 4) for m in METRICS},
        "cross_wall_agreement": round(agree["cross_wall"] / n, 4),
        "teleport_videos": teleport_videos, "teleports_caught": teleports_caught,
        "crossing_videos": crossing_videos, "crossings_caught": crossings_caught,
        "valid_solves": valid, "valid_solves_passed": valid_pass,
        "per_behaviour": {k: dict(v) for k, v in sorted(per_behaviour.items())},
        "per_style": {k: dict(v) for k, v in sorted(per_style.items())},
        "per_trail_family": {k: dict(v) for k, v in sorted(per_family.items())},
        "verify_seconds_total": round(verify_s, 2), "wall_seconds_total": round(time.perf_counter() - t_start, 2),
        "failures": failures,
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
