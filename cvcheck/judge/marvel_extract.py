"""MARVEL answer extraction: regex first, a judge only when the regex fails.

Rules (in order) for an AVR answer (choices 1-4):

1. an explicit answer phrase: ``answer is choice 3``, ``Answer: 3``, ``correct option (3)``,
   ``the most appropriate choice is 3``;
2. ``choice N`` / ``option N`` mentions (the paper's regex), when they all name the same choice;
3. a bare reply ``3`` / ``3.`` / ``(3)``.

Fine-grained perception answers are the label's answer or distractor word (e.g.
``upper``/``lower``): whichever one appears as a whole word; an explicit answer phrase
settles a reply that mentions both. Coarse perception answers are counts: the number
after an answer phrase, else the single distinct integer (digits or words) in the reply.
Anything else is ambiguous -> judge fallback (if a judge is given) -> unparsed.
"""

from __future__ import annotations

import re
from typing import Sequence

_NUM_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty".split())}
_REFUSAL = re.compile(
    r"\b(i'?m sorry|i am sorry|i cannot|i can'?t (help|assist|answer|determine|provide)|unable to (help|assist|"
    r"answer|process|provide|determine)|i am not able to|cannot assist|can'?t assist|i won'?t|as an ai)\b", re.I)


def is_refusal(text: str | None) -> bool:
    """A refusal: empty reply, or refusal wording (only consulted when no answer was found)."""
    return text is None or not text.strip() or bool(_REFUSAL.search(text))


def extract_avr(text: str) -> int | None:
    """The chosen panel 1-4, or None when absent or ambiguous."""
    m = (re.search(r"\banswer\s*(?:is|would be|should be|:|=)?\s*:?\s*(?:choice|option|panel)?\s*[\(\[#]?\s*"
                   r"([1-4])\b", text, re.I)
         or re.search(r"\b(?:correct|final|best|right)\s+(?:choice|option|panel)\s*(?:is|:)?\s*[\(\[#]?\s*"
                      r"([1-4])\b", text, re.I)
         or re.search(r"\b(?:choice|option|panel)\s+(?:is|would be|should be)\s*[\(\[#]?\s*([1-4])\b", text, re.I))
    if m:
        return int(m.group(1))
    picks = {int(x) for x in re.findall(r"\b(?:choice|option)\s*[\(\[#]?\s*([1-9])\b", text, re.I)}
    if len(picks) == 1:
        n = picks.pop()
        return n if 1 <= n <= 4 else None
    m = re.fullmatch(r"\s*[\(\[]?\s*([1-4])\s*[\)\].]?\s*", text)
    return int(m.group(1)) if m else None


def extract_option(text: str, options: Sequence[str]) -> str | None:
    """Which of ``options`` (words/phrases) the reply picks, or None."""
    found = [o for o in options if re.search(r"\b" + re.escape(str(o)) + r"\b", text, re.I)]
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        for o in options:
            if re.search(r"(?:answer|it)\s*(?:is|:)\s*(?:the\s+)?[\"'*]*" + re.escape(str(o)) + r"\b", text, re.I):
                return o
    return None


def extract_count(text: str) -> int | None:
    """The count a reply gives (digits or number words up to twenty), or None."""
    m = re.search(r"(?:answer|total|there are|there is|count)\s*(?:is|:|=|of)?\s*(\d+|[a-z]+)\b", text, re.I)
    if m:
        val = _to_int(m.group(1))
        if val is not None:
            return val
    nums = {v for v in (_to_int(t) for t in re.findall(r"\b(\d+|[A-Za-z]+)\b", text)) if v is not None}
    return nums.pop() if len(nums) == 1 else None


def _to_int(token: str) -> int | None:
    if token.isdigit():
        return int(token)
    return _NUM_WORDS.get(token.lower())
