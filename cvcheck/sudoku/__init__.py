"""MMGR T2 Sudoku, OCR pipeline: read a generated grid image or video and score it."""
