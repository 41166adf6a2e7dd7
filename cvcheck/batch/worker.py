"""Grade one manifest sample safely: the function every executor runs in its workers.

Never raises: any failure (a grader bug included) becomes an ``error`` result. Parsed
references are cached per worker process (keyed by path, size and mtime), so a corpus
where many answers share a reference parses it once per worker.
"""

from __future__ import annotations

import functools
import importlib
import os
import time
from typing import Any, Callable, Mapping

from ..config import Config
from ..media.video import is_video
from ..schema import Result, error_result

#: (module, function(path, *, config)) loaders whose results are cached per worker
CACHED_LOADERS: tuple[tuple[str, str], ...] = (("cvcheck.maze.task", "load_reference"),)
CACHE_SIZE = 256

_installed = False


def _file_key(path: Any) -> Any:
    try:
        st = os.stat(path)
        return (os.fspath(path), st.st_size, st.st_mtime_ns)
    except (OSError, TypeError):
        return None


def _cached(loader: Callable[..., Any]) -> Callable[..., Any]:
    @functools.lru_cache(maxsize=CACHE_SIZE)
    def by_key(key: Any, config: Config) -> Any:
        return loader(key[0], config=config)

    @functools.wraps(loader)
    def wrapper(path: Any, *, config: Config) -> Any:
        key = _file_key(path)
        if key is None:
            return loader(path, config=config)  # let the loader raise its own clear error
        return by_key(key, config)

    wrapper.cache_info = by_key.cache_info  # type: ignore[attr-defined]
    wrapper.__wrapped_loader__ = loader  # type: ignore[attr-defined]
    return wrapper


def single_threaded_libraries() -> None:
    """One thread per worker inside OpenCV: parallelism comes from the workers (no oversubscription)."""
    try:
        import cv2

        cv2.setNumThreads(1)
    except ImportError:  # pragma: no cover
        pass


def install_reference_cache() -> None:
    """Wrap the reference loaders in :data:`CACHED_LOADERS` (once per process)."""
    global _installed
    if _installed:
        return
    for module_name, attr in CACHED_LOADERS:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        loader = getattr(module, attr, None)
        if loader is not None and not hasattr(loader, "__wrapped_loader__"):
            setattr(module, attr, _cached(loader))
    _installed = True


def register_tasks(tasks: Mapping[str, str] | None) -> None:
    """Make tasks registered in the parent process known here (spawned workers)."""
    if not tasks:
        return
    from .. import registry

    for name, target in tasks.items():
        if registry.TASKS.get(name) != target:
            registry.register(name, target)


def guess_modality(sample: Mapping[str, Any]) -> str:
    mod = sample.get("modality")
    if mod in ("image", "video", "text"):
        return str(mod)
    return "video" if is_video(str(sample.get("answer", ""))) else "image"


def grade_safely(sample: Mapping[str, Any], *, config: Config) -> Result:
    """Grade ``sample`` through the registry; every exception becomes an error result."""
    from ..registry import get_grader

    sid = str(sample.get("id", ""))
    task = str(sample.get("task", ""))
    try:
        result = get_grader(task)(sample, config=config)
        if not isinstance(result, Result):
            raise TypeError(f"grader for {task!r} returned {type(result).__name__}, not a Result")
        if result.id != sid:
            result = result.with_id(sid)
        return result
    except Exception as exc:  # noqa: BLE001 - batch mode never loses a sample
        return error_result(id=sid, task=task or "?", pipeline="?", modality=guess_modality(sample), exc=exc)


def timed_grade(sample: Mapping[str, Any], *, config: Config,
                tasks: Mapping[str, str] | None = None) -> tuple[dict[str, Any], float]:
    """Worker entry: ``(result dict, seconds)``; installs the reference cache on first use."""
    install_reference_cache()
    register_tasks(tasks)
    t0 = time.perf_counter()
    result = grade_safely(sample, config=config)
    return result.to_dict(), time.perf_counter() - t0
