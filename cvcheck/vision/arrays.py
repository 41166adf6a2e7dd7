"""The one validator for in-memory images: any common layout in, ``uint8`` RGB out.

Every array function of cvcheck takes images through :func:`as_rgb`, so a wrong
shape, dtype or value range is an :class:`~cvcheck.errors.InputError` with what was
expected and what was received, never a failure deep inside OpenCV.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError


def as_rgb(image: np.ndarray, *, name: str = "image") -> np.ndarray:
    """Validate an in-memory image and return a ``uint8`` RGB view/copy ``(H, W, 3)``.

    Parameters
    ----------
    image : ndarray of shape (H, W), (H, W, 1), (H, W, 3) or (H, W, 4)
        uint8, uint16, bool or float in [0, 1]; RGBA is composited over white.
        Never modified.
    name : str
        What the image is, for error messages.

    Returns
    -------
    ndarray of shape (H, W, 3), uint8

    Raises
    ------
    InputError
        Not an array, wrong shape, empty, unsupported dtype, NaN or infinite values.

    Examples
    --------
    >>> as_rgb(np.zeros((2, 3))).shape
    (2, 3, 3)
    """
    if not isinstance(image, np.ndarray):
        raise InputError(f"{name} must be a numpy array, got {type(image).__name__}")
    if image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (1, 3, 4)):
        raise InputError(f"{name} must have shape (H, W), (H, W, 3) or (H, W, 4); got {image.shape}")
    if image.shape[0] < 1 or image.shape[1] < 1:
        raise InputError(f"{name} is empty: shape {image.shape}")
    arr = image
    if arr.dtype == np.bool_:
        arr = arr.astype(np.uint8) * 255
    elif arr.dtype == np.uint16:
        arr = (arr.astype(np.uint32) * 255 // 65535).astype(np.uint8)
    elif np.issubdtype(arr.dtype, np.floating):
        if not np.isfinite(arr).all():
            raise InputError(f"{name} contains NaN or infinite values")
        arr = np.clip(np.rint(arr * 255.0), 0, 255).astype(np.uint8)
    elif arr.dtype != np.uint8:
        raise InputError(f"{name} has unsupported dtype {arr.dtype}")
    if arr.ndim == 2 or arr.shape[2] == 1:
        arr = np.repeat(arr.reshape(arr.shape[0], arr.shape[1], 1), 3, axis=2)
    elif arr.shape[2] == 4:
        alpha = arr[:, :, 3:4].astype(np.float32) / 255.0
        arr = np.clip(np.rint(arr[:, :, :3] * alpha + 255.0 * (1 - alpha)), 0, 255).astype(np.uint8)
    return arr
