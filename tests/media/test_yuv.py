"""Frames kept in YUV: the reader's planes, their RGB, and region resampling against the RGB path."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from video_helpers import write_video

from cvcheck.media.video import iter_frames
from cvcheck.vision.canvas import MAX_SKIP, CanvasSampler
from cvcheck.vision.yuv import YuvFrame, YuvMatrix, as_rgb_frame


def _scene(h: int = 121, w: int = 163, seed: int = 3) -> np.ndarray:
    """A picture with flat colours, thin dark lines and small dots (odd sizes on purpose)."""
    rng = np.random.default_rng(seed)
    img = np.full((h, w, 3), 245, np.uint8)
    for _ in range(12):
        y, x = int(rng.integers(0, h - 12)), int(rng.integers(0, w - 12))
        img[y:y + int(rng.integers(3, 12)), x:x + int(rng.integers(3, 12))] = rng.integers(0, 256, 3)
    img[::17, :] = 20   # 1-px lines
    img[:, ::23] = 20
    return img


def _encode(path: Path, frames: list[np.ndarray], *, colorspace: int | None = None, color_range: int | None = None,
            pix_fmt: str = "yuv420p", codec: str = "libx264") -> Path:
    import av

    h, w = frames[0].shape[:2]
    with av.open(str(path), "w") as out:
        stream = out.add_stream(codec, rate=10)
        stream.width, stream.height, stream.pix_fmt = w, h, pix_fmt
        if colorspace is not None:
            stream.codec_context.colorspace = colorspace
        if color_range is not None:
            stream.codec_context.color_range = color_range
        for frame in frames:
            for packet in stream.encode(av.VideoFrame.from_ndarray(frame, format="rgb24")):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    return path


def test_yuv_reader_gives_the_rgb_readers_frames(tmp_path: Path) -> None:
    clip = write_video(tmp_path / "clip.mp4", 12)
    rgb = list(iter_frames(clip))
    reader = iter_frames(clip, yuv=True)
    yuv = list(reader)
    assert reader.frames_read == 12 and all(isinstance(f, YuvFrame) for f in yuv)
    assert all(np.array_equal(a, as_rgb_frame(b)) for a, b in zip(rgb, yuv))
    assert yuv[0].shape == rgb[0].shape == (48, 64, 3)
    assert yuv[0].u.shape == (24, 32)


def test_other_pixel_formats_and_odd_sizes(tmp_path: Path) -> None:
    odd = _encode(tmp_path / "odd.mkv", [_scene(h=121, w=163)] * 3, codec="ffv1")  # (x264 takes even sizes only)
    frames = list(iter_frames(odd, yuv=True))
    assert all(isinstance(f, YuvFrame) and f.shape == (121, 163, 3) and f.u.shape == (61, 82) for f in frames)
    assert np.array_equal(as_rgb_frame(frames[1]), list(iter_frames(odd))[1])
    full = _encode(tmp_path / "444.mp4", [_scene(h=120, w=160)] * 3, pix_fmt="yuv444p")
    assert all(isinstance(f, np.ndarray) and f.shape == (120, 160, 3) for f in iter_frames(full, yuv=True))


@pytest.mark.parametrize("colorspace,color_range,pix_fmt", [
    (None, None, "yuv420p"),   # untagged: BT.601, limited
    (1, 1, "yuv420p"),         # BT.709, limited
    (1, 2, "yuv420p"),         # BT.709, full range
    (9, 1, "yuv420p"),         # BT.2020
    (None, None, "yuvj420p"),  # full range by pixel format
])
def test_matrix_matches_the_decoders_conversion(tmp_path: Path, colorspace: int | None, color_range: int | None,
                                                pix_fmt: str) -> None:
    clip = _encode(tmp_path / "tagged.mp4", [_scene(h=120, w=160)] * 2, colorspace=colorspace,
                   color_range=color_range, pix_fmt=pix_fmt)
    for frame in iter_frames(clip, yuv=True):
        assert isinstance(frame, YuvFrame)
        decoder = frame.rgb()
        ours = YuvFrame(frame.y, frame.u, frame.v, matrix=frame.matrix).rgb()  # our matrix, no decoder
        diff = np.abs(ours.astype(int) - decoder)
        assert diff.max() <= 3 and diff.mean() < 1.0


def _canvas(frame: np.ndarray | YuvFrame, window: tuple[int, int, int, int], size: tuple[int, int], *,
            nearest: bool = False) -> np.ndarray:
    return CanvasSampler(window, size, nearest=nearest).sample(frame)[0].copy()


@pytest.mark.parametrize("window,size,nearest", [
    ((10, 7, 110, 150), (36, 25), False),    # area step (factor 4), odd origin
    ((0, 0, 121, 163), (60, 40), False),     # factor 2-3
    ((-6, -5, 125, 170), (48, 44), False),   # reaching past every edge
    ((20, 30, 90, 120), (80, 64), False),    # under 2x: one linear step
    ((20, 30, 100, 150), (30, 20), True),    # point samples
    ((100, 140, 200, 260), (20, 20), False),  # mostly beyond the frame
])
def test_resampling_the_planes_agrees_with_resampling_rgb(window: tuple[int, int, int, int], size: tuple[int, int],
                                                          nearest: bool) -> None:
    # Resampled then converted, or converted then resampled: chroma is resampled from its own
    # half-resolution plane in one, from each pixel's 2 x 2 block in the other, and colours
    # outside the RGB cube are clipped after averaging or before: close, not equal.
    frame = YuvFrame.from_rgb(_scene())
    direct, via_rgb = _canvas(frame, window, size, nearest=nearest), _canvas(frame.rgb(), window, size, nearest=nearest)
    assert direct.shape == via_rgb.shape == (size[1], size[0], 3)
    diff = np.abs(direct.astype(int) - via_rgb)
    assert diff.mean() < 0.6 and (diff > 3).mean() < 0.03
    # flat colours far from edges: the same
    flat = YuvFrame.from_rgb(np.kron(np.array([[[200, 40, 40], [40, 160, 60]], [[60, 60, 200], [230, 230, 230]]],
                                              np.uint8), np.ones((61, 82, 1), np.uint8)))
    a, b = _canvas(flat, window, size, nearest=nearest).astype(int), _canvas(flat.rgb(), window, size, nearest=nearest)
    assert np.median(np.abs(a - b)) == 0 and np.percentile(np.abs(a - b), 90) <= 2


def test_a_marker_lands_where_it_is_drawn() -> None:
    img = np.full((240, 320, 3), 255, np.uint8)
    img[101:109, 201:209] = (220, 20, 20)  # an 8-px red square centred on (104.5, 204.5)
    frame = YuvFrame.from_rgb(img)
    for window, size in (((0, 0, 240, 320), (80, 60)), ((50, 150, 150, 250), (90, 90)), ((0, 0, 240, 320), (320, 240)),
                         ((0, 0, 240, 320), (40, 30))):
        canvas = _canvas(frame, window, size).astype(int)
        red = np.clip(canvas[:, :, 0] - canvas[:, :, 1], 0, None)
        ys, xs = np.nonzero(red)
        cy = (np.average(ys, weights=red[ys, xs]) + 0.5) * (window[2] - window[0]) / size[1] + window[0]
        cx = (np.average(xs, weights=red[ys, xs]) + 0.5) * (window[3] - window[1]) / size[0] + window[1]
        assert abs(cy - 105) < 0.5 and abs(cx - 205) < 0.5


def test_a_one_pixel_line_keeps_its_ink_and_its_place() -> None:
    img = np.full((200, 200, 3), 255, np.uint8)
    img[:, 101] = 0  # a 1-px line a little right of the middle
    for size in ((50, 50), (66, 66), (120, 120)):
        column = _canvas(img, (0, 0, 200, 200), size)[:, :, 0].mean(axis=0)
        assert abs((int(np.argmin(column)) + 0.5) * 200 / size[0] - 101.5) <= 200 / size[0]
        # blocks of 2 or 3 pixels keep all its ink; a linear step under 2x keeps at least half
        assert (255 - column).sum() * 200 / size[0] >= (0.85 if size[0] <= 100 else 0.5) * 255
    same = _canvas(img, (0, 0, 200, 200), (200, 200))
    assert np.abs(same.astype(int) - img).max() <= 1  # the identity window: the frame itself


def _walk(n: int = 12) -> list[np.ndarray]:
    """A still scene and a dot walking across it, one step a frame."""
    frames = []
    for i in range(n):
        img = _scene(h=160, w=200)
        img[60:66, 20 + 12 * i:26 + 12 * i] = (30, 200, 30)
        frames.append(img)
    return frames


@pytest.mark.parametrize("yuv", [False, True])
@pytest.mark.parametrize("window,size,nearest", [((8, 10, 150, 190), (45, 36), False),    # block means
                                                  ((8, 10, 150, 190), (170, 135), False),  # linear
                                                  ((8, 10, 150, 190), (100, 80), False),   # linear, samples compared
                                                  ((8, 10, 150, 190), (60, 60), True)])    # points, samples compared
def test_only_changed_rows_are_resampled_and_the_canvas_is_exact(yuv: bool, window: tuple[int, int, int, int],
                                                                 size: tuple[int, int], nearest: bool) -> None:
    frames = [YuvFrame.from_rgb(f) if yuv else f for f in _walk()]
    sampler = CanvasSampler(window, size, nearest=nearest)
    for i, frame in enumerate(frames):
        canvas, runs = sampler.sample(frame)
        assert np.array_equal(canvas, _canvas(frame, window, size, nearest=nearest))  # as if from scratch
        if i == 0:
            assert runs == [(0, size[1])]
        else:  # the dot's rows only, a band around canvas row (63 - 8) / 142 * height
            assert len(runs) == 1
            start, stop = runs[0]
            middle = (63 - window[0]) / (window[2] - window[0]) * size[1]
            assert start <= middle <= stop and stop - start < 0.2 * size[1]
    assert sampler.sample(frames[-1])[1] == []  # the same frame again: nothing to do


@pytest.mark.parametrize("yuv", [False, True])
@pytest.mark.parametrize("window,size,nearest", [((8, 10, 150, 190), (45, 36), False),
                                                  ((8, 10, 150, 190), (170, 135), False),
                                                  ((8, 10, 150, 190), (100, 80), False),
                                                  ((8, 10, 150, 190), (60, 60), True)])
def test_a_flickering_video_is_resampled_whole_and_compared_now_and_then(
        yuv: bool, window: tuple[int, int, int, int], size: tuple[int, int], nearest: bool) -> None:
    base = _scene(h=160, w=200).astype(int)
    flicker = [np.clip(base + (12 if i % 2 else -12), 0, 255).astype(np.uint8) for i in range(16)]
    still = [base.astype(np.uint8)] * (MAX_SKIP + 4)
    sampler = CanvasSampler(window, size, nearest=nearest)
    runs = []
    for frame in flicker + still:
        f = YuvFrame.from_rgb(frame) if yuv else frame
        canvas, r = sampler.sample(f)
        assert np.array_equal(canvas, _canvas(f, window, size, nearest=nearest))  # always exact
        runs.append(r)
    assert all(r == [(0, size[1])] for r in runs[:16])  # every frame changed everywhere
    # ... and was not compared with the last each time (1, 2, 4, 8 frames skipped)
    flicker_compared = sampler.compared - (len(still) - sum(r == [(0, size[1])] for r in runs[16:]))
    assert flicker_compared <= 6
    assert runs[-1] == [] and runs[-2] == []  # once still, comparing finds nothing again
    assert sampler.compared >= flicker_compared + 2


def test_small_changes_wait_until_they_add_up() -> None:
    base = _scene(h=160, w=200).astype(int)
    sampler = CanvasSampler((0, 0, 160, 200), (50, 40), tolerance=3)
    assert sampler.sample(base.astype(np.uint8))[1] == [(0, 40)]
    # the paper darkening by one level a frame: nothing for three frames, then every row
    seen = [sampler.sample(np.clip(base - step, 0, 255).astype(np.uint8))[1] for step in (1, 2, 3, 4)]
    assert seen[:3] == [[], [], []] and seen[3] == [(0, 40)]
    # a change of the size of the frame starts again
    assert sampler.sample(np.zeros((100, 120, 3), np.uint8))[1] == [(0, 40)]


def test_planes_are_checked() -> None:
    y = np.zeros((4, 6), np.uint8)
    with pytest.raises(ValueError, match="4:2:0"):
        YuvFrame(y, np.zeros((2, 2), np.uint8), np.zeros((2, 3), np.uint8), matrix=YuvMatrix())
    with pytest.raises(ValueError, match="uint8"):
        YuvFrame(y.astype(np.float32), np.zeros((2, 3), np.uint8), np.zeros((2, 3), np.uint8), matrix=YuvMatrix())
