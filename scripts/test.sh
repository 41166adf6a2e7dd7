#!/usr/bin/env bash
# Install cvcheck with its test extras into .venv and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[test]"
exec .venv/bin/python -m pytest -q "$@"
