"""The audit folder: ``audit.json``, ``audit.md`` and a self-contained ``index.html`` whose
disagreeing samples link to their overlays (reused from a report folder when there)."""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any

from ..config import Config
from .html import join, page, rel_href, table, tag, void
from .overlays import render_record, safe_name, thumbnail_data_uri
from .tables import pct
from .text import md_text


def _fmt(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.3f}"


def _metric_rows(ms: list[Any]) -> list[list[Any]]:
    return [[m.metric, m.confusion.n, pct(m.confusion.agreement), _fmt(m.confusion.kappa), _fmt(m.confusion.phi),
             m.confusion.n11, m.confusion.n10, m.confusion.n01, m.confusion.n00, len(m.disagree)] for m in ms]


def _markdown(audit: Any) -> str:
    """``audit.md``: every name, id and metric from the data goes through :func:`md_text`."""
    a, b = (md_text(n) for n in audit.names)
    head = ["Metric", "n", "Agreement (%)", "Cohen's kappa", "phi", f"{a}=1 {b}=1", f"{a}=1 {b}=0",
            f"{a}=0 {b}=1", f"{a}=0 {b}=0", "disagreeing"]

    def md(rows: list[list[Any]]) -> str:
        out = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
        return "\n".join(out + ["| " + " | ".join(md_text(c) for c in r) + " |" for r in rows])

    parts = [f"# Audit: {a} vs {b}", "",
             f"{audit.matched} matched ids; {len(audit.errors)} skipped (an error on either side); "
             f"{len(audit.only_a)} only in {a}; {len(audit.only_b)} only in {b}.", "",
             "## All tasks", "", md(_metric_rows(audit.metrics)), ""]
    for task, ms in audit.by_task.items():
        parts += [f"## Task {md_text(task)}", "", md(_metric_rows(ms)), ""]
    parts += ["## Disagreeing samples", ""]
    parts += [f"- {md_text(d.id)} ({md_text(d.task)}, {md_text(d.model)}): "
              + ", ".join(f"{md_text(k)} {va}->{vb}" for k, (va, vb) in d.metrics.items())
              for d in audit.disagreements]
    return "\n".join(parts) + "\n"


def _keep_if_in(ids: set[str], record: dict[str, Any]) -> dict[str, Any] | None:
    return record if str(record["id"]) in ids else None


def _full_records(audit: Any, ids: list[str]) -> dict[str, Any]:
    """The records to draw overlays from (side A when it has a sample), details included:
    audits built from files hold slim records, so these are read again, once per file."""
    want_a = {i for i in ids if (audit.records_a.get(i) or {}).get("sample")}
    want_b = set(ids) - want_a
    if not audit.sources:
        return {**{i: audit.records_b[i] for i in want_b}, **{i: audit.records_a[i] for i in want_a}}
    from ..batch.store import read_records

    out: dict[str, Any] = {}
    for path, want in ((audit.sources[0], want_a), (audit.sources[1], want_b)):
        if want:
            out.update(read_records(path, keep=functools.partial(_keep_if_in, want)).by_id())
    return out


def _overlay_link(audit: Any, sid: str, out: Path, reuse: Path | None, config: Config, budget: list[int],
                  full: dict[str, Any]) -> Any:
    name = f"overlays/{safe_name(sid)}.png"
    if reuse is not None and (reuse / name).is_file():
        from ..media.image import load_image

        thumb = thumbnail_data_uri(load_image(reuse / name), max_side=160)
        return tag("a", void("img", src=thumb, alt="overlay"), href=rel_href(reuse / name, out))
    if budget[0] <= 0:
        return "—"
    record = full.get(sid)
    picture = render_record(record, config=config) if record else None
    if picture is None:
        return "—"
    from ..media.write import save_image

    budget[0] -= 1
    save_image(out / name, picture)
    return tag("a", void("img", src=thumbnail_data_uri(picture, max_side=160), alt="overlay"), href=rel_href(name))


def write_audit_folder(audit: Any, out_dir: str | os.PathLike, *, overlays_from: str | os.PathLike | None = None,
                       max_overlays: int = 100, config: Config | None = None) -> Path:
    """Write the audit folder; returns the path of its ``index.html``."""
    from .build import make_folder

    out = Path(out_dir)
    make_folder(out)
    for stale in (out / "overlays").glob("*.png"):  # from an earlier audit into the same folder
        stale.unlink()
    cfg = config or Config()
    reuse = Path(overlays_from) if overlays_from else None
    (out / "audit.json").write_text(json.dumps(audit.to_dict(), indent=1), encoding="utf-8")
    (out / "audit.md").write_text(_markdown(audit), encoding="utf-8")
    a, b = audit.names
    head = ["Metric", "n", "Agreement (%)", "Cohen's κ", "φ", f"{a}=1 {b}=1", f"{a}=1 {b}=0", f"{a}=0 {b}=1",
            f"{a}=0 {b}=0", "disagreeing"]
    body: list[Any] = [tag("h1", f"Audit: {a} vs {b}"),
                       tag("p", f"{audit.matched} matched ids; {len(audit.errors)} skipped (an error on either side); "
                           f"{len(audit.only_a)} only in {a}; {len(audit.only_b)} only in {b}. Metrics reduced "
                           "to 0/1: overall = pass/fail, constraint_violation > 0, completion_accuracy = 1.",
                           class_="muted"),
                       table(head, _metric_rows(audit.metrics), caption="All tasks")]
    models = sorted({m for _, m in audit.overall_by_model})
    tasks = sorted({t for t, _ in audit.overall_by_model})
    if audit.overall_by_model:
        rows = [[t, *(pct(audit.overall_by_model[(t, m)].agreement) if (t, m) in audit.overall_by_model else "—"
                      for m in models)] for t in tasks]
        body.append(table(["Task", *models], rows,
                          caption="Agreement on the overall verdict (%) by task and model (MMGR Table 5 style)"))
    for task, ms in audit.by_task.items():
        body.append(table(head, _metric_rows(ms), caption=f"Task {task}"))
    budget = [max_overlays]
    to_draw = [d.id for d in audit.disagreements
               if not (reuse is not None and (reuse / f"overlays/{safe_name(d.id)}.png").is_file())][:max_overlays]
    full = _full_records(audit, to_draw)
    rows = []
    for d in audit.disagreements:
        diffs = join([tag("div", f"{k}: {a}={va} {b}={vb}") for k, (va, vb) in d.metrics.items()])
        rows.append([d.id, d.task, d.model or "—", diffs, _overlay_link(audit, d.id, out, reuse, cfg, budget, full)])
    body.append(tag("h2", f"Disagreeing samples ({len(audit.disagreements)})"))
    body.append(table(["id", "task", "model", "metric: values", "overlay"], rows, numeric_from=99))
    index = out / "index.html"
    index.write_text(page(f"Audit: {a} vs {b}", join(body)), encoding="utf-8")
    return index
