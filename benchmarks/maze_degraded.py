"""A mazeworld corpus copied with every answer video degraded one more way: a probe outside the
generator's own effects.

The labels stay those of the plan (degrading the pixels changes no behaviour), so
``maze_real_accuracy.py`` grades the copy as it grades the original::

    python -m benchmarks.mazeworld --out /tmp/mw --seed 81818 --videos 160 --images 0
    python benchmarks/maze_degraded.py --corpus /tmp/mw --out /tmp/mw-flicker --how flicker
    python benchmarks/maze_real_accuracy.py --corpus /tmp/mw-flicker --ways video,maze

A copy is a corpus too: degrading it again gives several effects at once, as real outputs show
them (``--corpus /tmp/mw-flicker --out /tmp/mw-flicker-crushed --how crushed``; give each way
its own ``--seed``).

Ways (each on top of what the generator drew, re-encoded with H.264 at CRF 28, unless said, and
the video's own frame rate):

* ``blur``: Gaussian blur, sigma 1.3 px;
* ``small``: rendered at 0.6x and scaled back up (soft, smeared thin lines);
* ``flicker``: brightness and contrast changing every frame (gain 0.94-1.06, offset +-6 levels)
  and +-6 levels of uniform grain per pixel;
* ``gamma``: a gamma of 0.7 (washed-out paper, lighter lines);
* ``lowres``: kept at 0.5x (a 480p answer becomes 240p: 1-px lines, 2-px dots);
* ``crushed``: nothing drawn, re-encoded at CRF 40 (blocky, smeared colours, as videos
  shared at low bit rates);
* ``squeeze``: drawn at 0.7x its height, padded with the paper's colour (cells 1.43x as wide
  as tall: a square puzzle stretched to another aspect);
* ``pillarbox``: cropped to what is drawn on the paper (the maze, its markers, ticks and
  captions: pixels off the paper's colour in any frame), scaled to the frame's height and
  centred between black bars (a puzzle image padded to the model's aspect; black touches an
  MMGR maze's outer walls); a video on black bars already is left as it is;
* ``shake``: the camera shaken every frame, a sub-pixel shift of up to 1.5 px each way (a
  video model's frame-to-frame jitter; the first frame too);
* ``boil``: lines "boiling" as a video model redraws them - every frame warped by a smooth
  random displacement field of up to about 1 px, drawn anew each frame;
* ``watermark``: a commercial model's watermark - a word ("Sora", "Veo", "Kling AI", ...) and
  a ring logo in white at 45-70 % opacity, with a soft dark drop shadow on half of the videos
  (what makes it show on white paper), 3-7 % of the frame high; on half of the videos it stays
  in a corner, on the other half it jumps to a new place anywhere in the frame (over the maze
  too) four times a video, as Sora's does. Every frame has it, the first one too;
* ``ghost``: every frame blended with the one before it (``--ghost-share``, 40 % of it by
  default: the ghosting of frame blending and of a long shutter - a moving agent doubled,
  its trailing copy paler, and fast ones a pale pair);
* ``zoom``: the camera pushing in or pulling out over the video, about the drawing's centre,
  to 1.15x (or as far as keeps everything drawn inside the frame) or to 0.87x, linearly from
  the first frame - a video model's slow dolly, far beyond the generator's 1-4 % drift;
* ``roll``: the camera rolling about the drawing's centre, from upright at the first frame (the
  puzzle the model was given) to 1-3 degrees either way at the last, linearly - a video
  model's slow camera move that turns the picture, which no axis-aligned box follows exactly;
* ``tilt``: the camera tilting over the video, upright at the first frame: the drawing's top
  (or bottom, or a side) edge narrowed by 3-8 % of its width at the last frame, linearly - a
  keystone, as a camera that dollies into a picture at an angle sees it;
* ``drift``: the colours drifting over the video, as a video model's white balance and
  saturation wander: neutral at the first frame, at the last a warm or cool cast (the blue
  channel, or the red one, at 80-90 %, green at 95-97 %: white paper turns cream or ice-blue)
  and saturation down to 60-85 % of what was drawn, linearly;
* ``drift_gm``: the same on the other axis of white balance: a magenta cast (green at 85-90 %)
  or a green one (red and blue at 88-92 %);
* ``sharpen``: an upscaler's sharpening, as video models' super-resolution stages leave it: every
  frame unsharp-masked (sigma 1-2 px, amount 0.8-1.6 a video) - light halos beside dark lines,
  dark rims and clipped, oversaturated edges on coloured markers, ringing on compression noise;
* ``vignette``: a cinematic vignette: every frame darkened towards its corners (to 70-85 % of its
  light there, falling off with the square of the distance from a centre up to 10 % of the frame
  off its middle), so the paper is no longer one colour and faint grey grid lines sink into it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
WAYS = ("blur", "small", "flicker", "gamma", "lowres", "crushed", "squeeze", "pillarbox", "shake", "boil",
        "watermark", "ghost", "zoom", "roll", "tilt", "drift", "drift_gm", "sharpen", "vignette")
GHOST = 0.4  #: the share of the frame before in each frame (``ghost``)
CRF = {"crushed": 40}  #: the re-encoding's CRF where not 28
WATERMARK_WORDS = ("Sora", "Veo", "Kling AI", "Hailuo AI", "Runway", "Pika", "Luma AI")


@dataclass(frozen=True)
class Watermark:
    """One video's watermark: its word, size (share of the frame's height), opacity, shadow
    opacity (0: none) and where it is drawn - the text's top-left corner as shares of the
    frame, one place per stretch of ``stretch`` frames (one place only: it stays)."""

    word: str
    height: float
    opacity: float
    shadow: float
    places: tuple[tuple[float, float], ...]
    stretch: int

    @classmethod
    def sample(cls, rng: np.random.Generator, frames: int) -> Watermark:
        word = str(rng.choice(WATERMARK_WORDS))
        height, opacity = float(rng.uniform(0.03, 0.07)), float(rng.uniform(0.45, 0.7))
        shadow = float(rng.uniform(0.3, 0.5)) if rng.uniform() < 0.5 else 0.0
        if rng.uniform() < 0.5:  # in a corner, for the whole video
            x, y = float(rng.choice([0.03, 0.7])), float(rng.choice([0.03, 0.9]))
            return cls(word, height, opacity, shadow, ((x, y),), max(1, frames))
        places = tuple((float(rng.uniform(0.0, 0.75)), float(rng.uniform(0.0, 0.9))) for _ in range(4))
        return cls(word, height, opacity, shadow, places, max(1, -(-frames // 4)))

    def draw(self, img: np.ndarray, index: int) -> np.ndarray:
        """``img`` (RGB uint8) with the watermark of frame ``index`` on it."""
        import cv2

        h, w = img.shape[:2]
        px = max(6.0, self.height * h)  # text height in pixels
        scale = px / 22.0               # (FONT_HERSHEY_DUPLEX is about 22 px high at scale 1)
        thick = max(1, int(round(px / 9)))
        x, y = self.places[min(index // self.stretch, len(self.places) - 1)]
        x0, y0 = int(x * w), int(y * h)
        mask = np.zeros((h, w), np.uint8)
        r = int(round(0.45 * px))
        cv2.circle(mask, (x0 + r, y0 + r), r, 255, thick, cv2.LINE_AA)  # the logo
        cv2.putText(mask, self.word, (x0 + 2 * r + int(0.4 * px), y0 + int(px)), cv2.FONT_HERSHEY_DUPLEX, scale,
                    255, thick, cv2.LINE_AA)
        alpha = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), 0.6)[:, :, None]
        out = img.astype(np.float32)
        if self.shadow:
            shift = max(1, int(round(px / 12)))
            shade = cv2.GaussianBlur(np.roll(alpha[:, :, 0], (shift, shift), axis=(0, 1)), (0, 0), 1.5)[:, :, None]
            out *= 1.0 - self.shadow * shade
        out = out * (1.0 - self.opacity * alpha) + 255.0 * self.opacity * alpha
        return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def degrade(img: np.ndarray, index: int, how: str, rng: np.random.Generator, *,
            content: tuple[int, int, int, int] | None = None, mark: Watermark | None = None,
            previous: np.ndarray | None = None, ghost: float = GHOST) -> np.ndarray:
    """Frame ``index`` of a video (RGB uint8) degraded ``how`` (``content``: the box (top, left,
    bottom, right) of what is drawn on the paper, for ``pillarbox``; ``mark``: the video's
    watermark, for ``watermark``; ``previous``: the frame before, as drawn, and ``ghost``: its share,
    for ``ghost``)."""
    import cv2

    if how == "blur":
        return cv2.GaussianBlur(img, (0, 0), 1.3)
    if how == "small":
        h, w = img.shape[:2]
        small = cv2.resize(img, (int(w * 0.6), int(h * 0.6)), interpolation=cv2.INTER_AREA)
        return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    if how == "flicker":
        gain, offset = 1 + 0.06 * np.sin(index * 0.9), 6 * np.cos(index * 1.3)
        out = cv2.convertScaleAbs(img, alpha=gain, beta=offset).astype(np.int16)
        out += rng.integers(-6, 7, out.shape, dtype=np.int16)
        return np.clip(out, 0, 255).astype(np.uint8)
    if how == "gamma":
        return cv2.LUT(img, (255 * (np.arange(256) / 255) ** 0.7).astype(np.uint8))
    if how == "lowres":  # (even sizes, as yuv420p needs)
        h, w = img.shape[:2]
        return cv2.resize(img, (w // 4 * 2, h // 4 * 2), interpolation=cv2.INTER_AREA)
    if how == "crushed":
        return img
    if how == "squeeze":
        h, w = img.shape[:2]
        short = cv2.resize(img, (w, int(0.7 * h) // 2 * 2), interpolation=cv2.INTER_AREA)
        top = (h - short.shape[0]) // 2
        out = np.empty_like(img)
        out[:] = img[0, 0]
        out[top:top + short.shape[0]] = short
        return out
    if how == "pillarbox":
        h, w = img.shape[:2]
        t, l, b, r = content if content is not None else (0, 0, h, w)
        scale = min(h / (b - t), w / (r - l))
        size = (max(2, int((r - l) * scale)), max(2, int((b - t) * scale)))
        drawn = cv2.resize(img[t:b, l:r], size, interpolation=cv2.INTER_AREA)
        out = np.zeros_like(img)
        y, x = (h - size[1]) // 2, (w - size[0]) // 2
        out[y:y + size[1], x:x + size[0]] = drawn
        return out
    if how == "shake":
        h, w = img.shape[:2]
        dx, dy = rng.uniform(-1.5, 1.5, 2)
        return cv2.warpAffine(img, np.array([[1, 0, dx], [0, 1, dy]], np.float32), (w, h), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    if how == "boil":
        h, w = img.shape[:2]
        cell = 24  # the field's grain, frame pixels
        coarse = rng.uniform(-1.0, 1.0, (2, h // cell + 2, w // cell + 2)).astype(np.float32)
        fx, fy = (cv2.resize(c, (w, h), interpolation=cv2.INTER_CUBIC) for c in coarse)
        gx, gy = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        return cv2.remap(img, gx + fx, gy + fy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if how == "watermark":
        if mark is None:
            raise ValueError("the watermark way needs the video's watermark (Watermark.sample)")
        return mark.draw(img, index)
    if how in WHOLE_VIDEO:
        raise ValueError(f"{how} changes over a whole video (its length and drawing): see degrade_video")
    if how == "ghost":
        if previous is None:
            return img
        return cv2.addWeighted(img, 1.0 - ghost, previous, ghost, 0.0)
    raise ValueError(f"unknown way {how!r}; one of {', '.join(WAYS)}")


def drawn_box(img: np.ndarray, *, tolerance: int = 40) -> tuple[int, int, int, int]:
    """(top, left, bottom, right) around the pixels that differ from the paper (the colour of
    the top-left pixel) by more than ``tolerance`` in some channel; the whole image if none,
    or if that pixel is dark (the video is on black bars already: its maze's walls would
    pass for bars)."""
    whole = 0, 0, img.shape[0], img.shape[1]
    if int(img[0, 0].max()) < 100:
        return whole
    off = (np.abs(img.astype(np.int16) - img[0, 0].astype(np.int16)) > tolerance).any(axis=2)
    rows, cols = np.flatnonzero(off.any(axis=1)), np.flatnonzero(off.any(axis=0))
    if not rows.size:
        return whole
    return int(rows[0]), int(cols[0]), int(rows[-1]) + 1, int(cols[-1]) + 1


def _content_box(frames: list[np.ndarray]) -> tuple[int, int, int, int]:
    """The box around what is drawn in any of the frames (a drifting camera's too)."""
    boxes = np.array([drawn_box(f) for f in frames])
    return int(boxes[:, 0].min()), int(boxes[:, 1].min()), int(boxes[:, 2].max()), int(boxes[:, 3].max())


def _zoomed(frames: list[np.ndarray], rng: np.random.Generator) -> list[np.ndarray]:
    """``zoom``: each frame scaled about the drawing's centre, from 1 at the first frame to the
    last frame's scale (in: up to 1.15x, no further than keeps the drawing inside the frame;
    out: 0.87x), the uncovered edges filled as they are drawn (replicated)."""
    if not frames:
        return frames
    h, w = frames[0].shape[:2]
    t, l, b, r = _content_box(frames)
    cy, cx = (t + b) / 2, (l + r) / 2
    if rng.uniform() < 0.5:
        fit = min(cy / max(1.0, cy - t), (h - cy) / max(1.0, b - cy),
                  cx / max(1.0, cx - l), (w - cx) / max(1.0, r - cx))
        end = float(min(1.15, max(1.0, 0.98 * fit)))
    else:
        end = 0.87
    return _camera(frames, (cx, cy), scale=end, degrees=0.0)


def _rolled(frames: list[np.ndarray], rng: np.random.Generator) -> list[np.ndarray]:
    """``roll``: each frame turned about the drawing's centre, from upright at the first frame to
    1-3 degrees either way at the last."""
    if not frames:
        return frames
    t, l, b, r = _content_box(frames)
    end = float(rng.uniform(1.0, 3.0) * rng.choice([-1.0, 1.0]))
    return _camera(frames, ((l + r) / 2, (t + b) / 2), scale=1.0, degrees=end)


def _tilted(frames: list[np.ndarray], rng: np.random.Generator) -> list[np.ndarray]:
    """``tilt``: each frame seen at a growing angle, from upright at the first frame to one edge
    of the drawing (top, bottom, left or right) 3-8 % of its width narrower at the last, about
    the drawing's box, the uncovered edges replicated."""
    import cv2

    if not frames:
        return frames
    h, w = frames[0].shape[:2]
    t, l, b, r = _content_box(frames)
    box = np.array([[l, t], [r, t], [r, b], [l, b]], np.float32)  # top-left, top-right, bottom-right, bottom-left
    edge = int(rng.integers(4))  # which edge narrows: top, right, bottom, left
    share = float(rng.uniform(0.03, 0.08))
    ends = [(0, 1), (1, 2), (2, 3), (3, 0)][edge]
    out = []
    for i, img in enumerate(frames):
        f = i / max(1, len(frames) - 1)
        moved = box.copy()
        a, c = moved[ends[0]].copy(), moved[ends[1]].copy()
        inset = (c - a) * (share * f / 2)
        moved[ends[0]], moved[ends[1]] = a + inset, c - inset
        persp = cv2.getPerspectiveTransform(box, moved)
        out.append(cv2.warpPerspective(img, persp, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))
    return out


def _drifted(frames: list[np.ndarray], rng: np.random.Generator, *, green_magenta: bool = False) -> list[np.ndarray]:
    """``drift``: each frame's white balance and saturation moved linearly from none at the first
    frame to the last frame's: a warm or cool cast (blue or red gain 0.80-0.90, green 0.95-0.97;
    ``green_magenta``: green 0.85-0.90, or red and blue 0.88-0.92) and saturation scaled to
    0.60-0.85 about each pixel's luma."""
    if not frames:
        return frames
    if green_magenta:
        if rng.uniform() < 0.5:
            gains = np.array([1.0, rng.uniform(0.85, 0.90), 1.0])
        else:
            cast = float(rng.uniform(0.88, 0.92))
            gains = np.array([cast, 1.0, cast])
    else:
        cast = float(rng.uniform(0.80, 0.90))
        gains = np.array([1.0, rng.uniform(0.95, 0.97), cast]) if rng.uniform() < 0.5 else \
            np.array([cast, rng.uniform(0.95, 0.97), 1.0])
    saturation = float(rng.uniform(0.60, 0.85))
    luma = np.array([0.299, 0.587, 0.114], np.float32)
    out = []
    for i, img in enumerate(frames):
        f = i / max(1, len(frames) - 1)
        rgb: np.ndarray = img.astype(np.float32) * (1.0 + (gains - 1.0) * f).astype(np.float32)
        grey = rgb @ luma
        s = 1.0 + (saturation - 1.0) * f
        rgb = grey[..., None] + (rgb - grey[..., None]) * s
        out.append(np.clip(np.rint(rgb), 0, 255).astype(np.uint8))
    return out


def _sharpened(frames: list[np.ndarray], rng: np.random.Generator) -> list[np.ndarray]:
    """``sharpen``: every frame unsharp-masked, ``img + amount * (img - blur(img, sigma))``, with one
    sigma (1-2 px) and amount (0.8-1.6) for the video."""
    import cv2

    sigma, amount = float(rng.uniform(1.0, 2.0)), float(rng.uniform(0.8, 1.6))
    return [cv2.addWeighted(img, 1.0 + amount, cv2.GaussianBlur(img, (0, 0), sigma), -amount, 0.0)
            for img in frames]


def _vignetted(frames: list[np.ndarray], rng: np.random.Generator) -> list[np.ndarray]:
    """``vignette``: every frame multiplied by ``1 - (1 - corner) * (d / d_corner)^2``, ``d`` the
    distance from a centre up to 10 % of the frame off its middle, ``d_corner`` that of the
    farthest corner and ``corner`` (0.70-0.85) the light left there."""
    if not frames:
        return frames
    h, w = frames[0].shape[:2]
    cx, cy = w * (0.5 + rng.uniform(-0.1, 0.1)), h * (0.5 + rng.uniform(-0.1, 0.1))
    corner = float(rng.uniform(0.70, 0.85))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d2 = (xx - cx) ** 2 + (yy - cy) ** 2
    far = max((x - cx) ** 2 + (y - cy) ** 2 for x in (0, w) for y in (0, h))
    gain = (1.0 - (1.0 - corner) * d2 / far)[..., None]
    return [np.clip(img * gain + 0.5, 0, 255).astype(np.uint8) for img in frames]


def _camera(frames: list[np.ndarray], centre: tuple[float, float], *, scale: float,
            degrees: float) -> list[np.ndarray]:
    """Frames scaled and turned about ``centre`` (x, y), linearly from none at the first frame
    to ``scale`` and ``degrees`` at the last, the uncovered edges replicated."""
    import cv2

    h, w = frames[0].shape[:2]
    out = []
    for i, img in enumerate(frames):
        f = i / max(1, len(frames) - 1)
        affine = cv2.getRotationMatrix2D(centre, degrees * f, 1.0 + (scale - 1.0) * f)
        out.append(cv2.warpAffine(img, affine, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))
    return out


#: the ways that draw a whole video at once (one draw of their parameters a video, or a change
#: over its length), each as ``way(frames, rng)``; the others go frame by frame (:func:`degrade`)
WHOLE_VIDEO: dict[str, Callable[[list[np.ndarray], np.random.Generator], list[np.ndarray]]] = {
    "zoom": _zoomed, "roll": _rolled, "tilt": _tilted,
    "drift": partial(_drifted, green_magenta=False), "drift_gm": partial(_drifted, green_magenta=True),
    "sharpen": _sharpened, "vignette": _vignetted,
}


def _degraded(frames: list[np.ndarray], *, how: str, rng: np.random.Generator,
              ghost: float = GHOST) -> list[np.ndarray]:
    if how in WHOLE_VIDEO:
        return WHOLE_VIDEO[how](frames, rng)
    content = _content_box(frames) if how == "pillarbox" and frames else None
    mark = Watermark.sample(rng, len(frames)) if how == "watermark" else None
    return [degrade(f, i, how, rng, content=content, mark=mark, previous=frames[i - 1] if i else None, ghost=ghost)
            for i, f in enumerate(frames)]


def degrade_video(src: Path, dst: Path, how: str, *, seed: int = 7, line: int = 0, ghost: float = GHOST) -> int:
    """Re-encode the video ``src`` to ``dst`` degraded ``how`` (grain drawn from ``seed`` and the
    case's ``line`` in cases.jsonl, as the corpus copy has it; ``ghost``: the share of the frame
    before, for ``ghost``); returns the frame count."""
    from benchmarks.mazeworld.encode import redraw_mp4

    return redraw_mp4(src, dst, partial(_degraded, how=how, rng=np.random.default_rng([seed, line]), ghost=ghost),
                      crf=CRF.get(how, 28))


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    from benchmarks.mazeworld.copies import add_copy_arguments, check_copy_arguments

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_copy_arguments(ap)
    ap.add_argument("--how", choices=WAYS, required=True)
    ap.add_argument("--seed", type=int, default=7, help="grain (flicker)")
    ap.add_argument("--ghost-share", type=float, default=GHOST, help="ghost: the share of the frame before")
    args = ap.parse_args(argv)
    check_copy_arguments(ap, args)
    if not 0.0 <= args.ghost_share < 1.0:
        ap.error("--ghost-share takes a share in [0, 1)")
    if args.out.exists():
        shutil.rmtree(args.out)
    shutil.copytree(args.corpus, args.out)
    count = 0
    for n, line in enumerate((args.out / "cases.jsonl").read_text().splitlines()):
        case = json.loads(line)
        if case["modality"] != "video":
            continue
        degrade_video(args.corpus / case["answer"], args.out / case["answer"], args.how, seed=args.seed, line=n,
                      ghost=args.ghost_share)
        count += 1
    print(f"{count} answer videos degraded ({args.how}) in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
