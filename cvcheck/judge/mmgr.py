"""MMGR's VLM-judged tasks: judge answers -> fine-grained metrics -> gated overall.

Sample fields (one batch-manifest entry; ``task`` is one of :data:`SPECS`):

``id``, ``task``
    Identity.
``modality``
    ``image`` or ``video`` (default: from the ``answer`` file's suffix, else image).
    Video-only metrics (Action Reflection) are N/A for images; Physical Commonsense
    tasks require video.
``judge_answers``
    Recorded judge answers: a mapping ``{metric_name: "yes"/"no"/0/1/fraction}`` or the
    judge's raw reply text (``name: value`` lines or a JSON object). When present no
    judge is called.
``judge_reply``
    Same as a text ``judge_answers`` (kept for recorded raw replies).
``answer``
    Path of the generated image/video, for a live judge (videos are sampled to
    ``judge.video_frames`` frames).
``references``
    ``{label: image path}`` shown to a live judge before the answer (puzzle, ground
    truth, demonstrations...).
``context``, ``problem``, ``ground_truth``, ``prompt``, ``instruction``, ``physics_focus``,
``puzzle``, ``solution``, ``test_input``, ``demonstrations``
    Text (or JSON grids) given to a live judge.
``geometry`` (navigation)
    ``trajectory_2d``/``goal_2d`` and/or ``trajectory_3d``/``goal_3d`` (regions:
    ``{"center", "radius"}`` or ``{"box"}``); the S.S./O.S. metrics are then computed by
    rule instead of judged. ``gt_trajectory_3d`` adds the Geo-Align suite to details.

Policy: a judge reply missing any *required* metric (or with an unreadable value) is
``unparseable`` (overall 0, raw reply kept); a transport failure is ``error``.
"""

from __future__ import annotations

import json
import re
from typing import Any, Mapping

from ..config import Config
from ..errors import CvcheckError, InputError, JudgeError
from ..media.video import is_video
from ..schema import Gate, Result, Status, error_result
from .client import JudgeClient, JudgeRequest
from .content import image_part, user_message
from .frames import sample_video_frames
from .mmgr_spec import SPECS, Metric, TaskSpec, rubric_fingerprint
from .parse import parse_binary, parse_fraction, parse_labelled

_TEXT_FIELDS = ("context", "problem", "ground_truth", "prompt", "instruction", "physics_focus",
                "puzzle", "solution", "test_input", "demonstrations")


def applicable(spec: TaskSpec, modality: str) -> tuple[Metric, ...]:
    return tuple(m for m in spec.metrics if modality == "video" or not m.video_only)


def parse_answers(spec: TaskSpec, answers: Mapping[str, Any] | str, *, modality: str,
                  skip: frozenset[str] = frozenset()) -> tuple[dict[str, float], list[str]]:
    """Metric values from judge answers, and the list of problems (missing/unreadable)."""
    metrics = [m for m in applicable(spec, modality) if m.name not in skip]
    names = [m.name for m in metrics]
    raw = parse_labelled(answers, names) if isinstance(answers, str) else {
        re.sub(r"[^a-z0-9]+", "_", str(k).lower()).strip("_"): v for k, v in answers.items()}
    values: dict[str, float] = {}
    problems: list[str] = []
    for m in metrics:
        if m.name not in raw:
            if m.required is not None:
                problems.append(f"no answer for {m.name}")
            continue
        v = parse_fraction(raw[m.name]) if m.kind == "fraction" else parse_binary(raw[m.name])
        if v is None:
            if m.required is not None:
                problems.append(f"unreadable {m.name}: {str(raw[m.name])[:60]!r}")
            continue
        values[m.name] = v
    return values, problems


def gate_checks(spec: TaskSpec, values: Mapping[str, float], *, modality: str) -> dict[str, bool]:
    """``{"name=required": passed}`` for every required metric (missing = failed)."""
    return {f"{m.name}={m.required:g}": values.get(m.name) == m.required
            for m in applicable(spec, modality) if m.required is not None}


def diagnostics(spec: TaskSpec, values: Mapping[str, float]) -> dict[str, Any]:
    """Gate composites (AND of their metrics) and ARC's cascade depth."""
    out: dict[str, Any] = {}
    for name, parts in spec.composites.items():
        if all(p in values for p in parts):
            out[name] = int(all(values[p] == 1 for p in parts))
    if spec.cascade and all(c in values for c in spec.cascade):
        depth = 0
        for c in spec.cascade:
            if values[c] != 1:
                break
            depth += 1
        out["cascade_depth"] = depth
    return out


def build_request(spec: TaskSpec, sample: Mapping[str, Any], *, config: Config, modality: str,
                  skip: frozenset[str] = frozenset()) -> JudgeRequest:
    """The live-judge request: rubric, context, references, the generated media, questions."""
    metrics = [m for m in applicable(spec, modality) if m.name not in skip]
    parts: list[Any] = [spec.role]
    for key in _TEXT_FIELDS:
        if sample.get(key) is not None:
            val = sample[key]
            note = " (rows top to bottom; 0 = empty cell)" if key in ("puzzle", "solution") and \
                isinstance(val, list) else ""
            parts.append(f"{key.replace('_', ' ').capitalize()}{note}:\n"
                         + (val if isinstance(val, str) else json.dumps(val)))
    refs = sample.get("references") or {}
    if not isinstance(refs, Mapping):
        refs = {f"reference {i + 1}": p for i, p in enumerate(refs)}
    for label, path in refs.items():
        parts += [f"Reference ({label}):", image_part(path)]
    answer = sample.get("answer")
    if not answer:
        raise InputError("sample has neither judge_answers nor an 'answer' file for a live judge")
    if modality == "video":
        frames = sample_video_frames(answer, config.judge.video_frames)
        parts.append(f"Generated video: {len(frames)} frames sampled evenly, in order:")
        for i, f in enumerate(frames, 1):
            parts += [f"Frame {i}/{len(frames)}", image_part(f)]
    else:
        parts += ["Generated image:", image_part(answer)]
    lines = []
    for m in metrics:
        how = "a number from 0 to 1" if m.kind == "fraction" else "yes or no"
        lines.append(f"- {m.name} ({how}): {m.ask(modality)}")
    parts.append("Questions:\n" + "\n".join(lines) + "\n\nReply with exactly one line per question, "
                 "`name: answer`, using the names above, then one line `justification: <one sentence>`.")
    return JudgeRequest(messages=[user_message(*parts)],
                        params={"temperature": config.judge.temperature, "max_tokens": 400})


def _geometry(spec: TaskSpec, sample: Mapping[str, Any]) -> tuple[dict[str, float], dict[str, Any]]:
    from ..nav import geo_align
    from ..nav.regions import inside_region, path_touches_region

    geo = sample.get("geometry")
    if not geo:
        return {}, {}
    if not isinstance(geo, Mapping):
        raise InputError("geometry must be an object")
    names = {m.name for m in spec.metrics if m.geometric}
    values: dict[str, float] = {}
    details: dict[str, Any] = {}
    for dim in ("2d", "3d"):
        traj, goal = geo.get(f"trajectory_{dim}"), geo.get(f"goal_{dim}")
        if traj is None or goal is None or f"success_score_{dim}" not in names:
            continue
        values[f"success_score_{dim}"] = int(inside_region(traj[-1], goal))
        values[f"oracle_success_score_{dim}"] = int(path_touches_region(traj, goal))
    if geo.get("gt_trajectory_3d") is not None and geo.get("trajectory_3d") is not None:
        goal = geo.get("goal_3d") or {}
        details["geo_align"] = geo_align(geo["trajectory_3d"], geo["gt_trajectory_3d"],
                                         goal=goal.get("center"), radius=float(goal.get("radius", 3.0)))
    return values, details


def grade(spec: TaskSpec, sample: Mapping[str, Any], *, config: Config,
          client: JudgeClient | None = None) -> Result:
    """Grade one sample of an MMGR judged task (never raises for bad input or judge failures)."""
    sid = str(sample.get("id", ""))
    answer = sample.get("answer")
    modality = str(sample.get("modality") or ("video" if answer and is_video(answer) else "image"))
    head: dict[str, Any] = dict(id=sid, task=spec.task, pipeline="vlm", modality=modality,
                config_hash=config.section_hash("judge"))
    try:
        if modality not in ("image", "video"):
            raise InputError(f"modality must be image or video, got {modality!r}")
        if spec.video_only and modality != "video":
            raise InputError(f"{spec.title} is evaluated on videos only (MMGR L.3)")
        geo_values, details = _geometry(spec, sample)
        skip = frozenset(geo_values)
        recorded = sample.get("judge_answers", sample.get("judge_reply"))
        if recorded is not None:
            if not isinstance(recorded, (str, Mapping)):
                raise InputError("judge_answers must be an object or the judge's reply text")
            judge = {"source": "recorded", "judge_model": sample.get("judge_model"),
                     "raw_reply": recorded if isinstance(recorded, str) else dict(recorded)}
            answers = recorded
        else:
            if client is None:
                from .session import default_client
                client = default_client(config.judge)
            reply = client.complete(build_request(spec, sample, config=config, modality=modality, skip=skip))
            if not reply.ok:
                raise JudgeError(reply.error or "judge failed")
            judge, answers = reply.record(), reply.text or ""
        values, problems = parse_answers(spec, answers, modality=modality, skip=skip)
        values.update(geo_values)
    except CvcheckError as exc:
        return error_result(exc=exc, **head)
    except (ValueError, TypeError, KeyError, IndexError) as exc:  # malformed sample fields
        return error_result(exc=InputError(f"malformed {spec.task} sample: {type(exc).__name__}: {exc}"), **head)
    details = {**details, "judge": judge, "rubric": rubric_fingerprint(spec),
               "metric_sources": {k: ("geometry" if k in geo_values else "judge") for k in values}}
    checks = gate_checks(spec, values, modality=modality)
    metrics = {**values, **diagnostics(spec, values)}
    if problems:
        return Result(status=Status.UNPARSEABLE, overall=0.0, metrics=metrics, gate=Gate.from_checks(checks),
                      details={**details, "reason": "; ".join(problems)}, **head)
    gate = Gate.from_checks(checks)
    return Result(status=Status.OK, overall=float(gate.passed), metrics=metrics, gate=gate,
                  details=details, **head)


def grade_sample(sample: Mapping[str, Any], *, config: Config | None = None) -> Result:
    """Registry entry for every MMGR judged task: dispatches on ``sample["task"]``."""
    task = str(sample.get("task", ""))
    spec = SPECS.get(task)
    cfg = config or Config()
    if spec is None:
        return error_result(id=str(sample.get("id", "")), task=task or "?", pipeline="vlm", modality="image",
                            exc=InputError(f"not an MMGR judged task: {task!r}; known: {sorted(SPECS)}"))
    return grade(spec, sample, config=cfg)
