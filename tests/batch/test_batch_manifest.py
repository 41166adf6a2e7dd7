"""Manifests: JSONL and CSV, path resolution and refusal, line-numbered validation, the validate CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from batch_helpers import write_jsonl

from cvcheck.batch.manifest import ManifestError, load_manifest
from cvcheck.cli import main


def test_jsonl_paths_resolved_against_manifest_folder(tmp_path: Path) -> None:
    sub = tmp_path / "run"
    sub.mkdir()
    m = write_jsonl(sub / "m.jsonl", [
        {"id": 1, "task": "maze", "answer": "a/x.png", "reference": "refs/r.png", "model": "M", "difficulty": 3,
         "metadata": {"k": "v"}},
        {"id": "s", "task": "sudoku", "answer": "/abs/s.png", "puzzle": "1.3.", "solution": "grids/sol.json"},
    ])
    man = load_manifest(m)
    a, s = man.samples
    assert a["id"] == "1" and a["answer"] == str(sub / "a" / "x.png") and a["reference"] == str(sub / "refs/r.png")
    assert a["difficulty"] == "3" and a["metadata"] == {"k": "v"} and a["model"] == "M"
    assert s["answer"] == "/abs/s.png"                  # absolute paths are taken as given
    assert s["puzzle"] == "1.3."                        # a grid string is not a path
    assert s["solution"] == str(sub / "grids/sol.json")  # a JSON grid file is
    assert man.lines == [1, 2]


def test_csv_manifest_with_metadata_and_grids(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_text(
        "id,task,answer,puzzle,solution,model,metadata\n"
        's1,sudoku,img/s1.png,12..\\n..12,1234341221434321,m1,"{""n"": 4}"\n'
        "m1,maze,img/m1.png,,,m2,\n".replace("\\n", "|") + "",
        encoding="utf-8")
    with pytest.raises(ManifestError) as err:  # the maze row has no reference
        load_manifest(tmp_path / "m.csv")
    assert err.value.problems[0][0] == 3 and "reference" in err.value.problems[0][1]
    (tmp_path / "m.csv").write_text(
        "id,task,answer,reference,puzzle,solution,model,metadata\n"
        's1,sudoku,img/s1.png,,12..|..12,1234341221434321,m1,"{""n"": 4}"\n'
        "m1,maze,img/m1.png,img/r.png,,,m2,\n", encoding="utf-8")
    s1, m1 = load_manifest(tmp_path / "m.csv").samples
    assert s1["metadata"] == {"n": 4} and s1["puzzle"] == "12..|..12" and "reference" not in s1
    assert m1["reference"] == str(tmp_path / "img/r.png") and m1["model"] == "m2"


def test_every_problem_reported_with_its_line(tmp_path: Path) -> None:
    m = tmp_path / "m.jsonl"
    m.write_text("\n".join([
        json.dumps({"id": "a", "task": "maze", "answer": "a.png", "reference": "r.png"}),
        '{"id": "b", "task": ',                                                     # 2 bad JSON
        json.dumps({"id": "c", "answer": "c.png"}),                                 # 3 no task
        json.dumps({"id": "d", "task": "mazee", "answer": "d.png"}),                # 4 unknown task
        json.dumps({"id": "a", "task": "maze", "answer": "a2.png", "reference": "r.png"}),  # 5 duplicate
        json.dumps({"id": "e", "task": "maze", "answer": "../../etc/passwd.png", "reference": "r.png"}),  # 6
        json.dumps({"id": "f", "task": "maze", "answer": "ok.png", "reference": "x/../../r.png"}),  # 7 escapes
        json.dumps(["not", "an", "object"]),                                        # 8
        json.dumps({"id": "", "task": "maze", "answer": "g.png", "reference": "r.png"}),  # 9 empty id
        json.dumps({"id": "h", "task": "maze", "answer": "h.png", "reference": "r.png", "metadata": [1]}),  # 10
        "",
        "# a comment line is fine",
    ]) + "\n", encoding="utf-8")
    with pytest.raises(ManifestError) as err:
        load_manifest(m)
    lines = {line: msg for line, msg in err.value.problems}
    assert sorted(lines) == [2, 3, 4, 5, 6, 7, 8, 9, 10]
    assert "invalid JSON" in lines[2] and "task" in lines[3] and "did you mean 'maze'" in lines[4]
    assert "duplicate id 'a' (first on line 1)" in lines[5]
    assert "escapes" in lines[6] and "escapes" in lines[7] and "metadata" in lines[10]
    assert f"{m}:6:" in str(err.value)


def test_missing_and_empty_manifests(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="does not exist"):
        load_manifest(tmp_path / "nope.jsonl")
    (tmp_path / "e.jsonl").write_text("\n", encoding="utf-8")
    with pytest.raises(ManifestError, match="no samples"):
        load_manifest(tmp_path / "e.jsonl")


def test_validate_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import cv2

    from cvcheck.synth.maze_cases import make_case

    (tmp_path / "a.png").write_bytes(b"x")
    cv2.imwrite(str(tmp_path / "r.png"), make_case(3).reference[:, :, ::-1])
    (tmp_path / "junk.png").write_bytes(b"x")
    junk = write_jsonl(tmp_path / "junk.jsonl", [{"id": "a", "task": "maze", "answer": "a.png",
                                                  "reference": "junk.png"}])
    assert main(["validate", str(junk)]) == 2  # the reference is parsed: not an image
    assert "junk.jsonl:1: maze reference: cannot decode image" in capsys.readouterr().err
    good = write_jsonl(tmp_path / "good.jsonl", [{"id": "a", "task": "maze", "answer": "a.png", "reference": "r.png",
                                                  "model": "m"}])
    assert main(["validate", str(good)]) == 0
    assert "1 samples OK: maze 1; models: m" in capsys.readouterr().out
    missing = write_jsonl(tmp_path / "missing.jsonl", [{"id": "a", "task": "maze", "answer": "b.png",
                                                        "reference": "r.png"}])
    assert main(["validate", str(missing)]) == 1
    assert "missing.jsonl:1: missing file: answer" in capsys.readouterr().out
    assert main(["validate", str(missing), "--no-files"]) == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1}\n', encoding="utf-8")
    assert main(["validate", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl:1: missing 'task'" in err and "Traceback" not in err


def test_recorded_judgement_needs_no_answer_file(tmp_path: Path) -> None:
    m = write_jsonl(tmp_path / "m.jsonl", [
        {"id": "a", "task": "arc", "judge_answers": {"valid_solution": "yes"}},
        {"id": "b", "task": "arc", "judge_reply": "valid_solution: no"},
    ])
    assert [s["id"] for s in load_manifest(m).samples] == ["a", "b"]
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"id": "c", "task": "arc"}])
    with pytest.raises(ManifestError, match="missing 'answer'"):
        load_manifest(bad)


def test_validate_parses_sudoku_grids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{"id": "ok", "task": "sudoku", "answer": "a.png", "puzzle": "12..|..12|21..|...1",
             "solution": "1234|3412|2143|4321"},
            {"id": "bad", "task": "sudoku", "answer": "a.png", "puzzle": "12..|..12|21..|...1",
             "solution": "1234|3412|2143|4312"}]
    m = write_jsonl(tmp_path / "m.jsonl", rows)
    assert len(load_manifest(m)) == 2  # plain loading (cvcheck run) does not parse references
    with pytest.raises(ManifestError) as err:
        load_manifest(m, check_references=True)
    assert err.value.problems == [(2, "sudoku reference: solution is not a complete valid Sudoku")]
    assert main(["validate", str(m), "--no-files"]) == 2
    assert "m.jsonl:2: sudoku reference" in capsys.readouterr().err
