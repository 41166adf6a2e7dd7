"""Frame-level effects: letterboxing, camera drift/zoom, colour drift, blur and JPEG re-encoding.

Affines are 2x3 float arrays acting on ``[x, y, 1]`` (pixel-centre coordinates).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .sprites import Colour


def compose(outer: np.ndarray, inner: np.ndarray) -> np.ndarray:
    """The affine ``outer ∘ inner``."""
    m = np.vstack([outer, [0, 0, 1]]) @ np.vstack([inner, [0, 0, 1]])
    return m[:2]


def scale_of(affine: np.ndarray) -> float:
    return float(np.sqrt(abs(np.linalg.det(affine[:, :2]))))


@dataclass(frozen=True, eq=False)
class Letterbox:
    """A board resized (INTER_AREA) and pasted into a ``(width, height)`` canvas of ``bar`` colour."""

    size: tuple[int, int]
    resized: tuple[int, int]
    offset: tuple[int, int]
    bar: Colour

    def affine(self, board_shape: tuple[int, ...]) -> np.ndarray:
        """Board pixel -> canvas pixel (``cv2.resize``'s half-pixel convention)."""
        bh, bw = board_shape[:2]
        sx, sy = self.resized[0] / bw, self.resized[1] / bh
        return np.array([[sx, 0.0, 0.5 * sx - 0.5 + self.offset[0]], [0.0, sy, 0.5 * sy - 0.5 + self.offset[1]]])

    def apply(self, image: np.ndarray) -> np.ndarray:
        w, h = self.size
        canvas = np.empty((h, w, 3), dtype=np.uint8)
        canvas[:] = self.bar
        interp = cv2.INTER_AREA if self.resized[0] < image.shape[1] else cv2.INTER_LINEAR
        small = cv2.resize(image, self.resized, interpolation=interp)
        x, y = self.offset
        canvas[y: y + self.resized[1], x: x + self.resized[0]] = small
        return canvas


def letterbox(board_shape: tuple[int, ...], size: tuple[int, int], *, fill: float, place: tuple[float, float],
              bar: Colour, reserve_top: int = 0, reserve_bottom: int = 0) -> Letterbox:
    """Fit a board into ``size`` at ``fill`` of the room left after the reserved bands.

    ``place`` in ``[0, 1]^2`` positions the board inside the slack (0.5, 0.5 = centred).
    """
    w, h = size
    bh, bw = board_shape[:2]
    room_h = h - reserve_top - reserve_bottom
    s = fill * min(w / bw, room_h / bh)
    rw, rh = max(1, int(round(bw * s))), max(1, int(round(bh * s)))
    ox = int(round((w - rw) * place[0]))
    oy = reserve_top + int(round((room_h - rh) * place[1]))
    return Letterbox(size, (rw, rh), (ox, oy), bar)


@dataclass(frozen=True)
class Camera:
    """Slow zoom about the frame centre and drift, reaching ``zoom`` and ``shift`` at the last frame."""

    zoom: float = 0.0
    shift: tuple[float, float] = (0.0, 0.0)

    @property
    def still(self) -> bool:
        return self.zoom == 0.0 and self.shift == (0.0, 0.0)

    def affine(self, frame: int, n_frames: int, size: tuple[int, int]) -> np.ndarray:
        u = frame / max(1, n_frames - 1)
        u = u * u * (3 - 2 * u)  # smoothstep
        z = 1.0 + self.zoom * u
        cx, cy = (size[0] - 1) / 2, (size[1] - 1) / 2
        dx, dy = self.shift[0] * u, self.shift[1] * u
        return np.array([[z, 0.0, cx - z * cx + dx], [0.0, z, cy - z * cy + dy]])


def warp(image: np.ndarray, affine: np.ndarray, size: tuple[int, int], border: Colour) -> np.ndarray:
    return cv2.warpAffine(image, affine, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                          borderValue=tuple(int(v) for v in border))


def blend(a: Colour, b: Colour, t: float) -> Colour:
    """``a`` moved a fraction ``t`` toward ``b``."""
    return tuple(int(round(x + (y - x) * t)) for x, y in zip(a, b))  # type: ignore[return-value]


def blur(image: np.ndarray, sigma: float) -> np.ndarray:
    return image if sigma <= 0 else cv2.GaussianBlur(image, (0, 0), sigma)


def jpeg(image: np.ndarray, quality: int) -> np.ndarray:
    """Round-trip through JPEG at ``quality`` (RGB in, RGB out)."""
    ok, buf = cv2.imencode(".jpg", image[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    assert decoded is not None  # the JPEG just encoded
    return decoded[:, :, ::-1].copy()
