"""Digit recognisers behind one interface (see :class:`~cvcheck.sudoku.ocr.base.DigitEngine`).

``get_engine(config)`` returns a cached engine for the Sudoku config section:
``rapidocr`` (default: PP-OCR ONNX from the rapidocr wheel, onnxruntime) or
``paddleocr`` (PaddleOCR + PaddlePaddle from local model dirs, extra ``paddle``).
"""

from __future__ import annotations

import threading
from typing import Any

from ...config import SudokuConfig
from ...errors import ConfigError
from .base import (
    MARGIN_SHARE,
    UNREADABLE,
    DigitEngine,
    GlyphBank,
    Reading,
    glyph_distance,
    group_glyphs,
    read_with_grouping,
    second_look,
    with_margin,
)

ENGINES = ("rapidocr", "paddleocr")
_CACHE: dict[tuple[Any, ...], DigitEngine] = {}
_LOCK = threading.Lock()


def get_engine(config: SudokuConfig) -> DigitEngine:
    """The (process-wide cached) engine named by ``config.ocr_engine``."""
    name = config.ocr_engine
    if name == "rapidocr":
        key: tuple[Any, ...] = (name, config.ocr_model_path, config.ocr_threads, config.ocr_device)
    elif name == "paddleocr":
        key = (name, config.paddle_rec_model_dir, config.paddle_rec_model_name, config.ocr_device)
    else:
        raise ConfigError(f"unknown sudoku.ocr_engine {name!r}; choose one of {', '.join(ENGINES)}")
    with _LOCK:
        engine = _CACHE.get(key)
        if engine is None:
            if name == "rapidocr":
                from .rapid import RapidOcrEngine

                engine = RapidOcrEngine(model_path=config.ocr_model_path or None, threads=config.ocr_threads,
                                        device=config.ocr_device)
            else:
                from .paddle import PaddleOcrEngine

                engine = PaddleOcrEngine(model_dir=config.paddle_rec_model_dir,
                                         model_name=config.paddle_rec_model_name, device=config.ocr_device)
            _CACHE[key] = engine
    return engine


__all__ = ["ENGINES", "MARGIN_SHARE", "UNREADABLE", "DigitEngine", "GlyphBank", "Reading", "get_engine",
           "glyph_distance", "group_glyphs", "read_with_grouping", "second_look", "with_margin"]
