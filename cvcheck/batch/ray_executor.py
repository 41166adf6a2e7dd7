"""The Ray executor: the same grading as the process pool, as Ray tasks on a local instance or a cluster.

Samples travel in chunks (up to :data:`MAX_CHUNK` per task, fewer on small corpora) so
that Ray's per-task cost does not dominate fast samples; a chunk that fails or runs past
``timeout_s`` x its size is cancelled and its samples are retried one per task, where a
hang becomes a ``timeout`` error result and a crash a ``ray_task_failed`` one.
"""

from __future__ import annotations

import time
from typing import Any, Mapping, Sequence

from ..config import Config
from ..errors import MissingDependencyError
from ..registry import TASKS, Task
from .pool import OnResult
from .worker import failure

MAX_CHUNK = 16
CHUNKS_PER_CPU = 4  #: at least this many chunks per CPU, so that the last ones do not leave CPUs idle


def _grade_chunk(samples: list[dict[str, Any]], config: Config,
                 tasks: dict[str, Task]) -> list[tuple[dict[str, Any], float]]:
    from .worker import single_threaded_libraries, timed_grade

    single_threaded_libraries()
    return [timed_grade(s, config=config, tasks=tasks) for s in samples]


def chunk_size(n: int, cpus: int) -> int:
    """Samples per Ray task for ``n`` samples on ``cpus`` CPUs."""
    return max(1, min(MAX_CHUNK, n // max(1, cpus * CHUNKS_PER_CPU)))


def run_ray(samples: Sequence[Mapping[str, Any]], on_result: OnResult, *, config: Config, workers: int,
            timeout_s: float | None, address: str | None = None, tasks: Mapping[str, Task] | None = None) -> None:
    """Run samples as Ray tasks (one CPU each); a local instance with ``workers`` CPUs unless ``address``."""
    try:
        import ray
    except ImportError as exc:
        raise MissingDependencyError("the Ray executor needs Ray: pip install 'cvcheck[ray]'") from exc
    if not samples:
        return
    started_here = not ray.is_initialized()
    if started_here:
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
        if address:
            ray.init(address=address, **kwargs)
        else:
            ray.init(num_cpus=workers, **kwargs)
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(_grade_chunk)
        cfg_ref = ray.put(config)
        all_tasks = {**TASKS, **(tasks or {})}  # tasks registered in this process, for the Ray workers
        window = max(1, int(ray.cluster_resources().get("CPU", workers)))
        k = chunk_size(len(samples), window)
        queue = [list(range(i, min(i + k, len(samples)))) for i in range(0, len(samples), k)][::-1]
        inflight: dict[Any, tuple[list[int], float]] = {}

        def retry_or_fail(idxs: list[int], code: str, message: str, seconds: float | None) -> None:
            if len(idxs) > 1:  # find the culprit: one sample per task
                queue.extend([i] for i in reversed(idxs))
            else:
                on_result(idxs[0], failure(samples[idxs[0]], code, message), {"seconds": seconds, "worker": "ray"})

        while queue or inflight:
            while queue and len(inflight) < window:
                idxs = queue.pop()
                ref = remote.remote([dict(samples[i]) for i in idxs], cfg_ref, all_tasks)
                inflight[ref] = (idxs, time.monotonic())
            wait_for = None
            if timeout_s:
                wait_for = max(0.0, min(t + timeout_s * len(ix) for ix, t in inflight.values()) - time.monotonic())
            done, _ = ray.wait(list(inflight), num_returns=1, timeout=wait_for)
            for ref in done:
                idxs, t0 = inflight.pop(ref)
                try:
                    outs = ray.get(ref)
                except Exception as exc:  # noqa: BLE001 - a crashed task: retry alone, then an error result
                    retry_or_fail(idxs, "ray_task_failed", f"{type(exc).__name__}: {exc}"[:2000], None)
                    continue
                for i, (result, seconds) in zip(idxs, outs, strict=True):
                    on_result(i, result, {"seconds": round(seconds, 4), "worker": "ray"})
            if timeout_s:
                now = time.monotonic()
                for ref, (idxs, t0) in list(inflight.items()):
                    if now - t0 >= timeout_s * len(idxs):
                        ray.cancel(ref, force=True)
                        inflight.pop(ref)
                        retry_or_fail(idxs, "timeout", f"grading took longer than {timeout_s:g} s",
                                      round(now - t0, 4))
    finally:
        if started_here:
            ray.shutdown()
