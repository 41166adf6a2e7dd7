"""Executors: run :func:`~cvcheck.batch.worker.timed_grade` over samples, reporting each result.

:data:`EXECUTORS` maps a name to its runner (the CLI offers these names):

- ``process`` (default): a pool of spawned worker processes with per-sample timeouts
  (:mod:`cvcheck.batch.pool`);
- ``serial``: in this process, no timeout (notebooks, debugging);
- ``thread``: a pool of threads in this process, for graders that wait on a network
  judge (they share one client, its cache and its concurrency limit); no per-sample
  timeout: the judge client's own deadline bounds each request;
- ``ray``: Ray tasks on a local instance or a cluster (:mod:`cvcheck.batch.ray_executor`).

Every runner calls ``on_result(index, result_dict, timing)`` in the parent process, in
completion order.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ..config import Config, MediaConfig
from ..errors import InputError
from ..registry import Task
from .pool import OnResult, WorkerPool
from .worker import timed_grade


class Runner(Protocol):
    def __call__(self, samples: Sequence[Mapping[str, Any]], on_result: OnResult, *, config: Config,
                 workers: int, timeout_s: float | None, address: str | None,
                 tasks: Mapping[str, Task]) -> None: ...


def default_workers() -> int:
    """The CPUs this process may run on, fewer when memory could not hold one image per worker.

    A worker may decode one image of up to ``media.max_decoded_bytes`` (default 256 MiB) plus
    its analysis; workers beyond what the available memory holds at that size are not started.
    """
    try:
        cpus = max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = max(1, os.cpu_count() or 1)
    per_worker = 2 * MediaConfig().max_decoded_bytes + (256 << 20)
    available = _available_memory()
    return cpus if available is None else max(1, min(cpus, available // per_worker))


def _available_memory() -> int | None:
    """MemAvailable from /proc/meminfo in bytes (None where unknown)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def run_serial(samples: Sequence[Mapping[str, Any]], on_result: OnResult, *, config: Config, workers: int,
               timeout_s: float | None, address: str | None, tasks: Mapping[str, Task]) -> None:
    for i, sample in enumerate(samples):
        result, seconds = timed_grade(sample, config=config, tasks=tasks)
        on_result(i, result, {"seconds": round(seconds, 4), "worker": "serial"})


def run_threads(samples: Sequence[Mapping[str, Any]], on_result: OnResult, *, config: Config, workers: int,
                timeout_s: float | None, address: str | None, tasks: Mapping[str, Task]) -> None:
    from concurrent.futures import ThreadPoolExecutor, as_completed

    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="cvcheck-grade") as pool:
        futures = {pool.submit(timed_grade, sample, config=config, tasks=tasks): i for i, sample in enumerate(samples)}
        for future in as_completed(futures):  # results are written from this thread only
            result, seconds = future.result()  # timed_grade never raises
            on_result(futures[future], result, {"seconds": round(seconds, 4), "worker": "thread"})


def run_processes(samples: Sequence[Mapping[str, Any]], on_result: OnResult, *, config: Config, workers: int,
                  timeout_s: float | None, address: str | None, tasks: Mapping[str, Task]) -> None:
    WorkerPool(samples, on_result, config=config, workers=workers, timeout_s=timeout_s, tasks=tasks).run()


def run_ray(samples: Sequence[Mapping[str, Any]], on_result: OnResult, *, config: Config, workers: int,
            timeout_s: float | None, address: str | None, tasks: Mapping[str, Task]) -> None:
    from .ray_executor import run_ray as run  # Ray is an optional extra: imported only when chosen

    run(samples, on_result, config=config, workers=workers, timeout_s=timeout_s, address=address, tasks=tasks)


#: executor name -> runner
EXECUTORS: dict[str, Runner] = {"process": run_processes, "serial": run_serial, "thread": run_threads,
                                 "ray": run_ray}


def get_executor(name: str) -> Runner:
    try:
        return EXECUTORS[name]
    except KeyError:
        raise InputError(f"unknown executor {name!r}; choose from {', '.join(EXECUTORS)}") from None


__all__ = ["EXECUTORS", "OnResult", "Runner", "default_workers", "get_executor"]
