"""A mazeworld corpus copied with every answer video in another file format real outputs come in:
a probe of the decoding path and of the colours each codec leaves.

Generated videos reach users as H.264 MP4 mostly, but project pages and papers' supplements
carry animated GIFs (a 256-colour palette a frame, dithered) and VP9 WebM, newer models and
phones write 10-bit HEVC, and videos saved from the web may be AV1. The pixels drawn are the
generator's; only the encoding changes, so the labels stay those of the plan and
``maze_real_accuracy.py`` grades the copy as it grades the original (``cases.jsonl`` names the
new files)::

    python -m benchmarks.mazeworld --out /tmp/mw --seed 81818 --videos 160 --images 0
    python benchmarks/maze_formats.py --corpus /tmp/mw --out /tmp/mw-webm --format webm
    python benchmarks/maze_real_accuracy.py --corpus /tmp/mw-webm --ways video,maze

Formats (each from the answer's decoded RGB frames, at its own frame rate):

* ``webm``: VP9 (libvpx), yuv420p, constant quality 36 - the WebM of web pages;
* ``hevc10``: HEVC (x265), 10-bit 4:2:0 (yuv420p10le), CRF 30, in MP4;
* ``yuv444``: H.264 High 4:4:4 (full-resolution chroma), CRF 28, in MP4;
* ``av1``: AV1 (SVT-AV1, preset 8), yuv420p, CRF 40, in MP4 (decoded by dav1d);
* ``gif``: an animated GIF, each frame on its own 256-colour palette (median cut) with
  Floyd-Steinberg dithering, as Pillow (and imageio through it) writes GIFs.
* ``apng``: an animated PNG (lossless RGB, what ``ffmpeg -i answer.mp4 answer.apng`` writes);
* ``apng-png``: the same named ``.png`` (``ffmpeg -i answer.mp4 -f apng answer.png``, or
  Pillow's ``save(..., save_all=True)``);
* ``webp``: an animated WebP, lossy at quality 75 from 4:2:0 frames, as a plain
  ``ffmpeg -i answer.mp4 answer.webp`` writes it (libwebp).
* ``gif332``: an animated GIF on the fixed 3-3-2 palette (``bgr8``: 8 levels of red and green,
  4 of blue) with FFmpeg's ordered dither, as a plain ``ffmpeg -i answer.mp4 answer.gif`` writes
  it (no palette of its own; the frames go through 4:2:0 first, as a decoded H.264 video does:
  FFmpeg dithers on that path only): grey lines become bluish and yellowish patterns, the paper
  speckled.

Every encoder runs on one thread and the muxer writes no random IDs or dates, so a corpus
copies to the same bytes on every run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Format:
    """An encoding: the codec, its pixel format and options, and the file's suffix."""

    suffix: str
    codec: str = ""
    pix_fmt: str = ""
    options: tuple[tuple[str, str], ...] = ()
    via: str = ""  #: the pixel format the frames are handed to the encoder in ("": RGB)
    container: str = ""  #: the muxer ("": FFmpeg's for the suffix)


FORMATS = {
    "webm": Format(".webm", "libvpx-vp9", "yuv420p", (("crf", "36"), ("b", "0"), ("row-mt", "0"))),
    "hevc10": Format(".mp4", "libx265", "yuv420p10le",
                     (("crf", "30"), ("x265-params", "pools=1:frame-threads=1:log-level=error"))),
    "yuv444": Format(".mp4", "libx264", "yuv444p", (("crf", "28"), ("x264-params", "mbtree=0"))),
    "av1": Format(".mp4", "libsvtav1", "yuv420p", (("crf", "40"), ("preset", "8"), ("svtav1-params", "lp=1"))),
    "gif": Format(".gif"),
    "apng": Format(".apng", "apng", "rgb24"),
    "apng-png": Format(".png", "apng", "rgb24", container="apng"),
    "webp": Format(".webp", "libwebp_anim", "yuv420p", (("quality", "75"), ("loop", "0"))),
    "gif332": Format(".gif", "gif", "bgr8", via="yuv420p"),  # (FFmpeg's dither is that of its YUV to RGB path)
}


def write(frames: list[np.ndarray], rate: Fraction, path: Path, fmt: Format) -> None:
    """Encode RGB ``frames`` to ``path`` in ``fmt``."""
    if not fmt.codec:  # (Pillow's GIF)
        _write_gif(frames, rate, path)
        return
    import av

    os.environ.setdefault("SVT_LOG", "1")  # (SVT-AV1 prints its configuration to stderr: errors only)
    with av.open(str(path), mode="w", format=fmt.container or None,
                 container_options={"fflags": "+bitexact"}) as container:
        stream = container.add_stream(fmt.codec, rate=rate, options=dict(fmt.options))
        stream.height, stream.width = frames[0].shape[:2]
        stream.pix_fmt = fmt.pix_fmt
        stream.codec_context.thread_count = 1
        stream.codec_context.thread_type = "NONE"
        for n, rgb in enumerate(frames):
            picture = av.VideoFrame.from_ndarray(np.ascontiguousarray(rgb), format="rgb24")
            if fmt.via:
                picture = picture.reformat(format=fmt.via)
            picture.pts, picture.time_base = n, 1 / rate
            for packet in stream.encode(picture):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)


def reencode(src: Path, dst: Path, format: str) -> None:
    """Write the video ``src`` to ``dst`` in ``format`` (a key of FORMATS; ``dst``'s suffix
    should be the format's)."""
    from benchmarks.mazeworld.encode import read_rgb

    frames, rate = read_rgb(src)
    write(frames, rate.limit_denominator(1001), dst, FORMATS[format])


def _write_gif(frames: list[np.ndarray], rate: Fraction, path: Path) -> None:
    from PIL import Image

    pictures = []
    for rgb in frames:
        image = Image.fromarray(rgb)
        palette = image.quantize(colors=256, method=Image.Quantize.MEDIANCUT)
        pictures.append(image.quantize(palette=palette, dither=Image.Dither.FLOYDSTEINBERG))
    pictures[0].save(path, save_all=True, append_images=pictures[1:], loop=0,
                     duration=int(round(1000 / float(rate))), optimize=False, disposal=1)


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    from benchmarks.mazeworld.copies import add_copy_arguments, check_copy_arguments

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_copy_arguments(ap)
    ap.add_argument("--format", choices=sorted(FORMATS), required=True)
    args = ap.parse_args(argv)
    check_copy_arguments(ap, args)
    fmt = FORMATS[args.format]
    if args.out.exists():
        shutil.rmtree(args.out)
    shutil.copytree(args.corpus, args.out)
    lines, count = [], 0
    for line in (args.out / "cases.jsonl").read_text().splitlines():
        case = json.loads(line)
        if case["modality"] == "video":
            old = Path(case["answer"])
            new = old.with_suffix(fmt.suffix)
            (args.out / old).unlink()
            reencode(args.corpus / old, args.out / new, args.format)
            case["answer"] = new.as_posix()
            line = json.dumps(case)
            count += 1
        lines.append(line)
    (args.out / "cases.jsonl").write_text("\n".join(lines) + "\n")
    print(f"{count} answer videos written as {args.format} in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
