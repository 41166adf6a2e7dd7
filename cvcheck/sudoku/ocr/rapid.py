"""Default engine: PaddleOCR's PP-OCR recognition model, as ONNX, from the ``rapidocr`` wheel.

The ``rapidocr`` package ships the PP-OCR recognition model inside its wheel; this engine
opens that file (or an explicit ``model_path``) with onnxruntime directly, so nothing is
ever downloaded. All crops of one call go through the network as one batch, with the
narrow single-character input (3, 48, 32). The network's per-timestep class
probabilities are restricted to the digits 1..N: a digit's score is its highest
probability over the timesteps, the reading is the best digit and the confidence its
score (so a letter or a smudge reads with a low confidence instead of a wrong certainty).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ...errors import InputError, MissingDependencyError
from .base import UNREADABLE, Reading

BUNDLED_REC = "PP-OCRv6_rec_small.onnx"


def bundled_model_path() -> Path:
    """Path of the PP-OCR recognition model inside the installed ``rapidocr`` wheel."""
    try:
        import rapidocr
    except ImportError as exc:  # pragma: no cover - a core dependency
        raise MissingDependencyError("the default Sudoku OCR needs 'rapidocr' (pip install rapidocr)") from exc
    path = Path(rapidocr.__file__).parent / "models" / BUNDLED_REC
    if not path.is_file():
        raise MissingDependencyError(f"rapidocr is installed but its bundled model {path} is missing; "
                                     "reinstall rapidocr>=3.4 or pass sudoku.ocr_model_path")
    return path


def select_providers(device: str) -> list[str]:
    """onnxruntime providers for ``device`` in {'cpu', 'cuda', 'auto'}."""
    import onnxruntime as ort

    available = ort.get_available_providers()
    if device == "cpu":
        return ["CPUExecutionProvider"]
    if "CUDAExecutionProvider" in available:
        return ["CUDAExecutionProvider", "CPUExecutionProvider"]
    if device == "cuda":
        raise MissingDependencyError("sudoku.ocr_device='cuda' needs onnxruntime-gpu with CUDA in place of "
                                     "onnxruntime (pip uninstall -y onnxruntime && pip install onnxruntime-gpu); "
                                     "available providers: " + ", ".join(available))
    return ["CPUExecutionProvider"]


class RapidOcrEngine:
    """PP-OCR recognition via onnxruntime, digits restricted to 1..N."""

    name = "rapidocr"

    def __init__(self, *, model_path: str | os.PathLike | None = None, threads: int = 1,
                 device: str = "cpu", batch_size: int = 96) -> None:
        try:
            import onnxruntime as ort
        except ImportError as exc:  # pragma: no cover - a core dependency
            raise MissingDependencyError(
                "the default Sudoku OCR needs 'onnxruntime' (pip install onnxruntime)") from exc
        path = Path(model_path) if model_path else bundled_model_path()
        if not path.is_file():
            raise MissingDependencyError(f"OCR model file {path} does not exist")
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        if threads > 0:
            opts.intra_op_num_threads = threads
            opts.inter_op_num_threads = 1
        self.providers = select_providers(device)
        try:
            self._session = ort.InferenceSession(str(path), sess_options=opts, providers=self.providers)
        except Exception as exc:  # noqa: BLE001 - onnxruntime's own error types (InvalidProtobuf, Fail...)
            what = "sudoku.ocr_model_path" if model_path else "the bundled OCR model"
            raise InputError(f"{what} {path} is not an ONNX model onnxruntime can load: {exc}") from None
        self._input = self._session.get_inputs()[0].name
        chars = self._session.get_modelmeta().custom_metadata_map.get("character", "").splitlines()
        # class 0 is the CTC blank, then the dictionary
        self._digit_class = {int(ch): i + 1 for i, ch in enumerate(chars) if len(ch) == 1 and ch in "123456789"}
        if len(self._digit_class) != 9:
            raise MissingDependencyError(f"OCR model {path} has no digit classes in its dictionary")
        self.model_path = str(path)
        self.batch_size = batch_size
        self.calls = 0
        self._lock = threading.Lock()

    def read_digits(self, crops: Sequence[np.ndarray], *, n: int) -> list[Reading]:
        """Recognise crops (48, 32, 3) uint8 in one batch; digits restricted to 1..n."""
        if not crops:
            return []
        batch = np.stack([np.asarray(c, dtype=np.float32) for c in crops])
        batch = (batch.transpose(0, 3, 1, 2) / 255.0 - 0.5) / 0.5
        cls = np.array([self._digit_class[d] for d in range(1, min(n, 9) + 1)])
        out: list[Reading] = []
        with self._lock:
            for start in range(0, len(batch), self.batch_size):
                probs = self._session.run(None, {self._input: batch[start:start + self.batch_size]})[0]
                scores = probs[:, :, cls].max(axis=1)          # (B, n): best timestep per digit
                best = scores.argmax(axis=1)
                for b, s in zip(best, scores):
                    conf = float(s[b])
                    out.append(Reading(digit=int(b) + 1 if conf > 0.05 else UNREADABLE, confidence=round(conf, 4)))
            self.calls += len(crops)
        return out
