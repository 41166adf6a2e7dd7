"""The fault corpus (``fault_cases.py``): every bad input ends in exit 0/1/2 or an error result, never a
traceback, an internal error (exit 3) or a hang; manifests that ``validate`` accepts run to one result per sample."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from fault_cases import CASES, Assets, execute


@pytest.fixture(scope="module")
def assets(tmp_path_factory: pytest.TempPathFactory) -> Assets:
    return Assets(tmp_path_factory.mktemp("fault-assets"))


def test_the_corpus_is_large_and_covers_every_kind_of_input() -> None:
    groups = Counter(c.group for c in CASES)
    assert len(CASES) >= 300 and len({c.name for c in CASES}) == len(CASES)
    assert set(groups) == {"image", "video", "grid", "manifest", "config", "flag"}
    assert min(groups.values()) >= 30


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_ends_cleanly(case, assets: Assets, tmp_path: Path) -> None:
    outcomes, problems = execute(case, assets, tmp_path / "case")
    assert outcomes, "the case ran no command"
    assert not problems, "\n".join(problems)
