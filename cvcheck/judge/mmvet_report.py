"""MM-Vet scores from a grade file, exactly as the official ``export_result``.

Per run ``i``: a capability's score is the sum of the run-``i`` scores of the samples
requiring it, divided by their number, x 100; each exact capability *set* (16 in
MM-Vet v1) likewise; the total over all samples. Reported: the mean over runs rounded
to ``decimal_places``; ``std`` is the population standard deviation (``np.std``) of the
per-run totals; ``runs`` lists the per-run totals.

Capability sets are compared as sets. The official column order and names depend on
Python's set iteration order (not reproducible across processes); here columns are
sorted by sample count (descending, ties by first appearance in the data file) and a
set's name joins its capabilities in the order rec, ocr, know, gen, spat, math.
"""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import InputError

CAPABILITY_ORDER = ("rec", "ocr", "know", "gen", "spat", "math")


def capability_set_name(caps: frozenset[str]) -> str:
    known = [c for c in CAPABILITY_ORDER if c in caps]
    return "_".join(known + sorted(caps - set(CAPABILITY_ORDER)))


@dataclass(frozen=True)
class MmvetScores:
    """Aggregated scores. ``per_run`` maps each column to its per-run scores (x 100)."""

    capabilities: dict[str, float]             #: column -> mean over runs (rounded)
    capability_sets: dict[frozenset[str], float]
    total: float
    std: float
    runs: tuple[float, ...]                    #: per-run totals (rounded)
    n_samples: int
    counts: dict[str, int]
    set_counts: dict[frozenset[str], int]
    decimal_places: int

    def to_dict(self) -> dict[str, Any]:
        return {"total": self.total, "std": self.std, "runs": list(self.runs), "n_samples": self.n_samples,
                "capabilities": dict(self.capabilities),
                "capability_sets": {capability_set_name(k): v for k, v in self.capability_sets.items()},
                "counts": dict(self.counts),
                "set_counts": {capability_set_name(k): v for k, v in self.set_counts.items()}}


def _round(x: float, dp: int) -> float:
    return float(np.round(x, dp))


def aggregate(grades: Mapping[str, Mapping[str, Sequence[Any]]], data: Mapping[str, Mapping[str, Any]], *,
              runs: int, decimal_places: int = 1, subset: set[str] | None = None) -> MmvetScores:
    """Aggregate a grade file over ``runs`` runs (every sample must have them all)."""
    ids = [k for k in data if subset is None or k in subset]
    if not ids:
        raise InputError("no MM-Vet samples to aggregate")
    short = [k for k in ids if len(grades.get(k, {}).get("score", [])) < runs]
    if short:
        raise InputError(f"{len(short)} sample(s) lack {runs} graded run(s), e.g. {short[:5]}")
    caps = {k: frozenset(data[k]["capability"]) for k in ids}
    counter: Counter[str] = Counter()
    set_counts: dict[frozenset[str], int] = {}
    for k in ids:
        for c in sorted(caps[k], key=lambda c: (CAPABILITY_ORDER + (c,)).index(c)):
            counter[c] += 1
        set_counts[caps[k]] = set_counts.get(caps[k], 0) + 1
    cap_cols = [c for c, _ in counter.most_common()]
    set_cols = sorted(set_counts, key=lambda s: -set_counts[s])  # stable: ties keep first appearance
    scores = np.array([[float(grades[k]["score"][i]) for i in range(runs)] for k in ids])  # (N, runs)
    cap_mask = np.array([[c in caps[k] for k in ids] for c in cap_cols], dtype=np.float64)
    set_mask = np.array([[caps[k] == s for k in ids] for s in set_cols], dtype=np.float64)
    cap_runs = cap_mask @ scores / cap_mask.sum(1, keepdims=True) * 100   # (n_caps, runs)
    set_runs = set_mask @ scores / set_mask.sum(1, keepdims=True) * 100
    total_runs = scores.sum(0) / len(ids) * 100
    dp = decimal_places
    return MmvetScores(
        capabilities={c: _round(cap_runs[j].mean(), dp) for j, c in enumerate(cap_cols)},
        capability_sets={s: _round(set_runs[j].mean(), dp) for j, s in enumerate(set_cols)},
        total=_round(total_runs.mean(), dp), std=_round(float(np.std(total_runs)), dp),
        runs=tuple(_round(t, dp) for t in total_runs), n_samples=len(ids),
        counts=dict(counter), set_counts=set_counts, decimal_places=dp)


def csv_names(model: str, judge_model: str, runs: int, subset_name: str = "") -> tuple[str, str, str]:
    """The official file names: grade JSON, capability CSV, capability-integration CSV."""
    sub = f"{subset_name}_" if subset_name else ""
    return (f"{model}_{judge_model}-grade-{runs}runs.json",
            f"{model}_{sub}{judge_model}-cap-score-{runs}runs.csv",
            f"{model}_{sub}{judge_model}-cap-int-score-{runs}runs.csv")


def write_csvs(scores: MmvetScores, out_dir: str | Path, *, model: str, judge_model: str, runs: int,
               subset_name: str = "") -> tuple[Path, Path]:
    """Write the two official CSVs (pandas ``to_csv`` layout: blank index header, model row)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _, cap_name, int_name = csv_names(model, judge_model, runs, subset_name)
    runs_text = "[" + ", ".join(repr(r) for r in scores.runs) + "]"
    tables = [
        (out / cap_name, list(scores.capabilities), list(scores.capabilities.values())),
        (out / int_name, [capability_set_name(s) for s in scores.capability_sets],
         list(scores.capability_sets.values())),
    ]
    for path, cols, vals in tables:
        with path.open("w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(["", *cols, "total", "std", "runs"])
            w.writerow([model, *(repr(float(v)) for v in vals), repr(scores.total), repr(scores.std), runs_text])
    return tables[0][0], tables[1][0]


def read_csv_scores(path: str | Path, *, sets: bool) -> dict[frozenset[str] | str, float]:
    """Read an official (or our) CSV back; with ``sets`` the columns become frozensets,
    so files whose set names list capabilities in another order compare equal."""
    with Path(path).open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    if len(rows) < 2:
        raise InputError(f"{path}: expected a header and a score row")
    header, row = rows[0], rows[1]
    out: dict[frozenset[str] | str, float] = {}
    for col, val in zip(header[1:], row[1:]):
        if col == "runs":
            continue
        key: frozenset[str] | str = frozenset(col.split("_")) if sets and col not in ("total", "std") else col
        out[key] = float(val)
    return out
