"""Memoise a file loader by the file's identity (path, size, modification time).

Batch workers grade many answers against few references: a cached loader parses each
reference once per process, and a file changed on disk is read again.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def file_key(path: Any) -> tuple[str, int, int] | None:
    """``(path, size, mtime_ns)`` of an existing file, None when it cannot be stat'ed."""
    try:
        st = os.stat(path)
        return (os.fspath(path), st.st_size, st.st_mtime_ns)
    except (OSError, TypeError, ValueError):
        return None


def cached_by_file(loader: Callable[..., T], *, maxsize: int = 256) -> Callable[..., T]:
    """Wrap ``loader(path, *, config)`` in an LRU cache keyed by the file's identity and the config.

    Unreadable paths bypass the cache, so the loader raises its own clear error.
    """

    @functools.lru_cache(maxsize=maxsize)
    def by_key(key: tuple[str, int, int], config: Any) -> T:
        return loader(key[0], config=config)

    @functools.wraps(loader)
    def wrapper(path: Any, *, config: Any) -> T:
        key = file_key(path)
        if key is None:
            return loader(path, config=config)
        return by_key(key, config)

    wrapper.cache_info = by_key.cache_info  # type: ignore[attr-defined]
    wrapper.cache_clear = by_key.cache_clear  # type: ignore[attr-defined]
    return wrapper
