"""Executors: run :func:`~cvcheck.batch.worker.timed_grade` over samples and report each result.

- ``serial``: in this process (no timeout; for notebooks and debugging).
- ``process`` (default): our own pool of spawned worker processes, one sample at a
  time per worker, so that a sample running past its timeout is ended by killing
  its worker, which is then replaced; a crashed worker becomes an error result too.
- ``ray``: the same work as Ray tasks on a local instance or a cluster (``address``);
  see :mod:`cvcheck.batch.ray_executor`.

Each executor calls ``on_result(index, result_dict, timing)`` in the parent process,
in completion order.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from multiprocessing.connection import Connection, wait
from typing import Any, Callable, Mapping, Sequence

from ..config import Config
from ..errors import CvcheckError, InputError
from ..schema import ErrorInfo, Result, Status
from .worker import guess_modality, timed_grade

READY = "ready"
OnResult = Callable[[int, dict[str, Any], dict[str, Any]], None]
EXECUTORS = ("process", "serial", "ray")


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def failure(sample: Mapping[str, Any], code: str, message: str) -> dict[str, Any]:
    """An error result dict for a sample the executor itself could not finish."""
    return Result(id=str(sample.get("id", "")), task=str(sample.get("task", "?")), pipeline="?",
                  modality=guess_modality(sample), status=Status.ERROR, overall=None,
                  error=ErrorInfo(code=code, message=message)).to_dict()


def run_serial(samples: Sequence[Mapping[str, Any]], on_result: OnResult, *, config: Config,
               tasks: Mapping[str, str] | None = None) -> None:
    for i, sample in enumerate(samples):
        result, seconds = timed_grade(sample, config=config, tasks=tasks)
        on_result(i, result, {"seconds": round(seconds, 4), "worker": "serial"})


# -- process pool -------------------------------------------------------------------------

def _die_with_parent() -> None:
    """Linux: have the kernel kill this worker when the parent dies (e.g. ``kill -9``), so no
    orphan keeps grading a long video for nobody."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux/glibc: EOF on the pipe still stops us
        pass


def _worker_main(conn: Connection, config: Config, tasks: Mapping[str, str], parent: int = 0) -> None:
    _die_with_parent()
    if parent and os.getppid() != parent:  # the parent died before the death signal was armed
        return
    try:
        from .worker import install_reference_cache, register_tasks, single_threaded_libraries

        single_threaded_libraries()
        install_reference_cache()
        register_tasks(tasks)
        conn.send(READY)
        while True:
            msg = conn.recv()
            if msg is None:
                return
            index, sample = msg
            result, seconds = timed_grade(sample, config=config, tasks=tasks)
            conn.send((index, result, seconds))
    except (EOFError, BrokenPipeError, KeyboardInterrupt, ConnectionResetError):
        return  # the parent went away (or was killed): stop quietly


class _Slot:
    def __init__(self, ctx: Any, config: Config, tasks: Mapping[str, str], number: int):
        parent, child = ctx.Pipe(duplex=True)
        self.conn: Connection = parent
        self.proc = ctx.Process(target=_worker_main, args=(child, config, dict(tasks), os.getpid()), daemon=True,
                                name=f"cvcheck-worker-{number}")
        self.proc.start()
        child.close()
        self.number = number
        self.job: int | None = None
        self.started = 0.0
        self.ready = False

    def await_ready(self, timeout_s: float = 120.0) -> None:
        """Wait for the worker's start-up handshake; a worker that cannot start aborts the run."""
        if self.conn.poll(timeout_s):
            try:
                if self.conn.recv() == READY:
                    self.ready = True
                    return
            except (EOFError, OSError):
                pass
        self.kill()
        raise CvcheckError(f"a grading worker process could not start (exit code {self.proc.exitcode}); "
                           "no result was written for it. If you run cvcheck from a script, guard it with "
                           "`if __name__ == '__main__':`")

    def give(self, index: int, sample: Mapping[str, Any]) -> None:
        if not self.ready:
            self.await_ready()
        self.conn.send((index, dict(sample)))
        self.job, self.started = index, time.monotonic()

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)
        self.conn.close()

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except (OSError, BrokenPipeError):
            pass
        self.proc.join(2)
        if self.proc.is_alive():
            self.kill()
        self.conn.close()


def run_processes(samples: Sequence[Mapping[str, Any]], on_result: OnResult, *, config: Config,
                  workers: int, timeout_s: float | None, tasks: Mapping[str, str] | None = None) -> None:
    """Run samples on ``workers`` spawned processes with a per-sample timeout."""
    from ..registry import TASKS

    if not samples:
        return
    all_tasks = {**TASKS, **(tasks or {})}
    ctx = mp.get_context("spawn")
    pending = list(range(len(samples)))[::-1]  # pop() from the end = manifest order
    count = max(1, min(workers, len(samples)))
    spawned = 0
    slots: list[_Slot] = []

    def replace(k: int) -> _Slot:
        nonlocal spawned
        slots[k].kill()
        slots[k] = _Slot(ctx, config, all_tasks, spawned)
        spawned += 1
        return slots[k]

    def dispatch(k: int) -> None:
        """Give slot ``k`` the next sample; a worker that died while idle is replaced first."""
        while pending:
            try:
                slots[k].give(pending[-1], samples[pending[-1]])
            except (OSError, EOFError):
                replace(k)
                continue
            pending.pop()
            return

    def fail_and_replace(k: int, code: str, message: str) -> None:
        """Record the slot's sample as an error result and give the slot a fresh worker."""
        slot = slots[k]
        assert slot.job is not None
        on_result(slot.job, failure(samples[slot.job], code, message),
                  {"seconds": round(time.monotonic() - slot.started, 4), "worker": f"process-{slot.number}"})
        replace(k)

    try:
        for _ in range(count):
            slots.append(_Slot(ctx, config, all_tasks, spawned))
            spawned += 1
        for k in range(len(slots)):
            dispatch(k)
        while any(s.job is not None for s in slots):
            now = time.monotonic()
            busy = [s for s in slots if s.job is not None]
            wait_for = None
            if timeout_s:
                wait_for = max(0.0, min(s.started + timeout_s for s in busy) - now)
            ready = wait([s.conn for s in busy] + [s.proc.sentinel for s in busy], timeout=wait_for)
            for k, slot in enumerate(list(slots)):
                if slot.job is None:
                    continue
                index = slot.job
                finished = False
                done: tuple[dict[str, Any], dict[str, Any]] | None = None
                if slot.conn in ready or slot.proc.sentinel in ready:
                    try:
                        if slot.conn.poll():
                            got, result, seconds = slot.conn.recv()
                            if got == index:
                                done = (result, {"seconds": round(seconds, 4), "worker": f"process-{slot.number}"})
                                finished = True
                    except (EOFError, OSError):
                        pass
                    if not finished and not slot.proc.is_alive():
                        fail_and_replace(k, "worker_died",
                                         f"worker process died (exit code {slot.proc.exitcode}) while grading")
                        finished = True
                if not finished and timeout_s and time.monotonic() - slot.started >= timeout_s:
                    slot.kill()
                    fail_and_replace(k, "timeout", f"grading took longer than {timeout_s:g} s; worker replaced")
                    finished = True
                if finished:
                    slots[k].job = None
                    dispatch(k)  # the worker gets its next sample before the result is written (fsync)
                if done is not None:
                    on_result(index, *done)
    finally:
        for slot in slots:
            if slot.job is not None:
                slot.kill()
            else:
                slot.stop()


def run_executor(name: str, samples: Sequence[Mapping[str, Any]], on_result: OnResult, *, config: Config,
                 workers: int, timeout_s: float | None, address: str | None = None,
                 tasks: Mapping[str, str] | None = None) -> None:
    """Dispatch to the named executor."""
    if name == "serial":
        run_serial(samples, on_result, config=config, tasks=tasks)
    elif name == "process":
        run_processes(samples, on_result, config=config, workers=workers, timeout_s=timeout_s, tasks=tasks)
    elif name == "ray":
        from .ray_executor import run_ray

        run_ray(samples, on_result, config=config, workers=workers, timeout_s=timeout_s, address=address,
                tasks=tasks)
    else:
        raise InputError(f"unknown executor {name!r}; choose from {', '.join(EXECUTORS)}")
