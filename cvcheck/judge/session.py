"""The judge a batch manifest uses when a grader gets only a config.

Environment: ``CVCHECK_JUDGE_BASE_URL``, ``CVCHECK_JUDGE_MODEL``, ``CVCHECK_JUDGE_API_KEY``
(or ``OPENAI_API_KEY``), ``CVCHECK_JUDGE_CACHE`` (SQLite path; ``off`` disables) and
``CVCHECK_JUDGE_REPLAY`` (a recorded-judgement JSON: answer from it only, no network).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..config import JudgeConfig
from .cache import JudgeCache
from .client import JudgeClient

_LOCK = threading.Lock()
_CLIENTS: dict[tuple, JudgeClient] = {}


def default_cache_path() -> Path:
    """``$CVCHECK_JUDGE_CACHE``, else ``$XDG_CACHE_HOME/cvcheck/judge.sqlite`` (``~/.cache``)."""
    env = os.environ.get("CVCHECK_JUDGE_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cvcheck" / "judge.sqlite"


def replay_client(path: str | os.PathLike, *, model: str | None = None) -> JudgeClient:
    """An offline client answering only from a recorded-judgement file."""
    cache = JudgeCache(":memory:")
    cache.import_json(path)
    models = cache.models()
    chosen = model or (models[0] if len(set(models)) == 1 else os.environ.get("CVCHECK_JUDGE_MODEL", ""))
    return JudgeClient(model=chosen or "recorded", cache=cache, offline=True)


def _key(config: JudgeConfig) -> tuple:
    env_key = tuple(os.environ.get(k, "") for k in (
        "CVCHECK_JUDGE_BASE_URL", "CVCHECK_JUDGE_MODEL", "CVCHECK_JUDGE_CACHE", "CVCHECK_JUDGE_REPLAY"))
    return (config, env_key)


@contextmanager
def using_client(config: JudgeConfig, client: JudgeClient) -> Iterator[JudgeClient]:
    """Within the block, graders given ``config`` judge with ``client`` (one the caller built,
    e.g. from command-line options) instead of the environment's (in this process only)."""
    key = _key(config)
    with _LOCK:
        previous = _CLIENTS.get(key)
        _CLIENTS[key] = client
    try:
        yield client
    finally:
        with _LOCK:
            if previous is None:
                _CLIENTS.pop(key, None)
            else:
                _CLIENTS[key] = previous


def default_client(config: JudgeConfig) -> JudgeClient:
    """One shared client per (config, environment), so batch graders share the limit and cache."""
    key = _key(config)
    with _LOCK:
        if key not in _CLIENTS:
            replay = os.environ.get("CVCHECK_JUDGE_REPLAY")
            if replay:
                _CLIENTS[key] = replay_client(replay,
                                              model=os.environ.get("CVCHECK_JUDGE_MODEL") or config.model or None)
            else:
                client = JudgeClient.from_config(config)  # raises first when no judge is configured
                where = default_cache_path()
                client.cache = None if str(where).lower() == "off" else JudgeCache(where)
                _CLIENTS[key] = client
        return _CLIENTS[key]
