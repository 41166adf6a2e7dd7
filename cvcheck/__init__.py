"""cvcheck: deterministic, judge-free grading of generated puzzle images and videos."""

from ._version import __version__
from .config import Config
from .errors import CvcheckError, InputError, MediaError, MissingDependencyError
from .schema import SCHEMA_VERSION, Gate, Result, Status

__all__ = [
    "Config", "CvcheckError", "Gate", "InputError", "MediaError", "MissingDependencyError",
    "Result", "SCHEMA_VERSION", "Status", "__version__",
]
