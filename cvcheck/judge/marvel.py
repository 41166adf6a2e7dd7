"""MARVEL scoring: instance and group accuracy with a refusal policy and breakdowns.

Each puzzle (one ``id`` of ``marvel_label.json``) has five questions: ``avr`` (choice
1-4), ``fine`` (answer vs distractor word) and ``coarse_0..2`` (counts). Groups:

* ``group_coarse``: the three coarse perception questions all right (the paper's
  "combining all three coarse-grained perception questions");
* ``group_perception``: coarse + fine (every perception question);
* ``group_all``: coarse + fine + AVR (the paper's full group).

Statuses of a question: ``answered``; ``refusal``: an explicit refusal (``I'm sorry,
but I can't help with that``), or no output for it in the puzzle's response row
(``null``, empty or absent: a safety-blocked output); ``unparsed``: a reply with no
answer, including "I cannot determine the answer"; ``missing``: the puzzle has no
response row at all (the run is incomplete).

Refusal policy: ``wrong`` (default: a refusal is an incorrect answer) or ``exclude``
(refused questions leave the instance denominators and a group with a refused
question leaves that group's denominator). Unparsed and missing answers are always
wrong. Every item records how its answer was extracted (``regex``, ``judge``,
``none``) and, for a judge fallback, the judge's raw reply and model.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from ..errors import InputError
from .client import JudgeClient, JudgeRequest
from .marvel_extract import extract_avr, extract_count, extract_option, is_refusal

if TYPE_CHECKING:
    from ..schema import Result

QUESTIONS = ("avr", "fine", "coarse_0", "coarse_1", "coarse_2")
GROUPS = {"group_coarse": ("coarse_0", "coarse_1", "coarse_2"),
          "group_perception": ("fine", "coarse_0", "coarse_1", "coarse_2"),
          "group_all": QUESTIONS}
_FIELDS = ("id", "pattern", "task_configuration", "answer", "f_perception_answer", "f_perception_distractor",
           "c_perception_answer_tuple")


@dataclass
class Item:
    """One question of one puzzle, answered and checked."""

    question: str
    gold: Any
    response: str | None
    predicted: Any = None
    method: str = "none"            #: regex | judge | none
    status: str = "unparsed"        #: answered | unparsed | refusal | missing
    correct: bool = False
    judge: dict[str, Any] | None = None


@dataclass
class PuzzleEval:
    id: str
    pattern: str
    configuration: str
    items: dict[str, Item] = field(default_factory=dict)


# -- files -------------------------------------------------------------------------------

def load_labels(path: str | Path) -> list[dict[str, Any]]:
    """``marvel_label.json`` (list or id-keyed object) or a ``Json_data/`` folder of ``*_label.json``."""
    p = Path(path)
    try:
        if p.is_dir():
            rows = [json.loads(f.read_text(encoding="utf-8")) for f in sorted(p.rglob("*_label.json"))]
        else:
            rows = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read MARVEL labels {path}: {exc}") from exc
    if isinstance(rows, Mapping):
        rows = list(rows.values())
    if not isinstance(rows, list) or not rows:
        raise InputError(f"{path}: no MARVEL labels found")
    for r in rows:
        missing = [f for f in _FIELDS if f not in r] if isinstance(r, Mapping) else list(_FIELDS)
        if missing:
            raise InputError(f"{path}: label {r.get('id', '?') if isinstance(r, Mapping) else r!r} lacks {missing}")
        if len(r["c_perception_answer_tuple"]) != 3:
            raise InputError(f"{path}: label {r['id']} needs 3 coarse answers")
    return rows


def label_version(labels: Sequence[Mapping[str, Any]]) -> str:
    """A fingerprint of the gold answers used (upstream revised the labels once)."""
    gold = sorted((str(r["id"]), r["answer"], r["f_perception_answer"], list(r["c_perception_answer_tuple"]))
                  for r in labels)
    return "sha256:" + hashlib.sha256(json.dumps(gold).encode()).hexdigest()[:16]


def load_responses(path: str | Path) -> dict[str, dict[str, str | None]]:
    """Model replies: per-puzzle ``{"id", "avr", "fine", "coarse": [3]}`` objects (a JSON list,
    an id-keyed object or JSONL) or per-question ``{"id", "question", "response"}`` rows."""
    text = Path(path).read_text(encoding="utf-8") if Path(path).is_file() else None
    if text is None:
        raise InputError(f"cannot read MARVEL responses {path}")
    try:
        doc = json.loads(text)
    except ValueError:
        try:
            doc = [json.loads(line) for line in text.splitlines() if line.strip()]
        except ValueError as exc:
            raise InputError(f"{path}: not JSON or JSONL: {exc}") from exc
    if isinstance(doc, Mapping):
        if not all(isinstance(v, Mapping) for v in doc.values()):
            raise InputError(f"{path}: an id-keyed response file maps each id to an object")
        doc = [{"id": k, **v} for k, v in doc.items()]
    if not isinstance(doc, list):
        raise InputError(f"{path}: responses must be a list, an id-keyed object or JSONL")
    out: dict[str, dict[str, str | None]] = {}
    for row in doc:
        if not isinstance(row, Mapping) or "id" not in row:
            raise InputError(f"{path}: every response row needs an 'id'")
        entry = out.setdefault(str(row["id"]), {})
        if "question" in row:
            entry[str(row["question"])] = row.get("response")
            continue
        for q in ("avr", "fine"):
            if q in row:
                entry[q] = row[q]
        for i, v in enumerate(row.get("coarse") or []):
            entry[f"coarse_{i}"] = v
    return out


# -- evaluation --------------------------------------------------------------------------

def _golds(label: Mapping[str, Any]) -> dict[str, Any]:
    c = list(label["c_perception_answer_tuple"])
    return {"avr": int(label["answer"]), "fine": str(label["f_perception_answer"]),
            "coarse_0": int(c[0]), "coarse_1": int(c[1]), "coarse_2": int(c[2])}


def _fallback_request(question: str, response: str, options: Sequence[str] | None) -> JudgeRequest:
    what = ("Which option did it choose? Options: " + ", ".join(options)) if options else \
        "Which number did it give as its answer?"
    text = (f"A model answered a {'multiple-choice' if options else 'counting'} question about a visual puzzle. "
            f"Its reply:\n<<<\n{response}\n>>>\n{what}\nReply with only the option (or the number), "
            "or 'none' if it gave no answer (saying the answer cannot be determined is no answer), "
            "or 'refusal' only if it explicitly refused to answer.")
    return JudgeRequest(messages=[{"role": "user", "content": text}],
                        params={"temperature": 0.0, "max_tokens": 10}, tag=f"marvel:{question}")


def evaluate_item(question: str, gold: Any, response: Any, *, distractor: str | None = None,
                  client: JudgeClient | None = None) -> Item:
    """Extract and check one answer (judge fallback only when the regex fails).

    ``response`` None (a ``null`` or absent output) is a refusal: a blocked output.
    """
    item = Item(question, gold, response if isinstance(response, str) else None)
    if response is None:
        item.status = "refusal"
        return item
    text = str(response)
    options = ["1", "2", "3", "4"] if question == "avr" else sorted([str(gold), str(distractor)]) \
        if question == "fine" else None
    pred: Any = extract_avr(text) if question == "avr" else extract_option(text, options or []) \
        if question == "fine" else extract_count(text)
    if pred is not None:
        item.predicted, item.method, item.status = pred, "regex", "answered"
    elif client is not None and text.strip():
        reply = client.complete(_fallback_request(question, text, options))
        item.judge = reply.record()
        raw = (reply.text or "").strip().strip(".'\"*").lower()
        if reply.ok and raw == "refusal":
            item.status, item.method = "refusal", "judge"
        elif reply.ok:
            pred = extract_avr(raw) if question == "avr" else extract_option(raw, options or []) \
                if question == "fine" else extract_count(raw)
            if pred is not None:
                item.predicted, item.method, item.status = pred, "judge", "answered"
    if item.status == "unparsed" and is_refusal(text):
        item.status = "refusal"
    if question == "fine" and item.predicted is not None:
        item.correct = str(item.predicted).lower() == str(gold).lower()
    else:
        item.correct = item.predicted == gold
    return item


def evaluate_puzzle(label: Mapping[str, Any], responses: Mapping[str, Any] | None, *,
                    client: JudgeClient | None = None) -> PuzzleEval:
    """Evaluate the five questions of one puzzle; ``responses`` None = no response row (missing)."""
    golds = _golds(label)
    ev = PuzzleEval(str(label["id"]), str(label["pattern"]), str(label["task_configuration"]))
    for q in QUESTIONS:
        if responses is None:
            ev.items[q] = Item(q, golds[q], None, status="missing")
            continue
        ev.items[q] = evaluate_item(q, golds[q], responses.get(q), client=client,
                                    distractor=str(label["f_perception_distractor"]))
    return ev


def _rates(evals: Iterable[PuzzleEval], refusals: str) -> dict[str, Any]:
    evals = list(evals)
    out: dict[str, Any] = {"n_puzzles": len(evals)}
    def counted(it: Item) -> bool:
        return not (refusals == "exclude" and it.status == "refusal")
    for name, qs in (("avr", ("avr",)), ("fine", ("fine",)), ("coarse", GROUPS["group_coarse"])):
        items = [e.items[q] for e in evals for q in qs if counted(e.items[q])]
        out[f"{name}_accuracy"] = sum(i.correct for i in items) / len(items) if items else None
        out[f"{name}_n"] = len(items)
    for g, qs in GROUPS.items():
        kept = [e for e in evals if all(counted(e.items[q]) for q in qs)]
        out[f"{g}_accuracy"] = sum(all(e.items[q].correct for q in qs) for e in kept) / len(kept) if kept else None
        out[f"{g}_n"] = len(kept)
    statuses = [i.status for e in evals for i in e.items.values()]
    out.update({f"n_{s}": statuses.count(s) for s in ("answered", "unparsed", "refusal", "missing")})
    out["n_judge_fallback"] = sum(i.method == "judge" for e in evals for i in e.items.values())
    return out


def score(evals: Sequence[PuzzleEval], *, refusals: str = "wrong") -> dict[str, Any]:
    """Overall rates plus breakdowns by ``pattern`` and ``configuration``."""
    if refusals not in ("wrong", "exclude"):
        raise InputError(f"refusal policy must be 'wrong' or 'exclude', got {refusals!r}")
    out = {"refusal_policy": refusals, "overall": _rates(evals, refusals)}
    for key in ("pattern", "configuration"):
        groups: dict[str, list[PuzzleEval]] = {}
        for e in evals:
            groups.setdefault(getattr(e, key), []).append(e)
        out[f"by_{key}"] = {k: _rates(v, refusals) for k, v in sorted(groups.items())}
    return out


def evaluate_all(labels: Sequence[Mapping[str, Any]], responses: Mapping[str, Mapping[str, Any]], *,
                 client: JudgeClient | None = None) -> list[PuzzleEval]:
    """Evaluate every labelled puzzle (puzzles without a response row count as missing answers)."""
    from concurrent.futures import ThreadPoolExecutor

    def one(label: Mapping[str, Any]) -> PuzzleEval:
        return evaluate_puzzle(label, responses.get(str(label["id"])), client=client)
    workers = client.concurrency if client is not None else 1
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, labels))


def items_as_records(evals: Sequence[PuzzleEval]) -> list[dict[str, Any]]:
    """One JSON-ready row per question (for audit files)."""
    return [{"id": e.id, "pattern": e.pattern, "configuration": e.configuration, **asdict(i)}
            for e in evals for i in e.items.values()]


def grade_sample(sample: Mapping[str, Any], *, config: Any = None, client: JudgeClient | None = None) -> Result:
    """Registry grader for one MARVEL puzzle: ``overall`` = 1 when all five answers are right.

    Sample fields: the label fields (``id``, ``pattern``, ``task_configuration``,
    ``answer``, ``f_perception_answer``, ``f_perception_distractor``,
    ``c_perception_answer_tuple``) plus the model's replies ``avr``, ``fine`` and
    ``coarse`` (list of 3). Set ``judge_fallback: true`` to let a judge (from the
    environment) extract answers the regex cannot.
    """
    from ..config import Config
    from ..errors import CvcheckError
    from ..schema import Gate, Result, Status, error_result

    cfg = config or Config()
    head: dict[str, Any] = dict(id=str(sample.get("id", "")), task="marvel", pipeline="regex", modality="text",
                config_hash=cfg.section_hash("judge"))
    try:
        missing = [f for f in _FIELDS if f not in sample]
        if missing:
            raise InputError(f"MARVEL sample lacks {missing}")
        if client is None and sample.get("judge_fallback"):
            from .session import default_client
            client = default_client(cfg.judge)
        responses = {"avr": sample.get("avr"), "fine": sample.get("fine"),
                     **{f"coarse_{i}": v for i, v in enumerate(sample.get("coarse") or [])}}
        ev = evaluate_puzzle(sample, responses, client=client)
    except (CvcheckError, ValueError, TypeError, KeyError) as exc:
        err = exc if isinstance(exc, CvcheckError) else InputError(f"bad MARVEL sample: {exc}")
        return error_result(exc=err, **head)
    items = ev.items
    metrics = {f"{q}_correct": int(items[q].correct) for q in QUESTIONS}
    metrics.update({g: int(all(items[q].correct for q in qs)) for g, qs in GROUPS.items()})
    gate = Gate.from_checks({f"{q}_correct": items[q].correct for q in QUESTIONS})
    details = {"items": [asdict(i) for i in items.values()], "pattern": ev.pattern,
               "configuration": ev.configuration}
    status = Status.UNPARSEABLE if all(i.status != "answered" for i in items.values()) else Status.OK
    if status is Status.UNPARSEABLE:
        details["reason"] = "no answer could be extracted from any reply"
    return Result(status=status, overall=float(gate.passed), metrics=metrics, gate=gate, details=details,
                  **({**head, "pipeline": "vlm"} if any(i.method == "judge" for i in items.values()) else head))
