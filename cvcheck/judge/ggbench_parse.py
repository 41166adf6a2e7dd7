"""Reading GGBench judge replies: cvcheck's tolerant parser and upstream's exact one.

cvcheck (``parse_score``, ``parse_mid``) reads a 1-5 score from the usual reply forms and
says "unparseable" (None) otherwise; a scale note such as ``(1-5)`` or ``<1-5>`` is never
read as a score.

Upstream (``upstream_score``, ``upstream_mid``) is ``evaluate.py`` of
opendatalab-raiser/GGBench, reply by reply:

* text and final image: the stripped reply goes through ``_safe_to_numeric``: ``float()``
  of the whole reply, ``0`` when that fails or gives NaN, or the reply is empty, ``nan`` or
  ``none``; no range check (``7`` is 7, ``inf`` is infinite);
* long image (``parse_mid_process_result``): every field starts at 1; each line that,
  stripped and lower-cased, starts with ``step accuracy`` / ``process consistency`` /
  ``problem-solution accuracy`` sets that field to ``int()`` of the text after its first
  ``:`` (a failure keeps the earlier value; a later line wins); the item's value is
  (Step Accuracy + Process Consistency) / 2.

>>> parse_score("Score (1-5): 4"), upstream_score("Score (1-5): 4")
(4.0, 0.0)
>>> parse_mid("Step Accuracy: 0\\nProcess Consistency: 5"), upstream_mid("Step Accuracy: 0\\nProcess Consistency: 5")
({'process_consistency': 5.0}, {'step_accuracy': 0, 'process_consistency': 5, 'problem_solution_accuracy': 1})
"""

from __future__ import annotations

import math
import re

_NUM = r"(?<![-\u2212\d.])(\d+(?:\.\d+)?)"  # not the tail of a number or of a negative one
_SCALE = re.compile(r"[(\[<]\s*(?:\d+\s*(?:-|\u2013|\u2014|~|to)\s*\d+|out\s+of\s+\d+)\s*[)\]>]", re.I)
_SCORE_PATTERNS = (
    re.compile(rf"^\W*{_NUM}\W*$"),                                   # "4", "**4**", "5." alone on line 1
    re.compile(rf"\b(?:score|rating)\b(?:\s+(?:is|of))?\W*{_NUM}", re.I),  # "Score: 4", "The score is 4"
    re.compile(rf"{_NUM}\s*(?:/|out\s+of)\s*5\b", re.I),              # "4/5", "4 out of 5"
)
_MID_LABELS = (("step_accuracy", r"step[-_ ]accuracy"), ("process_consistency", r"process[-_ ]consistency"),
               ("problem_solution_accuracy", r"problem[-_ ]solution[-_ ]accuracy"))
_UPSTREAM_PREFIXES = (("step_accuracy", "step accuracy"), ("process_consistency", "process consistency"),
                      ("problem_solution_accuracy", "problem-solution accuracy"), ("rationale", "rationale"))


def _drop_scales(text: str) -> str:
    return _SCALE.sub(" ", text)


def parse_score(text: str | None) -> float | None:
    """cvcheck's reading of a 1-5 rubric score, or None (unparseable).

    Tried in order: the score alone on the first line (``4``, ``**4**``, ``5.``, ``3.5``);
    ``Score: 4`` / ``Rating (1-5): 4`` / ``the score is 4``; ``4/5`` or ``4 out of 5``
    anywhere. Values outside 1-5 are unparseable.
    """
    if not text:
        return None
    s = _drop_scales(text).strip()
    first = s.splitlines()[0] if s else ""
    for pat, where in zip(_SCORE_PATTERNS, (first, s, s)):
        m = pat.search(where)
        if m:
            v = float(m.group(1))
            return v if 1.0 <= v <= 5.0 else None
    return None


def parse_mid(text: str | None) -> dict[str, float]:
    """cvcheck's reading of the long-image fields found in a reply (each 1-5; others left out).

    Keys ``step_accuracy``, ``process_consistency``, ``problem_solution_accuracy``; labels may
    be in markdown (``**Step Accuracy:** 4``), followed by ``:``, ``=`` or ``-`` and an
    optional ``/5``; the first mention of a label counts.
    """
    s = _drop_scales(text or "")
    out: dict[str, float] = {}
    for key, label in _MID_LABELS:
        m = re.search(rf"{label}\W*?[:\uff1a=]?\W*{_NUM}(?:\s*/\s*5)?", s, re.I)
        if m and 1.0 <= float(m.group(1)) <= 5.0:
            out[key] = float(m.group(1))
    return out


def upstream_score(text: str) -> float:
    """What upstream ``evaluate.py`` scores a text / final-image reply (``_safe_to_numeric``).

    Upstream stores ``reply.strip()`` and converts it with ``float()``; a failed conversion,
    NaN, ``""``, ``"nan"`` or ``"none"`` give the default 0. Infinity is kept, as upstream.
    """
    value = text.strip()
    if value.lower().strip() in ("nan", "none", ""):
        return 0.0
    try:
        result = float(value)
    except (ValueError, TypeError):
        return 0.0
    return 0.0 if math.isnan(result) else result


def upstream_mid(text: str) -> dict[str, int]:
    """The three fields upstream's ``parse_mid_process_result`` reads from a long-image reply."""
    out = {"step_accuracy": 1, "process_consistency": 1, "problem_solution_accuracy": 1}
    for line in text.splitlines():
        stripped = line.strip()
        low = stripped.lower()
        key = next((k for k, prefix in _UPSTREAM_PREFIXES if low.startswith(prefix)), None)
        if key is None or key == "rationale":
            continue
        try:
            out[key] = int(stripped.split(":", 1)[1])
        except (IndexError, ValueError):
            pass
    return out


def upstream_mid_value(text: str) -> float:
    """Upstream's VLM-I-Mid value of one item: (Step Accuracy + Process Consistency) / 2."""
    got = upstream_mid(text)
    return (float(got["step_accuracy"]) + float(got["process_consistency"])) / 2.0
