"""Exceptions raised by cvcheck.

Every exception carries a short machine-readable ``code`` that ends up in an
``error`` result (``Result.error.code``) when a verifier is run in batch mode.
"""

from __future__ import annotations

import re

_OBJECT_REPR = re.compile(r"<([A-Za-z_][\w.]*) object at 0x[0-9a-fA-F]+>")


def scrub(message: str) -> str:
    """``message`` without object addresses: ``<_io.BytesIO object at 0x7f...>`` becomes ``<_io.BytesIO>``.

    Addresses change from run to run, so a message quoting one would make results
    non-deterministic (and tells the user nothing).
    """
    return _OBJECT_REPR.sub(r"<\1>", message)


class CvcheckError(Exception):
    """Base class of every error cvcheck raises on purpose (its message never quotes an object address)."""

    code = "cvcheck_error"

    def __str__(self) -> str:
        return scrub(super().__str__())


class InputError(CvcheckError, ValueError):
    """An argument or a file's content is not what the API expects."""

    code = "bad_input"


class MediaError(InputError):
    """An image or video could not be read (corrupt, truncated, empty, too large)."""

    code = "bad_media"


class ConfigError(InputError):
    """A configuration file or override is invalid."""

    code = "bad_config"


class MissingDependencyError(CvcheckError, ImportError):
    """An optional component is needed but not installed; the message says which extra."""

    code = "missing_dependency"


class JudgeError(CvcheckError):
    """The judge could not produce a usable reply (timeouts, refusals, garbage)."""

    code = "judge_error"
