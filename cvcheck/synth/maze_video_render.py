"""Rendering and encoding of synthetic maze videos (see :mod:`cvcheck.synth.maze_video`)."""

from __future__ import annotations

import colorsys
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

import cv2
import numpy as np

from ..errors import InputError
from ..maze.lattice import MazeSpec
from .maze_video_look import RGB, VideoLook, VideoPlan


def write_mp4(frames: Iterable[np.ndarray], path: str | os.PathLike, *, fps: int = 24, crf: int = 23,
              preset: str = "veryfast") -> Path:
    """Encode RGB frames (all the same even size) as an H.264 mp4 with PyAV."""
    import av

    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    container = av.open(str(out), mode="w")
    stream = None
    try:
        for frame in frames:
            if stream is None:
                h, w = frame.shape[:2]
                if h % 2 or w % 2:
                    raise InputError(f"H.264 needs even frame sizes, got {w}x{h}")
                stream = container.add_stream("libx264", rate=int(fps))
                stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
                stream.options = {"crf": str(int(crf)), "preset": preset}
            for packet in stream.encode(av.VideoFrame.from_ndarray(np.ascontiguousarray(frame), format="rgb24")):
                container.mux(packet)
        if stream is None:
            raise InputError("no frames to encode")
        for packet in stream.encode():
            container.mux(packet)
    finally:
        container.close()
    return out


def _geometry(spec: MazeSpec, look: VideoLook) -> tuple[int, int, int]:
    h, w = look.size
    side = int(min(h, w) * look.maze_fraction)
    return side, (h - side) // 2, (w - side) // 2


def _to_px(p: np.ndarray, spec: MazeSpec, look: VideoLook, side: int) -> tuple[float, float]:
    """Lattice coordinates -> (x, y) pixels inside the maze box."""
    if look.style == "mazeplot":
        pitch = side / spec.shape[1], side / spec.shape[0]
        return (p[1] - 0.5) / 2 * pitch[0], (p[0] - 0.5) / 2 * pitch[1]
    lr, lc = spec.walls.shape
    return p[1] * side / lc, p[0] * side / lr


def _maze_image(spec: MazeSpec, walls: np.ndarray, look: VideoLook, side: int, grey: int) -> np.ndarray:
    img = np.full((side, side, 3), 255, np.uint8)
    colour = (grey, grey, grey)
    if look.style == "mazeplot":
        rows, cols = spec.shape
        px, py = side / cols, side / rows
        t = look.line_px
        for r in range(walls.shape[0]):
            for c in range(walls.shape[1]):
                if not walls[r, c] or (r % 2) == (c % 2):
                    continue
                if r % 2:  # vertical line between (r//2, c//2 - 1) and (r//2, c//2)
                    x = min(side - 1, round(c // 2 * px))
                    p0, p1 = (x, round(r // 2 * py)), (x, round((r // 2 + 1) * py))
                else:
                    y = min(side - 1, round(r // 2 * py))
                    p0, p1 = (round(c // 2 * px), y), (round((c // 2 + 1) * px), y)
                cv2.line(img, p0, p1, colour, t, cv2.LINE_AA)
        return img
    lat = np.where(walls, grey, 255).astype(np.uint8)
    big = cv2.resize(lat, (side, side), interpolation=cv2.INTER_NEAREST)
    return np.repeat(big[:, :, None], 3, axis=2)


def _poly(img: np.ndarray, pts: np.ndarray, colour: RGB) -> None:
    cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], colour, cv2.LINE_AA, shift=4)


def _square(img: np.ndarray, cx: float, cy: float, half: float, colour: RGB) -> None:
    _poly(img, np.array([[cx - half, cy - half], [cx + half, cy - half], [cx + half, cy + half],
                         [cx - half, cy + half]]), colour)


def _star(img: np.ndarray, cx: float, cy: float, radius: float, colour: RGB) -> None:
    ang = -np.pi / 2 + np.arange(10) * np.pi / 5
    rad = np.where(np.arange(10) % 2 == 0, radius, 0.45 * radius)
    _poly(img, np.stack([cx + rad * np.cos(ang), cy + rad * np.sin(ang)], axis=1), colour)


def _agent_colour(look: VideoLook, t: int, total: int) -> RGB:
    if not look.agent_drift:
        return look.agent_rgb
    h, s, v = colorsys.rgb_to_hsv(*(c / 255 for c in look.agent_rgb))
    h = (h + look.agent_drift / 180 * t / max(1, total - 1)) % 1.0
    return tuple(int(round(c * 255)) for c in colorsys.hsv_to_rgb(h, s, v))  # type: ignore[return-value]


def render_frames(spec: MazeSpec, plan: VideoPlan, look: VideoLook, *, seed: int) -> Iterator[np.ndarray]:
    """Draw the frames of a planned video one at a time (RGB uint8), degraded as ``look`` says."""
    rng = np.random.default_rng(seed)
    h, w = look.size
    side, y0, x0 = _geometry(spec, look)
    total = len(plan.positions)
    cache: dict[tuple[int, int], np.ndarray] = {}
    arrived = False
    rows, cols = spec.shape
    cell = side / cols if look.style == "mazeplot" else side / spec.walls.shape[1]
    for t in range(total):
        key = (int(plan.wall_state[t]), int(round(plan.fade[t])))
        if key not in cache:
            if len(cache) > 4:
                cache.clear()
            cache[key] = _maze_image(spec, plan.walls[key[0]], look, side, key[1])
        maze = cache[key].copy()
        pos = plan.positions[t]
        goal_px = _to_px(np.array(plan.goal[t], float) + 0.5, spec, look, side)
        if not np.isnan(pos[0]) and plan.goal[t] == spec.goal:
            arrived |= bool(np.abs(pos - (np.array(spec.goal) + 0.5)).max() < 0.5)

        # this frame's values bound explicitly (B023); draw_goal() is only called within this iteration
        def draw_goal(maze: np.ndarray = maze, goal_px: tuple[float, float] = goal_px, arrived: bool = arrived) -> None:
            if look.style == "mazeplot":
                gx, gy = goal_px
                if arrived:
                    cv2.circle(maze, (int(gx), int(gy)), max(2, int(0.3 * cell)), (255, 200, 0), -1, cv2.LINE_AA)
                    return
                pole = gx - 0.2 * cell
                cv2.line(maze, (int(pole), int(gy + 0.32 * cell)), (int(pole), int(gy - 0.32 * cell)),
                         (230, 20, 20), max(1, int(0.06 * cell)), cv2.LINE_AA)
                _poly(maze, np.array([[pole, gy - 0.32 * cell], [gx + 0.28 * cell, gy - 0.15 * cell],
                                      [pole, gy + 0.02 * cell]]), (230, 20, 20))
            else:
                _square(maze, goal_px[0], goal_px[1], 0.5 * cell * look.goal_scale, (255, 0, 0))

        if not look.goal_on_top:
            draw_goal()
        colour = _agent_colour(look, t, total)
        size = 0.5 * cell * look.agent_scale
        if look.leave_start:
            sx, sy = _to_px(np.array(spec.start, float) + 0.5, spec, look, side)
            (_star if look.style == "mazeplot" else _square)(maze, sx, sy, size, colour)
        if look.trail > 0:
            width = max(1, int(round(2 * size * look.trail)))
            past = plan.positions[:t + 1]
            runs = np.split(np.arange(t + 1), np.flatnonzero(np.isnan(past[:, 0]))) if t else []
            for run in runs:
                run = run[~np.isnan(past[run, 0])]
                if len(run) >= 2:
                    pts = np.array([_to_px(past[i], spec, look, side) for i in run])
                    cv2.polylines(maze, [np.round(pts * 16).astype(np.int32)], False, colour, width,
                                  cv2.LINE_AA, shift=4)
        for p in ([plan.distractor[t]] if plan.distractor[t] is not None else []):
            dx, dy = _to_px(np.array(p, float) + 0.5, spec, look, side)
            if look.style == "mazeplot":
                _star(maze, dx, dy, 0.5 * cell * look.agent_scale, colour)
            else:
                _square(maze, dx, dy, 0.5 * cell * look.agent_scale, colour)
        if not np.isnan(pos[0]):
            ax, ay = _to_px(pos, spec, look, side)
            if look.style == "mazeplot":
                _star(maze, ax, ay, 0.5 * cell * look.agent_scale, colour)
            else:
                _square(maze, ax, ay, 0.5 * cell * look.agent_scale, colour)
        if look.goal_on_top:
            draw_goal()
        frame: np.ndarray = np.full((h, w, 3), look.background, np.uint8)
        frame[y0:y0 + side, x0:x0 + side] = maze
        if look.zoom:
            z = 1.0 + look.zoom * t / max(1, total - 1)
            centre = (w / 2 + 0.1 * w * look.zoom, h / 2)
            m = cv2.getRotationMatrix2D(centre, 0.0, z)
            frame = cv2.warpAffine(frame, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        if look.jitter_px:
            dx, dy = rng.integers(-look.jitter_px, look.jitter_px + 1, 2)
            frame = cv2.warpAffine(frame, np.array([[1, 0, dx], [0, 1, dy]], np.float32), (w, h),
                                   borderMode=cv2.BORDER_REPLICATE)
        if look.blur_sigma:
            frame = cv2.GaussianBlur(frame, (0, 0), look.blur_sigma)
        yield frame
