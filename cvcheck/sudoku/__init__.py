"""MMGR T2 Sudoku verifier (OCR pipeline): images and videos.

Arrays in, Result out: :func:`verify_image`, :func:`verify_video` (frames). Files and
grid files: :mod:`cvcheck.sudoku.task` (``verify_video_file``, ``grade_sample``).
"""

from .spec import SudokuSpec, parse_grid
from .verify import verify_image, verify_video

__all__ = ["SudokuSpec", "parse_grid", "verify_image", "verify_video"]
