"""Sudoku grids and MMGR T2 metrics on hand-worked grids (no images)."""

from __future__ import annotations

import numpy as np
import pytest

from cvcheck.errors import InputError
from cvcheck.sudoku.metrics import score_grid
from cvcheck.sudoku.solver import count_solutions, make_puzzle, random_solution
from cvcheck.sudoku.spec import SudokuSpec, is_valid_solution, parse_grid
from cvcheck.sudoku.task import load_grid

SOL4 = "1234341221434321"
PUZ4 = "1.3..4.2.1.3...1"


def test_parse_grid_accepts_strings_json_lists_and_files(tmp_path):
    a = parse_grid("12.4 34.2\n2.43|4.21")
    assert a.shape == (4, 4) and a[0, 2] == 0 and a.dtype == np.int8
    assert (parse_grid("[[1,2,0,4],[3,4,0,2],[2,0,4,3],[4,0,2,1]]") == a).all()
    assert (parse_grid(a.tolist()) == a).all() and (parse_grid(a.ravel().tolist()) == a).all()
    assert (parse_grid("1204340220434021") == a).all()  # '0' is empty too
    f = tmp_path / "p.json"
    f.write_text('{"grid": [[1,2,0,4],[3,4,0,2],[2,0,4,3],[4,0,2,1]]}')
    t = tmp_path / "p.txt"
    t.write_text("12.4\n34.2\n2.43\n4.21\n")
    assert (parse_grid(load_grid(str(f))) == a).all() and (parse_grid(load_grid(t)) == a).all()
    assert load_grid("12.4") == "12.4"  # not a path: unchanged
    with pytest.raises(InputError, match="looks like a file path"):  # the array layer reads no files
        parse_grid(str(f))
    with pytest.raises(InputError, match="does not exist"):  # not read as a digit string
        load_grid(str(tmp_path / "missing.json"))
    (tmp_path / "bad.json").write_text("[[1, 2")
    with pytest.raises(InputError, match="not valid JSON"):
        load_grid(tmp_path / "bad.json")


@pytest.mark.parametrize("bad", ["123", "12x4" * 4, "1" * 100, "1" * 4, [[1, 2], [3, 4]], "5" * 16, "[[1,2"])
def test_parse_grid_rejects_malformed(bad):
    with pytest.raises(InputError):
        parse_grid(bad)


def test_spec_checks_solution_against_puzzle():
    SudokuSpec.from_values(PUZ4, SOL4)
    with pytest.raises(InputError):
        SudokuSpec.from_values(PUZ4, "1234341221434312")  # invalid solution
    with pytest.raises(InputError):
        SudokuSpec.from_values("2" + PUZ4[1:], SOL4)  # clue disagrees


def test_solved_grid_scores_perfect():
    spec = SudokuSpec.from_values(PUZ4, SOL4)
    s = score_grid(spec, spec.solution.copy())
    assert (s.clues_changed, s.constraint_violation, s.completion_accuracy, s.overall) == (0, 0.0, 1.0, 1)


def test_one_wrong_cell_names_the_cell_and_the_clashing_units():
    spec = SudokuSpec.from_values(PUZ4, SOL4)
    read = spec.solution.copy()
    read[0, 1] = 1  # empty cell (0,1): 2 -> 1 duplicates the clue 1 at (0,0) in row 0, box 0; col 1 has 4,1,1? no
    s = score_grid(spec, read)
    assert s.clues_changed == 0 and s.overall == 0
    assert s.wrong_cells == [{"row": 0, "col": 1, "expected": 2, "read": 1}]
    units = {v["unit"] for v in s.violations}
    # row 0 = 1 1 3 4, box 0 = 1 1 3 4, col 1 = 1 4 1 3 -> three of the 12 constraints
    assert units == {"row 0", "col 1", "box 0"}
    assert s.constraint_violation == pytest.approx(3 / 12)
    assert s.completion_accuracy == pytest.approx(8 / 9)


def test_changed_clue_and_blank_cells():
    spec = SudokuSpec.from_values(PUZ4, SOL4)
    read = spec.solution.copy()
    read[0, 0] = 0          # a removed clue
    read[3, 3] = 0          # a clue (1) left out -> clue changed too
    read[0, 1] = 0          # an empty cell left empty
    s = score_grid(spec, read)
    assert s.clues_changed == 1 and {(c["row"], c["col"]) for c in s.changed_clues} == {(0, 0), (3, 3)}
    assert s.constraint_violation == 0.0  # blanks do not violate
    assert s.completion_accuracy == pytest.approx(8 / 9)


def test_box_duplicate_with_valid_rows_and_columns():
    sol = parse_grid(SOL4)
    swapped = sol[[3, 1, 2, 0]]  # rows 0 and 3 from different bands
    assert all(sorted(r) == [1, 2, 3, 4] for r in swapped.tolist())
    assert all(sorted(c) == [1, 2, 3, 4] for c in swapped.T.tolist())
    assert not is_valid_solution(swapped)
    s = score_grid(SudokuSpec.from_values("." * 16, SOL4), swapped)
    assert {v["unit"] for v in s.violations} == {"box 0", "box 1", "box 2", "box 3"}
    assert s.constraint_violation == pytest.approx(4 / 12)


def test_generator_makes_unique_puzzles():
    rng = np.random.default_rng(1)
    for n, clues in ((4, 6), (9, 30)):
        sol = random_solution(n, rng)
        assert is_valid_solution(sol)
        puz = make_puzzle(sol, clues, rng)
        assert count_solutions(puz) == 1 and ((puz == 0) | (puz == sol)).all()
    assert count_solutions(np.zeros((4, 4), np.int8)) == 2  # capped at the limit


def test_box_shapes_by_size_and_latin_squares():
    from cvcheck.sudoku.boxes import default_boxes, parse_boxes
    from cvcheck.sudoku.spec import units

    assert [default_boxes(n) for n in (3, 4, 5, 6, 8, 9)] == [None, (2, 2), None, (2, 3), (2, 4), (3, 3)]
    assert parse_boxes("2x3", 6) == (2, 3) and parse_boxes("none") is None and parse_boxes("") == "auto"
    assert parse_boxes(None) is None and parse_boxes([3, 3], 9) == (3, 3)
    for bad in ("2x2", "axb", "3x3x3"):
        with pytest.raises(InputError):
            parse_boxes(bad, 6)
    assert len(units(3, None)) == 6 and len(units(6)) == 18
    latin = SudokuSpec.from_values("1........", "123231312")  # 3x3 Latin square, solution given
    assert latin.boxes is None and latin.unit_count == 6
    read = latin.solution.copy()
    read[1, 1] = 1  # row 1 = 2 1 1, col 1 = 2 1 1 -> 2 of the 6 constraints
    s = score_grid(latin, read)
    assert {v["unit"] for v in s.violations} == {"row 1", "col 1"} and s.constraint_violation == pytest.approx(2 / 6)
    six = SudokuSpec.from_values("." * 36, "123456456123231564564231312645645312")
    assert six.boxes == (2, 3)
    with pytest.raises(InputError, match="not a complete valid"):  # rows and columns fine, 2x3 boxes not
        SudokuSpec.from_values("." * 36, "123456234561345612456123561234612345")


def test_solution_computed_when_missing_and_bad_puzzles_named():
    from cvcheck.sudoku.solver import SolverBudgetError, solve_unique

    spec = SudokuSpec.from_values(".2....1...4..3..")  # 4 clues, one solution
    assert spec.solved and spec.solution.tolist() == parse_grid(SOL4).tolist()
    with pytest.raises(InputError, match="no solution"):
        SudokuSpec.from_values("11" + "." * 14)
    with pytest.raises(InputError, match=r"several solutions \(r\d+c\d+ can be"):
        SudokuSpec.from_values(PUZ4)
    with pytest.raises(SolverBudgetError, match="past 50 nodes"):  # never a hang: a node budget, then an error
        solve_unique(np.zeros((9, 9), np.int8), max_nodes=50)
    rng = np.random.default_rng(3)
    for n, boxes in ((3, None), (5, None), (6, (2, 3)), (6, (3, 2)), (8, (2, 4))):
        sol = random_solution(n, rng, boxes=boxes)
        assert is_valid_solution(sol, boxes), (n, boxes)
        puz = make_puzzle(sol, 0, rng, boxes=boxes)
        assert count_solutions(puz, boxes=boxes) == 1
        assert (SudokuSpec.from_values(puz, boxes=boxes).solution == sol).all()
