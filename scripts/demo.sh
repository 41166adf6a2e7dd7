#!/usr/bin/env bash
# First run on a fresh machine: install cvcheck into .venv and run the demo (a few minutes at most).
# Usage: bash scripts/demo.sh [OUT]   (default OUT: ./cvcheck-demo)
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q -e .
exec .venv/bin/cvcheck demo "$@"
