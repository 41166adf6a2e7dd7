"""An exclusive lock on a results file, held by one run from its resume read to its last write.

The lock is ``flock(2)`` on a sidecar file (``results.jsonl.lock``), not on the results
file itself: ``--restart`` and ``--retry-errors`` replace the results file, which would
drop a lock taken on it. The holder writes its PID and host into the sidecar so that a
refused run can name it, and removes the sidecar when it is done. A lock taken on a
sidecar that was removed meanwhile is retried on the new one, so two runs never hold
it at once. Readers (``cvcheck report``, ``cvcheck audit``) take no lock: a torn last
line is ignored on reading.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from types import TracebackType
from typing import Callable

from ..errors import CvcheckError, InputError

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

LOCK_SUFFIX = ".lock"


class ResultsLockedError(CvcheckError):
    """Another run holds the results file."""

    code = "results_locked"


def lock_path(results: str | os.PathLike[str]) -> Path:
    """The sidecar lock file of a results file."""
    p = Path(results)
    return p.with_name(p.name + LOCK_SUFFIX)


def _holder(path: Path) -> str:
    """Who holds the lock, as its sidecar says (``PID 123 on host``), or a neutral phrase."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace").split()
    except OSError:
        text = []
    if text and text[0].isdigit():
        return f"PID {text[0]}" + (f" on {text[1]}" if len(text) > 1 else "")
    return "another process"


class ResultsLock:
    """Exclusive lock on ``results`` for one run: ``with ResultsLock(path): ...``.

    ``wait=False`` raises :class:`ResultsLockedError` at once when another run holds it;
    ``wait=True`` blocks until it is released, first calling ``on_wait(message)``.
    """

    def __init__(self, results: str | os.PathLike[str], *, wait: bool = False,
                 on_wait: Callable[[str], None] | None = None) -> None:
        self.results = Path(results)
        self.path = lock_path(self.results)
        self.wait = wait
        self.on_wait = on_wait
        self._fd = -1

    def acquire(self) -> None:
        if fcntl is None:  # pragma: no cover - not POSIX
            raise CvcheckError("locking results files needs fcntl.flock (Linux, macOS, other POSIX systems)")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"cannot create the folder of {self.results}: {exc.strerror or exc}") from exc
        told = False
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise InputError(f"cannot create the lock file {self.path}: {exc.strerror or exc}") from exc
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    holder = _holder(self.path)
                    if not self.wait:
                        raise ResultsLockedError(
                            f"results file {self.results} is being written by another cvcheck run ({holder}, "
                            f"lock {self.path}); wait for it to finish, add --wait to queue behind it, "
                            "or write to another file") from None
                    if not told and self.on_wait is not None:
                        self.on_wait(f"waiting for the run that holds {self.results} ({holder}) to finish")
                    told = True
                    fcntl.flock(fd, fcntl.LOCK_EX)
                if not _same_file(fd, self.path):  # the holder removed this sidecar on release: take the new one
                    os.close(fd)
                    continue
            except BaseException:
                os.close(fd)
                raise
            self._fd = fd
            try:  # who holds it, for the message of a refused run; the lock works without it
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()} {socket.gethostname()}\n".encode())
            except OSError:
                pass
            return

    def release(self) -> None:
        """Remove the sidecar (while still holding it, so no one can take the old one), then unlock."""
        if self._fd < 0:
            return
        try:
            if _same_file(self._fd, self.path):
                self.path.unlink()
        except OSError:
            pass
        finally:
            os.close(self._fd)  # closing the last descriptor releases the flock
            self._fd = -1

    @property
    def held(self) -> bool:
        return self._fd >= 0

    def __enter__(self) -> "ResultsLock":
        self.acquire()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()


def _same_file(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino)
