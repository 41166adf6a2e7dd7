"""Aggregate result records into the tables of a report (pure functions, no I/O).

Rates follow MMGR: the primary score is the share of verdicts (``ok`` and
``unparseable``; an unreadable output scores 0) whose gated overall is 1; ``error``
results are not verdicts and are counted apart. Fine-grained binary metrics are
reported as the share of verdicts where the metric is 1, fractional ones as means.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from ..stats import LOWER_IS_BETTER, MMGR_METRICS, phi_from_counts

Record = Mapping[str, Any]
NONE_LABEL = "(none)"


def group_value(record: Record, key: str) -> str:
    """``task``/``pipeline``/``modality``/``status`` from the result, else the sample field
    (``model``, ``difficulty``, or ``metadata.NAME``)."""
    if key in ("task", "pipeline", "modality", "status"):
        return str(record.get(key))
    sample = record.get("sample") or {}
    if key.startswith("metadata."):
        value = (sample.get("metadata") or {}).get(key.split(".", 1)[1])
    else:
        value = sample.get(key)
    return NONE_LABEL if value is None or value == "" else str(value)


def is_verdict(record: Record) -> bool:
    return record.get("status") in ("ok", "unparseable")


def passed(record: Record) -> bool:
    return record.get("status") == "ok" and record.get("overall") == 1.0


@dataclass
class Rate:
    """Counts behind one cell of a table."""

    n: int = 0            #: records
    verdicts: int = 0     #: ok + unparseable
    passed: int = 0
    unparseable: int = 0
    errors: int = 0

    @property
    def rate(self) -> float | None:
        return self.passed / self.verdicts if self.verdicts else None

    def add(self, record: Record) -> None:
        self.n += 1
        if is_verdict(record):
            self.verdicts += 1
            self.passed += passed(record)
            self.unparseable += record.get("status") == "unparseable"
        else:
            self.errors += 1


def rates_by(records: Iterable[Record], keys: Sequence[str]) -> dict[tuple[str, ...], Rate]:
    """One :class:`Rate` per distinct combination of ``keys`` (sorted)."""
    out: dict[tuple[str, ...], Rate] = defaultdict(Rate)
    for r in records:
        out[tuple(group_value(r, k) for k in keys)].add(r)
    return dict(sorted(out.items()))


@dataclass
class Pivot:
    """Rows x columns of rates (MMGR's model x task tables), with row/column totals."""

    row_key: str
    col_key: str
    rows: list[str]
    cols: list[str]
    cells: dict[tuple[str, str], Rate]
    row_totals: dict[str, Rate]
    col_totals: dict[str, Rate]
    total: Rate


def pivot(records: Sequence[Record], row_key: str, col_key: str) -> Pivot:
    cells: dict[tuple[str, str], Rate] = defaultdict(Rate)
    row_totals: dict[str, Rate] = defaultdict(Rate)
    col_totals: dict[str, Rate] = defaultdict(Rate)
    total = Rate()
    for r in records:
        rv, cv = group_value(r, row_key), group_value(r, col_key)
        cells[(rv, cv)].add(r)
        row_totals[rv].add(r)
        col_totals[cv].add(r)
        total.add(r)
    return Pivot(row_key, col_key, sorted(row_totals), sorted(col_totals), dict(cells), dict(row_totals),
                 dict(col_totals), total)


def _scalar(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and not (isinstance(value, float) and math.isnan(value)):
        return float(value)
    return None


@dataclass
class MetricRow:
    """One fine-grained metric of one task."""

    name: str
    n: int
    mean: float
    binary: bool
    lower_is_better: bool
    median: float | None = None
    minimum: float | None = None
    maximum: float | None = None
    modalities: tuple[str, ...] = ()  #: modalities of the verdicts that have it (e.g. video-only metrics)

    @property
    def arrow(self) -> str:
        return "↓" if self.lower_is_better else "↑"

    def denominator(self, verdicts: int) -> str:
        """What its rate is over, e.g. ``verdicts 30``, or ``videos 6`` for a metric only videos have."""
        if self.n != verdicts and len(self.modalities) == 1 and self.modalities[0] in ("image", "video"):
            return f"{self.modalities[0]}s {self.n}"
        return f"verdicts {self.n}"


def metric_rows(records: Iterable[Record]) -> tuple[list[MetricRow], list[MetricRow]]:
    """``(fine_grained, diagnostics)`` over the verdicts in ``records``.

    Fine-grained: MMGR's metrics (:data:`MMGR_METRICS`) and true/false metrics; the
    rest (IoUs, counts, timings) are diagnostics with median and range.
    """
    values: dict[str, list[float]] = defaultdict(list)
    booleans: dict[str, bool] = {}
    modalities: dict[str, set[str]] = defaultdict(set)
    order: list[str] = []
    for r in records:
        if not is_verdict(r):
            continue
        for k, v in (r.get("metrics") or {}).items():
            x = _scalar(v)
            if x is None:
                continue
            if k not in values:
                order.append(k)
            values[k].append(x)
            booleans[k] = booleans.get(k, True) and isinstance(v, bool)
            modalities[k].add(str(r.get("modality")))
    fine, diag = [], []
    for k in order:
        xs = values[k]
        binary = all(x in (0.0, 1.0) for x in xs)
        row = MetricRow(k, len(xs), statistics.fmean(xs), binary, k in LOWER_IS_BETTER,
                        modalities=tuple(sorted(modalities[k])))
        if k in MMGR_METRICS or (binary and booleans[k]):
            fine.append(row)
        else:
            row.median, row.minimum, row.maximum = statistics.median(xs), min(xs), max(xs)
            diag.append(row)
    return fine, diag


@dataclass
class CascadeStep:
    check: str
    passed: int
    cumulative: int


@dataclass
class Cascade:
    """Gate checks in order: each one's pass count and the count passing it and all before."""

    task: str
    verdicts: int
    steps: list[CascadeStep] = field(default_factory=list)
    overall: int = 0


def cascade(records: Iterable[Record], task: str) -> Cascade:
    """MMGR's metric cascade for ``task`` from the ``gate`` of each verdict."""
    rows = [r for r in records if r.get("task") == task and is_verdict(r) and r.get("gate")]
    checks: list[str] = []
    for r in rows:
        for c in r["gate"]["required"]:
            if c not in checks:
                checks.append(c)
    out = Cascade(task=task, verdicts=len(rows), overall=sum(passed(r) for r in rows))
    alive = list(rows)
    for c in checks:
        ok = [r for r in rows if c in r["gate"]["required"] and c not in r["gate"]["failed"]]
        alive = [r for r in alive if not (c in r["gate"]["failed"] or c not in r["gate"]["required"])]
        out.steps.append(CascadeStep(check=c, passed=len(ok), cumulative=len(alive)))
    return out


def failed_checks(records: Iterable[Record]) -> dict[str, int]:
    """How often each gate check failed among verdicts (most frequent first)."""
    counts: dict[str, int] = defaultdict(int)
    for r in records:
        if is_verdict(r) and r.get("gate"):
            for c in r["gate"]["failed"]:
                counts[c] += 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def error_codes(records: Iterable[Record]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for r in records:
        if r.get("status") == "error":
            counts[str((r.get("error") or {}).get("code", "?"))] += 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def failure_phi(records: Iterable[Record], metrics: Sequence[str]) -> dict[tuple[str, str], tuple[float | None, int]]:
    """Phi between pairs of binary metrics over the verdicts that have both (MMGR reports, e.g.,
    phi = 0.3821 between layout failure and wall crossing for Veo-3): ``(a, b) -> (phi, n)``."""
    rows = [r.get("metrics") or {} for r in records if is_verdict(r)]
    out = {}
    for i, a in enumerate(metrics):
        for b in metrics[i + 1:]:
            counts = [0, 0, 0, 0]  # n11, n10, n01, n00
            for m in rows:
                x, y = _scalar(m.get(a)), _scalar(m.get(b))
                if x in (0.0, 1.0) and y in (0.0, 1.0):
                    counts[(1 - int(x)) * 2 + (1 - int(y))] += 1
            out[(a, b)] = (phi_from_counts(*counts), sum(counts))
    return out


def timing_rows(records: Iterable[Record]) -> list[list[Any]]:
    """Grading seconds per (task, modality): n, median, 95th percentile, max, total."""
    secs: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in records:
        t = (r.get("timing") or {}).get("seconds")
        if isinstance(t, (int, float)):
            secs[(str(r.get("task")), str(r.get("modality")))].append(float(t))
    rows = []
    for (task, modality), xs in sorted(secs.items()):
        xs.sort()
        p95 = xs[min(len(xs) - 1, math.ceil(0.95 * len(xs)) - 1)]
        rows.append([task, modality, len(xs), f"{statistics.median(xs):.3f}", f"{p95:.3f}", f"{xs[-1]:.3f}",
                     f"{sum(xs):.1f}"])
    return rows


def pct(value: float | None, digits: int = 2) -> str:
    """MMGR's percent style: ``95.56``; an empty cell is ``—``."""
    return "—" if value is None else f"{100 * value:.{digits}f}"
