"""Test-suite set-up: the shared helper modules in this folder are importable from every test folder
(and from spawned worker processes, which inherit ``sys.path``)."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = str(Path(__file__).parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)
