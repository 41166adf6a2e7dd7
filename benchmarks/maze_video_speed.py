"""Maze video verifier: speed against decoding, and memory for short vs long videos.

Generates synthetic MMGR-style H.264 videos (720p, 24 fps; 8 s and 30 s) and measures,
side by side in one run (medians of ``--repeats`` interleaved runs):

* decode-only: every frame decoded and converted to RGB (``cvcheck.media.video.iter_frames``,
  which the verifier uses) - the floor;
* verify: ``verify_video_file`` on the same file (decode + per-frame analysis + verdict);
* peak memory of a verify run in a fresh process (peak RSS, and the tracemalloc peak of
  Python/numpy allocations) for the 8 s and the 30 s video.

Usage::

    python benchmarks/maze_video_speed.py [--repeats 5] [--out /tmp/mvbench]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

CHILD = r"""
import json, resource, sys, time, tracemalloc

def hwm_kb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

from cvcheck.maze.task import load_reference
from cvcheck.config import Config
from cvcheck.maze.task import verify_video_file
cfg = Config()
spec = load_reference(sys.argv[2], config=cfg)
verify_video_file(sys.argv[1], spec, config=cfg, id="warm-up")  # imports, lazy caches
rss0 = hwm_kb()
try:  # reset the high-water mark so the peak below is this run's own
    open("/proc/self/clear_refs", "w").write("5")
except OSError:
    pass
rss_reset = hwm_kb()
tracemalloc.start()
t = time.perf_counter()
r = verify_video_file(sys.argv[1], spec, config=cfg)
dt = time.perf_counter() - t
_, peak = tracemalloc.get_traced_memory()
print(json.dumps({"hwm_before_kb": rss0, "rss_at_start_kb": rss_reset, "peak_rss_kb": hwm_kb(),
                  "tracemalloc_peak_kb": peak // 1024, "frames": r.metrics["frames"], "overall": r.overall,
                  "seconds_traced": round(dt, 3)}))
"""


def make_video(path: Path, seconds: float, *, seed: int = 11) -> tuple[Path, Path, int]:
    import cv2

    from cvcheck.synth.maze_video import VideoLook, make_video_case

    look = VideoLook(size=(720, 1280), fps=24)
    target = int(round(seconds * look.fps))
    walk = seconds - 0.9
    for _ in range(4):  # the plan adds holds at start and end: aim the walk so the total is exact
        case = make_video_case(seed, behaviour="valid", look=look, size=13, walk_seconds=walk)
        if case.n_frames == target:
            break
        walk += (target - case.n_frames) / look.fps
    case.write(path)
    ref = path.with_suffix(".png")
    cv2.imwrite(str(ref), case.reference[:, :, ::-1])
    return path, ref, case.n_frames


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", type=Path, default=Path("/tmp/cvcheck_maze_video_bench"))
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    from cvcheck.config import Config
    from cvcheck.maze.task import load_reference, verify_video_file
    from cvcheck.media.video import iter_frames, probe

    short, short_ref, n_short = make_video(args.out / "maze_720p_8s.mp4", 8.0)
    long, long_ref, n_long = make_video(args.out / "maze_720p_30s.mp4", 30.0)
    info = probe(short)
    spec = load_reference(short_ref, config=Config())
    verify_video_file(short, spec)  # warm-up (imports, caches)
    decode, verify, decode_cpu, verify_cpu = [], [], [], []
    for _ in range(args.repeats):
        t, c = time.perf_counter(), time.process_time()
        n = sum(1 for _ in iter_frames(short))
        decode.append(time.perf_counter() - t)
        decode_cpu.append(time.process_time() - c)
        t, c = time.perf_counter(), time.process_time()
        result = verify_video_file(short, spec)
        verify.append(time.perf_counter() - t)
        verify_cpu.append(time.process_time() - c)
    d, v = statistics.median(decode), statistics.median(verify)
    dc, vc = statistics.median(decode_cpu), statistics.median(verify_cpu)
    report = {
        "video": {"path": str(short), "frames": n, "fps": info.fps, "size": [info.width, info.height],
                  "duration_s": info.duration},
        "verdict_overall": result.overall,
        "decode_only_s_median": round(d, 4), "verify_s_median": round(v, 4),
        "ratio_verify_over_decode": round(v / d, 3),
        "cpu_s_median": {"decode": round(dc, 4), "verify": round(vc, 4), "ratio": round(vc / dc, 3)},
        "per_frame_ms": {"decode": round(1000 * d / n, 3), "analysis": round(1000 * (v - d) / n, 3)},
        "runs": {"decode": [round(x, 4) for x in decode], "verify": [round(x, 4) for x in verify]},
    }
    memory = {}
    for label, path, ref in (("8s", short, short_ref), ("30s", long, long_ref)):
        out = subprocess.run([sys.executable, "-c", CHILD, str(path), str(ref)], capture_output=True, text=True,
                             check=True)
        memory[label] = json.loads(out.stdout.strip().splitlines()[-1])
    report["memory"] = memory
    report["memory_growth_30s_over_8s"] = {
        "peak_rss": round(memory["30s"]["peak_rss_kb"] / memory["8s"]["peak_rss_kb"], 3),
        "peak_rss_above_start_kb": {k: m["peak_rss_kb"] - m["rss_at_start_kb"] for k, m in memory.items()},
        "tracemalloc_peak": round(memory["30s"]["tracemalloc_peak_kb"]
                                  / max(1, memory["8s"]["tracemalloc_peak_kb"]), 3),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
