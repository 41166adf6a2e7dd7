"""A small exact solver for N x N Sudoku with R x C boxes or none (Latin squares).

Bitmask backtracking, fewest-candidates cell first, with a node budget so that a
puzzle with few clues can never hang the caller: past ``max_nodes`` search nodes
:class:`SolverBudgetError` says so. Used to compute the solution of a puzzle given
without one (:func:`solve_unique`) and by cvcheck's own synthetic generator.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError
from .boxes import boxes_label, resolve_boxes

#: search nodes allowed by default (a hard 9x9 takes a few thousand)
DEFAULT_MAX_NODES = 200_000


class SolverBudgetError(InputError):
    """The search for solutions ran past its node budget."""

    code = "solver_budget"


def find_solutions(puzzle: np.ndarray, *, boxes: Any = "auto", limit: int = 2,
                   max_nodes: int = DEFAULT_MAX_NODES) -> list[np.ndarray]:
    """Up to ``limit`` solutions of ``puzzle`` (0 = empty).

    Raises
    ------
    SolverBudgetError
        When more than ``max_nodes`` search nodes are needed to find ``limit``
        solutions or to show that there are fewer.
    """
    grid_in = np.asarray(puzzle)
    n = int(grid_in.shape[0])
    shape = resolve_boxes(boxes, n)
    grid = [int(v) for v in grid_in.ravel()]
    full = (1 << (n + 1)) - 2
    rows = [0] * n
    cols = [0] * n
    box_masks = [0] * n
    if shape is None:
        box_of = [0] * (n * n)
        use_boxes = False
    else:
        br, bc = shape
        box_of = [(i // n) // br * (n // bc) + (i % n) // bc for i in range(n * n)]
        use_boxes = True
    for i, v in enumerate(grid):
        if v:
            bit = 1 << v
            r, c, k = i // n, i % n, box_of[i]
            if rows[r] & bit or cols[c] & bit or (use_boxes and box_masks[k] & bit):
                return []
            rows[r] |= bit
            cols[c] |= bit
            if use_boxes:
                box_masks[k] |= bit
    empties = [i for i, v in enumerate(grid) if not v]
    found: list[np.ndarray] = []
    nodes = 0

    def solve() -> None:
        nonlocal nodes
        nodes += 1
        if nodes > max_nodes:
            raise SolverBudgetError(f"the puzzle's search ran past {max_nodes:,} nodes (boxes "
                                    f"{boxes_label(shape)}, {n * n - len(empties)} clues): too few clues to settle")
        best, best_cand, best_count = -1, 0, n + 1
        for i in empties:
            if grid[i]:
                continue
            used = rows[i // n] | cols[i % n] | (box_masks[box_of[i]] if use_boxes else 0)
            cand = full & ~used
            cnt = cand.bit_count()
            if cnt < best_count:
                best, best_cand, best_count = i, cand, cnt
                if cnt <= 1:
                    break
        if best < 0:
            found.append(np.array(grid, dtype=np.int8).reshape(n, n))
            return
        if best_count == 0:
            return
        r, c, k = best // n, best % n, box_of[best]
        cand = best_cand
        while cand and len(found) < limit:
            bit = cand & -cand
            cand ^= bit
            grid[best] = bit.bit_length() - 1
            rows[r] |= bit
            cols[c] |= bit
            if use_boxes:
                box_masks[k] |= bit
            solve()
            rows[r] ^= bit
            cols[c] ^= bit
            if use_boxes:
                box_masks[k] ^= bit
            grid[best] = 0

    solve()
    return found


def count_solutions(puzzle: np.ndarray, *, limit: int = 2, boxes: Any = "auto",
                    max_nodes: int = DEFAULT_MAX_NODES) -> int:
    """Number of solutions of ``puzzle`` (0 = empty), counting at most ``limit``."""
    return len(find_solutions(puzzle, boxes=boxes, limit=limit, max_nodes=max_nodes))


def solve_unique(puzzle: np.ndarray, *, boxes: Any = "auto", max_nodes: int = DEFAULT_MAX_NODES,
                 name: str = "puzzle") -> np.ndarray:
    """The only solution of ``puzzle``.

    Raises
    ------
    InputError
        Naming the problem: no solution, several (with a cell where two differ), or
        the search budget exhausted (:class:`SolverBudgetError`).
    """
    grid = np.asarray(puzzle)
    n = int(grid.shape[0])
    shape = resolve_boxes(boxes, n)
    sols = find_solutions(grid, boxes=shape, limit=2, max_nodes=max_nodes)
    what = f"{name} ({n}x{n}, boxes {boxes_label(shape)}, {int((grid != 0).sum())} clues)"
    if not sols:
        raise InputError(f"{what} has no solution")
    if len(sols) > 1:
        r, c = (int(v) for v in np.argwhere(sols[0] != sols[1])[0])
        raise InputError(f"{what} has several solutions (r{r + 1}c{c + 1} can be {sols[0][r, c]} or "
                         f"{sols[1][r, c]}); pass the solution")
    return sols[0]


def random_solution(n: int, rng: np.random.Generator, *, boxes: Any = "auto") -> np.ndarray:
    """A random complete valid N x N grid (pattern + band/stack/digit shuffles).

    With R x C boxes: the pattern ``(C * (r % R) + r // R + c) % N``; without boxes a
    cyclic Latin square; rows and columns are shuffled within and across bands/stacks.
    """
    shape = resolve_boxes(boxes, n)
    br, bc = shape if shape is not None else (1, n)
    digits = rng.permutation(n) + 1
    if shape is None:
        rows, cols = rng.permutation(n), rng.permutation(n)
        base = np.array([[(int(r) + int(c)) % n for c in cols] for r in rows])
        return digits[base].astype(np.int8)
    # rows: bands of br rows (n // br bands); columns: stacks of bc columns (n // bc stacks)
    row_order = [int(b) * br + int(i) for b in rng.permutation(n // br) for i in rng.permutation(br)]
    col_order = [int(s) * bc + int(i) for s in rng.permutation(n // bc) for i in rng.permutation(bc)]
    base = np.array([[(bc * (r % br) + r // br + c) % n for c in col_order] for r in row_order])
    return digits[base].astype(np.int8)


def make_puzzle(solution: np.ndarray, clues: int, rng: np.random.Generator, *, boxes: Any = "auto") -> np.ndarray:
    """Remove digits (random order) while the solution stays unique, down to ``clues`` if possible."""
    puzzle = solution.copy()
    n = solution.shape[0]
    shape = resolve_boxes(boxes, n)
    for i in rng.permutation(n * n):
        if int((puzzle != 0).sum()) <= clues:
            break
        r, c = divmod(int(i), n)
        keep = puzzle[r, c]
        puzzle[r, c] = 0
        if count_solutions(puzzle, limit=2, boxes=shape) != 1:
            puzzle[r, c] = keep
    return puzzle
