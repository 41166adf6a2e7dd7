"""Safe image loading: any PNG/JPEG flavour in, ``uint8`` RGB ``(H, W, 3)`` out.

Guards: missing/empty/corrupt/truncated files raise :class:`~cvcheck.errors.MediaError`;
image dimensions are checked from the header *before* decoding, so a decompression
bomb is refused without allocating it.
"""

from __future__ import annotations

import io
import os
import warnings
from pathlib import Path
from typing import BinaryIO

import numpy as np
from PIL import Image, UnidentifiedImageError

from ..config import MediaConfig
from ..errors import MediaError
from ..vision.arrays import as_rgb

__all__ = ["as_rgb", "load_image"]

ImageSource = str | os.PathLike | bytes | BinaryIO


def load_image(source: ImageSource, *, config: MediaConfig | None = None) -> np.ndarray:
    """Decode an image file (or bytes) into RGB.

    Parameters
    ----------
    source : path, bytes or binary file object
    config : MediaConfig, optional
        Size guards (``max_pixels``, ``max_file_bytes``).

    Returns
    -------
    ndarray of shape (H, W, 3), dtype uint8
        Alpha is composited over white; 16-bit data is scaled to 8 bits; palette
        and greyscale images are expanded to RGB.
    """
    cfg = config or MediaConfig()
    data = _read_bytes(source, cfg)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data))
            width, height = img.size
            if width <= 0 or height <= 0:
                raise MediaError(f"image has an empty size {width}x{height}")
            if width * height > cfg.max_pixels:
                raise MediaError(
                    f"image is {width}x{height} = {width * height:,} pixels, over the "
                    f"limit of {cfg.max_pixels:,} (media.max_pixels)"
                )
            img.load()
    except MediaError:
        raise
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError,
            Image.DecompressionBombWarning) as exc:
        raise MediaError(f"cannot decode image {_name(source)}: {exc}") from exc
    return _to_rgb_uint8(img)


def _name(source: ImageSource) -> str:
    return str(source) if isinstance(source, (str, os.PathLike)) else "<bytes>"


def _read_bytes(source: ImageSource, cfg: MediaConfig) -> bytes:
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            size = path.stat().st_size
        except OSError as exc:
            raise MediaError(f"cannot read image {path}: {exc.strerror or exc}") from exc
        if not path.is_file():
            raise MediaError(f"{path} is not a file")
        if size > cfg.max_file_bytes:
            raise MediaError(f"{path} is {size:,} bytes, over media.max_file_bytes")
        data = path.read_bytes()
    else:
        data = source.read(cfg.max_file_bytes + 1)
        if len(data) > cfg.max_file_bytes:
            raise MediaError("image stream is over media.max_file_bytes")
    if not data:
        raise MediaError(f"image {_name(source)} is empty (0 bytes)")
    return data


def _to_rgb_uint8(img: Image.Image) -> np.ndarray:
    mode = img.mode
    if mode == "P":
        img = img.convert("RGBA" if "transparency" in img.info else "RGB")
        mode = img.mode
    if mode in ("I;16", "I;16B", "I;16L", "I;16N", "I", "F"):
        arr = np.asarray(img).astype(np.float64)
        peak = 65535.0 if mode.startswith("I;16") or arr.max(initial=0) > 255 else 255.0
        grey = np.clip(np.rint(arr * (255.0 / peak)), 0, 255).astype(np.uint8)
        return np.repeat(grey[:, :, None], 3, axis=2)
    if mode in ("RGBA", "LA", "PA"):
        rgba = np.asarray(img.convert("RGBA"), dtype=np.float32)
        alpha = rgba[:, :, 3:4] / 255.0
        rgb = rgba[:, :, :3] * alpha + 255.0 * (1.0 - alpha)
        return np.clip(np.rint(rgb), 0, 255).astype(np.uint8)
    if mode != "RGB":
        img = img.convert("RGB")
    return np.ascontiguousarray(np.asarray(img, dtype=np.uint8))
