"""Results files: one JSON record per line, appended durably, read back tolerantly.

A record is a :class:`~cvcheck.schema.Result` dictionary plus two envelope keys:
``sample`` (the manifest entry it graded: paths, model, difficulty, metadata, so the
report needs nothing else) and ``timing`` (seconds, worker; excluded when comparing
runs). Lines are written whole with one ``write`` + ``fsync``; a torn last line (the
writer was killed mid-write) is detected on reading and cut off before appending.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from ..errors import InputError
from ..schema import Result

TIMING_KEY = "timing"
SAMPLE_KEY = "sample"


def _is_result(rec: Any) -> bool:
    return (isinstance(rec, dict) and "id" in rec and "status" in rec
            and str(rec.get("schema", "")).startswith("cvcheck.result/"))


def make_record(result: Result, sample: Mapping[str, Any] | None = None, *,
                timing: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The JSON record of one graded sample."""
    rec = result.to_dict()
    if sample is not None:
        rec[SAMPLE_KEY] = dict(sample)
    if timing is not None:
        rec[TIMING_KEY] = dict(timing)
    return rec


def comparable(record: Mapping[str, Any]) -> dict[str, Any]:
    """A record without its timing fields (what two runs of the same work must share)."""
    return {k: v for k, v in record.items() if k != TIMING_KEY}


@dataclass
class ResultsFile:
    """What :func:`read_records` found in a results file."""

    records: list[dict[str, Any]] = field(default_factory=list)
    good_bytes: int = 0          #: length of the valid prefix (everything before a torn tail)
    torn_tail: bool = False      #: the last line was incomplete or not valid JSON
    duplicates: list[str] = field(default_factory=list)

    @property
    def ids(self) -> set[str]:
        return {str(r["id"]) for r in self.records}

    def by_id(self) -> dict[str, dict[str, Any]]:
        return {str(r["id"]): r for r in self.records}


def read_records(path: str | os.PathLike, *, must_exist: bool = True,
                 keep: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None) -> ResultsFile:
    """Read a results JSONL file, streaming it line by line.

    A bad *last* line (no newline or invalid JSON) is reported as ``torn_tail`` and
    ignored; a bad line elsewhere raises :class:`InputError` with its line number.
    Duplicate ids keep the first record and are listed in ``duplicates``. ``keep``
    maps each record to what is kept of it (None: drop it), to bound memory on big files.
    """
    p = Path(path)
    if not p.exists():
        if must_exist:
            raise InputError(f"results file {p} does not exist")
        return ResultsFile()
    out = ResultsFile()
    seen: set[str] = set()
    if not p.is_file():
        raise InputError(f"results file {p} is not a file")
    try:
        fh = open(p, "rb")  # noqa: SIM115 - closed by the with below
    except OSError as exc:
        raise InputError(f"cannot read results file {p}: {exc.strerror or exc}") from exc
    with fh:
        number = 0
        while True:
            line = fh.readline()
            if not line:
                break
            number += 1
            complete = line.endswith(b"\n")
            try:
                rec = json.loads(line.decode("utf-8")) if line.strip() else None
            except (ValueError, UnicodeDecodeError) as exc:
                if not complete or not fh.peek(1):
                    out.torn_tail = True
                    break
                raise InputError(f"{p}:{number}: corrupt results line ({exc})") from exc
            if not complete:  # complete JSON but no newline: the write was cut before its newline
                out.torn_tail = True
                break
            out.good_bytes += len(line)
            if rec is None:
                continue
            if not _is_result(rec):
                raise InputError(f"{p}:{number}: not a cvcheck result (no 'schema': 'cvcheck.result/...', "
                                 "'id' and 'status'); is this a manifest?")
            rid = str(rec["id"])
            if rid in seen:
                out.duplicates.append(rid)
                continue
            seen.add(rid)
            kept = keep(rec) if keep is not None else rec
            if kept is not None:
                out.records.append(kept)
    return out


def load_results(path: str | os.PathLike) -> list[Result]:
    """The :class:`Result` objects of a results file (envelope keys dropped)."""
    return [Result.from_dict(r) for r in read_records(path).records]


class ResultWriter:
    """Append records durably; on open, cut a torn tail left by a killed writer.

    ``existing`` holds what was in the file, each record cut to the ``keep`` keys (ids only
    by default). One writer per file at a time: :func:`~cvcheck.batch.runner.run_samples`
    holds :class:`~cvcheck.batch.lock.ResultsLock` around it.
    """

    def __init__(self, path: str | os.PathLike, *, fsync: bool = True, keep: Sequence[str] = ("id",)):
        self.path = Path(path)
        self._fd = -1
        if self.path.is_dir():
            raise InputError(f"results file {self.path} is a folder")
        keys = tuple(keep)
        existing = read_records(self.path, must_exist=False, keep=lambda r: {k: r[k] for k in keys if k in r})
        self.existing = existing
        self._fsync = fsync
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o644)
        except OSError as exc:
            raise InputError(f"cannot write results file {self.path}: {exc.strerror or exc}") from exc
        if existing.torn_tail or os.fstat(self._fd).st_size != existing.good_bytes:
            os.ftruncate(self._fd, existing.good_bytes)
            os.fsync(self._fd)
        os.lseek(self._fd, 0, os.SEEK_END)

    def write(self, record: Mapping[str, Any]) -> None:
        line = (json.dumps(record, allow_nan=False, separators=(",", ":")) + "\n").encode("utf-8")
        view = memoryview(line)
        while view:
            n = os.write(self._fd, view)
            view = view[n:]
        if self._fsync:
            os.fsync(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> "ResultWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_records(path: str | os.PathLike, records: Iterable[Mapping[str, Any]]) -> Path:
    """Write a whole results file at once (labels files, tests)."""
    p = Path(path)
    if p.exists():
        p.unlink()
    with ResultWriter(p, fsync=False) as w:
        for r in records:
            w.write(r)
    return p


def drop_records(path: str | os.PathLike, drop: Callable[[dict[str, Any]], bool]) -> int:
    """Rewrite a results file without the records ``drop`` selects (atomically: a temporary
    file, fsync'ed, then renamed over it). Returns how many were dropped."""
    p = Path(path)
    if not p.exists():
        return 0
    found = read_records(p)
    kept = [r for r in found.records if not drop(r)]
    tmp = p.with_name(p.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        for r in kept:
            fh.write(json.dumps(r, allow_nan=False, separators=(",", ":")) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, p)
    return len(found.records) - len(kept)


def iter_records(path: str | os.PathLike) -> Iterator[dict[str, Any]]:
    yield from read_records(path).records


def slim(record: dict[str, Any]) -> dict[str, Any]:
    """What the tables need of a record: ``details`` cut to its ``reason`` (memory on big files)."""
    out = dict(record)
    reason = (record.get("details") or {}).get("reason")
    out["details"] = {"reason": reason} if reason else {}
    return out
