"""The one result schema shared by every task.

A :class:`Result` is a frozen, JSON-serialisable verdict. ``status`` separates a
verdict (``ok``), an output that could not be read (``unparseable``: a verdict
scored 0) and a failure to grade (``error``: not a verdict, ``overall`` is None).

Examples
--------
>>> r = Result(id="a", task="maze", pipeline="pixel", modality="image",
...            status=Status.OK, overall=1.0, metrics={"cross_wall": 0},
...            gate=Gate(required=("no_cross_wall",), failed=()))
>>> Result.from_json(r.to_json()) == r
True
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Mapping

import numpy as np

from ._version import __version__
from .errors import scrub

SCHEMA_VERSION = "cvcheck.result/1"


class Status(str, Enum):
    """Whether a result is a verdict, an unreadable output, or a grading failure."""

    OK = "ok"
    UNPARSEABLE = "unparseable"
    ERROR = "error"


@dataclass(frozen=True)
class Gate:
    """The checks the gated ``overall`` required and those that failed."""

    required: tuple[str, ...]
    failed: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.failed

    @classmethod
    def from_checks(cls, checks: Mapping[str, bool]) -> "Gate":
        """Build a gate from ``{check_name: passed}`` (insertion order kept)."""
        return cls(required=tuple(checks), failed=tuple(k for k, ok in checks.items() if not ok))

    def to_dict(self) -> dict[str, Any]:
        return {"required": list(self.required), "failed": list(self.failed), "passed": self.passed}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Gate":
        return cls(required=tuple(data["required"]), failed=tuple(data["failed"]))


@dataclass(frozen=True)
class ErrorInfo:
    """Why a result has status ``error``."""

    code: str
    message: str


_PLAIN = (str, int, float, bool, type(None))


def to_jsonable(value: Any) -> Any:
    """Convert numpy scalars/arrays, tuples, enums and NaN into plain JSON values."""
    kind = type(value)
    if kind is str or kind is bool or kind is int or value is None:
        return value
    if kind is float:
        return None if math.isnan(value) or math.isinf(value) else value
    if kind is dict:
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [to_jsonable(v) for v in value]
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        f = float(value)
        return None if math.isnan(f) or math.isinf(f) else f
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, str):
        return str(value)
    raise TypeError(f"cannot serialise {type(value).__name__} into a result")


def normalise(mapping: Mapping[str, Any]) -> dict[str, Any]:
    """A mapping as it will read back from JSON (C-speed path for plain data)."""
    try:
        plain: dict[str, Any] = json.loads(json.dumps(mapping, allow_nan=False))
    except (TypeError, ValueError):
        plain = to_jsonable(dict(mapping))
    return plain


@dataclass(frozen=True)
class Result:
    """One verdict (or failure) for one sample.

    Attributes
    ----------
    id, task, pipeline, modality
        What was graded and how (``pipeline``: ``pixel``, ``ocr``, ``vlm``, ``regex``...;
        ``modality``: ``image``, ``video`` or ``text``).
    status
        :class:`Status`.
    overall
        The task's gated primary score (0/1 for MMGR tasks); None when ``status`` is error.
    metrics
        Fine-grained metrics by their MMGR names in snake_case, plus diagnostics.
    gate
        Which checks ``overall`` required and which failed.
    details
        Structured evidence (graph, path cells, crossings, per-frame data...).
    error
        Set only when ``status`` is error.
    """

    id: str
    task: str
    pipeline: str
    modality: str
    status: Status
    overall: float | None
    metrics: Mapping[str, Any] = field(default_factory=dict)
    gate: Gate | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    error: ErrorInfo | None = None
    config_hash: str = ""
    version: str = __version__
    schema: str = SCHEMA_VERSION

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status(self.status))
        if self.status is Status.ERROR and self.overall is not None:
            raise ValueError("an error result has overall=None")
        if self.status is Status.ERROR and self.error is None:
            raise ValueError("an error result needs error=ErrorInfo(code, message)")
        # Normalise to plain JSON values so equality holds across a JSON round trip.
        object.__setattr__(self, "metrics", normalise(self.metrics))
        object.__setattr__(self, "details", normalise(self.details))
        if self.overall is not None:
            object.__setattr__(self, "overall", float(self.overall))

    @property
    def passed(self) -> bool:
        """True when the gated overall is a success (``overall == 1``)."""
        return self.status is Status.OK and self.overall == 1.0

    def with_id(self, id: str) -> "Result":
        return replace(self, id=id)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "schema": self.schema,
            "id": self.id,
            "task": self.task,
            "pipeline": self.pipeline,
            "modality": self.modality,
            "status": self.status.value,
            "overall": self.overall,
            "metrics": dict(self.metrics),
            "gate": self.gate.to_dict() if self.gate else None,
            "details": dict(self.details),
            "version": self.version,
            "config_hash": self.config_hash,
        }
        if self.error is not None:
            out["error"] = {"code": self.error.code, "message": self.error.message}
        return out

    def to_json(self, *, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, sort_keys=False, allow_nan=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Result":
        schema = data.get("schema", SCHEMA_VERSION)
        if not str(schema).startswith("cvcheck.result/"):
            raise ValueError(f"not a cvcheck result (schema={schema!r})")
        err = data.get("error")
        gate = data.get("gate")
        return cls(
            id=str(data["id"]),
            task=data["task"],
            pipeline=data["pipeline"],
            modality=data["modality"],
            status=Status(data["status"]),
            overall=data.get("overall"),
            metrics=data.get("metrics") or {},
            gate=Gate.from_dict(gate) if gate else None,
            details=data.get("details") or {},
            error=ErrorInfo(err["code"], err["message"]) if err else None,
            config_hash=data.get("config_hash", ""),
            version=data.get("version", __version__),
            schema=schema,
        )

    @classmethod
    def from_json(cls, text: str) -> "Result":
        return cls.from_dict(json.loads(text))


@dataclass(frozen=True)
class Unparseable:
    """An answer that could not be read (no maze, no grid): a verdict scored 0, not an error.

    Analyses return it instead of their analysis (``Analysis | Unparseable``), like
    inspect_ai's unscored value: a named "could not score", distinct from "incorrect".
    """

    reason: str


def unparseable_result(
    reason: str, *, id: str, task: str, pipeline: str, modality: str, config_hash: str = "",
    metrics: Mapping[str, Any] | None = None, gate: Gate | None = None,
) -> Result:
    """The verdict for an unreadable answer: ``unparseable``, overall 0, the reason in ``details``.

    ``metrics`` and ``gate`` are the task's fail-safe values (e.g. a maze that cannot be
    read counts as changed); the reason is also the result's only note.
    """
    return Result(id=id, task=task, pipeline=pipeline, modality=modality, status=Status.UNPARSEABLE,
                  overall=0.0, metrics=metrics or {}, gate=gate,
                  details={"reason": reason, "notes": [reason]}, config_hash=config_hash)


def error_result(
    *, id: str, task: str, pipeline: str, modality: str, exc: BaseException, config_hash: str = ""
) -> Result:
    """Wrap an exception into an ``error`` result (batch mode never loses a sample)."""
    code = getattr(exc, "code", None) or type(exc).__name__
    message = scrub(str(exc)) or type(exc).__name__  # no object addresses: results stay deterministic
    return Result(
        id=id, task=task, pipeline=pipeline, modality=modality, status=Status.ERROR,
        overall=None, error=ErrorInfo(code=str(code), message=message[:2000]),
        config_hash=config_hash,
    )
