"""MARVEL answer extraction: regex first, a judge only when the regex finds no answer.

One principle throughout: **the last stated answer wins** (models correct themselves).

AVR answers (choices 1-4), in order:

1. explicit answer phrases (``answer is choice 3``, ``Answer: choice: 3``, ``the correct
   option is 2``, ``I choose option 4``): the last one in the reply;
2. ``choice N`` / ``option N`` mentions (the paper's regex; ``choice:4``, ``choice (2)`` and
   ``choice #1`` too): the last one (``Choice 2 looks right, but choice 3 fits.`` -> 3),
   after dropping mentions that are ruled out (``not choice 2``, ``choice 2 is wrong``) or
   that label a description (``Choice 1: a triangle``); no answer when that last mention
   is a hedge between choices (``choice 1 or choice 2``, ``either choice 1 or 3``);
3. a bare reply ``3`` / ``3.`` / ``(3)`` / ``**3**``.

Fine-grained perception answers are the label's answer or distractor word (e.g.
``upper``/``lower``): the last answer phrase naming one, else the only one of the two
that appears as a whole word.

Coarse perception answers are counts (digits or number words): the last number after an
answer phrase (``answer is``, ``total of``, ``final count``, ``N in total``), else the last
after a counting phrase (``there are``, ``I count``: ``I count 6 at first, but on closer
inspection there are 3.`` -> 3), else the single distinct number in the reply.

Refusals: an explicit refusal (``I'm sorry, but I can't help with that``, ``I must
decline``) or an empty reply. Saying the answer cannot be determined (``I cannot determine
the answer``) is not a refusal: it is an unanswered (wrong) question.

>>> extract_avr("Choice 2 looks right, but choice 3 fits."), extract_avr("choice 1 or choice 2")
(3, None)
>>> extract_count("I count 6 at first, but on closer inspection there are 3.")
3
>>> is_refusal("I'm sorry, but I can't help with that."), is_refusal("I cannot determine the answer.")
(True, False)
"""

from __future__ import annotations

import re
from typing import Sequence

_NUM_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty".split())}
_REFUSAL = re.compile(
    r"\b(?:can(?:'|no|\u2019)?t|cannot|won(?:'|\u2019)?t|will not|unable to|not able to)\s+"
    r"(?:help|assist|comply|fulfil+|engage|support|do that|process (?:this|that|the) (?:request|image))\b"
    r"|\b(?:must|have to|need to)\s+decline\b|\bI\s+(?:refuse|decline)\b", re.I)
_SEP = r"\s*[:.]?\s*[(\[#]?\s*"     # between "choice" and its number: "choice 3", "choice: 3", "choice (3)"
_PICK = r"(?:choice|option|panel)"
_AVR_PHRASES = (
    re.compile(rf"\banswer\b(?:\s+(?:is|would be|should be))?\s*[:=]?[\s*_]*(?:{_PICK})?{_SEP}([1-4])\b", re.I),
    re.compile(rf"\b(?:correct|final|best|right|appropriate|likely)\s+{_PICK}\s*(?:is|would be|:)?{_SEP}([1-4])\b",
               re.I),
    re.compile(rf"\b{_PICK}\s+(?:is|would be|should be){_SEP}([1-4])\b", re.I),
    re.compile(rf"\bI\s+(?:choose|select|pick|go with|would choose|would select)\s+(?:{_PICK})?{_SEP}([1-4])\b",
               re.I),
)
_MENTION = re.compile(rf"\b(?:choice|option){_SEP}(\d+)\b\s*[)\]]?", re.I)
_RULED_OUT_BEFORE = re.compile(
    r"(?:\bnot|n't|\brather than|\binstead of|\bexcept|\beliminat\w*|\brul\w* out|\bexclud\w*)\s+(?:the\s+)?$", re.I)
_RULED_OUT_AFTER = re.compile(
    r"\s*(?:is|are|seems?|looks?)?\s*(?:wrong|incorrect|not\b|n't|ruled out|eliminated)"
    r"|\s*(?:does not|doesn't|do not|don't|cannot|can't|fails?)\b", re.I)
_HEDGE = re.compile(rf"\b(?:choice|option){_SEP}\d+\s*[)\]]?\s*,?\s*(?:or|/)\s*(?:(?:choice|option))?{_SEP}\d+"
                    rf"|\b(?:either|between)\s+(?:choice|option){_SEP}\d+[^.;]*", re.I)
_COUNT_TOKEN = r"[\s:=*_]*(\d+|[a-z]+)\b"
_COUNT_ANSWER = (re.compile(rf"\b(?:answer|total|final count)(?:\s+(?:is|would be|should be|of))?{_COUNT_TOKEN}",
                            re.I),
                 re.compile(r"\b(\d+|[a-z]+)\s+in\s+total\b", re.I))
_COUNT_SEEN = (re.compile(rf"\b(?:there\s+(?:are|is|were)|I\s+(?:count(?:ed)?|see)|count(?:\s+is)?){_COUNT_TOKEN}",
                          re.I),)


def is_refusal(text: str | None) -> bool:
    """An explicit refusal or an empty reply (consulted only when no answer was found)."""
    return text is None or not text.strip() or bool(_REFUSAL.search(text))


def _last(patterns: Sequence[re.Pattern[str]], text: str) -> int | None:
    """The number captured by the match that starts last among ``patterns`` (numbers only)."""
    found: list[tuple[int, int]] = []
    for pat in patterns:
        for m in pat.finditer(text):
            v = _to_int(m.group(1))
            if v is not None:
                found.append((m.start(1), v))
    return max(found)[1] if found else None


def extract_avr(text: str) -> int | None:
    """The chosen panel 1-4, or None when absent or ambiguous."""
    got = _last(_AVR_PHRASES, text)
    if got is not None:
        return got
    picks = [m for m in _MENTION.finditer(text)
             if not _RULED_OUT_BEFORE.search(text[max(0, m.start() - 30):m.start()])
             and not _RULED_OUT_AFTER.match(text, m.end())
             and not text[m.end():m.end() + 1] == ":"]
    if picks:
        last = picks[-1]
        if any(h.start() <= last.start() < h.end() for h in _HEDGE.finditer(text)):
            return None  # the last word is a hedge between choices
        n = int(last.group(1))
        return n if 1 <= n <= 4 else None
    m = re.fullmatch(r"\s*[*_]*[(\[]?\s*([1-4])\s*[)\].]?[*_]*\s*", text)
    return int(m.group(1)) if m else None


def extract_option(text: str, options: Sequence[str]) -> str | None:
    """Which of ``options`` (words/phrases) the reply picks, or None."""
    stated: list[tuple[int, str]] = []
    for o in options:
        pat = r"\b(?:answer|it)\s*(?:is|:)\s*(?:the\s+)?[\"'*_]*(" + re.escape(str(o)) + r")\b"
        stated += [(m.start(1), o) for m in re.finditer(pat, text, re.I)]
    if stated:
        return max(stated)[1]
    found = [o for o in options if re.search(r"\b" + re.escape(str(o)) + r"\b", text, re.I)]
    return found[0] if len(found) == 1 else None


def extract_count(text: str) -> int | None:
    """The count a reply gives (digits or number words up to twenty), or None."""
    for tier in (_COUNT_ANSWER, _COUNT_SEEN):
        got = _last(tier, text)
        if got is not None:
            return got
    nums = {v for v in (_to_int(t) for t in re.findall(r"\b(\d+|[A-Za-z]+)\b", text)) if v is not None}
    return nums.pop() if len(nums) == 1 else None


def _to_int(token: str) -> int | None:
    if token.isdecimal():
        return int(token)
    return _NUM_WORDS.get(token.lower())
