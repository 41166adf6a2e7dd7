"""CSV and markdown summaries of a results file (for papers and diffs)."""

from __future__ import annotations

import csv
import io
from typing import Any, Mapping, Sequence

from .tables import NONE_LABEL, group_value, is_verdict, metric_rows, pct, pivot, rates_by
from .text import csv_cell, md_text

Record = Mapping[str, Any]
CSV_KEYS = ("task", "model", "difficulty")


def summary_csv(records: Sequence[Record], *, keys: Sequence[str] = CSV_KEYS) -> str:
    """Long format: one row per (task, model, difficulty) with counts and the overall rate. Text cells that
    a spreadsheet would run as a formula are prefixed with ``'`` (:func:`~cvcheck.report.text.csv_cell`)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([csv_cell(k) for k in (*keys, "samples", "verdicts", "passed", "overall_pct", "unparseable",
                                      "errors")])
    for group, r in rates_by(records, keys).items():
        w.writerow([csv_cell(v) for v in (*group, r.n, r.verdicts, r.passed,
                                          pct(r.rate) if r.rate is not None else "", r.unparseable, r.errors)])
    return buf.getvalue()


def _md_table(headers: Sequence[Any], rows: Sequence[Sequence[Any]]) -> str:
    """A GFM table; every cell is text (:func:`~cvcheck.report.text.md_text`) except :class:`Bold` ones."""
    def cell(v: Any) -> str:
        return f"**{md_text(v)}**" if isinstance(v, Bold) else md_text(v)

    lines = ["| " + " | ".join(cell(h) for h in headers) + " |",
             "|" + "|".join("---" if i == 0 else "---:" for i in range(len(headers))) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


class Bold(str):
    """A Markdown table cell shown in bold (a label of ours, not data)."""


def pivot_markdown(records: Sequence[Record], row_key: str, col_key: str = "task") -> str:
    t = pivot(records, row_key, col_key)
    rows = [[r, *(pct(t.cells[(r, c)].rate) if (r, c) in t.cells else "—" for c in t.cols),
             pct(t.row_totals[r].rate)] for r in t.rows]
    rows.append([Bold("All"), *(pct(t.col_totals[c].rate) for c in t.cols), pct(t.total.rate)])
    return _md_table([row_key.capitalize(), *t.cols, "All"], rows)


def summary_markdown(records: Sequence[Record], *, title: str) -> str:
    """Overall (%) by model x task and difficulty x task, then fine-grained metrics per task."""
    parts = [f"# {md_text(title)}", "", f"{len(records)} results; overall = % of verdicts (ok + unparseable) "
             "whose gated overall is 1; errors are excluded and counted apart.", ""]
    parts += ["## Overall (%) by model", "", pivot_markdown(records, "model"), ""]
    if {group_value(r, "difficulty") for r in records} != {NONE_LABEL}:
        parts += ["## Overall (%) by difficulty", "", pivot_markdown(records, "difficulty"), ""]
    for task in sorted({str(r.get("task")) for r in records}):
        sub = [r for r in records if r.get("task") == task]
        fine, _ = metric_rows(sub)
        if not fine:
            continue
        rows: list[list[Any]] = []
        models = sorted({group_value(r, "model") for r in sub})
        groups = [(m, [r for r in sub if group_value(r, "model") == m]) for m in models]
        for name, recs in [*groups, (Bold("All"), sub)]:
            by_name = {m.name: m for m in metric_rows(recs)[0]}
            rate = rates_by(recs, ()).get(())
            rows.append([name, *(pct(by_name[m.name].mean) if m.name in by_name else "—" for m in fine),
                         pct(rate.rate if rate else None)])
        verdicts = sum(1 for r in sub if is_verdict(r))
        rows.append([Bold("n"), *(m.denominator(verdicts) for m in fine), f"verdicts {verdicts}"])
        parts += [f"## {md_text(task)}: fine-grained metrics (%) by model", "",
                  _md_table(["Model", *(f"{m.name} {m.arrow}" for m in fine), "overall ↑"], rows), ""]
    return "\n".join(parts)
