"""Build a report folder from a results file: ``index.html``, ``summary.csv``, ``summary.md``,
``charts/*.png`` and ``overlays/*.png`` (full-size overlays of the failures shown)."""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path
from typing import Any, Mapping, Sequence

from .._version import __version__
from ..config import Config
from ..errors import InputError
from . import charts
from .html import Markup, esc, join, page, png_img, rel_href, table, tag, void
from .overlays import render_record, safe_name, thumbnail_data_uri
from .summary import summary_csv, summary_markdown
from .tables import (
    NONE_LABEL,
    Pivot,
    cascade,
    error_codes,
    failed_checks,
    failure_phi,
    group_value,
    is_verdict,
    metric_rows,
    passed,
    pct,
    pivot,
    rates_by,
    timing_rows,
)

Record = Mapping[str, Any]


def _pivot_html(t: Pivot, *, caption: str) -> Markup:
    """MMGR's table style: rows x tasks in %, the best value per column in bold, n in the tooltip."""
    best = {c: max((t.cells[(r, c)].rate or 0.0) for r in t.rows if (r, c) in t.cells) for c in t.cols}
    rows = []
    for r in t.rows:
        cells: list[Any] = [r]
        for c in t.cols:
            cell = t.cells.get((r, c))
            if cell is None:
                cells.append("—")
                continue
            text = pct(cell.rate)
            bold = len(t.rows) > 1 and cell.rate is not None and cell.rate == best[c] and cell.rate > 0
            cells.append(tag("span", text, class_="best" if bold else None,
                             title=f"{cell.passed}/{cell.verdicts} verdicts, {cell.errors} errors"))
        cells.append(pct(t.row_totals[r].rate))
        cells.append(t.row_totals[r].n)
        rows.append(cells)
    avg = ["All", *(pct(t.col_totals[c].rate) for c in t.cols), pct(t.total.rate), t.total.n]
    head = [t.row_key.capitalize(), *t.cols, "All", "n"]
    html = table(head, rows + [avg], caption=caption)
    return Markup(html.replace("<tr><td>All</td>", '<tr class="avg"><td>All</td>', 1))


def _metrics_by_model(sub: Sequence[Record], task: str, fine: Sequence[Any]) -> Markup:
    """MMGR's per-task table: one row per model, a column per fine-grained metric, then overall; the last
    row gives each column's denominator (``videos 6`` for a metric only videos have)."""
    models = sorted({group_value(r, "model") for r in sub})
    rows = []
    total = rates_by(sub, ()).get(())
    verdicts = total.verdicts if total else 0
    for name, recs in [*((m, [r for r in sub if group_value(r, "model") == m]) for m in models), ("All", sub)]:
        by_name = {m.name: m for m in metric_rows(recs)[0]}
        rate = rates_by(recs, ()).get(())
        rows.append([name, *(pct(by_name[m.name].mean) if m.name in by_name else "—" for m in fine),
                     pct(rate.rate if rate else None), rate.verdicts if rate else 0])
    html = table(["Model", *(f"{m.name} {m.arrow}" for m in fine), "overall ↑", "verdicts"], rows,
                 caption=f"{task}: fine-grained metrics by model (binary: % of the results that have the metric; "
                         "fractions: mean x 100; the last row says over what)")
    html = Markup(html.replace("<tr><td>All</td>", '<tr class="avg"><td>All</td>', 1))
    foot = tag("tr", join([tag("td", "n", class_="muted"),
                           *(tag("td", m.denominator(verdicts), class_="num muted") for m in fine),
                           tag("td", f"verdicts {verdicts}", class_="num muted"), tag("td", "")]))
    return Markup(html.replace("</tbody></table>", foot + "</tbody></table>", 1))


def _task_section(records: Sequence[Record], task: str, charts_dir: Path) -> Markup:
    sub = [r for r in records if r.get("task") == task]
    fine, diag = metric_rows(sub)
    cas = cascade(sub, task)
    parts: list[Any] = [tag("h3", f"Task {task}")]
    pics: list[Any] = []
    if fine:
        parts.append(_metrics_by_model(sub, task, fine))
        png = charts.metric_chart(task, fine, verdicts=sum(1 for r in sub if is_verdict(r)))
        (charts_dir / f"{safe_name(task)}-metrics.png").write_bytes(png)
        pics.append(png_img(png, alt=f"{task} fine-grained metrics"))
    if cas.steps and cas.verdicts:
        n = cas.verdicts
        rows = [[s.check, s.passed, pct(s.passed / n), s.cumulative, pct(s.cumulative / n)] for s in cas.steps]
        rows.append(["overall", cas.overall, pct(cas.overall / n), cas.overall, pct(cas.overall / n)])
        parts.append(table(["Gate check (in order)", "passes", "%", "passes it and all before", "%"], rows,
                           caption=f"{task}: metric cascade over {n} verdicts"))
        png = charts.cascade_chart(cas)
        (charts_dir / f"{safe_name(task)}-cascade.png").write_bytes(png)
        pics.append(png_img(png, alt=f"{task} metric cascade"))
    if pics:
        parts.append(tag("div", join(pics), class_="charts"))
    binary = [m.name for m in fine if m.binary]
    if len(binary) >= 2:
        phis = failure_phi(sub, binary)
        rows = [[a, *(("" if j <= i else _phi_cell(phis[(a, b)])) for j, b in enumerate(binary))]
                for i, a in enumerate(binary[:-1])]
        parts.append(table(["phi", *binary], rows, caption=f"{task}: co-occurrence of metric values (phi over the "
                           "verdicts that have both; n/a when one is constant)"))
    if diag:
        parts.append(tag("details", Markup(tag("summary", f"{len(diag)} diagnostics (IoUs, counts, timings)") +
                                           table(["Diagnostic", "n", "mean", "median", "min", "max"],
                                                 [[d.name, d.n, f"{d.mean:.4g}", f"{d.median:.4g}",
                                                   f"{d.minimum:.4g}", f"{d.maximum:.4g}"] for d in diag]))))
    return join(parts)


def _phi_cell(value: tuple[float | None, int]) -> Markup:
    phi, n = value
    return tag("span", "n/a" if phi is None else f"{phi:.3f}", title=f"n={n}")


def _pick_failures(records: Sequence[Record], limit: int) -> list[Record]:
    """Failing verdicts, spread over tasks and models (round robin), at most ``limit``."""
    groups: dict[tuple[str, str], list[Record]] = defaultdict(list)
    for r in records:
        if is_verdict(r) and not passed(r):
            groups[(str(r.get("task")), str((r.get("sample") or {}).get("model")))].append(r)
    picked: list[Record] = []
    queues = [list(v) for _, v in sorted(groups.items())]
    while len(picked) < limit and any(queues):
        for q in queues:
            if q and len(picked) < limit:
                picked.append(q.pop(0))
    return picked


def _gallery(failures: Sequence[Record], out: Path, config: Config) -> Markup:
    figs = []
    (out / "overlays").mkdir(parents=True, exist_ok=True)
    for stale in (out / "overlays").glob("*.png"):  # from an earlier report into the same folder
        stale.unlink()
    for r in failures:
        sid = str(r.get("id"))
        picture = render_record(r, config=config)
        sample = r.get("sample") or {}
        failed = ", ".join((r.get("gate") or {}).get("failed") or []) or "—"
        caption = [tag("b", sid), Markup("<br>"), f"{r.get('task')} · {sample.get('model', '—')} · "
                   f"{sample.get('difficulty', '—')} · {r.get('status')}", Markup("<br>"),
                   tag("span", f"failed: {failed}", class_="fail")]
        reason = (r.get("details") or {}).get("reason")
        if reason:
            caption += [Markup("<br>"), tag("span", str(reason)[:300], class_="muted")]
        answer = sample.get("answer")
        if isinstance(answer, str) and os.path.isabs(answer) and os.path.isfile(answer):  # a local file, never a URL
            caption += [Markup("<br>"), tag("a", "answer file", href=rel_href(answer, out))]
        if picture is not None:
            from ..media.write import save_image

            name = f"overlays/{safe_name(sid)}.png"
            save_image(out / name, picture)
            img = tag("a", void("img", src=thumbnail_data_uri(picture), alt="overlay of " + sid), href=rel_href(name))
        else:
            img = tag("div", "(no overlay for this sample)", class_="muted")
        figs.append(tag("figure", Markup(img + tag("figcaption", join(caption)))))
    return tag("div", join(figs), class_="gallery")


def make_folder(path: Path) -> None:
    """``mkdir -p`` with a clear error when a file is in the way or the place is not writable."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the folder {path}: {exc.strerror or exc}") from exc


def load_records(results: str | os.PathLike, *, full: bool = False) -> list[dict[str, Any]]:
    from ..batch.store import read_records, slim

    found = read_records(results, keep=None if full else slim)
    if not found.records:
        raise InputError(f"no results in {results}")
    return found.records


def _full_records(results: str | os.PathLike, ids: set[str]) -> dict[str, dict[str, Any]]:
    from ..batch.store import read_records

    return read_records(results, keep=lambda r: r if str(r["id"]) in ids else None).by_id()


def build_report(results: str | os.PathLike, out_dir: str | os.PathLike, *, config: Config | None = None,
                 group_by: Sequence[str] = (), max_gallery: int = 48, title: str | None = None) -> Path:
    """Write the report for ``results`` into ``out_dir``; returns the path of ``index.html``.

    Parameters
    ----------
    group_by : extra pivots by sample field (``metadata.NAME`` for metadata)
    max_gallery : failures shown with overlays (spread over tasks and models)
    """
    records = load_records(results)
    cfg = config or Config()
    out = Path(out_dir)
    charts_dir = out / "charts"
    make_folder(charts_dir)
    title = title or f"cvcheck report: {Path(results).name}"
    tasks = sorted({str(r.get("task")) for r in records})
    total = rates_by(records, ()).get((), None)
    assert total is not None
    cards = [("samples", total.n), ("verdicts", total.verdicts), ("overall", pct(total.rate) + " %"),
             ("unparseable", total.unparseable), ("errors", total.errors), ("tasks", len(tasks))]
    body: list[Any] = [tag("h1", title),
                       tag("p", f"cvcheck {__version__} · results file {Path(results).resolve()} · overall = % "
                           "of verdicts (ok + unparseable) whose gated overall is 1; errors are not verdicts.",
                           class_="muted"),
                       tag("div", join(tag("div", Markup(tag("b", v) + esc(k)), class_="card") for k, v in cards),
                           class_="cards")]
    body.append(tag("h2", "Primary score"))
    by_model = pivot(records, "model", "task")
    body.append(_pivot_html(by_model, caption="Overall (%) by model and task"))
    body.append(tag("div", png_img(_save(charts_dir, "overall-by-model.png",
                                         charts.pivot_bars(by_model, title="Overall (%) by model")),
                                   alt="overall by model"), class_="charts"))
    for key in ("difficulty", "modality", *group_by):
        t = pivot(records, key, "task")
        if t.rows != [NONE_LABEL]:  # nothing to group by (e.g. no difficulty in the manifest)
            body.append(_pivot_html(t, caption=f"Overall (%) by {key} and task"))
    body.append(tag("h2", "Fine-grained metrics and metric cascade"))
    body.extend(_task_section(records, t, charts_dir) for t in tasks)
    causes = failed_checks(records)
    if causes:
        body.append(tag("h2", "Why samples failed"))
        body.append(table(["Gate check", "failures"], list(causes.items()), caption="Failed gate checks"))
    picked = _pick_failures(records, max_gallery)
    full = _full_records(results, {str(r["id"]) for r in picked})  # overlays need the details
    failures = [full[str(r["id"])] for r in picked]
    n_fail = sum(1 for r in records if is_verdict(r) and not passed(r))
    body.append(tag("h2", f"Failure gallery ({len(failures)} of {n_fail} failing verdicts)"))
    body.append(tag("p", "Click a picture for the full-size overlay.", class_="muted"))
    body.append(_gallery(failures, out, cfg))
    errs = [r for r in records if r.get("status") == "error"]
    if errs:
        body.append(tag("h2", f"Errors ({len(errs)}: not verdicts)"))
        body.append(table(["Code", "count"], list(error_codes(errs).items()), caption="Error codes"))
        body.append(table(["id", "task", "code", "message"],
                          [[r.get("id"), r.get("task"), (r.get("error") or {}).get("code"),
                            str((r.get("error") or {}).get("message"))[:300]] for r in errs[:200]],
                          numeric_from=99))
    timing = timing_rows(records)
    if timing:
        body.append(tag("h2", "Grading time"))
        body.append(table(["Task", "modality", "n", "median s", "p95 s", "max s", "total s"], timing, numeric_from=2,
                          caption="Seconds per sample in the workers (from the results' timing fields)"))
    index = out / "index.html"
    index.write_text(page(title, join(body)), encoding="utf-8")
    (out / "summary.csv").write_text(summary_csv(records), encoding="utf-8")
    (out / "summary.md").write_text(summary_markdown(records, title=title), encoding="utf-8")
    return index


def _save(folder: Path, name: str, png: bytes) -> bytes:
    (folder / name).write_bytes(png)
    return png
