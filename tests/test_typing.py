"""The package type-checks: ``mypy`` clean on all of it and on the benchmarks, ``mypy --strict`` on
the public modules.

cvcheck ships ``py.typed``, so users' type checkers read these annotations; a regression here is
a bug in the public API as much as a wrong verdict is.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The modules users import (the API the README documents); held to ``--strict``.
PUBLIC = ("cvcheck/__init__.py", "cvcheck/schema.py", "cvcheck/errors.py", "cvcheck/config.py",
          "cvcheck/registry.py", "cvcheck/maze/__init__.py", "cvcheck/maze/verify.py", "cvcheck/maze/task.py",
          "cvcheck/maze/spec_io.py", "cvcheck/sudoku/__init__.py", "cvcheck/sudoku/verify.py",
          "cvcheck/sudoku/task.py", "cvcheck/batch/__init__.py", "cvcheck/batch/runner.py",
          "cvcheck/judge/client.py")

pytest.importorskip("mypy", reason="mypy is in the test extra")


def _mypy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=1800)


def test_the_package_is_mypy_clean() -> None:
    done = _mypy("cvcheck")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_benchmarks_are_mypy_clean() -> None:
    """The benchmarks that measure the done-when figures type-check too (their corpora are
    drawn with maze-dataset, in the test extra)."""
    pytest.importorskip("maze_dataset", reason="maze-dataset is in the test extra")
    done = _mypy("benchmarks")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_public_modules_are_strict_clean() -> None:
    done = _mypy("--strict", "--follow-imports=silent", *PUBLIC)
    assert done.returncode == 0, done.stdout + done.stderr
