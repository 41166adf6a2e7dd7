"""MM-Vet's official GPT-4 grading protocol (yuweihao/MM-Vet ``mm-vet_evaluator.py``).

Faithful to the official grader:

* one user message = :data:`PROMPT` (instruction, table header and the 7 few-shot rows,
  verbatim) + ``"\\n"`` + ``" | ".join([question, ground_truth, prediction, ""])`` where
  ``<AND>``/``<OR>`` in the ground truth are padded with spaces;
* ``max_tokens=3``, temperature 0;
* score = the reply's first ``" "``-separated token (``.strip()``-ed) as a float,
  accepted only in [0, 1];
* on a parse failure the prompt gets ``"\\nPredict the correctness of the answer
  (digit): "`` appended and is re-asked at temperatures 0.0, 0.5, 1.0, 1.5, 2.0; the
  reply at 2.0 is requested but never parsed, the score is then 0.0 (5 failed parses);
* the grade file records per run the reply's model, the content (the parsed token, or
  the last raw reply after a give-up) and the score.

Deliberate differences (documented): ``NaN``/``inf`` tokens are rejected (the official
``float()`` check lets ``nan`` through); a transport failure (after the client's own
retries) leaves that run ungraded instead of crashing, so a rerun resumes it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ..errors import InputError
from .client import JudgeClient, JudgeRequest

if TYPE_CHECKING:
    from ..schema import Result

PROMPT = """Compare the ground truth and prediction from AI models, to give a correctness score for the prediction. <AND> in the ground truth means it is totally right only when all elements in the ground truth are present in the prediction, and <OR> means it is totally right when any one element in the ground truth is present in the prediction. The correctness score is 0.0 (totally wrong), 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, or 1.0 (totally right). Just complete the last space of the correctness score.

Question | Ground truth | Prediction | Correctness
--- | --- | --- | ---
What is x in the equation? | -1 <AND> -5 | x = 3 | 0.0
What is x in the equation? | -1 <AND> -5 | x = -1 | 0.5
What is x in the equation? | -1 <AND> -5 | x = -5 | 0.5
What is x in the equation? | -1 <AND> -5 | x = -5 or 5 | 0.5
What is x in the equation? | -1 <AND> -5 | x = -1 or x = -5 | 1.0
Can you explain this meme? | This meme is poking fun at the fact that the names of the countries Iceland and Greenland are misleading. Despite its name, Iceland is known for its beautiful green landscapes, while Greenland is mostly covered in ice and snow. The meme is saying that the person has trust issues because the names of these countries do not accurately represent their landscapes. | The meme talks about Iceland and Greenland. It's pointing out that despite their names, Iceland is not very icy and Greenland isn't very green. | 0.4
Can you explain this meme? | This meme is poking fun at the fact that the names of the countries Iceland and Greenland are misleading. Despite its name, Iceland is known for its beautiful green landscapes, while Greenland is mostly covered in ice and snow. The meme is saying that the person has trust issues because the names of these countries do not accurately represent their landscapes. | The meme is using humor to point out the misleading nature of Iceland's and Greenland's names. Iceland, despite its name, has lush green landscapes while Greenland is mostly covered in ice and snow. The text 'This is why I have trust issues' is a playful way to suggest that these contradictions can lead to distrust or confusion. The humor in this meme is derived from the unexpected contrast between the names of the countries and their actual physical characteristics. | 1.0
"""  # noqa: E501 (verbatim copy of the official prompt; kept unsplit so it can be diffed against upstream)

RETRY_SUFFIX = "\nPredict the correctness of the answer (digit): "
RETRY_TEMPERATURES = (0.0, 0.5, 1.0, 1.5, 2.0)
MAX_TOKENS = 3


def build_prompt(question: str, ground_truth: str, prediction: str, *, retry: bool = False) -> str:
    """The official grading message for one sample."""
    gt = ground_truth.replace("<AND>", " <AND> ").replace("<OR>", " <OR> ")
    text = PROMPT + "\n" + " | ".join([question, gt, prediction, ""])
    return text + RETRY_SUFFIX if retry else text


def parse_score(content: str | None) -> float | None:
    """The official parse rule: first ``" "``-token, stripped, as a float in [0, 1]."""
    if content is None:
        return None
    token = content.split(" ")[0].strip()
    try:
        score = float(token)
    except ValueError:
        return None
    return score if math.isfinite(score) and 0.0 <= score <= 1.0 else None


@dataclass
class RunGrade:
    """One run's grade of one sample, in the official grade-file terms."""

    score: float | None                    #: None when the judge could not be reached
    content: str | None
    model: str
    calls: list[dict[str, Any]] = field(default_factory=list)  #: every reply, for audit
    gave_up: bool = False                  #: 0.0 after five failed parses
    error: str | None = None


def _ask(client: JudgeClient, text: str, temperature: float, tag: str) -> Any:
    return client.complete(JudgeRequest(messages=[{"role": "user", "content": text}],
                                        params={"max_tokens": MAX_TOKENS, "temperature": temperature}, tag=tag))


def grade_run(client: JudgeClient, question: str, ground_truth: str, prediction: str, *,
              run: int = 0) -> RunGrade:
    """Grade one sample once with the official retry ladder."""
    tag = f"mmvet:run={run}"
    reply = _ask(client, build_prompt(question, ground_truth, prediction), 0.0, tag)
    calls = [reply.record() | {"temperature": 0.0}]
    if not reply.ok:
        return RunGrade(None, None, reply.model, calls, error=reply.error)
    score = parse_score(reply.text)
    if score is not None:
        return RunGrade(score, reply.text.split(" ")[0].strip(), reply.model, calls)
    retry_text = build_prompt(question, ground_truth, prediction, retry=True)
    for attempt, temperature in enumerate(RETRY_TEMPERATURES, start=2):
        reply = _ask(client, retry_text, temperature, tag)
        calls.append(reply.record() | {"temperature": temperature})
        if not reply.ok:
            return RunGrade(None, None, reply.model, calls, error=reply.error)
        if attempt > 5:  # the official loop gives up before parsing this last reply
            return RunGrade(0.0, reply.text, reply.model, calls, gave_up=True)
        score = parse_score(reply.text)
        if score is not None:
            return RunGrade(score, reply.text.split(" ")[0].strip(), reply.model, calls)
    raise AssertionError("unreachable")  # pragma: no cover


# -- official files ----------------------------------------------------------------------

def load_json(path: str | Path, what: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read {what} {path}: {exc}") from exc


def load_data(path: str | Path) -> dict[str, dict[str, Any]]:
    """``mm-vet.json``: ``{"v1_0": {"question", "answer", "capability": [...], ...}, ...}``."""
    data = load_json(path, "MM-Vet data")
    if not isinstance(data, dict) or not data:
        raise InputError(f"{path}: MM-Vet data must be a non-empty JSON object keyed by sample id")
    for sid, row in data.items():
        if not isinstance(row, Mapping) or not {"question", "answer", "capability"} <= set(row):
            raise InputError(f"{path}: sample {sid} needs question, answer and capability")
        if not isinstance(row["capability"], list) or not row["capability"]:
            raise InputError(f"{path}: sample {sid} has no capability list")
    return data


def load_predictions(path: str | Path) -> dict[str, str]:
    """The official predictions file ``{"v1_0": "model answer", ...}``."""
    preds = load_json(path, "MM-Vet predictions")
    if not isinstance(preds, dict) or not all(isinstance(v, str) for v in preds.values()):
        raise InputError(f"{path}: predictions must be a JSON object of id -> answer text")
    return preds


def load_grades(path: str | Path) -> dict[str, dict[str, list]]:
    """An official grade file ``{id: {"model": [...], "content": [...], "score": [...]}}``."""
    grades = load_json(path, "MM-Vet grade file")
    if not isinstance(grades, dict):
        raise InputError(f"{path}: grade file must be a JSON object")
    for sid, g in grades.items():
        if not isinstance(g, Mapping) or not isinstance(g.get("score"), list):
            raise InputError(f"{path}: grade entry {sid} needs a 'score' list")
    return grades


def grade_all(client: JudgeClient, data: Mapping[str, Mapping[str, Any]], predictions: Mapping[str, str], *,
              runs: int, grades: dict[str, dict[str, list]] | None = None,
              subset: set[str] | None = None,
              progress: Callable[[int, int], None] | None = None) -> tuple[dict[str, dict[str, list]], list[str]]:
    """Fill (or resume) a grade file for ``runs`` runs; returns ``(grades, problems)``.

    Samples are graded concurrently within a run; runs are filled in order, so a
    partial grade file resumes exactly where it stopped. ``progress(done, total)`` is
    called after each graded sample-run (from worker threads).
    """
    import threading
    from concurrent.futures import ThreadPoolExecutor

    grades = {k: {kk: list(vv) for kk, vv in v.items()} for k, v in (grades or {}).items()}
    ids = [k for k in data if subset is None or k in subset]
    missing = [k for k in ids if k not in predictions]
    if missing:
        raise InputError(f"{len(missing)} sample(s) have no prediction, e.g. {missing[:5]}")
    problems: list[str] = []
    total = sum(max(0, runs - len(grades.get(k, {}).get("score", []))) for k in ids)
    done = [0]
    lock = threading.Lock()
    for run in range(runs):
        todo = [k for k in ids if len(grades.get(k, {}).get("score", [])) <= run]
        def work(k: str, run: int = run) -> RunGrade:
            row = data[k]
            g = grade_run(client, row["question"], row["answer"], predictions[k], run=run)
            if progress is not None:
                with lock:
                    done[0] += 1
                    progress(done[0], total)
            return g
        with ThreadPoolExecutor(max_workers=client.concurrency) as pool:
            results = list(pool.map(work, todo))
        for k, g in zip(todo, results):
            if g.score is None:
                problems.append(f"{k} run {run}: {g.error}")
                continue
            entry = grades.setdefault(k, {"model": [], "content": [], "score": []})
            if len(entry["score"]) == run:  # runs stay contiguous
                entry["model"].append(g.model)
                entry["content"].append(g.content)
                entry["score"].append(g.score)
        if problems:
            break  # later runs would leave holes; resume after fixing the judge
    return grades, problems


def grade_sample(sample: Mapping[str, Any], *, config: Any = None,
                 client: JudgeClient | None = None) -> Result:
    """Registry grader for one MM-Vet sample; ``overall`` = mean score over runs (0..1).

    Sample fields: ``id``, ``question``, ``ground_truth``, ``prediction``, optional
    ``capability`` (list), ``runs`` (default 1); or recorded ``grades``
    (``{"score": [...], "content": [...], "model": [...]}``, an official grade-file entry)
    in which case no judge is called. A run that fell back to 0.0 after five unreadable
    replies counts 0.0 (official rule); if every run did, the status is ``unparseable``.
    """
    from ..config import Config
    from ..errors import CvcheckError, JudgeError
    from ..schema import Result, Status, error_result

    cfg = config or Config()
    head: dict[str, Any] = dict(id=str(sample.get("id", "")), task="mmvet", pipeline="vlm", modality="text",
                config_hash=cfg.section_hash("judge"))
    try:
        recorded = sample.get("grades")
        if recorded is not None:
            if not isinstance(recorded, Mapping) or not isinstance(recorded.get("score"), list) \
                    or not recorded["score"]:
                raise InputError("grades must be an official grade entry with a non-empty 'score' list")
            scores = [float(s) for s in recorded["score"]]
            gave_up = [False] * len(scores)
            details: dict[str, Any] = {"judge": {"source": "recorded",
                                                 **{k: recorded.get(k) for k in ("model", "content")}}}
        else:
            for f in ("question", "ground_truth", "prediction"):
                if not isinstance(sample.get(f), str):
                    raise InputError(f"MM-Vet sample needs a string {f!r}")
            if client is None:
                from .session import default_client
                client = default_client(cfg.judge)
            grades = [grade_run(client, sample["question"], sample["ground_truth"], sample["prediction"], run=r)
                      for r in range(int(sample.get("runs", 1)))]
            failed = [g for g in grades if g.score is None]
            if failed:
                raise JudgeError(failed[0].error or "judge failed")
            scores = [float(g.score or 0.0) for g in grades]
            gave_up = [g.gave_up for g in grades]
            details = {"judge": {"model": [g.model for g in grades], "content": [g.content for g in grades],
                                 "calls": [g.calls for g in grades]}}
    except (CvcheckError, ValueError, TypeError) as exc:
        if not isinstance(exc, CvcheckError):
            exc = InputError(str(exc))
        return error_result(exc=exc, **head)
    metrics = {"score": sum(scores) / len(scores), "run_scores": scores, "runs": len(scores),
               "capability": list(sample.get("capability") or [])}
    status = Status.UNPARSEABLE if all(gave_up) else Status.OK
    if status is Status.UNPARSEABLE:
        details["reason"] = "no readable score in five tries (official rule: 0.0)"
    return Result(status=status, overall=float(sum(scores) / len(scores)), metrics=metrics, details=details, **head)
