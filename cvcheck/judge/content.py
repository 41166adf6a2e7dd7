"""Chat message building blocks: text and images as base64 data URLs.

Images are embedded as ``data:`` URLs (what OpenAI-compatible servers accept). For
caching, :func:`fingerprint_messages` replaces each data URL by the SHA-256 of its
decoded bytes, so a cache key never holds megabytes of base64 and two identical
images give the same key whatever their file name.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import io
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import InputError, MediaError

_MIME_BY_MAGIC = ((b"\x89PNG", "image/png"), (b"\xff\xd8\xff", "image/jpeg"),
                  (b"GIF8", "image/gif"), (b"RIFF", "image/webp"))


def text_part(text: str) -> dict[str, Any]:
    """An OpenAI ``{"type": "text"}`` content part."""
    return {"type": "text", "text": str(text)}


def image_part(image: bytes | np.ndarray | str | os.PathLike, *, detail: str | None = None) -> dict[str, Any]:
    """An ``image_url`` content part holding the image as a base64 data URL.

    Parameters
    ----------
    image : bytes, path or ndarray of shape (H, W, 3) uint8
        Encoded image bytes (PNG/JPEG/GIF/WebP, sent as is), a file path, or an RGB
        array (encoded losslessly as PNG).
    detail : str, optional
        OpenAI's ``detail`` hint (``low``/``high``/``auto``).
    """
    data = _image_bytes(image)
    mime = next((m for magic, m in _MIME_BY_MAGIC if data.startswith(magic)), None)
    if mime is None:
        raise MediaError("image bytes are not PNG, JPEG, GIF or WebP")
    url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
    body: dict[str, Any] = {"url": url}
    if detail:
        body["detail"] = detail
    return {"type": "image_url", "image_url": body}


def user_message(*parts: str | Mapping[str, Any]) -> dict[str, Any]:
    """A ``user`` message; ``str`` parts become text parts, mappings are taken as parts."""
    content = [text_part(p) if isinstance(p, str) else dict(p) for p in parts]
    return {"role": "user", "content": content}


def fingerprint_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A deep copy of ``messages`` with every data URL replaced by ``sha256:<hex>``."""
    out = copy.deepcopy([dict(m) for m in messages])
    for msg in out:
        content = msg.get("content")
        if isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and isinstance(part.get("image_url"), dict):
                    url = part["image_url"].get("url", "")
                    part["image_url"]["url"] = _url_fingerprint(url)
    return out


def image_hashes(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    """The ``sha256:<hex>`` fingerprints of the images in ``messages``, in order."""
    found = []
    for msg in fingerprint_messages(messages):
        content = msg.get("content")
        if isinstance(content, list):
            found += [p["image_url"]["url"] for p in content
                      if isinstance(p, dict) and isinstance(p.get("image_url"), dict)]
    return found


def _url_fingerprint(url: str) -> str:
    if url.startswith("data:") and ";base64," in url:
        raw = base64.b64decode(url.split(";base64,", 1)[1], validate=False)
        return "sha256:" + hashlib.sha256(raw).hexdigest()
    return url  # already a fingerprint, or a remote URL (kept verbatim)


def _image_bytes(image: bytes | np.ndarray | str | os.PathLike) -> bytes:
    if isinstance(image, (bytes, bytearray, memoryview)):
        data = bytes(image)
    elif isinstance(image, np.ndarray):
        from PIL import Image

        from ..media import as_rgb

        buf = io.BytesIO()
        Image.fromarray(as_rgb(image)).save(buf, format="PNG")
        data = buf.getvalue()
    elif isinstance(image, (str, os.PathLike)):
        try:
            data = Path(image).read_bytes()
        except OSError as exc:
            raise MediaError(f"cannot read image {image}: {exc.strerror or exc}") from exc
    else:
        raise InputError(f"image must be bytes, a path or an array, got {type(image).__name__}")
    if not data:
        raise MediaError("image is empty (0 bytes)")
    return data
