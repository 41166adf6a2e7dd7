"""Video frames kept in YUV 4:2:0 (as decoded), turned into RGB only where it is needed.

Converting every decoded frame to RGB costs about as much CPU as decoding it, and a
verifier needs RGB for a small part of most frames: the maze's region, resampled onto
a canvas of a few hundred pixels. A :class:`YuvFrame` keeps the three planes; its
:meth:`~YuvFrame.rgb` gives the whole frame in RGB when asked (once, cached), and
:class:`~cvcheck.vision.canvas.CanvasSampler` resamples a region of it straight from
the planes and converts only the result.

Chroma is sampled once per 2 x 2 pixels. As a video decoder's RGB conversion does, a
chroma sample stands for its whole 2 x 2 block: in *edge* coordinates (pixel ``i``
spans ``[i, i + 1)``), chroma coordinate = luma coordinate / 2. Resampling is linear
in Y, U and V alike, so resampling the planes then converting agrees with converting
then resampling up to rounding, and where a colour outside the RGB cube is clipped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Union

import cv2
import numpy as np

#: (Kr, Kb) luma weights of the YUV matrices met in video files (FFmpeg's colour space numbers)
_LUMA_WEIGHTS = {
    1: (0.2126, 0.0722),    # BT.709
    4: (0.30, 0.11),        # FCC
    5: (0.299, 0.114),      # BT.470BG (BT.601 625)
    6: (0.299, 0.114),      # SMPTE 170M (BT.601 525)
    7: (0.212, 0.087),      # SMPTE 240M
    9: (0.2627, 0.0593),    # BT.2020 non-constant luminance
    10: (0.2627, 0.0593),   # BT.2020 constant luminance (converted as non-constant)
}
BT601 = (0.299, 0.114)  #: what decoders assume for an unspecified colour space


@dataclass(frozen=True)
class YuvMatrix:
    """A YUV -> RGB conversion: luma weights and whether the range is full (0-255) or
    limited (luma 16-235, chroma 16-240, as most H.264 video)."""

    kr: float = BT601[0]
    kb: float = BT601[1]
    full_range: bool = False

    @classmethod
    def from_tags(cls, colorspace: int | None, color_range: int | None, *, jpeg_format: bool = False) -> YuvMatrix:
        """The matrix for FFmpeg's colour space and range tags (``AVColorSpace``,
        ``AVColorRange``: 2 = full); unknown or unspecified tags give BT.601, limited range,
        as FFmpeg's converter assumes. ``jpeg_format``: a ``yuvj420p`` stream (full range)."""
        kr, kb = _LUMA_WEIGHTS.get(int(colorspace or 0), BT601)
        return cls(kr=kr, kb=kb, full_range=jpeg_format or color_range == 2)

    def affine(self) -> np.ndarray:
        """The 3 x 4 float32 matrix taking (Y, U, V, 1) to (R, G, B) (read-only, built once)."""
        return _affine(self)


@lru_cache(maxsize=16)
def _affine(m: YuvMatrix) -> np.ndarray:
    kr, kb = m.kr, m.kb
    kg = 1.0 - kr - kb
    ys, cs = (1.0, 1.0) if m.full_range else (255.0 / 219.0, 255.0 / 224.0)
    y0 = 0.0 if m.full_range else 16.0
    rv, bu = 2.0 * (1.0 - kr) * cs, 2.0 * (1.0 - kb) * cs
    gu, gv = -2.0 * kb * (1.0 - kb) / kg * cs, -2.0 * kr * (1.0 - kr) / kg * cs
    rows = [(ys, 0.0, rv), (ys, gu, gv), (ys, bu, 0.0)]
    out = np.array([[a, b, c, -a * y0 - (b + c) * 128.0] for a, b, c in rows], np.float32)
    out.flags.writeable = False
    return out


class YuvFrame:
    """One decoded 4:2:0 frame: planes ``y`` (H, W) and ``u``, ``v`` (ceil(H/2), ceil(W/2)),
    all uint8 (views are fine; they are never modified).

    Parameters
    ----------
    y, u, v : ndarray
    matrix : YuvMatrix
        How the planes map to RGB.
    to_rgb : callable, optional
        Returns the whole frame as RGB (H, W, 3) uint8 - the decoder's own conversion,
        so that whole frames are the same pixels as a plain RGB reader gives. Without it,
        :meth:`rgb` converts with ``matrix``.
    """

    __slots__ = ("y", "u", "v", "matrix", "_to_rgb", "_rgb")

    def __init__(self, y: np.ndarray, u: np.ndarray, v: np.ndarray, *, matrix: YuvMatrix,
                 to_rgb: Callable[[], np.ndarray] | None = None) -> None:
        if y.ndim != 2 or y.dtype != np.uint8 or u.dtype != np.uint8 or v.dtype != np.uint8:
            raise ValueError("YUV planes must be 2-D uint8 arrays")
        h, w = y.shape
        if u.shape != ((h + 1) // 2, (w + 1) // 2) or v.shape != u.shape:
            raise ValueError(f"4:2:0 chroma planes of a {h}x{w} frame must be {(h + 1) // 2}x{(w + 1) // 2}, "
                             f"got {u.shape} and {v.shape}")
        self.y, self.u, self.v, self.matrix = y, u, v, matrix
        self._to_rgb = to_rgb
        self._rgb: np.ndarray | None = None

    @property
    def shape(self) -> tuple[int, int, int]:
        """(H, W, 3), as the RGB frame's."""
        return (int(self.y.shape[0]), int(self.y.shape[1]), 3)

    def rgb(self) -> np.ndarray:
        """The whole frame in RGB (H, W, 3) uint8, converted once and kept."""
        if self._rgb is None:
            if self._to_rgb is not None:
                self._rgb = self._to_rgb()
                self._to_rgb = None
            else:
                h, w = self.y.shape  # each chroma sample over its 2 x 2 pixels
                u, v = (cv2.resize(c, (2 * c.shape[1], 2 * c.shape[0]), interpolation=cv2.INTER_NEAREST)[:h, :w]
                        for c in (self.u, self.v))
                self._rgb = yuv_to_rgb(cv2.merge([np.ascontiguousarray(self.y), u, v]), self.matrix)
        return self._rgb

    @classmethod
    def from_rgb(cls, rgb: np.ndarray, *, matrix: YuvMatrix | None = None) -> YuvFrame:
        """Encode an RGB frame (H, W, 3) uint8 as 4:2:0 (chroma averaged over 2 x 2 blocks),
        as a video encoder would; for tests and synthetic video."""
        m = matrix or YuvMatrix()
        inv = np.linalg.inv(np.vstack([m.affine().astype(np.float64), [0.0, 0.0, 0.0, 1.0]]))[:3]
        yuv = cv2.transform(np.ascontiguousarray(rgb), inv.astype(np.float32))
        h, w = rgb.shape[:2]
        padded = cv2.copyMakeBorder(yuv, 0, h % 2, 0, w % 2, cv2.BORDER_REPLICATE)
        half = cv2.resize(padded, (padded.shape[1] // 2, padded.shape[0] // 2), interpolation=cv2.INTER_AREA)
        _, u, v = cv2.split(half)
        return cls(np.ascontiguousarray(yuv[:, :, 0]), u, v, matrix=m)


Frame = Union[np.ndarray, YuvFrame]  #: a decoded frame: RGB (H, W, 3) uint8, or its YUV planes


def as_rgb_frame(frame: Frame) -> np.ndarray:
    """The frame in RGB (H, W, 3) uint8 (a YUV frame converted once)."""
    return frame.rgb() if isinstance(frame, YuvFrame) else frame


def yuv_to_rgb(yuv: np.ndarray, matrix: YuvMatrix) -> np.ndarray:
    """Convert packed YUV (H, W, 3) uint8 to RGB (rounded, clipped to 0-255)."""
    return cv2.transform(yuv, matrix.affine())


__all__ = ["BT601", "Frame", "YuvFrame", "YuvMatrix", "as_rgb_frame", "yuv_to_rgb"]
