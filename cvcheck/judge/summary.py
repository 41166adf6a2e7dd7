"""Summaries of per-sample judged results (rates over verdicts; errors counted apart)."""

from __future__ import annotations

from typing import Any, Sequence

from ..schema import Result, Status
from .mmgr_spec import SPECS


def summarize(results: Sequence[Result]) -> dict[str, Any]:
    """Per task: counts, overall rate, metric means, composite rates and (ARC) the cascade.

    ``unparseable`` results count as verdicts scored 0; ``error`` results are excluded
    from every rate and counted in ``n_error``.
    """
    by_task: dict[str, list[Result]] = {}
    for r in results:
        by_task.setdefault(r.task, []).append(r)
    out: dict[str, Any] = {}
    for task, rs in sorted(by_task.items()):
        verdicts = [r for r in rs if r.status is not Status.ERROR]
        entry: dict[str, Any] = {
            "n": len(rs), "n_ok": sum(r.status is Status.OK for r in rs),
            "n_unparseable": sum(r.status is Status.UNPARSEABLE for r in rs),
            "n_error": len(rs) - len(verdicts),
            "overall": sum(float(r.overall or 0.0) for r in verdicts) / len(verdicts) if verdicts else None,
        }
        means: dict[str, float] = {}
        for name in sorted({k for r in verdicts for k, v in r.metrics.items() if _number(v)}):
            vals = [float(r.metrics[name]) for r in verdicts if _number(r.metrics.get(name))]
            means[name] = sum(vals) / len(vals)
        entry["metrics"] = means
        spec = SPECS.get(task)
        if spec is not None and spec.cascade:
            entry["cascade"] = {c: means.get(c) for c in spec.cascade}
            grid, color = means.get("grid_integrity"), means.get("color_accuracy")
            entry["cascade"]["color_to_grid_ratio"] = color / grid if grid and color is not None else None
        out[task] = entry
    return out


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)
