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

    def import_json(self, path: str | Path) -> int:
        """Load a recorded-judgement file; returns how many judgements it held."""
        try:
            records = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise InputError(f"cannot read recorded judgements {path}: {exc}") from exc
        if not isinstance(records, list):
            raise InputError(f"{path}: recorded judgements must be a JSON list")
        for i, rec in enumerate(records):
            if not isinstance(rec, Mapping) or not isinstance(rec.get("reply"), str):
                raise InputError(f"{path}: record {i} needs a string 'reply'")
            req = rec.get("request") or {}
            key = rec.get("key")
            if not key:
                if not isinstance(req, Mapping) or "messages" not in req:
                    raise InputError(f"{path}: record {i} has neither 'key' nor 'request'")
                key, req = request_key(req.get("model", rec.get("model", "")), req["messages"],
                                       req.get("params", {}), req.get("tag", ""))
            self.put(str(key), model=str(rec.get("model") or req.get("model", "")),
                     reply=rec["reply"], request=req)
        return len(records)

    def close(self) -> None:
        with self._lock:
            self._db.close()
