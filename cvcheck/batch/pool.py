"""The process executor: a pool of spawned workers, one sample at a time each.

A sample running past its timeout is ended by killing its worker, which is then
replaced; a worker that dies (a crash in a native library, an out-of-memory kill)
becomes an ``error`` result for its sample and is replaced too. Results reach
``on_result(index, result_dict, timing)`` in the parent, in completion order; a worker
gets its next sample before its last result is written (the write fsyncs).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections.abc import Callable, Mapping, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any

from ..config import Config
from ..errors import CvcheckError
from ..registry import Task
from .worker import failure, timed_grade

READY = "ready"
OnResult = Callable[[int, dict[str, Any], dict[str, Any]], None]


def _die_with_parent() -> None:
    """Linux: have the kernel kill this worker when the parent dies (e.g. ``kill -9``), so no
    orphan keeps grading a long video for nobody."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux/glibc: EOF on the pipe still stops us
        pass


def _worker_main(conn: Connection, config: Config, tasks: Mapping[str, Task], parent: int = 0) -> None:
    _die_with_parent()
    if parent and os.getppid() != parent:  # the parent died before the death signal was armed
        return
    try:
        from .worker import register_tasks, single_threaded_libraries

        single_threaded_libraries()
        register_tasks(tasks)
        conn.send(READY)
        while True:
            msg = conn.recv()
            if msg is None:
                return
            index, sample = msg
            result, seconds = timed_grade(sample, config=config)
            conn.send((index, result, seconds))
    except (EOFError, BrokenPipeError, KeyboardInterrupt, ConnectionResetError):
        return  # the parent went away (or was killed): stop quietly


class Worker:
    """One worker process and the sample it is grading (``job``: the sample's index, or None)."""

    def __init__(self, ctx: Any, config: Config, tasks: Mapping[str, Task], number: int) -> None:
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

    @property
    def name(self) -> str:
        return f"process-{self.number}"

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

    def receive(self) -> tuple[dict[str, Any], float] | None:
        """The finished job's ``(result, seconds)`` when it has been sent, else None."""
        try:
            if self.conn.poll():
                index, result, seconds = self.conn.recv()
                if index == self.job:
                    return result, seconds
        except (EOFError, OSError):
            pass
        return None

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


class WorkerPool:
    """Grade ``samples`` on ``workers`` spawned processes with a per-sample timeout (None: none)."""

    def __init__(self, samples: Sequence[Mapping[str, Any]], on_result: OnResult, *, config: Config,
                 workers: int, timeout_s: float | None, tasks: Mapping[str, Task]) -> None:
        self.samples, self.on_result = samples, on_result
        self.config, self.tasks, self.timeout_s = config, dict(tasks), timeout_s
        self.size = max(1, min(workers, len(samples)))
        self.ctx = mp.get_context("spawn")
        self.pending = list(range(len(samples)))[::-1]  # pop() from the end = manifest order
        self.workers: list[Worker] = []
        self.spawned = 0

    def run(self) -> None:
        if not self.samples:
            return
        try:
            for _ in range(self.size):
                self.workers.append(self._spawn())
            for k in range(len(self.workers)):
                self._dispatch(k)
            while any(w.job is not None for w in self.workers):
                self._step()
        finally:
            for w in self.workers:
                if w.job is not None:
                    w.kill()
                else:
                    w.stop()

    def _spawn(self) -> Worker:
        worker = Worker(self.ctx, self.config, self.tasks, self.spawned)
        self.spawned += 1
        return worker

    def _replace(self, k: int) -> None:
        self.workers[k].kill()
        self.workers[k] = self._spawn()

    def _dispatch(self, k: int) -> None:
        """Give worker ``k`` the next sample; a worker that died while idle is replaced first."""
        while self.pending:
            index = self.pending[-1]
            try:
                self.workers[k].give(index, self.samples[index])
            except (OSError, EOFError):
                self._replace(k)
                continue
            self.pending.pop()
            return

    def _step(self) -> None:
        """Wait for a result, a dead worker or the next timeout; handle what happened."""
        busy = [w for w in self.workers if w.job is not None]
        wait_for = None
        if self.timeout_s:
            wait_for = max(0.0, min(w.started + self.timeout_s for w in busy) - time.monotonic())
        ready = wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], timeout=wait_for)
        for k, worker in enumerate(list(self.workers)):
            if worker.job is None:
                continue
            index = worker.job
            woke = worker.conn in ready or worker.proc.sentinel in ready
            got = worker.receive() if woke else None
            if got is not None:
                worker.job = None
                self._dispatch(k)  # the worker gets its next sample before the result is written (fsync)
                self.on_result(index, got[0], {"seconds": round(got[1], 4), "worker": worker.name})
            elif woke and not worker.proc.is_alive():
                self._fail(k, "worker_died", f"worker process died (exit code {worker.proc.exitcode}) while grading")
            elif self.timeout_s and time.monotonic() - worker.started >= self.timeout_s:
                self._fail(k, "timeout", f"grading took longer than {self.timeout_s:g} s; worker replaced")

    def _fail(self, k: int, code: str, message: str) -> None:
        """Record worker ``k``'s sample as an error result and give it a fresh process."""
        worker = self.workers[k]
        index = worker.job
        assert index is not None
        self._replace(k)
        self._dispatch(k)
        self.on_result(index, failure(self.samples[index], code, message),
                       {"seconds": round(time.monotonic() - worker.started, 4), "worker": worker.name})
