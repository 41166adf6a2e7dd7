"""Agreement between two result sets, metric by metric (MMGR's Table 5 and its phi coefficients).

Typical pairs: the pixel verifier vs a VLM judge, or a verifier vs human labels. Samples
are matched by ``id``; a pair where either side is an ``error`` is not compared. Each
metric is reduced to 0/1 (:func:`binarise`): binary metrics as they are, ``overall`` as
pass/fail (an unparseable output fails), MMGR's fractions at their gate endpoints
(constraint violation > 0, completion accuracy = 1).

>>> c = Confusion(n11=20, n10=5, n01=10, n00=15)
>>> round(c.agreement, 4), round(c.kappa, 4), round(c.phi, 6)
(0.7, 0.4, 0.408248)
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from .stats import MMGR_METRICS, Confusion

Record = Mapping[str, Any]
#: fractional metrics -> their gate endpoint as a 0/1 value
ENDPOINTS = {"constraint_violation": lambda v: int(v > 0), "completion_accuracy": lambda v: int(v >= 1.0)}


def binarise(metric: str, value: Any, record: Record | None = None) -> int | None:
    """The 0/1 value of ``metric`` (``overall`` needs ``record``); None when not binary."""
    if metric == "overall":
        if record is None or record.get("status") not in ("ok", "unparseable"):
            return None
        return int(record.get("status") == "ok" and record.get("overall") == 1.0)
    if value is None or isinstance(value, (dict, list, str)):
        return None
    if metric in ENDPOINTS:
        return ENDPOINTS[metric](float(value))
    if isinstance(value, bool) or value in (0, 1):
        return int(value)
    return None


@dataclass
class MetricAgreement:
    metric: str
    confusion: Confusion
    disagree: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        c = self.confusion
        return {"metric": self.metric, "n": c.n, "agreement": c.agreement, "kappa": c.kappa, "phi": c.phi,
                "confusion": {"a0_b0": c.n00, "a0_b1": c.n01, "a1_b0": c.n10, "a1_b1": c.n11},
                "disagreeing_ids": list(self.disagree)}


@dataclass
class Disagreement:
    id: str
    task: str
    model: str | None
    metrics: dict[str, tuple[int, int]]  #: metric -> (A value, B value)


@dataclass
class Audit:
    """Agreement of result set A with result set B."""

    names: tuple[str, str]
    matched: int
    only_a: list[str]
    only_b: list[str]
    errors: list[str]                                   #: matched ids where either side is an error
    metrics: list[MetricAgreement]                      #: all tasks together
    by_task: dict[str, list[MetricAgreement]]
    overall_by_model: dict[tuple[str, str], Confusion]  #: (task, model) -> overall agreement
    disagreements: list[Disagreement]
    records_a: dict[str, Record] = field(default_factory=dict, repr=False)
    records_b: dict[str, Record] = field(default_factory=dict, repr=False)
    sources: tuple[str, str] | None = None  #: the files read (records were slimmed: details dropped)

    def metric(self, name: str) -> MetricAgreement | None:
        return next((m for m in self.metrics if m.metric == name), None)

    def to_dict(self) -> dict[str, Any]:
        return {"names": list(self.names), "matched": self.matched, "only_a": self.only_a, "only_b": self.only_b,
                "errors": self.errors, "metrics": [m.to_dict() for m in self.metrics],
                "by_task": {t: [m.to_dict() for m in ms] for t, ms in self.by_task.items()},
                "overall_by_model": [{"task": t, "model": m, "n": c.n, "agreement": c.agreement}
                                     for (t, m), c in sorted(self.overall_by_model.items())],
                "disagreements": [{"id": d.id, "task": d.task, "model": d.model,
                                   "metrics": {k: list(v) for k, v in d.metrics.items()}} for d in self.disagreements]}


def _metric_names(a: Record, b: Record, chosen: Sequence[str] | None) -> list[str]:
    if chosen:
        return list(chosen)
    ma, mb = a.get("metrics") or {}, b.get("metrics") or {}
    return ["overall"] + [k for k in ma if k in mb and k in MMGR_METRICS]


def audit_records(a: Iterable[Record], b: Iterable[Record], *, metrics: Sequence[str] | None = None,
                  names: tuple[str, str] = ("A", "B")) -> Audit:
    """Compare two result sets by id (see module docstring)."""
    ra = {str(r["id"]): r for r in a}
    rb = {str(r["id"]): r for r in b}
    common = [i for i in ra if i in rb]
    table: dict[str, Confusion] = {}
    per_task: dict[str, dict[str, Confusion]] = defaultdict(dict)
    dis_ids: dict[tuple[str, str], list[str]] = defaultdict(list)
    by_model: dict[tuple[str, str], Confusion] = defaultdict(Confusion)
    errors, disagreements = [], []
    order: list[str] = []
    for sid in common:
        x, y = ra[sid], rb[sid]
        if x.get("status") == "error" or y.get("status") == "error":
            errors.append(sid)
            continue
        task = str(x.get("task"))
        model = (x.get("sample") or y.get("sample") or {}).get("model")
        differ = {}
        for m in _metric_names(x, y, metrics):
            va = binarise(m, (x.get("metrics") or {}).get(m), x)
            vb = binarise(m, (y.get("metrics") or {}).get(m), y)
            if va is None or vb is None:
                continue
            if m not in table:
                order.append(m)
            table[m] = table.get(m, Confusion()).add(va, vb)
            per_task[task][m] = per_task[task].get(m, Confusion()).add(va, vb)
            if m == "overall":
                by_model[(task, str(model))] = by_model[(task, str(model))].add(va, vb)
            if va != vb:
                differ[m] = (va, vb)
                dis_ids[(task, m)].append(sid)
        if differ:
            disagreements.append(Disagreement(sid, task, None if model is None else str(model), differ))
    all_dis: dict[str, list[str]] = defaultdict(list)
    for (_task, m), ids in dis_ids.items():
        all_dis[m].extend(ids)
    return Audit(
        names=names, matched=len(common), only_a=sorted(set(ra) - set(rb)), only_b=sorted(set(rb) - set(ra)),
        errors=errors, metrics=[MetricAgreement(m, table[m], all_dis[m]) for m in order],
        by_task={t: [MetricAgreement(m, c, dis_ids[(t, m)]) for m, c in cs.items()]
                 for t, cs in sorted(per_task.items())},
        overall_by_model=dict(by_model), disagreements=disagreements, records_a=ra, records_b=rb)


def audit_files(a: str | os.PathLike, b: str | os.PathLike, *, metrics: Sequence[str] | None = None,
                names: tuple[str, str] | None = None) -> Audit:
    """:func:`audit_records` over two results files."""
    from pathlib import Path

    from .batch.store import read_records, slim

    labels = names or (Path(a).stem, Path(b).stem)
    audit = audit_records(read_records(a, keep=slim).records, read_records(b, keep=slim).records,
                          metrics=metrics, names=labels)
    audit.sources = (str(a), str(b))
    return audit


def fmt(value: float | None, *, percent: bool = False) -> str:
    if value is None:
        return "n/a"
    return f"{100 * value:.2f}" if percent else f"{value:.3f}"


def audit_text(audit: Audit) -> str:
    """A plain-text summary (what the CLI prints); names and ids from the data are cleaned of
    characters a terminal cannot take (lone surrogates, control characters)."""
    from .report.text import clean_text

    a, b = (clean_text(n) for n in audit.names)
    lines = [f"audit: {a} vs {b}: {audit.matched} matched ids, {len(audit.errors)} with an error (skipped), "
             f"{len(audit.only_a)} only in {a}, {len(audit.only_b)} only in {b}",
             f"{'metric':<28}{'n':>6}{'agree %':>10}{'kappa':>8}{'phi':>8}   [[A0B0 A0B1] [A1B0 A1B1]]"]
    for m in audit.metrics:
        c = m.confusion
        lines.append(f"{clean_text(m.metric):<28}{c.n:>6}{fmt(c.agreement, percent=True):>10}{fmt(c.kappa):>8}"
                     f"{fmt(c.phi):>8}   {c.matrix()}")
    lines.append(f"{len(audit.disagreements)} disagreeing sample(s)")
    for d in audit.disagreements[:20]:
        diffs = ", ".join(f"{clean_text(k)}: {va}->{vb}" for k, (va, vb) in d.metrics.items())
        lines.append(f"  {clean_text(d.id)} [{clean_text(d.task)}] {diffs}")
    if len(audit.disagreements) > 20:
        lines.append(f"  ... {len(audit.disagreements) - 20} more (see the audit folder)")
    return "\n".join(lines)


def write_audit(audit: Audit, out_dir: str | os.PathLike, *, overlays_from: str | os.PathLike | None = None,
                max_overlays: int = 100, config: Any = None) -> Any:
    """Write ``audit.json``, ``audit.md`` and ``index.html`` (disagreements linked to overlays)."""
    from .report.audit_page import write_audit_folder

    return write_audit_folder(audit, out_dir, overlays_from=overlays_from, max_overlays=max_overlays,
                              config=config)
