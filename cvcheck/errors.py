"""Exceptions raised by cvcheck.

Every exception carries a short machine-readable ``code`` that ends up in an
``error`` result (``Result.error.code``) when a verifier is run in batch mode.
"""

from __future__ import annotations


class CvcheckError(Exception):
    """Base class of every error cvcheck raises on purpose."""

    code = "cvcheck_error"


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
