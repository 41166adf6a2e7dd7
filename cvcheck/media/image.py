"""Safe image loading: any PNG/JPEG flavour in, ``uint8`` RGB ``(H, W, 3)`` out.

Guards: missing/empty/corrupt/truncated files raise :class:`~cvcheck.errors.MediaError`.
The header is read *before* decoding and an image is refused when its size
(``media.max_pixels``), its shape (``media.max_aspect_ratio``) or the bytes its pixels
decode to (``media.max_decoded_bytes``: width x height x bands x bytes per band) is over
the limit, so a small file declaring a huge image is never allocated.

Memory is bounded by the decoded pixels. Pillow decodes RGB and RGBA images (any format)
straight into one numpy buffer, which is then converted to RGB *in place*, row block by
row block (alpha compositing in integers), and shrunk by its alpha/padding quarter: an
8000 x 8000 RGBA PNG costs its 256 MB decoded buffer and nothing more. Other modes
(grey, palette, 16-bit grey) decode to at most 2 bytes a pixel and are copied out in row
blocks; no step makes a float copy of the whole image.
"""

from __future__ import annotations

import io
import os
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import numpy as np
from PIL import Image

from ..config import MediaConfig
from ..errors import MediaError
from ..vision.arrays import as_rgb

__all__ = ["as_rgb", "load_image"]

ImageSource = str | os.PathLike | bytes | BinaryIO

CHUNK_PIXELS = 1 << 20   #: pixels converted per row block (bounds the conversion's temporary arrays)
#: bytes per pixel of Pillow's storage (multi-band modes are stored 4 bytes a pixel)
_PIL_BYTES = {"1": 1, "L": 1, "P": 1, "I;16": 2, "I;16B": 2, "I;16L": 2, "I;16N": 2}


def load_image(source: ImageSource, *, config: MediaConfig | None = None) -> np.ndarray:
    """Decode an image file (or bytes) into RGB.

    Parameters
    ----------
    source : path, bytes or binary file object
    config : MediaConfig, optional
        Guards: ``max_pixels``, ``max_aspect_ratio``, ``max_decoded_bytes``, ``max_file_bytes``.

    Returns
    -------
    ndarray of shape (H, W, 3), dtype uint8
        Alpha is composited over white; 16-bit data is scaled to 8 bits; palette
        and greyscale images are expanded to RGB.

    Raises
    ------
    MediaError
        Missing, empty, unreadable, corrupt or truncated files, and images over a limit
        (the message names the setting).
    """
    cfg = config or MediaConfig()
    label = _name(source)
    data = _read_bytes(source, cfg, label)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # our own limits apply
            img = Image.open(io.BytesIO(data))
            width, height = img.size
            check_size(width, height, _PIL_BYTES.get(img.mode, 4), cfg, f"image {label}")
            buffer = _decode(img)
    except MediaError:
        raise
    except Image.DecompressionBombError as exc:  # Pillow's own ceiling, met before our header check
        raise MediaError(f"image {label} is too large to decode: {exc} (media.max_pixels is "
                         f"{cfg.max_pixels:,})") from None
    except Image.UnidentifiedImageError:
        raise MediaError(f"cannot decode image {label}: not an image, or a format Pillow cannot read") from None
    except Exception as exc:  # noqa: BLE001 - any failure of a third-party decoder on untrusted bytes
        detail = str(exc) or type(exc).__name__
        raise MediaError(f"cannot decode image {label}: {detail} (corrupt or truncated?)") from exc
    if buffer is None:
        try:
            return pil_to_rgb(img)
        finally:
            img.close()
    alpha = img.mode == "RGBA"
    img.close()  # releases Pillow's hold on the buffer
    del img
    return _pack_rgb(buffer, alpha=alpha)


def _name(source: object) -> str:
    if isinstance(source, (str, os.PathLike)):
        return str(source)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return "<bytes>"
    name = getattr(source, "name", None)
    return name if isinstance(name, str) else "<stream>"


def _read_bytes(source: ImageSource, cfg: MediaConfig, label: str) -> bytes:
    # An image is read whole; a file larger than its decoded pixels could be is no image.
    limit = min(cfg.max_file_bytes, cfg.max_decoded_bytes + (1 << 20))
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            size = path.stat().st_size
            if not path.is_file():
                raise MediaError(f"{path} is not a file")
            if size > limit:
                raise MediaError(f"image {path} is {size:,} bytes, over the limit of {limit:,} "
                                 "(media.max_file_bytes, media.max_decoded_bytes)")
            data = path.read_bytes()
        except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
            raise MediaError(f"cannot read image {path}: {getattr(exc, 'strerror', None) or exc}") from exc
    else:
        try:
            data = source.read(limit + 1)
        except (OSError, ValueError) as exc:
            raise MediaError(f"cannot read image {label}: {exc}") from exc
        if not isinstance(data, bytes):
            raise MediaError(f"image stream {label} must be opened in binary mode")
    if len(data) > limit:
        raise MediaError(f"image {label} is over {limit:,} bytes (media.max_file_bytes, media.max_decoded_bytes)")
    if not data:
        raise MediaError(f"image {label} is empty (0 bytes)")
    return data


def check_size(width: int, height: int, bytes_per_pixel: float, cfg: MediaConfig, what: str) -> None:
    """Refuse a ``width`` x ``height`` picture over ``media.max_pixels``, ``max_aspect_ratio`` or
    ``max_decoded_bytes`` (``bytes_per_pixel``: what one decoded pixel costs)."""
    if width <= 0 or height <= 0:
        raise MediaError(f"{what} has an empty size {width}x{height}")
    pixels = width * height
    if pixels > cfg.max_pixels:
        raise MediaError(f"{what} is {width}x{height} = {pixels:,} pixels, over the limit of "
                         f"{cfg.max_pixels:,} (media.max_pixels)")
    ratio = max(width, height) / min(width, height)
    if ratio > cfg.max_aspect_ratio:
        raise MediaError(f"{what} is {width}x{height}: its sides differ {ratio:,.0f}-fold, over the limit of "
                         f"{cfg.max_aspect_ratio:g} (media.max_aspect_ratio); no puzzle is drawn that thin")
    decoded = int(pixels * bytes_per_pixel)
    if decoded > cfg.max_decoded_bytes:
        raise MediaError(f"{what} is {width}x{height} and decodes to {decoded:,} bytes "
                         f"({bytes_per_pixel:g} bytes a pixel), over the limit of {cfg.max_decoded_bytes:,} "
                         "(media.max_decoded_bytes)")


# -- decoding ------------------------------------------------------------------------------

def _decode(img: Image.Image) -> np.ndarray | None:
    """Decode ``img``; RGB/RGBA straight into a numpy ``(H, W, 4)`` buffer, returned (else None).

    Pillow stores RGB as RGBX, 4 bytes a pixel: the buffer is mapped as that storage and the
    decoder writes into it, so there is no second full-size copy. If Pillow ever decodes
    elsewhere instead, the image is copied out the ordinary way (None).
    """
    if img.mode not in ("RGB", "RGBA"):
        img.load()
        return None
    width, height = img.size
    buffer = np.empty((height, width, 4), np.uint8)
    raw = "RGBA" if img.mode == "RGBA" else "RGBX"
    core = Image.frombuffer(raw, (width, height), buffer, "raw", raw, 0, 1).im
    img.im = core
    img.load()
    return buffer if img.im is core else None


def _blocks(height: int, width: int) -> Iterator[tuple[int, int]]:
    step = max(1, CHUNK_PIXELS // max(1, width))
    for y0 in range(0, height, step):
        yield y0, min(height, y0 + step)


def _pack_rgb(buf: np.ndarray, *, alpha: bool) -> np.ndarray:
    """An ``(H, W, 4)`` RGBA/RGBX uint8 buffer to RGB ``(H, W, 3)`` in the same memory (alpha over white)."""
    h, w = buf.shape[:2]
    flat = buf.reshape(-1)
    for y0, y1 in _blocks(h, w):
        if alpha:
            block = buf[y0:y1].astype(np.uint16)
            a = block[:, :, 3:4]
            rgb = ((block[:, :, :3] * a + 255 * (255 - a) + 127) // 255).astype(np.uint8)
        else:
            rgb = buf[y0:y1, :, :3].copy()
        # writes end at 3*y1*w <= 4*y1*w, where the next unread block starts
        flat[3 * y0 * w:3 * y1 * w] = rgb.reshape(-1)
    del flat
    size = h * w * 3
    try:
        buf.resize((size,), refcheck=False)  # realloc: the fourth byte of every pixel goes back to the system
    except ValueError:  # still exported somewhere: keep the memory, view its RGB part
        return buf.reshape(-1)[:size].reshape(h, w, 3)
    return buf.reshape(h, w, 3)


def pil_to_rgb(img: Image.Image) -> np.ndarray:
    """A Pillow image (its current frame) as RGB ``uint8`` (H, W, 3): alpha over white, 16-bit scaled to 8."""
    width, height = img.size
    mode = img.mode
    out = np.empty((height, width, 3), np.uint8)
    peak = 255.0
    if mode.startswith("I;16"):
        peak = 65535.0
    elif mode in ("I", "F"):
        lo_hi = img.getextrema()
        hi = lo_hi[1] if isinstance(lo_hi, tuple) and not isinstance(lo_hi[0], tuple) else 255
        peak = 65535.0 if isinstance(hi, (int, float)) and hi > 255 else 255.0
    alpha = mode in ("RGBA", "LA", "PA", "La", "RGBa") or (mode == "P" and "transparency" in img.info)
    for y0, y1 in _blocks(height, width):
        strip = img.crop((0, y0, width, y1))
        if mode.startswith("I;16") or mode in ("I", "F"):
            values = np.nan_to_num(np.asarray(strip, dtype=np.float64), nan=0.0, posinf=peak, neginf=0.0)
            grey = np.clip(np.rint(values * (255.0 / peak)), 0, 255).astype(np.uint8)
            out[y0:y1] = grey[:, :, None]
        elif alpha:
            block = np.asarray(strip.convert("RGBA"), dtype=np.uint16)
            a = block[:, :, 3:4]
            out[y0:y1] = ((block[:, :, :3] * a + 255 * (255 - a) + 127) // 255).astype(np.uint8)
        else:
            out[y0:y1] = np.asarray(strip if mode == "RGB" else strip.convert("RGB"), dtype=np.uint8)
    return out
