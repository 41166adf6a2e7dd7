"""Judge client and nav metric speed, side by side in one run (medians of --reps).

    python benchmarks/judge_speed.py                  # 200 requests, 20 ms server latency
    python benchmarks/judge_speed.py --requests 500 --latency 0.05

1. Live judging through a local OpenAI-compatible server that waits --latency seconds per
   request, at concurrency 1 / 4 / 8 (cold cache each time), then the same requests
   answered from the SQLite cache (zero HTTP requests) and from a recorded-judgement
   file (offline replay).
2. DTW on --dtw-points x --dtw-points trajectory points: the row-wise numpy version
   (prefix sums + cumulative minimum) vs a plain Python double loop.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _median_time(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--latency", type=float, default=0.02)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dtw-points", type=int, default=1000)
    args = ap.parse_args(argv)

    from cvcheck.judge import JudgeCache, JudgeClient, JudgeRequest, user_message
    from cvcheck.judge.session import replay_client
    from cvcheck.nav import dtw_distance
    from tests.judge.openai_server import OpenAIServer

    server = OpenAIServer().start()
    server.default = ("sleep", args.latency, "0.5")
    reqs = [JudgeRequest([user_message(f"question {i}")], {"temperature": 0.0, "max_tokens": 3})
            for i in range(args.requests)]
    print(f"{args.requests} requests, server latency {args.latency * 1000:.0f} ms, median of {args.reps}")
    with tempfile.TemporaryDirectory() as tmp:
        for conc in (1, 4, 8):
            def cold(conc: int = conc) -> None:
                c = JudgeClient(model="bench", base_url=server.base_url, concurrency=conc, timeout_s=10,
                                cache=JudgeCache(":memory:"))
                assert all(r.ok for r in c.complete_many(reqs))
            t = _median_time(cold, args.reps)
            print(f"  live, concurrency {conc}: {t:7.3f} s  ({args.requests / t:7.1f} req/s)")
        cache = JudgeCache(Path(tmp) / "c.sqlite")
        JudgeClient(model="bench", base_url=server.base_url, concurrency=8, cache=cache).complete_many(reqs)
        before = len(server.requests)
        def warm() -> None:
            c = JudgeClient(model="bench", base_url=server.base_url, concurrency=8, cache=cache)
            assert all(r.source == "cache" for r in c.complete_many(reqs))
        t = _median_time(warm, args.reps)
        print(f"  cached (SQLite):        {t:7.3f} s  ({args.requests / t:7.1f} req/s), "
              f"HTTP requests during cached runs: {len(server.requests) - before}")
        cache.export_json(Path(tmp) / "rec.json")
        def replay() -> None:
            c = replay_client(Path(tmp) / "rec.json")
            assert all(r.ok for r in c.complete_many(reqs))
        t = _median_time(replay, args.reps)
        print(f"  replay (recorded JSON): {t:7.3f} s  (import + answer)")
    server.stop()

    rng = np.random.default_rng(0)
    k = args.dtw_points
    a, b = rng.normal(size=(k, 3)), rng.normal(size=(k, 3))
    def naive() -> float:
        c = np.linalg.norm(a[:, None] - b[None], axis=2).tolist()
        n, m = len(c), len(c[0])
        acc = [[float("inf")] * (m + 1) for _ in range(n + 1)]
        acc[0][0] = 0.0
        for i in range(1, n + 1):
            row, prev, ci = acc[i], acc[i - 1], c[i - 1]
            for j in range(1, m + 1):
                row[j] = ci[j - 1] + min(prev[j], row[j - 1], prev[j - 1])
        return acc[n][m]
    assert abs(naive() - dtw_distance(a, b)) < 1e-6 * k
    tv, tn = _median_time(lambda: dtw_distance(a, b), args.reps), _median_time(naive, args.reps)
    print(f"DTW {k}x{k}: vectorised {tv * 1000:.1f} ms, python loops {tn * 1000:.1f} ms, ratio {tn / tv:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
