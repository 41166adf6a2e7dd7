"""Done-when: the report opens in headless Chromium without errors (screenshot checked).

Skipped only when no Chromium binary is installed; ``.ci/run`` installs one and sets
``CVCHECK_REQUIRE_CHROMIUM=1`` so that CI cannot skip it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from batch_helpers import maze_corpus

from cvcheck.batch import run_manifest
from cvcheck.media.image import load_image
from cvcheck.report import build_report

BINARIES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
BROWSER = next((shutil.which(b) for b in BINARIES if shutil.which(b)), None)
if BROWSER is None and os.environ.get("CVCHECK_REQUIRE_CHROMIUM") != "1":
    pytest.skip("no Chromium binary (apt-get install chromium) to open the report in", allow_module_level=True)

ERRORS = re.compile(r"(CONSOLE|Uncaught|ERR_FILE_NOT_FOUND|net::ERR|Failed to load|Not allowed to load)", re.I)


def _chromium(*args: str, home: Path) -> subprocess.CompletedProcess:
    assert BROWSER is not None, "CVCHECK_REQUIRE_CHROMIUM=1 but no Chromium binary found"
    cmd = [BROWSER, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
           f"--user-data-dir={home / 'profile'}", "--enable-logging=stderr", "--v=0", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env={**os.environ, "HOME": str(home)})


def test_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    manifest = maze_corpus(tmp_path / "corpus", 6, seed=9)
    run_manifest(manifest, tmp_path / "r.jsonl", workers=2)
    index = build_report(tmp_path / "r.jsonl", tmp_path / "report")
    url = index.resolve().as_uri()
    shot = tmp_path / "shot.png"
    res = _chromium("--window-size=1280,2000", f"--screenshot={shot}", url, home=tmp_path)
    assert shot.is_file(), res.stderr[-2000:]
    page_errors = [ln for ln in res.stderr.splitlines() if ERRORS.search(ln)]
    assert not page_errors, page_errors
    img = load_image(shot)
    assert img.shape[:2] == (2000, 1280)
    assert img.std() > 20 and (img < 100).mean() > 0.005  # text, tables and charts were drawn
    dom = _chromium("--dump-dom", url, home=tmp_path).stdout
    source = index.read_text(encoding="utf-8")
    assert dom.count("<table") == source.count("<table") > 0
    assert dom.count("<img") == source.count("<img") > 0
    if os.environ.get("CVCHECK_KEEP_SCREENSHOT"):
        shutil.copy(shot, os.environ["CVCHECK_KEEP_SCREENSHOT"])
    assert np.asarray(img).dtype == np.uint8
