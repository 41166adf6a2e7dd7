"""Score a manifest into a results file: resumable, durable, on any executor.

Each finished sample (an error too) is appended as one line and fsync'ed before the
next is taken into account, so a run killed at any moment (``kill -9`` included)
loses at most the samples being graded; restarting skips every id already in the
file and cuts a torn last line. Results carry the manifest's ``model``,
``difficulty`` and ``metadata`` in their ``sample`` envelope for the report.

A run holds an exclusive lock on the results file (:mod:`cvcheck.batch.lock`) from
before its resume read to its last write, so a second run on the same file is refused
(or waits); and it resumes only into results graded with the same configuration
(:func:`config_mismatches`), unless told otherwise.
"""

from __future__ import annotations

import itertools
import os
import time
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..config import Config
from ..errors import InputError
from ..registry import TASKS, Task
from .executors import default_workers, get_executor
from .lock import ResultsLock
from .manifest import Manifest, load_manifest
from .store import ResultWriter, drop_records

#: what a resuming run keeps of each record already in the results file
_RESUME_KEYS = ("id", "task", "status", "config_hash")

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
    #: results kept although graded with another configuration (allowed by ``retry_errors``/``allow_mixed_config``)
    mixed_config: list[ConfigMismatch] = field(default_factory=list)

    @property
    def throughput(self) -> float:
        """Samples graded per second in this run."""
        return self.graded / self.elapsed_s if self.elapsed_s > 0 else 0.0


@dataclass(frozen=True)
class ConfigMismatch:
    """Results of one task in a results file whose ``config_hash`` is not what this run's config gives."""

    task: str
    found: str            #: the config_hash in the file
    count: int            #: how many results carry it
    expected: str | None  #: this run's hash for the task (None: the task does not declare its config sections)

    def __str__(self) -> str:
        want = f"this run's is {self.expected}" if self.expected else "this run's config gives another"
        return f"task {self.task}: {self.count} result(s) with config_hash {self.found} ({want})"


def _section_names() -> list[str]:
    return [f.name for f in fields(Config)]


def expected_hashes(config: Config, task: Task | None) -> set[str]:
    """The ``config_hash`` values ``config`` gives results of ``task``: one when the task declares
    its :attr:`~cvcheck.registry.Task.config_sections`, else those of every combination of sections."""
    if task is not None and task.config_sections is not None:
        return {config.section_hash(*task.config_sections)}
    names = _section_names()
    return {config.section_hash(*combo) for k in range(1, len(names) + 1)
            for combo in itertools.combinations(names, k)}


def config_mismatches(records: Iterable[Mapping[str, Any]], config: Config,
                      tasks: Mapping[str, Task] | None = None) -> list[ConfigMismatch]:
    """Results whose ``config_hash`` differs from what ``config`` gives their task, grouped by (task, hash).

    Results without a hash (e.g. a timeout, recorded by the executor) are not compared.
    """
    known = {**TASKS, **(tasks or {})}
    cache: dict[str, set[str]] = {}
    counts: dict[tuple[str, str], int] = {}
    for r in records:
        found = r.get("config_hash")
        if not found or not isinstance(found, str):
            continue
        name = str(r.get("task"))
        if name not in cache:
            cache[name] = expected_hashes(config, known.get(name))
        if found not in cache[name]:
            counts[(name, found)] = counts.get((name, found), 0) + 1
    out = []
    for (name, found), n in sorted(counts.items()):
        task = known.get(name)
        expected = config.section_hash(*task.config_sections) if task and task.config_sections is not None else None
        out.append(ConfigMismatch(name, found, n, expected))
    return out


def mismatch_message(output: Path, mismatches: Sequence[ConfigMismatch]) -> str:
    """Why a resume is refused, and the three ways on."""
    listed = "; ".join(str(m) for m in mismatches[:10]) + (f"; and {len(mismatches) - 10} more"
                                                          if len(mismatches) > 10 else "")
    return (f"{output} holds results graded with another configuration than this run's ({listed}). "
            "Resuming would grade nothing again and mix configurations. Choose: --restart (discard the file "
            "and grade everything with this configuration), --retry-errors (grade only the error results "
            "again; the other results keep their configuration), or --allow-mixed-config (resume anyway)")


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
                tasks: Mapping[str, Task] | None = None, retry_errors: bool = False,
                allow_mixed_config: bool = False, wait: bool = False,
                on_wait: Callable[[str], None] | None = None) -> RunSummary:
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
    allow_mixed_config : resume into results graded with another configuration (otherwise refused with
        :class:`~cvcheck.errors.InputError`, unless ``retry_errors``; see :func:`config_mismatches`)
    wait : when another run holds ``output``, wait for it (calling ``on_wait(message)`` once) instead of
        raising :class:`~cvcheck.batch.lock.ResultsLockedError`
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
    if out.is_dir():
        raise InputError(f"results file {out} is a folder")
    t0 = time.perf_counter()
    with ResultsLock(out, wait=wait, on_wait=on_wait):
        if not resume and out.exists():
            out.unlink()
        retried = drop_records(out, lambda r: r.get("status") == "error") if retry_errors else 0
        writer = ResultWriter(out, keep=_RESUME_KEYS)
        try:
            mixed = config_mismatches(writer.existing.records, cfg, tasks)
            if mixed and not (retry_errors or allow_mixed_config):
                raise InputError(mismatch_message(out, mixed))
            done = writer.existing.ids
            ids = [str(s["id"]) for s in samples]
            summary = RunSummary(output=out, total=len(samples), torn_tail_repaired=writer.existing.torn_tail,
                                 executor=executor, workers=nworkers, extra_ids=sorted(done - set(ids)),
                                 retried=retried, mixed_config=mixed)
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

            run(todo_samples, on_result, config=cfg, workers=nworkers, timeout_s=timeout_s or None,
                address=address, tasks={**TASKS, **(tasks or {})})
        finally:
            writer.close()
    summary.elapsed_s = time.perf_counter() - t0
    return summary


def run_manifest(manifest: str | os.PathLike[str] | Manifest, output: str | os.PathLike[str],
                 **options: Any) -> RunSummary:
    """Load (if needed) and validate a manifest, then :func:`run_samples` it."""
    m = manifest if isinstance(manifest, Manifest) else load_manifest(manifest)
    if Path(output).resolve() == m.path.resolve():
        raise InputError("the results file must not be the manifest itself")
    return run_samples(m.samples, output, lines=m.lines or None, **options)
