"""Limits on untrusted text, in one place: JSON, CSV, strings, numbers and encodings.

Every reader of a user's file or argument (manifests, grids, config files, ``--set``)
parses through these helpers, so a hostile or broken value is an
:class:`~cvcheck.errors.InputError` naming what was wrong, never an ``OverflowError``,
``RecursionError`` or ``UnicodeError`` from deep inside a library, and never a value
(NaN, a 5000-digit integer, a lone surrogate) that breaks a later stage.

>>> loads_json('{"a": [1, 2.5, "x"]}')
{'a': [1, 2.5, 'x']}
>>> loads_json('[NaN]')
Traceback (most recent call last):
...
cvcheck.limits.JSONLimitError: NaN is not allowed (numbers must be finite)
"""

from __future__ import annotations

import contextlib
import csv
import json
import math
import re
import threading
from collections.abc import Iterator
from typing import Any

from .errors import InputError

MAX_JSON_DEPTH = 32            #: nesting of arrays and objects in any JSON we read
MAX_STRING_CHARS = 1_000_000   #: characters in one string value or CSV field
MAX_NUMBER_CHARS = 40          #: characters of one number literal (an int64 has 19 digits)
MAX_INT = 2**63 - 1            #: integers are bounded to int64
MAX_PATH_CHARS = 4096          #: characters in one path (Linux PATH_MAX)

_SURROGATE = re.compile("[\ud800-\udfff]")


class JSONLimitError(InputError):
    """Text that is not JSON, or JSON outside cvcheck's limits; the message is the detail only."""


def loads_json(text: str | bytes, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Parse JSON strictly: finite numbers of bounded size, bounded depth and strings, valid Unicode.

    Raises
    ------
    JSONLimitError
        Invalid JSON (``"Expecting value (line 1, column 3)"``), ``NaN``/``Infinity``,
        numbers too long or outside int64/float range, nesting deeper than ``max_depth``,
        strings over :data:`MAX_STRING_CHARS` or holding lone surrogates.
    """
    if isinstance(text, (bytes, bytearray)):
        text = decode_utf8(bytes(text), "JSON text")
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_int=_parse_int, parse_float=_parse_float)
    except json.JSONDecodeError as exc:
        raise JSONLimitError(f"{exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise JSONLimitError(f"nested deeper than {max_depth} levels") from None
    check_value(value, max_depth=max_depth)
    return value


def _refuse_constant(name: str) -> Any:
    raise JSONLimitError(f"{name} is not allowed (numbers must be finite)")


def _parse_int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise JSONLimitError(f"a number of {len(text):,} digits (at most {MAX_NUMBER_CHARS})")
    value = int(text)
    if abs(value) > MAX_INT:
        raise JSONLimitError(f"integer {text} is outside the 64-bit range")
    return value


def _parse_float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise JSONLimitError(f"a number of {len(text):,} characters (at most {MAX_NUMBER_CHARS})")
    value = float(text)
    if not math.isfinite(value):
        raise JSONLimitError(f"number {text} is out of range (numbers must be finite)")
    return value


def check_value(value: Any, *, max_depth: int = MAX_JSON_DEPTH) -> None:
    """Check a parsed JSON-like value: depth, string sizes and encodings, finite numbers.

    Iterative, so a value nested far deeper than the limit is refused without recursion.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            check_text(item, "a string")
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise JSONLimitError(f"{item} is not allowed (numbers must be finite)")
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if abs(item) > MAX_INT:
                raise JSONLimitError("an integer outside the 64-bit range")
        elif isinstance(item, (list, tuple, dict)):
            if depth > max_depth:
                raise JSONLimitError(f"nested deeper than {max_depth} levels")
            if isinstance(item, dict):
                for key, child in item.items():
                    if not isinstance(key, str):
                        raise JSONLimitError(f"object keys must be strings, got {type(key).__name__}")
                    check_text(key, "an object key")
                    stack.append((child, depth + 1))
            else:
                stack.extend((child, depth + 1) for child in item)
        else:
            raise JSONLimitError(f"a value of type {type(item).__name__} is not JSON")


def check_text(value: str, what: str, *, max_chars: int = MAX_STRING_CHARS) -> str:
    """``value`` unchanged, if it is at most ``max_chars`` long and encodable as UTF-8 (no lone surrogates)."""
    if len(value) > max_chars:
        raise JSONLimitError(f"{what} of {len(value):,} characters (at most {max_chars:,})")
    bad = _SURROGATE.search(value)
    if bad is not None:
        raise JSONLimitError(f"{what} holds a lone surrogate {ascii(bad.group())} at character {bad.start()} "
                             "(not valid Unicode: was it decoded from broken UTF-16 or bytes?)")
    return value


def printable(text: str, limit: int = 200) -> str:
    """``text`` made safe to print anywhere: lone surrogates escaped, cut to ``limit`` characters."""
    safe = _SURROGATE.sub(lambda m: ascii(m.group())[1:-1], text)
    return safe if len(safe) <= limit else safe[:limit] + f"... ({len(text):,} characters)"


def decode_utf8(data: bytes, source: str) -> str:
    """Decode UTF-8 (a leading BOM dropped); an invalid byte is named with its line and column."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(f"{source} is not valid UTF-8: byte 0x{data[exc.start]:02x} at line {line}, "
                         f"column {column} ({exc.reason}); save it as UTF-8") from None


def check_path_text(value: str, what: str) -> str:
    """A path string that the OS can be asked about: non-empty, no NUL, at most :data:`MAX_PATH_CHARS`."""
    if not value.strip():
        raise InputError(f"{what} must be a non-empty path")
    if "\x00" in value:
        raise InputError(f"{what} contains a NUL character")
    if len(value) > MAX_PATH_CHARS:
        raise InputError(f"{what} is {len(value):,} characters long (at most {MAX_PATH_CHARS:,})")
    check_text(value, what)
    return value


_CSV_LOCK = threading.Lock()


@contextlib.contextmanager
def csv_field_limit(limit: int = MAX_STRING_CHARS) -> Iterator[None]:
    """Raise :func:`csv.field_size_limit` to ``limit`` while reading, then restore it.

    The limit is process-wide in the ``csv`` module; the lock keeps two readers in this
    process from restoring each other's value early.
    """
    with _CSV_LOCK:
        previous = csv.field_size_limit(limit)
        try:
            yield
        finally:
            csv.field_size_limit(previous)


def csv_error_message(exc: csv.Error, limit: int = MAX_STRING_CHARS) -> str:
    """A reader's :class:`csv.Error` in words (the field-size one names the limit)."""
    text = str(exc)
    if "field larger than field limit" in text:
        return f"a field is over {limit:,} characters"
    return f"not valid CSV: {text}"
