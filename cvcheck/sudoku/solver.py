"""A small exact Sudoku solver (bitmask backtracking, fewest-candidates first).

Used by the synthetic generator to make puzzles with exactly one solution.
"""

from __future__ import annotations

import math

import numpy as np


def count_solutions(puzzle: np.ndarray, *, limit: int = 2) -> int:
    """Number of solutions of ``puzzle`` (0 = empty), counting at most ``limit``."""
    n = puzzle.shape[0]
    b = math.isqrt(n)
    grid = [int(v) for v in np.asarray(puzzle).ravel()]
    full = (1 << (n + 1)) - 2
    rows = [0] * n
    cols = [0] * n
    boxes = [0] * n
    box_of = [(i // n) // b * b + (i % n) // b for i in range(n * n)]
    for i, v in enumerate(grid):
        if v:
            bit = 1 << v
            r, c, k = i // n, i % n, box_of[i]
            if rows[r] & bit or cols[c] & bit or boxes[k] & bit:
                return 0
            rows[r] |= bit
            cols[c] |= bit
            boxes[k] |= bit
    empties = [i for i, v in enumerate(grid) if not v]
    found = 0

    def solve() -> None:
        nonlocal found
        best, best_cand, best_count = -1, 0, n + 1
        for i in empties:
            if grid[i]:
                continue
            cand = full & ~(rows[i // n] | cols[i % n] | boxes[box_of[i]])
            cnt = (cand).bit_count()
            if cnt < best_count:
                best, best_cand, best_count = i, cand, cnt
                if cnt <= 1:
                    break
        if best < 0:
            found += 1
            return
        if best_count == 0:
            return
        r, c, k = best // n, best % n, box_of[best]
        cand = best_cand
        while cand and found < limit:
            bit = cand & -cand
            cand ^= bit
            grid[best] = bit.bit_length() - 1
            rows[r] |= bit
            cols[c] |= bit
            boxes[k] |= bit
            solve()
            rows[r] ^= bit
            cols[c] ^= bit
            boxes[k] ^= bit
            grid[best] = 0

    solve()
    return found


def random_solution(n: int, rng: np.random.Generator) -> np.ndarray:
    """A random complete valid N x N Sudoku (pattern + band/stack/digit shuffles)."""
    b = math.isqrt(n)

    def shuffled_lines() -> list[int]:
        bands = rng.permutation(b)
        return [int(band) * b + int(i) for band in bands for i in rng.permutation(b)]

    rows, cols = shuffled_lines(), shuffled_lines()
    digits = rng.permutation(n) + 1
    base = np.array([[(b * (r % b) + r // b + c) % n for c in cols] for r in rows])
    return digits[base].astype(np.int8)


def make_puzzle(solution: np.ndarray, clues: int, rng: np.random.Generator) -> np.ndarray:
    """Remove digits (random order) while the solution stays unique, down to ``clues`` if possible."""
    puzzle = solution.copy()
    n = solution.shape[0]
    for i in rng.permutation(n * n):
        if int((puzzle != 0).sum()) <= clues:
            break
        r, c = divmod(int(i), n)
        keep = puzzle[r, c]
        puzzle[r, c] = 0
        if count_solutions(puzzle, limit=2) != 1:
            puzzle[r, c] = keep
    return puzzle
