"""How much decoding beside the analysis slows the analysis: a thread against a process.

The verifier decodes a video on a second thread while it analyses frames on the first
(``cvcheck.maze.task``). PyAV releases the GIL while FFmpeg decodes, but takes it back
several times a frame (reading a packet, sending it, receiving frames), and each time the
analysis - a hundred-odd short OpenCV and numpy calls a frame, each releasing and taking the
GIL - waits for it. This measures what that costs, on valid-walk 480p videos of every
mazeworld look (``maze_real_speed.make_video``), frames decoded beforehand:

* ``alone``: the analysis of every video, nothing else running;
* ``thread``: the same while a thread of this process decodes videos in a loop, as the
  verifier's reader does (``iter_frames(..., yuv=True, threads=1)``);
* ``process``: the same while another process decodes them in a loop - the cores as busy,
  no GIL shared.

Rounds alternate the three; the figures are medians over rounds of the whole set's analysis time,
and the ratios to ``alone``. Needs the test extra (maze-dataset)::

    python benchmarks/maze_decode_contention.py [--count 2] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_DECODE_LOOP = """
import sys
from pathlib import Path
from cvcheck.config import Config
from cvcheck.media.video import iter_frames
config = Config()
videos = [Path(p) for p in sys.argv[1:]]
print("ready", flush=True)
while True:
    for video in videos:
        for _ in iter_frames(video, config=config.media, yuv=True, threads=1):
            pass
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=2, help="videos per look")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=4242)
    ap.add_argument("--out", type=Path, default=Path("/tmp/maze_decode_contention"))
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT))

    from benchmarks.maze_real_speed import SIZES, make_video, predecoded
    from benchmarks.mazeworld.looks import LOOKS
    from cvcheck.config import Config
    from cvcheck.maze.video import analyse_video
    from cvcheck.media.video import iter_frames
    from cvcheck.vision.threads import opencv_threads

    config = Config()
    frame_size, n = SIZES["480p-81f"]
    videos = [make_video(args.out, look, args.seed + i, frame_size, n)[0] for look in LOOKS for i in range(args.count)]

    held = [predecoded(v, config) for v in videos]

    def analysis() -> float:
        t = time.perf_counter()
        with opencv_threads(1):
            for frames in held:
                analyse_video(list(frames), None, config=config.maze, fps=24.0)
        return time.perf_counter() - t

    def beside_thread() -> float:
        stop = threading.Event()

        def loop() -> None:
            while not stop.is_set():
                for video in videos:
                    for _ in iter_frames(video, config=config.media, yuv=True, threads=1):
                        if stop.is_set():
                            return

        other = threading.Thread(target=loop, daemon=True)
        other.start()
        try:
            return analysis()
        finally:
            stop.set()
            other.join()

    def beside_process() -> float:
        child = subprocess.Popen([sys.executable, "-c", _DECODE_LOOP, *map(str, videos)], cwd=ROOT,
                                 stdout=subprocess.PIPE, text=True, env={"PYTHONPATH": str(ROOT), "PATH": ""})
        try:
            assert child.stdout is not None and child.stdout.readline().strip() == "ready"
            return analysis()
        finally:
            child.kill()
            child.wait()

    analysis()  # warm-up: imports, lazy caches
    ways = {"alone": analysis, "thread": beside_thread, "process": beside_process}
    times: dict[str, list[float]] = {way: [] for way in ways}
    for _ in range(args.rounds):
        for way, run in ways.items():
            times[way].append(run())
    median = {way: statistics.median(t) for way, t in times.items()}
    frames = sum(len(f) for f in held)
    report = {"videos": len(videos), "frames": frames, "rounds": args.rounds,
              "analysis_ms_per_frame_median": {way: round(1000 * m / frames, 3) for way, m in median.items()},
              "over_alone": {way: round(m / median["alone"], 3) for way, m in median.items()}}
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
