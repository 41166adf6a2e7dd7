"""A small labelled corpus made with :mod:`cvcheck.synth`, scored, reported and audited.

:func:`make_corpus` writes answer files, a manifest (``manifest.jsonl``) and the
ground truth as results (``labels.jsonl``, pipeline ``labels``); :func:`run_demo`
then scores the manifest, writes the HTML report and audits the scores against the
labels. Generators are a table (:data:`GENERATORS`): to add a kind of sample, add a
function ``(folder, rng, count) -> list[DemoItem]`` to it.
"""

from __future__ import annotations

import importlib
import os
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .schema import Gate, Result, Status

MODELS = ("model-alpha", "model-beta")
#: share of valid answers per model, so the two demo models differ visibly
VALID_SHARE = {"model-alpha": 0.6, "model-beta": 0.3}
#: video kinds in the demo, cycled (valid first, then the failures MMGR's gates catch)
SUDOKU_VIDEO_KINDS = ("gradual", "wrong_final", "self_correcting", "late_clue_drift", "all_at_once", "flicker")
MAZE_VIDEO_BEHAVIOURS = ("valid", "teleport", "backtrack", "stop_short", "walls_fade", "wall_pass")
MAZE_SIZES = {"easy": (3, 5), "medium": (6, 9), "hard": (10, 13)}
MAZE_GATE = {"layout_match": ("maze_changed", 0), "no_cross_wall": ("cross_wall", 0),
             "target_achievement": ("target_achievement", 1), "no_excessive_reflection": ("reflection", 0)}
SUDOKU_GATE = {"clues_unchanged": ("clues_changed", 0), "no_constraint_violation": ("constraint_violation", 0),
               "completion_perfect": ("completion_accuracy", 1)}


@dataclass
class DemoItem:
    """One generated sample: its manifest entry (paths relative to the corpus folder) and labels."""

    sample: dict[str, Any]
    labels: Result


def labels_result(sid: str, task: str, modality: str, labels: dict[str, Any],
                  gate: dict[str, tuple[str, int]], extra: tuple[str, ...] = ()) -> Result:
    """Ground truth expressed in the result schema (pipeline ``labels``)."""
    metrics = {m: labels[m] for m, _ in gate.values()}
    metrics.update({k: labels[k] for k in extra if k in labels})
    checks = {name: (float(labels[m]) == want) for name, (m, want) in gate.items()}
    return Result(id=sid, task=task, pipeline="labels", modality=modality, status=Status.OK,
                  overall=float(labels["overall"]), metrics=metrics, gate=Gate.from_checks(checks))


def _save(folder: Path, rel: str, image: np.ndarray) -> str:
    from .media.write import save_image

    save_image(folder / rel, image)
    return rel


def _model_and_valid(i: int, rng: np.random.Generator) -> tuple[str, bool]:
    model = MODELS[i % len(MODELS)]
    return model, bool(rng.random() < VALID_SHARE[model])


def maze_images(folder: Path, rng: np.random.Generator, count: int) -> list[DemoItem]:
    from .synth.maze_cases import DEFECTS, make_case

    items = []
    for i in range(count):
        model, valid = _model_and_valid(i, rng)
        difficulty = list(MAZE_SIZES)[i % 3]
        lo, hi = MAZE_SIZES[difficulty]
        defect = "valid" if valid else str(rng.choice(DEFECTS[1:]))
        case = make_case(int(rng.integers(1 << 30)), defect=defect, size=int(rng.integers(lo, hi + 1)))
        sid = f"maze-img-{i:03d}"
        ref = _save(folder, f"maze/{sid}-reference.png", case.reference)
        ext = "jpg" if case.style.get("jpeg_quality") else "png"
        ans = _save(folder, f"maze/{sid}-answer.{ext}", case.answer)
        sample = {"id": sid, "task": "maze", "answer": ans, "reference": ref, "model": model,
                  "difficulty": difficulty, "metadata": {"defect": defect, "size": case.spec.shape[0] // 2}}
        items.append(DemoItem(sample, labels_result(sid, "maze", "image", case.labels, MAZE_GATE)))
    return items


def sudoku_images(folder: Path, rng: np.random.Generator, count: int) -> list[DemoItem]:
    from .synth.sudoku import IMAGE_DEFECTS, make_image_case

    items = []
    for i in range(count):
        model, valid = _model_and_valid(i, rng)
        n = 4 if i % 2 == 0 else 9
        defect = "solved" if valid else str(rng.choice(IMAGE_DEFECTS[1:]))
        case = make_image_case(int(rng.integers(1 << 30)), n=n, defect=defect)
        sid = f"sudoku-img-{i:03d}"
        ans = _save(folder, f"sudoku/{sid}.png", case.image)
        grid = lambda g: "".join(str(int(v)) if v else "." for v in g.ravel())  # noqa: E731
        sample = {"id": sid, "task": "sudoku", "answer": ans, "puzzle": grid(case.puzzle),
                  "solution": grid(case.solution), "model": model, "difficulty": case.band,
                  "metadata": {"defect": defect, "n": n}}
        items.append(DemoItem(sample, labels_result(sid, "sudoku", "image", case.labels, SUDOKU_GATE)))
    return items


def sudoku_videos(folder: Path, rng: np.random.Generator, count: int) -> list[DemoItem]:
    from .synth.sudoku_video import make_video_case

    items = []
    for i in range(count):
        model = MODELS[i % len(MODELS)]
        kind = SUDOKU_VIDEO_KINDS[i % len(SUDOKU_VIDEO_KINDS)]  # a fixed cycle: every kind shows up
        case = make_video_case(int(rng.integers(1 << 30)), n=4, kind=kind)
        sid = f"sudoku-vid-{i:03d}"
        rel = f"sudoku/{sid}.mp4"
        (folder / "sudoku").mkdir(parents=True, exist_ok=True)
        case.write_mp4(folder / rel)
        grid = lambda g: "".join(str(int(v)) if v else "." for v in g.ravel())  # noqa: E731
        sample = {"id": sid, "task": "sudoku", "answer": rel, "puzzle": grid(case.puzzle),
                  "solution": grid(case.solution), "model": model, "difficulty": "video-4x4",
                  "metadata": {"kind": kind, "frames": case.frames}}
        items.append(DemoItem(sample, labels_result(sid, "sudoku", "video", case.labels, SUDOKU_GATE,
                                                    extra=("action_reflection",))))
    return items


#: kind -> (generator, default count); optional kinds are skipped when their synth module is absent
GENERATORS: dict[str, tuple[Callable[[Path, np.random.Generator, int], list[DemoItem]], int]] = {
    "maze-image": (maze_images, 24),
    "sudoku-image": (sudoku_images, 12),
    "sudoku-video": (sudoku_videos, 6),
}


def maze_videos(folder: Path, rng: np.random.Generator, count: int) -> list[DemoItem]:
    from .synth.maze_video import make_video_case, random_look

    items = []
    for i in range(count):
        model = MODELS[i % len(MODELS)]
        behaviour = MAZE_VIDEO_BEHAVIOURS[i % len(MAZE_VIDEO_BEHAVIOURS)]  # a fixed cycle, like Sudoku videos
        # both looks: MMGR's lattice and a MazePlot-like thin-line maze, named per sample ("style")
        look = random_look(rng, style="mazeplot" if i % 3 == 2 else "mmgr")
        case = make_video_case(int(rng.integers(1 << 30)), behaviour=behaviour, look=look,
                               size=int(rng.integers(3, 6)))
        sid = f"maze-vid-{i:03d}"
        ref = _save(folder, f"maze/{sid}-reference.png", case.reference)
        rel = f"maze/{sid}.mp4"
        case.write(folder / rel)
        sample = {"id": sid, "task": "maze", "answer": rel, "reference": ref, "style": look.style, "model": model,
                  "difficulty": "video", "metadata": {"behaviour": behaviour, "frames": case.n_frames}}
        items.append(DemoItem(sample, labels_result(sid, "maze", "video", case.labels, MAZE_GATE,
                                                    extra=("action_reflection",))))
    return items


#: generators whose modules land later: kind -> (needed modules, generator, default count)
OPTIONAL_GENERATORS = {
    "maze-video": (("cvcheck.synth.maze_video", "cvcheck.maze.video"), maze_videos, 6),
}


def _optional_generators() -> dict[str, tuple[Callable[[Path, np.random.Generator, int], list[DemoItem]], int]]:
    """The optional generators whose synth module *and* verifier are installed."""
    out: dict[str, tuple[Callable[[Path, np.random.Generator, int], list[DemoItem]], int]] = {}
    for kind, (modules, make, count) in OPTIONAL_GENERATORS.items():
        try:
            for m in modules:
                importlib.import_module(m)
        except ImportError:
            continue
        out[kind] = (make, count)
    return out


@dataclass
class Corpus:
    folder: Path
    manifest: Path
    labels: Path
    counts: dict[str, int]


def make_corpus(folder: str | os.PathLike, *, seed: int = 0, scale: float = 1.0,
                kinds: tuple[str, ...] | None = None) -> Corpus:
    """Write a labelled mixed corpus (answers, ``manifest.jsonl``, ``labels.jsonl``) into ``folder``."""
    from .batch.manifest import write_manifest
    from .batch.store import make_record, write_records

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    table = {**GENERATORS, **_optional_generators()}
    chosen = kinds or tuple(table)
    items: list[DemoItem] = []
    counts = {}
    for kind in chosen:
        if kind not in table:
            continue
        make, default = table[kind]
        rng = np.random.default_rng([seed, zlib.crc32(kind.encode())])
        got = make(out, rng, max(1, round(default * scale)))
        counts[kind] = len(got)
        items.extend(got)
    manifest = write_manifest(out / "manifest.jsonl", [it.sample for it in items])
    labels = write_records(out / "labels.jsonl", [make_record(it.labels, it.sample) for it in items])
    return Corpus(folder=out, manifest=manifest, labels=labels, counts=counts)


@dataclass
class DemoOutcome:
    corpus: Corpus
    results: Path
    report: Path
    audit: Path
    summary: Any
    audit_result: Any


def run_demo(folder: str | os.PathLike, *, seed: int = 0, scale: float = 1.0, workers: int | None = None,
             progress: Any = None) -> DemoOutcome:
    """Make the corpus, score it, write the report and the audit against the labels."""
    from .audit import audit_files, write_audit
    from .batch.runner import run_manifest
    from .report.build import build_report

    out = Path(folder)
    corpus = make_corpus(out / "corpus", seed=seed, scale=scale)
    results = out / "results.jsonl"
    summary = run_manifest(corpus.manifest, results, workers=workers, resume=False, progress=progress)
    report = build_report(results, out / "report")
    audit = audit_files(results, corpus.labels, names=("cvcheck", "labels"))
    audit_dir = write_audit(audit, out / "audit", overlays_from=out / "report")
    return DemoOutcome(corpus=corpus, results=results, report=report, audit=audit_dir, summary=summary,
                       audit_result=audit)
