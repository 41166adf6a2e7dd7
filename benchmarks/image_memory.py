"""Peak memory of grading one huge image: an all-zero (fully transparent) 8000x8000 RGBA PNG.

The PNG is written row by row (a few hundred KB on disk, 256 MB decoded) and graded by
``cvcheck maze`` and ``cvcheck sudoku`` in fresh processes; each one's peak resident set
size is read with ``os.wait4`` (the kernel's ``ru_maxrss`` for that child alone).

    python benchmarks/image_memory.py [--side 8000] [--keep DIR]

Also grades an 8000x8000 16-bit RGBA PNG (Pillow decodes it to 8 bits a band: the same
256 MB). Measured on a 2-core machine at load 20: maze 331 MB, sudoku 364 MB, 16-bit 332 MB
(an idle process with cvcheck imported: 77 MB).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path


def write_zero_png(path: Path, side: int, *, depth: int = 8) -> Path:
    """An all-zero RGBA PNG of ``side`` x ``side``, written one row at a time (constant memory)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    row = b"\x00" * (1 + side * 4 * depth // 8)  # filter byte + pixels
    comp = zlib.compressobj(9)
    with open(path, "wb") as fh:
        fh.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, depth, 6, 0, 0, 0)))
        parts = []
        for _ in range(side):
            parts.append(comp.compress(row))
        parts.append(comp.flush())
        fh.write(chunk(b"IDAT", b"".join(parts)) + chunk(b"IEND", b""))
    return path


def peak_rss_mb(cmd: list[str]) -> tuple[float, int, str]:
    """(peak RSS in MB, exit code, last line of its stderr or stdout) of ``cmd`` run alone."""
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage
        proc.returncode = os.waitstatus_to_exitcode(status)
        log.seek(0)
        lines = log.read().decode("utf-8", "replace").strip().splitlines()
    return usage.ru_maxrss / 1024, proc.returncode, lines[-1] if lines else ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--side", type=int, default=8000)
    ap.add_argument("--keep", default=None, help="write the files here and keep them")
    args = ap.parse_args()
    work = Path(args.keep or tempfile.mkdtemp(prefix="cvcheck-mem-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        import cv2

        from cvcheck.synth.maze_cases import make_case
        from cvcheck.synth.sudoku import make_image_case

        big = write_zero_png(work / "zeros.png", args.side)
        big16 = write_zero_png(work / "zeros16.png", args.side, depth=16)
        cv2.imwrite(str(work / "ref.png"), make_case(3).reference[:, :, ::-1])
        case = make_image_case(1)
        (work / "p.json").write_text(json.dumps(case.puzzle.tolist()))
        (work / "s.json").write_text(json.dumps(case.solution.tolist()))
        cli = [sys.executable, "-c", "import sys; from cvcheck.cli import main; sys.exit(main())"]
        idle = peak_rss_mb([sys.executable, "-c", "import cvcheck.maze.task, cvcheck.sudoku.task"])[0]
        print(f"{args.side}x{args.side} RGBA PNG: {big.stat().st_size:,} bytes on disk, "
              f"{args.side * args.side * 4:,} bytes decoded; idle process with cvcheck imported: {idle:.0f} MB")
        runs = {
            "cvcheck maze": cli + ["maze", str(big), "--reference", str(work / "ref.png")],
            "cvcheck sudoku": cli + ["sudoku", str(big), "--puzzle", str(work / "p.json"),
                                     "--solution", str(work / "s.json")],
            "cvcheck maze (16-bit)": cli + ["maze", str(big16), "--reference", str(work / "ref.png")],
        }
        for name, cmd in runs.items():
            rss, code, last = peak_rss_mb(cmd)
            print(f"{name:24s} peak RSS {rss:7.1f} MB  exit {code}  {last[:150]}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
