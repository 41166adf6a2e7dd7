"""Maze verdicts on an independent corpus (maze-dataset-drawn, labels from the plan), per way in.

Generates (or reuses) a :mod:`benchmarks.mazeworld` corpus — MMGR, MazePlot and
VMEvalKit looks, every behaviour and effect — and grades each answer through
``cvcheck.maze.task.grade`` once per way of giving the maze:

- ``video``: no maze given, read from the video's own first frames (videos only);
- ``puzzle``: the unsolved puzzle image (same look);
- ``maze``: the maze-dataset ``connection_list`` JSON;
- ``ascii``: maze-dataset's ASCII form;
- ``reference``: the MMGR solution image.

Prints gate and per-metric agreement per way and modality, wall crossings and teleports
caught, how many ground-truth solves pass, agreement per look and behaviour, the
disagreements, and writes everything to ``--json``. For the ``video`` way, also how many
puzzles were read from the first frames with the drawn grid, start and goal (``puzzle_read``:
a misread maze fails a valid answer, but the gate hides it for every answer labelled a fail),
and of those how many with every wall as drawn too (``puzzle_walls_read``: a wall read open
where the answer crosses it passes the crossing).

Usage::

    pip install -e ".[test]"     # maze-dataset
    python benchmarks/maze_real_accuracy.py --seed 777 --videos 300 --images 200 --workers 2
    python benchmarks/maze_real_accuracy.py --corpus benchmarks/out/mazeworld-777 --ways video,maze
    python benchmarks/maze_real_accuracy.py --corpus benchmarks/out/mazeworld-777 --ways video \
        --set maze.video_max_unseen_route=1   # the same corpus with a setting changed
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
METRICS = ("maze_changed", "cross_wall", "target_achievement", "reflection")
WAYS = {"video": None, "puzzle": "puzzle", "maze": "maze", "ascii": "maze_ascii", "reference": "reference"}


def grade_case(job: tuple[str, dict[str, Any], str, tuple[str, ...]]) -> dict[str, Any]:
    """Grade one case one way, with the config overrides given (in a worker process); never raises."""
    root, case, way, overrides = job
    from cvcheck.config import Config
    from cvcheck.maze.spec_io import spec_from_text
    from cvcheck.maze.task import grade

    folder = Path(root)
    field = WAYS[way]
    kwargs = {} if field is None else {("maze" if way == "ascii" else way): str(folder / case[field])}
    t0 = time.perf_counter()
    try:
        r = grade(folder / case["answer"], config=Config().with_overrides(overrides), id=case["id"], **kwargs)
        got = {"status": r.status.value, "overall": int(r.overall or 0),
               **{m: r.metrics.get(m) for m in METRICS}, "teleports": r.metrics.get("teleports"),
               "notes": r.details.get("notes") or [r.details.get("reason")]}
        if way == "video":  # the puzzle as read from the first frames, against the maze drawn
            maze = (r.details.get("detected") or {}).get("maze") or {}
            drawn = json.loads((folder / case["maze"]).read_text())
            got["puzzle_read"] = [maze.get("grid"), (maze.get("start") or {}).get("cell"),
                                  (maze.get("goal") or {}).get("cell")] == \
                [drawn["grid"], drawn["start"], drawn["goal"]]
            # the graph graded against (walls and all), against the maze file's (a format conversion);
            # not its solution: of several shortest ways, the one nearest the answer's path is graded
            graph = {k: v for k, v in (r.details.get("maze") or {}).items() if k != "solution_cells"}
            truth = spec_from_text((folder / case["maze"]).read_text()).to_dict()
            got["puzzle_walls_read"] = graph == {k: v for k, v in truth.items() if k != "solution_cells"}
    except Exception as exc:  # noqa: BLE001 - a bad input here is a finding, not a crash
        got = {"status": "exception", "overall": 0, "notes": [f"{type(exc).__name__}: {exc}"]}
    got["seconds"] = time.perf_counter() - t0
    return {"id": case["id"], "way": way, "modality": case["modality"], "look": case["look"],
            "behaviour": case["behaviour"], "effects": case["effects"], "labels": case["labels"], "got": got}


def _agrees(row: dict[str, Any]) -> bool:
    """The gate verdict agrees with the label. Every corpus case is drawn readable, so a case
    not scored (unparseable, an error, an exception) never agrees, even with a fail label."""
    return row["got"]["status"] == "ok" and row["got"]["overall"] == row["labels"]["overall"]


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    by: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by[(row["modality"], row["way"])].append(row)
    for (modality, way), group in sorted(by.items()):
        gate = sum(_agrees(r) for r in group)
        metrics = {m: sum(r["got"].get(m) == r["labels"][m] for r in group) for m in METRICS}
        crossing = [r for r in group if r["labels"]["cross_wall"]]
        teleport = [r for r in group if r["labels"].get("teleports")]
        solves = [r for r in group if r["labels"]["overall"] == 1]
        per_look = Counter(r["look"] for r in group)
        look_ok = Counter(r["look"] for r in group if _agrees(r))
        per_beh = Counter(r["behaviour"] for r in group)
        beh_ok = Counter(r["behaviour"] for r in group if _agrees(r))
        seconds = sorted(r["got"]["seconds"] for r in group)
        out[f"{modality}/{way}"] = {
            "n": len(group), "gate_agreement": gate, "gate_rate": round(gate / len(group), 4),
            "not_scored": sum(r["got"]["status"] != "ok" for r in group),
            "metric_agreement": metrics,
            "crossings_caught": f"{sum(r['got'].get('cross_wall') == 1 for r in crossing)}/{len(crossing)}",
            "teleports_caught": f"{sum(r['got'].get('cross_wall') == 1 for r in teleport)}/{len(teleport)}",
            "solves_passed": f"{sum(r['got']['overall'] == 1 for r in solves)}/{len(solves)}",
            "per_look": {k: f"{look_ok[k]}/{v}" for k, v in sorted(per_look.items())},
            "per_behaviour": {k: f"{beh_ok[k]}/{v}" for k, v in sorted(per_beh.items())},
            "median_seconds": round(seconds[len(seconds) // 2], 3),
        }
        if way == "video":
            read = sum(bool(r["got"].get("puzzle_read")) for r in group)
            out[f"{modality}/{way}"]["puzzle_read"] = f"{read}/{len(group)}"
            walls = sum(bool(r["got"].get("puzzle_walls_read")) for r in group)
            out[f"{modality}/{way}"]["puzzle_walls_read"] = f"{walls}/{len(group)}"
            out[f"{modality}/{way}"]["puzzle_misread"] = sorted(r["id"] for r in group
                                                                if not r["got"].get("puzzle_walls_read"))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, help="an existing mazeworld corpus folder (with cases.jsonl)")
    ap.add_argument("--seed", type=int, default=777, help="corpus seed (when generating)")
    ap.add_argument("--videos", type=int, default=300)
    ap.add_argument("--images", type=int, default=200)
    ap.add_argument("--frame-sizes", default="standard", help="when generating: standard (480p-720p) or wide "
                    "(1080p, portrait, square, 704p)")
    ap.add_argument("--ways", default="video,puzzle,maze,reference", help=f"comma list of {', '.join(WAYS)}")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                    help="a config override for every grading, as the CLI's --set (repeatable): a setting's "
                    "effect measured on the same corpus")
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "out" / "maze_real_accuracy.json")
    args = ap.parse_args(argv)
    ways = [w.strip() for w in args.ways.split(",") if w.strip()]
    if any(w not in WAYS for w in ways):
        ap.error(f"--ways takes {', '.join(WAYS)}")
    from cvcheck.config import Config
    from cvcheck.errors import ConfigError

    try:
        Config().with_overrides(args.set)
    except ConfigError as exc:
        ap.error(f"--set: {exc}")
    folder = args.corpus
    if folder is None:
        sys.path.insert(0, str(ROOT))
        from benchmarks.mazeworld.corpus import write_corpus

        wide = "" if args.frame_sizes == "standard" else f"-{args.frame_sizes}"
        folder = ROOT / "benchmarks" / "out" / f"mazeworld-{args.seed}{wide}"
        if not (folder / "cases.jsonl").is_file():
            write_corpus(folder, videos=args.videos, images=args.images, seed=args.seed, workers=args.workers,
                         frame_sizes=args.frame_sizes)
    cases = [json.loads(line) for line in (folder / "cases.jsonl").read_text().splitlines() if line.strip()]
    overrides = tuple(args.set)
    jobs = [(str(folder), c, w, overrides) for c in cases for w in ways
            if not (w == "video" and c["modality"] != "video")]
    t0 = time.perf_counter()
    # (spawned: a forked worker can inherit OpenCV's thread-pool lock held, if this process drew the
    # corpus itself, and hang in its first OpenCV call)
    with ProcessPoolExecutor(max(1, args.workers), mp_context=multiprocessing.get_context("spawn")) as pool:
        rows = list(pool.map(grade_case, jobs, chunksize=4))
    summary = summarise(rows)
    misses = [r for r in rows if not _agrees(r)]
    # right gate, wrong reason: a metric that disagrees (a missed crossing or teleport among them)
    metric_misses = [r for r in rows if r not in misses and any(r["got"].get(m) != r["labels"][m] for m in METRICS)]
    for key, s in summary.items():
        print(f"{key:<18} gate {s['gate_agreement']}/{s['n']} ({100 * s['gate_rate']:.2f} %)  crossings "
              f"{s['crossings_caught']}  teleports {s['teleports_caught']}  solves passed {s['solves_passed']}  "
              f"not scored {s['not_scored']}  median {s['median_seconds']} s")
        print(f"{'':<18} metrics {s['metric_agreement']}  looks {s['per_look']}"
              + (f"  puzzle read {s['puzzle_read']} ({s['puzzle_walls_read']} every wall too)"
                 if "puzzle_read" in s else ""))
    print(f"{len(misses)} disagreement(s); {len(rows)} gradings in {time.perf_counter() - t0:.0f} s")
    for r in misses:
        print(f"  {r['id']} [{r['way']}] got {r['got']['overall']} ({r['got']['status']}) "
              f"want {r['labels']['overall']}: {'; '.join(str(n) for n in r['got']['notes'][:3])}  "
              f"effects={','.join(r['effects'])}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    print(f"{len(metric_misses)} gate-agreeing grading(s) with a disagreeing metric (in --json: metric_misses)")
    args.json.write_text(json.dumps({"corpus": str(folder), "overrides": args.set, "summary": summary, "misses": misses,
                                     "metric_misses": metric_misses}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
