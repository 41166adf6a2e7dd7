"""Remove credentials from text a judge server sent, before it is stored, cached or shown.

A server (or a proxy in front of it) may echo the request's ``Authorization`` header
or the key itself in a reply, an error body or a redirect target. :func:`redact`
replaces, in any text:

* each given secret (the API key), verbatim and in its JSON-escaped and URL-quoted
  forms, when it is at least :data:`MIN_SECRET_LEN` characters long (a dummy key such
  as ``EMPTY`` or ``none`` is no secret, and removing it would mangle replies);
* the value of an ``Authorization`` / ``Proxy-Authorization`` header (``Name: value``,
  ``"Name": "value"`` or ``name=value``);
* a ``Bearer <token>`` whose token looks like a credential (8+ characters with a digit
  or one of ``-._~+/=``; ``the bearer of`` stays);
* OpenAI-style ``sk-...`` keys (``sk-`` then 16+ letters, digits, ``-`` or ``_``).

>>> redact('{"error": "bad key sk-test-SECRET"}', ["sk-test-SECRET"])
'{"error": "bad key [REDACTED]"}'
>>> redact("Authorization: Bearer abc.def-123")
'Authorization: [REDACTED]'
"""

from __future__ import annotations

import json
import re
import urllib.parse
from typing import Iterable

REDACTED = "[REDACTED]"
MIN_SECRET_LEN = 8

_HEADER = re.compile(r"(?i)\b((?:proxy-)?authorization)([\"']?\s*[:=]\s*[\"']?)[^\"'\r\n,;}]*")
_BEARER = re.compile(r"(?i)\b(bearer\s+)(?=[A-Za-z]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{8,}")
_SK_TOKEN = re.compile(r"\bsk-[A-Za-z0-9_-]{16,}")


def _forms(secret: str) -> set[str]:
    return {secret, json.dumps(secret)[1:-1], urllib.parse.quote(secret, safe=""),
            urllib.parse.quote_plus(secret)}


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with secrets, authorization values, bearer tokens and ``sk-`` keys replaced."""
    for secret in secrets:
        if secret and len(secret) >= MIN_SECRET_LEN:
            for form in sorted(_forms(secret), key=len, reverse=True):
                text = text.replace(form, REDACTED)
    text = _HEADER.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)
    text = _BEARER.sub(lambda m: m.group(1) + REDACTED, text)
    return _SK_TOKEN.sub(REDACTED, text)
