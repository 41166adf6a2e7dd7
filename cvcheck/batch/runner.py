"""Score a manifest into a results file: resumable, durable, on any executor.

Each finished sample (an error too) is appended as one line and fsync'ed before the
next is taken into account, so a run killed at any moment (``kill -9`` included)
loses at most the samples being graded; restarting skips every id already in the
file and cuts a torn last line. Results carry the manifest's ``model``,
``difficulty`` and ``metadata`` in their ``sample`` envelope for the report.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from ..config import Config
from ..errors import InputError
from ..registry import TASKS, Task
from .executors import default_workers, get_executor
from .manifest import Manifest, load_manifest
from .store import ResultWriter, drop_records

#: ``progress(done, total, errors)``: done counts samples finished in this run plus skipped ones
Progress = Callable[[int, int, int], None]


@dataclass
class RunSummary:
    """What a run did."""

    output: Path
    total: int
    skipped: int = 0
    graded: int = 0
    errors: int = 0
    timeouts: int = 0
    passed: int = 0
    torn_tail_repaired: bool = False
    elapsed_s: float = 0.0
    executor: str = "process"
    workers: int = 1
    extra_ids: list[str] = field(default_factory=list)  #: ids in the results file but not the manifest
    retried: int = 0      #: error results dropped to be graded again (``retry_errors``)

    @property
    def throughput(self) -> float:
        """Samples graded per second in this run."""
        return self.graded / self.elapsed_s if self.elapsed_s > 0 else 0.0


def envelope(sample: Mapping[str, Any], *, line: int | None = None) -> dict[str, Any]:
    """What a record keeps of its sample: everything the manifest said, plus its line."""
    out = dict(sample)
    if line is not None:
        out["line"] = line
    return out


def run_samples(samples: Sequence[Mapping[str, Any]], output: str | os.PathLike[str], *,
                config: Config | None = None, executor: str = "process", workers: int | None = None,
                timeout_s: float | None = 300.0, address: str | None = None, resume: bool = True,
                progress: Progress | None = None, lines: Sequence[int] | None = None,
                tasks: Mapping[str, Task] | None = None, retry_errors: bool = False) -> RunSummary:
    """Grade validated samples into ``output`` (JSONL), skipping ids already there.

    Parameters
    ----------
    samples : validated manifest entries (see :func:`~cvcheck.batch.manifest.load_manifest`)
    output : results file; created, or appended to when ``resume``
    executor : ``process`` (default), ``serial`` or ``ray``
    workers : worker processes / Ray CPUs (default: the CPUs available)
    timeout_s : per-sample limit (None or 0: none); a sample past it becomes an error result
    resume : skip ids already in ``output``; False starts the file afresh
    retry_errors : first drop the ``error`` results from ``output`` so those samples are graded again
    tasks : extra ``{name: Task}`` records to register in the workers (those of
        :data:`cvcheck.registry.TASKS` always are: workers are fresh processes)
    """
    run = get_executor(executor)
    cfg = config or Config()
    nworkers = default_workers() if workers is None else workers
    if isinstance(nworkers, bool) or not isinstance(nworkers, int) or nworkers < 1:
        raise InputError(f"workers must be an integer >= 1, got {workers!r}")
    if executor == "serial":
        nworkers = 1
    if timeout_s is not None and (isinstance(timeout_s, bool) or timeout_s < 0):
        raise InputError(f"timeout must be >= 0 seconds (0: none), got {timeout_s!r}")
    out = Path(output)
    if not resume and out.exists():
        out.unlink()
    retried = drop_records(out, lambda r: r.get("status") == "error") if retry_errors else 0
    t0 = time.perf_counter()
    writer = ResultWriter(out)
    try:
        done = writer.existing.ids
        ids = [str(s["id"]) for s in samples]
        summary = RunSummary(output=out, total=len(samples), torn_tail_repaired=writer.existing.torn_tail,
                             executor=executor, workers=nworkers,
                             extra_ids=sorted(done - set(ids)), retried=retried)
        todo = [i for i, sid in enumerate(ids) if sid not in done]
        summary.skipped = len(samples) - len(todo)
        todo_samples = [samples[i] for i in todo]
        if progress:
            progress(summary.skipped, summary.total, 0)

        def on_result(k: int, result: dict[str, Any], timing: dict[str, Any]) -> None:
            i = todo[k]
            line = lines[i] if lines is not None else None
            writer.write({**result, "sample": envelope(samples[i], line=line), "timing": timing})
            summary.graded += 1
            if result.get("status") == "error":
                summary.errors += 1
                if (result.get("error") or {}).get("code") == "timeout":
                    summary.timeouts += 1
            elif result.get("status") == "ok" and result.get("overall") == 1.0:
                summary.passed += 1
            if progress:
                progress(summary.skipped + summary.graded, summary.total, summary.errors)

        run(todo_samples, on_result, config=cfg, workers=nworkers, timeout_s=timeout_s or None, address=address,
            tasks={**TASKS, **(tasks or {})})
    finally:
        writer.close()
    summary.elapsed_s = time.perf_counter() - t0
    return summary


def run_manifest(manifest: str | os.PathLike[str] | Manifest, output: str | os.PathLike[str], **options: Any) -> RunSummary:
    """Load (if needed) and validate a manifest, then :func:`run_samples` it."""
    m = manifest if isinstance(manifest, Manifest) else load_manifest(manifest)
    if Path(output).resolve() == m.path.resolve():
        raise InputError("the results file must not be the manifest itself")
    return run_samples(m.samples, output, lines=m.lines or None, **options)
