"""Content-addressed SQLite cache of judge replies, and recorded-judgement files.

The key is the SHA-256 of the canonical JSON of ``(model, messages with images
replaced by their SHA-256, parameters, tag)``: the same question to the same model
replays the same reply, byte for byte, with no network. The API key is never part
of a key or a row.

A *recorded-judgement file* is a JSON list of ``{"key", "model", "reply"}`` objects
(optionally with ``"request"``: the fingerprinted request the key was made from).
:meth:`JudgeCache.export_json` writes one, :meth:`JudgeCache.import_json` loads one
(a request without a key gets its key computed), so a run can be replayed anywhere.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from ..errors import InputError
from .content import fingerprint_messages

_SCHEMA = """CREATE TABLE IF NOT EXISTS judgements (
    key TEXT PRIMARY KEY, model TEXT NOT NULL, reply TEXT NOT NULL,
    request TEXT NOT NULL, created REAL NOT NULL)"""


def request_key(model: str, messages: Sequence[Mapping[str, Any]], params: Mapping[str, Any],
                tag: str = "") -> tuple[str, dict[str, Any]]:
    """Return ``(key, fingerprinted_request)`` for one chat request."""
    req = {"model": str(model), "messages": fingerprint_messages(messages),
           "params": dict(sorted(params.items())), "tag": str(tag)}
    blob = json.dumps(req, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest(), req


class JudgeCache:
    """A thread-safe key -> reply store in one SQLite file (``":memory:"`` for RAM only).

    Examples
    --------
    >>> c = JudgeCache(":memory:")
    >>> c.put("k", model="m", reply="yes", request={})
    >>> c.get("k")
    ('m', 'yes')
    """

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            # autocommit; wait up to 30 s for another process's write; WAL lets readers and
            # one writer share the file (batch workers in several processes).
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30.0)
            if self.path != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(_SCHEMA)
        except sqlite3.Error as exc:
            raise InputError(f"cannot open judge cache {self.path}: {exc}") from exc
        self._lock = threading.Lock()

    def get(self, key: str) -> tuple[str, str] | None:
        """``(model, reply)`` stored under ``key``, or None."""
        with self._lock:
            row = self._db.execute("SELECT model, reply FROM judgements WHERE key=?", (key,)).fetchone()
        return (row[0], row[1]) if row else None

    def put(self, key: str, *, model: str, reply: str, request: Mapping[str, Any]) -> None:
        """Store a reply (an existing key keeps its first reply: judgements never drift)."""
        blob = json.dumps(request, sort_keys=True, ensure_ascii=False)
        with self._lock:
            self._db.execute("INSERT OR IGNORE INTO judgements VALUES (?,?,?,?,?)",
                             (key, str(model), str(reply), blob, time.time()))

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM judgements").fetchone()[0])

    def models(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT DISTINCT model FROM judgements")]

    def export_json(self, path: str | Path, *, keys: Iterable[str] | None = None) -> int:
        """Write a recorded-judgement file (all rows, or only ``keys``); returns the count."""
        with self._lock:
            rows = self._db.execute("SELECT key, model, reply, request FROM judgements ORDER BY key").fetchall()
        wanted = set(keys) if keys is not None else None
        out = [{"key": k, "model": m, "reply": r, "request": json.loads(q)}
               for k, m, r, q in rows if wanted is None or k in wanted]
        Path(path).write_text(json.dumps(out, indent=1, ensure_ascii=False), encoding="utf-8")
        return len(out)

    def import_json(self, path: str | os.PathLike[str]) -> int:
        """Load a recorded-judgement file; returns how many judgements it held.

        Raises :class:`~cvcheck.errors.InputError` (never anything else) for a file that
        is missing, not UTF-8, not JSON, nested too deeply or not a list of records.
        """
        try:
            records = json.loads(Path(path).read_bytes().decode("utf-8"))
        except OSError as exc:
            raise InputError(f"cannot read recorded judgements {path}: {exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: recorded judgements are not UTF-8 text "
                             f"(byte {exc.start}: {exc.reason})") from None
        except ValueError as exc:  # JSONDecodeError, or an integer too long to convert
            raise InputError(f"{path}: recorded judgements are not valid JSON: {exc}") from None
        except RecursionError:
            raise InputError(f"{path}: recorded judgements are nested too deeply to be judgement records") from None
        if not isinstance(records, list):
            raise InputError(f"{path}: recorded judgements must be a JSON list, got {type(records).__name__}")
        for i, rec in enumerate(records):
            self._import_record(rec, f"{path}: record {i}")
        return len(records)

    def _import_record(self, rec: Any, where: str) -> None:
        if not isinstance(rec, Mapping):
            raise InputError(f"{where} must be an object with 'key' (or 'request'), 'model' and 'reply'")
        reply, key, model, req = rec.get("reply"), rec.get("key"), rec.get("model"), rec.get("request")
        if not isinstance(reply, str):
            raise InputError(f"{where} needs a string 'reply'")
        if key is not None and not isinstance(key, str):
            raise InputError(f"{where}: 'key' must be a string")
        if model is not None and not isinstance(model, str):
            raise InputError(f"{where}: 'model' must be a string")
        if req is not None and not isinstance(req, Mapping):
            raise InputError(f"{where}: 'request' must be an object")
        req = req or {}
        try:
            if not key:
                if "messages" not in req:
                    raise InputError(f"{where} has neither 'key' nor 'request'")
                key, req = request_key(str(req.get("model", model or "")), req["messages"],
                                       req.get("params") or {}, str(req.get("tag", "")))
            self.put(key, model=model or str(req.get("model", "")), reply=reply, request=req)
        except InputError:
            raise
        except (TypeError, ValueError, AttributeError, KeyError, RecursionError) as exc:  # odd messages/params
            raise InputError(f"{where} is not a usable judgement ({type(exc).__name__}: {exc})") from None

    def close(self) -> None:
        with self._lock:
            self._db.close()
