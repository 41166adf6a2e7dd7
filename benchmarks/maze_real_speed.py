"""Real-look maze videos: verify time against decode-only time, side by side in one run.

Draws valid-walk videos with maze-dataset in every mazeworld look (MMGR lattice, MazePlot lines,
VMEvalKit-like) at two sizes - 480p with 81 frames (the length of many model outputs) and 720p
with 8 s at 24 fps - and times, interleaved per repeat so load spikes hit both alike:

* ``decode``: every frame decoded to RGB (``cvcheck.media.video.iter_frames``, which the
  verifier uses) - the floor;
* ``old decode``: the same with a new colour converter per frame, as cvcheck decoded before
  0.2 (twice as slow; the floor the issue's "1.6-1.9x today" was measured against);
* ``verify`` for two ways in: ``video`` (no maze given: the puzzle is read from the first frames)
  and ``maze`` (the maze file given);
* ``analysis``: the ``video`` way's analysis alone, on frames decoded beforehand (in YUV, the
  first ones converted, as the verifier has them) - what verifying would cost if decoding were
  free: the floor of the verify ratio, however the decoding is hidden;

as wall time and as CPU time of the process (all threads). Figures are medians over repeats of
the per-video ratio to decode. ``two_cores_speedup``: how much a second core gives on this
machine - two single-threaded decodes of a video at once against one (2.0: a core of its own
each; near 1: the cores share one physical core or a busy host); where it is low, the wall
ratio follows the CPU ratio, whatever runs on the second thread.

The verifier keeps frames in YUV, reads the first ones ahead on a second thread (while it
reads the maze and learns the agent's look from them) and the rest as it analyses them,
FFmpeg's threads decoding ahead on the other cores (resampling each frame's maze region
again only where the frame changed: ``maze.video_reuse_tolerance``), so on an idle machine
with two free cores its wall time approaches max(decode, analysis); on a busy one the CPU
ratio is the steadier figure.

Needs the test extra (maze-dataset)::

    python benchmarks/maze_real_speed.py [--count 2] [--repeats 5] [--out /tmp/maze_real_speed]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SIZES = {"480p-81f": ((832, 480), 81), "720p-8s": ((1280, 720), 192)}


def cpu_seconds() -> float:
    """User + system time of this process, all threads included."""
    use = resource.getrusage(resource.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime


def make_video(folder: Path, look: str, seed: int, frame_size: tuple[int, int], frames: int) -> tuple[Path, Path]:
    """One valid walk drawn by maze-dataset in ``look``; returns (video, maze.json)."""
    from benchmarks.mazeworld.encode import write_mp4
    from benchmarks.mazeworld.motion import glide_timeline
    from benchmarks.mazeworld.sampling import sample_maze_and_plan, sample_video
    from benchmarks.mazeworld.video import VideoComposer

    rng = np.random.default_rng([seed, 7])
    maze, plan = sample_maze_and_plan(rng, "valid", grid_range=(5, 9))
    draw = sample_video(rng, look, "valid", seed)
    timeline = glide_timeline(plan, rng, hide_first=look == "mazeplot", icon_frames=draw.style.icon_frames,
                              glide_in=True, speed_range=(0.05, 1.0), frame_options=(frames,))
    style = replace(draw.style, frame_size=frame_size, wall_change=None, goal_change=None)
    comp = VideoComposer(maze, plan, timeline, style)
    name = f"{look}-{seed}-{frame_size[1]}p"
    video = folder / f"{name}.mp4"
    write_mp4(video, comp.frames(), fps=style.fps, crf=style.crf)
    spec = folder / f"{name}.json"
    spec.write_text(json.dumps(maze.to_json()) + "\n")
    return video, spec


def predecoded(video: Path, config: Any) -> list:
    """Every frame of ``video`` decoded beforehand, in YUV, the first ones converted to RGB as the
    verifier's reader converts them (config: a ``cvcheck.config.Config``)."""
    from cvcheck.maze.task import HEAD_RGB_FRAMES
    from cvcheck.media.video import iter_frames
    from cvcheck.vision.yuv import YuvFrame

    frames = list(iter_frames(video, config=config.media, yuv=True))
    for frame in frames[:HEAD_RGB_FRAMES]:
        assert isinstance(frame, YuvFrame)  # the videos here come from write_mp4, in yuv420p
        frame.rgb()
    return frames


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=2, help="videos per look and size")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=4242)
    ap.add_argument("--out", type=Path, default=Path("/tmp/maze_real_speed"))
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT))

    from benchmarks.mazeworld.looks import LOOKS
    from cvcheck.config import Config
    from cvcheck.maze.task import grade
    from cvcheck.maze.verdict import video_result
    from cvcheck.maze.video import analyse_video
    from cvcheck.media.video import iter_frames, probe
    from cvcheck.schema import Unparseable
    from cvcheck.vision.threads import opencv_threads

    config = Config()
    videos = []
    for size_name, (frame_size, n) in SIZES.items():
        for look in LOOKS:
            for i in range(args.count):
                video, spec = make_video(args.out, look, args.seed + i, frame_size, n)
                videos.append((size_name, look, video, spec))

    def decode(video: Path) -> int:
        return sum(1 for _ in iter_frames(video, config=config.media))

    def decode_per_frame_converter(video: Path) -> int:
        """Decoding as cvcheck did before 0.2: a new swscale converter for every frame
        (PyAV's ``frame.to_ndarray(format="rgb24")``), the floor the issue's 1.6-1.9x was
        measured against."""
        import av

        with av.open(str(video)) as container:
            stream = container.streams.video[0]
            stream.thread_type = "AUTO"
            return sum(1 for frame in container.decode(stream) if frame.to_ndarray(format="rgb24") is not None)

    ways = {"video": lambda v, s: grade(v, config=config),
            "maze": lambda v, s: grade(v, config=config, maze=s)}

    def one_core_decode(video: Path) -> None:
        sum(1 for _ in iter_frames(video, config=config.media, yuv=True, threads=1))

    def two_cores(video: Path) -> float:
        """Throughput of two single-threaded decodes at once over one alone (2.0 at best; under 1
        when the host is busy enough)."""
        t = time.perf_counter()
        one_core_decode(video)
        alone = time.perf_counter() - t
        other = threading.Thread(target=one_core_decode, args=(video,))
        t = time.perf_counter()
        other.start()
        one_core_decode(video)
        other.join()
        return 2 * alone / (time.perf_counter() - t)

    def analysis_only(frames: list, fps: float) -> None:
        with opencv_threads(1):
            a = analyse_video(frames, None, config=config.maze, fps=fps)
            assert not isinstance(a, Unparseable)
            video_result(a, id="", config=config.maze, config_hash="")

    runs: dict[tuple[str, str], dict[str, list[float]]] = {}
    verdicts: dict[str, dict[str, float | None]] = {}
    for _size, _look, video, spec in videos:  # warm-up: imports, lazy caches, first-touch pages
        decode(video)
        for way, fn in ways.items():
            verdicts.setdefault(video.name, {})[way] = fn(video, spec).overall
    per_look: dict[tuple[str, str], list[float]] = {}
    parallel: dict[str, list[float]] = {}
    fps = {video: probe(video).fps or 24.0 for _, _, video, _ in videos}
    for _ in range(args.repeats):
        for size_name, look, video, spec in videos:
            t, c = time.perf_counter(), cpu_seconds()
            frames = decode(video)
            dw, dc = time.perf_counter() - t, cpu_seconds() - c
            held = predecoded(video, config)
            t = time.perf_counter()
            analysis_only(held, fps[video])
            aw = time.perf_counter() - t
            del held
            parallel.setdefault(size_name, []).append(two_cores(video))
            runs.setdefault((size_name, "analysis"), {"wall": []})["wall"].append(aw / dw)
            per_look.setdefault((f"{size_name}/analysis", look), []).append(aw / dw)
            t = time.perf_counter()
            decode_per_frame_converter(video)
            ow = time.perf_counter() - t
            for way, fn in ways.items():
                t, c = time.perf_counter(), cpu_seconds()
                fn(video, spec)
                vw, vc = time.perf_counter() - t, cpu_seconds() - c
                r = runs.setdefault((size_name, way), {"wall": [], "cpu": [], "wall_vs_old_decode": [],
                                                         "decode_ms_per_frame": [], "old_decode_ms_per_frame": [],
                                                         "verify_ms_per_frame": []})
                r["wall"].append(vw / dw)
                r["cpu"].append(vc / max(dc, 1e-6))
                r["wall_vs_old_decode"].append(vw / ow)
                r["decode_ms_per_frame"].append(1000 * dw / frames)
                r["old_decode_ms_per_frame"].append(1000 * ow / frames)
                r["verify_ms_per_frame"].append(1000 * vw / frames)
                per_look.setdefault((f"{size_name}/{way}", look), []).append(vw / dw)

    report = {
        "videos": len(videos), "repeats": args.repeats, "looks": list(LOOKS),
        "verdicts_all_pass": all(v == 1 for per in verdicts.values() for v in per.values()),
        "video_reuse_tolerance": config.maze.video_reuse_tolerance,
        "ratios_verify_over_decode": {
            f"{size}/{way}": {"wall_median": round(statistics.median(r["wall"]), 3),
                              **{f"{name}_median": round(statistics.median(r[name]), 3 if name == "cpu" else 2)
                                 for name in ("cpu", "wall_vs_old_decode", "decode_ms_per_frame",
                                              "old_decode_ms_per_frame", "verify_ms_per_frame") if name in r}}
            for (size, way), r in sorted(runs.items())},
        "two_cores_speedup": {size: round(statistics.median(v), 2) for size, v in sorted(parallel.items())},
        "wall_median_per_look": {f"{case}/{look}": round(statistics.median(v), 3)
                                 for (case, look), v in sorted(per_look.items())},
    }
    if not report["verdicts_all_pass"]:
        report["verdicts"] = verdicts
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
