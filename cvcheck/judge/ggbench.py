"""GGBench judged metrics: VLM-T, VLM-I-Res, VLM-I-Mid and VLM-I.

Upstream (``evaluate.py``): VLM-T = sum(text score) / (N * 5) x 100; VLM-I-Res =
sum(final-image score) / (N * 5) x 100; VLM-I-Mid = sum((Step Accuracy + Process
Consistency) / 2) / (N * 5) x 100; VLM-I = (Mid + Res) / 2; scores are 1-5.

Every item keeps two readings of each judge reply (:mod:`.ggbench_parse`): cvcheck's
(``Part.value``, with a status) and upstream's (``Part.upstream``). ``aggregate`` uses one:

``parser="cvcheck"`` (default), with explicit policies (counts of each case are reported):

``denominator``
    ``"items"`` (default): N = the items that count for that metric after the
    policies below; an integer (e.g. upstream's fixed ``1411``): N is that number.
``missing``
    A model output or input the judge needs is absent. ``"min"`` (default; the rubric's
    own "missing -> 1", as upstream) scores 1, ``"zero"`` scores 0, ``"exclude"``
    drops the item from that metric.
``unparseable``
    The judge's reply holds no readable 1-5 score (for the long image: Step Accuracy or
    Process Consistency is unreadable). ``"exclude"`` (default), ``"zero"`` or ``"min"``.
    Judge transport failures are ``error`` results and always excluded.

``parser="upstream"`` (``UPSTREAM``, the CLI's ``--upstream``): every item counts with the
value upstream gives it: its parser's reading of the reply, 1 for a missing input or a
failed judge call (upstream's ``except`` branch), N = 1411. ``missing`` / ``unparseable``
do not apply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from ..errors import InputError
from . import ggbench_prompts
from .client import JudgeClient, JudgeRequest
from .content import image_part, user_message
from .ggbench_parse import parse_mid, parse_score, upstream_mid, upstream_mid_value, upstream_score

if TYPE_CHECKING:
    from ..schema import Result

METRICS = ("vlm_t", "vlm_i_res", "vlm_i_mid")
#: upstream ``evaluate.py``: its parser (missing inputs and judge failures score 1) and N = 1411
UPSTREAM: dict[str, Any] = {"denominator": 1411, "parser": "upstream"}
__all__ = ["METRICS", "UPSTREAM", "Part", "aggregate", "evaluate_item", "grade_sample", "load_items",
           "parse_mid", "parse_score", "requests_for", "upstream_mid", "upstream_score"]


@dataclass
class Part:
    """One metric of one item: ``status`` is ok | missing | unparseable | error."""

    status: str
    value: float | None = None
    judge: dict[str, Any] | None = None
    extra: dict[str, float] = field(default_factory=dict)
    #: the value upstream ``evaluate.py`` gives this item for this metric
    upstream: float | None = None


def _path(item: Mapping[str, Any], *keys: str) -> str | None:
    """The first key that is set, if its file exists (upstream: ``a or b or c``, then exists)."""
    v = next((item.get(k) for k in keys if item.get(k)), None)
    return str(v) if v and Path(str(v)).is_file() else None


def requests_for(item: Mapping[str, Any], *, templates: Mapping[str, str] | None = None
                 ) -> dict[str, JudgeRequest | None]:
    """The judge requests of one item (None where an input is missing)."""
    t = {"text": ggbench_prompts.TEXT, "image": ggbench_prompts.IMAGE, "mid": ggbench_prompts.MID,
         **(templates or {})}
    params = {"temperature": 0.0}
    try:
        return _requests(item, t, params)
    except (KeyError, IndexError, ValueError) as exc:
        raise InputError(f"a GGBench prompt template has a bad placeholder: {exc!r} "
                         "(use {problem}, {reference_answer}, {model_answer}; double other braces)") from exc


def _requests(item: Mapping[str, Any], t: Mapping[str, str], params: dict[str, Any]) -> dict[str, JudgeRequest | None]:
    out: dict[str, JudgeRequest | None] = {}
    problem, ref, ans = item.get("question"), item.get("text_answer"), item.get("output") or item.get("model_text")
    out["vlm_t"] = None if not (problem and ref and ans) else JudgeRequest(
        [user_message(t["text"].format(problem=problem, reference_answer=ref, model_answer=ans))], params)
    ref_img = _path(item, "res_image", "reference_image")
    pred_img = _path(item, "image_4", "output_image", "output_image_path")
    out["vlm_i_res"] = None if not (ref_img and pred_img) else JudgeRequest(
        [user_message(t["image"], image_part(ref_img), image_part(pred_img))], params)
    long_img = _path(item, "long_image_path", "mid_process_image", "long_image")
    out["vlm_i_mid"] = None if not (problem and long_img) else JudgeRequest(
        [user_message(f"Problem Text:\n{problem}", image_part(long_img), t["mid"])], params)
    return out


def _from_reply(metric: str, text: str) -> Part:
    if metric == "vlm_i_mid":
        got = parse_mid(text)
        up = upstream_mid_value(text)
        if "step_accuracy" in got and "process_consistency" in got:
            return Part("ok", (got["step_accuracy"] + got["process_consistency"]) / 2, extra=got, upstream=up)
        return Part("unparseable", extra=got, upstream=up)
    v = parse_score(text)
    return Part("ok" if v is not None else "unparseable", v, upstream=upstream_score(text))


def evaluate_item(item: Mapping[str, Any], *, client: JudgeClient | None = None,
                  templates: Mapping[str, str] | None = None) -> dict[str, Part]:
    """Score one item. Recorded replies (``judge_text``, ``judge_image``, ``judge_mid``)
    are used when present; otherwise ``client`` is asked."""
    recorded = {"vlm_t": item.get("judge_text"), "vlm_i_res": item.get("judge_image"),
                "vlm_i_mid": item.get("judge_mid")}
    reqs = None
    parts: dict[str, Part] = {}
    for metric in METRICS:
        text = recorded[metric]
        if isinstance(text, str):
            part = _from_reply(metric, text)
            part.judge = {"source": "recorded", "raw_reply": text}
        else:
            if reqs is None:
                reqs = requests_for(item, templates=templates)
            req = reqs[metric]
            if req is None:
                part = Part("missing", upstream=1.0)  # upstream: a missing input scores "1"
            elif client is None:
                part = Part("error", judge={"error": "no judge and no recorded reply"})
            else:
                reply = client.complete(req)
                # upstream: a failed judge call is caught and scores "1"
                part = _from_reply(metric, reply.text) if reply.text is not None else Part("error", upstream=1.0)
                part.judge = reply.record()
        parts[metric] = part
    return parts



def evaluate_all(items: Sequence[Mapping[str, Any]], *, client: JudgeClient | None = None,
                 templates: Mapping[str, str] | None = None) -> list[dict[str, Part]]:
    """Score every item, in order (``client.concurrency`` at a time when judging live)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=client.concurrency if client is not None else 1) as pool:
        return list(pool.map(lambda it: evaluate_item(it, client=client, templates=templates), items))

def _policy(value: Any, metric: str) -> str:
    pol = value.get(metric, "exclude") if isinstance(value, Mapping) else value
    if pol not in ("min", "zero", "exclude"):
        raise InputError(f"policy must be min, zero or exclude, got {pol!r}")
    return str(pol)


def _counted(p: Part, metric: str, parser: str, missing: Any, unparseable: Any) -> float | None:
    """The value one part adds to its metric's sum, or None when it is left out."""
    if parser == "upstream":
        if p.upstream is not None:
            return p.upstream
        if p.status in ("missing", "error"):
            return 1.0
        raise InputError(f"a {metric} part ({p.status}) has no upstream value: build parts with evaluate_item")
    if p.status == "ok":
        return float(p.value or 0.0)
    if p.status in ("missing", "unparseable"):
        pol = _policy(missing if p.status == "missing" else unparseable, metric)
        return None if pol == "exclude" else 1.0 if pol == "min" else 0.0
    return None


def aggregate(items: Sequence[Mapping[str, Part]], *, denominator: int | str = "items",
              missing: str | Mapping[str, str] | None = None,
              unparseable: str | Mapping[str, str] | None = None,
              parser: str = "cvcheck") -> dict[str, Any]:
    """Benchmark scores (0-100, unrounded and rounded to 2 places) and per-case counts.

    Parameters
    ----------
    items : sequence of mappings metric -> Part
        From :func:`evaluate_item`.
    denominator : "items" or int
        N of Σ score / (N·5) x 100: the items counted, or a fixed number (upstream: 1411).
    missing, unparseable : str or mapping metric -> str, optional
        ``min`` / ``zero`` / ``exclude`` (defaults ``min`` and ``exclude``); cvcheck parser only.
    parser : {"cvcheck", "upstream"}
        Whose reading of the replies is summed (see the module docstring). The ``n_ok`` ...
        ``n_error`` counts are cvcheck's statuses under either parser.
    """
    if denominator != "items" and not (isinstance(denominator, int) and not isinstance(denominator, bool)
                                       and denominator > 0):
        raise InputError(f"denominator must be 'items' or a positive integer, got {denominator!r}")
    if parser not in ("cvcheck", "upstream"):
        raise InputError(f"parser must be 'cvcheck' or 'upstream', got {parser!r}")
    if parser == "upstream" and (missing is not None or unparseable is not None):
        raise InputError("the upstream parser fixes how missing and unparseable items score: "
                         "do not pass missing/unparseable with parser='upstream'")
    missing = "min" if missing is None else missing
    unparseable = "exclude" if unparseable is None else unparseable
    out: dict[str, Any] = {"n_items": len(items), "denominator": denominator, "parser": parser}
    for metric in METRICS:
        total, n = 0.0, 0
        counts = {"ok": 0, "missing": 0, "unparseable": 0, "error": 0}
        for parts in items:
            p = parts[metric]
            counts[p.status] += 1
            v = _counted(p, metric, parser, missing, unparseable)
            if v is not None:
                total, n = total + v, n + 1
        big_n = n if denominator == "items" else int(denominator)
        score = total / (big_n * 5) * 100 if big_n else None
        out[metric] = {"score": score, "rounded": None if score is None else round(score, 2), "n": big_n,
                       "counted": n, **{f"n_{k}": v for k, v in counts.items()}}
    res, mid = out["vlm_i_res"]["score"], out["vlm_i_mid"]["score"]
    out["vlm_i"] = {"score": None if res is None or mid is None else (res + mid) / 2}
    out["vlm_i"]["rounded"] = None if out["vlm_i"]["score"] is None else round(out["vlm_i"]["score"], 2)
    return out


_PATH_KEYS = ("res_image", "reference_image", "image_4", "output_image", "output_image_path",
              "long_image_path", "mid_process_image", "long_image")


def _resolve(value: Any, root: Path | None) -> Any:
    if not isinstance(value, str) or not value:
        return value
    p = Path(value)
    if p.is_absolute() and p.exists():
        return str(p)
    if root is not None:
        return str((root / value.lstrip("/")).resolve())
    return str(p)


def load_items(dataset: str | Path, outputs: str | Path, *, dataset_root: str | Path | None = None,
               pred_root: str | Path | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """Merge the model's output list with ``GGBench_dataset.json`` (upstream field names).

    Returns ``(items, unknown_ids)``: outputs whose id is not in the dataset are left
    out and listed. Relative image paths resolve against ``dataset_root`` (reference
    images) and ``pred_root`` (model images).
    """
    from .mmvet import load_json

    data, outs = load_json(dataset, "GGBench dataset"), load_json(outputs, "GGBench model outputs")
    if not isinstance(data, list) or not isinstance(outs, list):
        raise InputError("GGBench dataset and model outputs must both be JSON lists")
    by_id = {str(d.get("id")): d for d in data if isinstance(d, Mapping)}
    droot = Path(dataset_root) if dataset_root else Path(dataset).parent
    proot = Path(pred_root) if pred_root else Path(outputs).parent
    items, unknown = [], []
    for o in outs:
        if not isinstance(o, Mapping) or str(o.get("id")) not in by_id:
            unknown.append(str(o.get("id")) if isinstance(o, Mapping) else repr(o))
            continue
        ref = by_id[str(o["id"])]
        item = {**{k: ref.get(k) for k in ("question", "text_answer", "res_image")}, **o}
        for k in _PATH_KEYS:
            if k in item:
                item[k] = _resolve(item[k], droot if k in ("res_image", "reference_image") else proot)
        items.append(item)
    return items, unknown


def grade_sample(sample: Mapping[str, Any], *, config: Any = None, client: JudgeClient | None = None) -> Result:
    """Registry grader for one GGBench item.

    Sample fields (upstream names): ``id``, ``question``, ``text_answer`` (reference
    steps), ``output`` (model steps), ``res_image`` (reference image), ``output_image``,
    ``long_image_path``; or recorded replies ``judge_text``, ``judge_image``,
    ``judge_mid``. Metrics hold the 1-5 scores; ``overall`` = VLM-T / 5 when the text was
    judged, else the item's VLM-I / 5. ``unparseable`` when no judged metric is readable.
    """
    from ..config import Config
    from ..errors import CvcheckError
    from ..schema import Result, Status, error_result

    cfg = config or Config()
    head: dict[str, Any] = dict(id=str(sample.get("id", "")), task="ggbench", pipeline="vlm", modality="image",
                config_hash=cfg.section_hash("judge"))
    try:
        if not isinstance(sample, Mapping):
            raise InputError("a GGBench sample must be an object")
        needs_judge = not all(isinstance(sample.get(k), str) for k in ("judge_text", "judge_image", "judge_mid"))
        if client is None and needs_judge and any(requests_for(sample).values()):
            from .session import default_client
            client = default_client(cfg.judge)
        parts = evaluate_item(sample, client=client)
    except CvcheckError as exc:
        return error_result(exc=exc, **head)
    errors = [m for m, p in parts.items() if p.status == "error"]
    if errors and all(p.status in ("error", "missing") for p in parts.values()):
        return error_result(exc=InputError(f"judge failed for {errors}"), **head)
    metrics: dict[str, Any] = {m: p.value for m, p in parts.items()}
    metrics.update({k: v for p in parts.values() for k, v in p.extra.items()})
    metrics["statuses"] = {m: p.status for m, p in parts.items()}
    details: dict[str, Any] = {"judge": {m: p.judge for m, p in parts.items() if p.judge}}
    if parts["vlm_t"].status == "ok":
        overall = float(parts["vlm_t"].value or 0) / 5
    elif parts["vlm_i_res"].status == "ok" and parts["vlm_i_mid"].status == "ok":
        overall = (float(parts["vlm_i_res"].value or 0) + float(parts["vlm_i_mid"].value or 0)) / 10
    else:
        overall = 0.0
    ok = any(p.status == "ok" for p in parts.values())
    if not ok:
        details["reason"] = "no readable judge score (missing inputs or unparseable replies)"
    return Result(status=Status.OK if ok else Status.UNPARSEABLE, overall=overall, metrics=metrics,
                  details=details, **head)
