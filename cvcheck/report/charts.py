"""Report charts with matplotlib's Agg backend (no display needed): PNG bytes out.

Every label from data (models, tasks, metric and check names) goes through
:func:`~cvcheck.report.text.chart_text`: no mathtext, nothing unencodable.
"""

from __future__ import annotations

import io
from typing import Sequence

from .tables import Cascade, MetricRow, Pivot
from .text import chart_text

PALETTE = ("#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C")


def _figure(width: float, height: float):  # -> (Figure, Axes)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=110)
    ax = fig.subplots()
    return fig, ax


def _png(fig) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def pivot_bars(table: Pivot, *, title: str) -> bytes:
    """Grouped bars: one group per column value (task), one bar per row value (model)."""
    import numpy as np

    fig, ax = _figure(max(5.0, 1.2 * len(table.cols) * max(1, len(table.rows)) * 0.5 + 2), 3.6)
    x = np.arange(len(table.cols))
    width = 0.8 / max(1, len(table.rows))
    for i, row in enumerate(table.rows):
        heights = []
        for col in table.cols:
            cell = table.cells.get((row, col))
            heights.append(100 * cell.rate if cell is not None and cell.rate is not None else 0.0)
        bars = ax.bar(x + (i - (len(table.rows) - 1) / 2) * width, heights, width, label=chart_text(row),
                      color=PALETTE[i % len(PALETTE)])
        ax.bar_label(bars, fmt="%.0f", fontsize=7, padding=1)
    ax.set_xticks(x, [chart_text(c) for c in table.cols], rotation=20 if len(table.cols) > 4 else 0)
    ax.set_ylim(0, 105)
    ax.set_ylabel("overall (%)")
    ax.set_title(chart_text(title, limit=80), fontsize=10)
    if len(table.rows) > 1:
        ax.legend(fontsize=7, frameon=False, ncols=min(4, len(table.rows)))
    ax.spines[["top", "right"]].set_visible(False)
    return _png(fig)


def cascade_chart(c: Cascade) -> bytes:
    """Share of verdicts passing each gate check alone and cumulatively, then overall."""
    import numpy as np

    labels = [chart_text(s.check) for s in c.steps] + ["overall"]
    single = [s.passed for s in c.steps] + [c.overall]
    cumul = [s.cumulative for s in c.steps] + [c.overall]
    n = max(1, c.verdicts)
    fig, ax = _figure(max(4.5, 1.1 * len(labels) + 1.5), 3.2)
    x = np.arange(len(labels))
    ax.bar(x - 0.2, [100 * v / n for v in single], 0.4, label="passes this check", color=PALETTE[0])
    bars = ax.bar(x + 0.2, [100 * v / n for v in cumul], 0.4, label="passes it and all before", color=PALETTE[2])
    ax.bar_label(bars, fmt="%.0f", fontsize=7, padding=1)
    ax.set_xticks(x, labels, rotation=20, fontsize=8)
    ax.set_ylim(0, 105)
    ax.set_ylabel("% of verdicts")
    ax.set_title(f"{chart_text(c.task)}: metric cascade (n={c.verdicts})", fontsize=10)
    ax.legend(fontsize=7, frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    return _png(fig)


def metric_chart(task: str, rows: Sequence[MetricRow], *, verdicts: int | None = None) -> bytes:
    """Horizontal bars of fine-grained metric rates (failure modes in red); a metric that not all
    ``verdicts`` have is labelled with its own denominator (``videos 6``)."""
    fig, ax = _figure(5.5, 0.45 * max(2, len(rows)) + 1.0)
    names = [f"{chart_text(r.name)} {r.arrow}" + (f" ({r.denominator(verdicts)})"
                                                   if verdicts is not None and r.n != verdicts else "")
             for r in rows][::-1]
    vals = [100 * r.mean for r in rows][::-1]
    colors = [PALETTE[3] if r.lower_is_better else PALETTE[0] for r in rows][::-1]
    bars = ax.barh(names, vals, color=colors)
    ax.bar_label(bars, fmt="%.1f", fontsize=7, padding=2)
    ax.set_xlim(0, 110)
    ax.set_xlabel("% of the results that have it (fractions: mean x 100)")
    ax.set_title(f"{chart_text(task)}: fine-grained metrics", fontsize=10)
    ax.tick_params(axis="y", labelsize=8)
    ax.spines[["top", "right"]].set_visible(False)
    return _png(fig)
