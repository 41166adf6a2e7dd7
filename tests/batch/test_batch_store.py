"""Results files: durable appends, torn-tail detection and repair, corrupt lines, duplicates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cvcheck.batch.store import ResultWriter, comparable, load_results, make_record, read_records
from cvcheck.errors import InputError
from cvcheck.schema import Result, Status


def _rec(i: int) -> dict:
    r = Result(id=f"s{i}", task="maze", pipeline="pixel", modality="image", status=Status.OK, overall=1.0,
               metrics={"cross_wall": 0})
    return make_record(r, {"id": f"s{i}", "model": "m"}, timing={"seconds": 0.1 * i})


def test_append_and_read_back(tmp_path: Path) -> None:
    p = tmp_path / "r.jsonl"
    with ResultWriter(p) as w:
        for i in range(3):
            w.write(_rec(i))
    got = read_records(p)
    assert [r["id"] for r in got.records] == ["s0", "s1", "s2"] and not got.torn_tail
    assert got.records[1]["sample"]["model"] == "m"
    assert [r.id for r in load_results(p)] == ["s0", "s1", "s2"]
    assert "timing" not in comparable(got.records[0]) and "sample" in comparable(got.records[0])


@pytest.mark.parametrize("tail", [b'{"id": "s9", "task": "ma', b'{"id": "s9"}', b"\x00\x00\x00", b'{"id": "s9", '])
def test_torn_tail_is_detected_and_cut_before_appending(tmp_path: Path, tail: bytes) -> None:
    p = tmp_path / "r.jsonl"
    with ResultWriter(p) as w:
        w.write(_rec(0))
        w.write(_rec(1))
    good = p.read_bytes()
    p.write_bytes(good + tail)  # a writer killed mid-line (or before its newline)
    got = read_records(p)
    assert got.torn_tail and [r["id"] for r in got.records] == ["s0", "s1"] and got.good_bytes == len(good)
    with ResultWriter(p) as w:
        assert w.existing.torn_tail
        w.write(_rec(2))
    lines = p.read_bytes().split(b"\n")
    assert lines[-1] == b"" and [json.loads(x)["id"] for x in lines[:-1]] == ["s0", "s1", "s2"]


def test_corrupt_line_inside_the_file_is_an_error_with_its_number(tmp_path: Path) -> None:
    p = tmp_path / "r.jsonl"
    p.write_text(json.dumps(_rec(0)) + "\nnot json\n" + json.dumps(_rec(1)) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"r.jsonl:2: corrupt"):
        read_records(p)


def test_duplicates_keep_the_first(tmp_path: Path) -> None:
    p = tmp_path / "r.jsonl"
    a, b = _rec(0), {**_rec(0), "overall": 0.0}
    p.write_text(json.dumps(a) + "\n" + json.dumps(b) + "\n", encoding="utf-8")
    got = read_records(p)
    assert got.duplicates == ["s0"] and got.records[0]["overall"] == 1.0


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        read_records(tmp_path / "none.jsonl")
    assert read_records(tmp_path / "none.jsonl", must_exist=False).records == []


def test_a_manifest_is_not_a_results_file(tmp_path: Path) -> None:
    p = tmp_path / "m.jsonl"
    p.write_text(json.dumps({"id": "a", "task": "maze", "answer": "a.png"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="m.jsonl:1: not a cvcheck result"):
        read_records(p)
    with pytest.raises(InputError, match="not a cvcheck result"):
        ResultWriter(p)  # resuming into it would append results to a manifest
