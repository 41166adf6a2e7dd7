"""Pictures of a video verdict: the tracked trajectory over the maze, and a contact sheet."""

from __future__ import annotations

import cv2
import numpy as np

from ..schema import Result
from .render import CROSSED, MISSED, OUTLINE, header
from .video import MazeVideoAnalysis

TRACK = (0, 120, 255)
CONTACT = (255, 140, 0)
GOAL = (220, 0, 0)
START = (0, 170, 0)


class CanvasStore:
    """The analysed canvases of a video, JPEG-compressed in memory (for overlays and contact sheets).

    Pass :meth:`add` as ``on_canvas`` to :func:`~cvcheck.maze.video.analyse_video`.
    """

    def __init__(self, quality: int = 90) -> None:
        self.quality = quality
        self._jpegs: dict[int, bytes] = {}

    def add(self, index: int, canvas: np.ndarray) -> None:
        ok, buf = cv2.imencode(".jpg", np.ascontiguousarray(canvas[:, :, ::-1]),
                               [cv2.IMWRITE_JPEG_QUALITY, self.quality])
        if ok:
            self._jpegs[index] = buf.tobytes()

    def get(self, index: int) -> np.ndarray | None:
        data = self._jpegs.get(index)
        if not data:
            return None
        img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        return img[:, :, ::-1] if img is not None else None


def _px(a: MazeVideoAnalysis, p: np.ndarray, scale: float) -> tuple[int, int]:
    """Lattice coordinates -> (x, y) overlay pixels."""
    geo = a.geometry
    return int(round(geo.to_canvas(p[1]) * scale)), int(round(geo.to_canvas(p[0]) * scale))


def _lattice_picture(a: MazeVideoAnalysis) -> np.ndarray:
    """The maze's lattice as the analysed canvas holds it (walls 0, paper 255, uint8): its size,
    margin and offset (line walls: the canvas starts half a lattice cell in, plus ``pad``)."""
    walls = a.spec.walls
    rows, cols = (np.floor(a.geometry.to_lattice(np.arange(n))).astype(int) for n in a.geometry.size)
    inside = (rows >= 0) & (rows < walls.shape[0]), (cols >= 0) & (cols < walls.shape[1])
    picture = np.full((rows.size, cols.size), 255, np.uint8)
    drawn = walls[np.ix_(rows[inside[0]], cols[inside[1]])]
    picture[np.ix_(inside[0], inside[1])] = np.where(drawn, 0, 255)
    return picture


def _base(a: MazeVideoAnalysis, canvases: CanvasStore | None, min_side: int) -> tuple[np.ndarray, float]:
    first = int(np.flatnonzero(a.ious > 0)[0]) if (a.ious > 0).any() else 0
    img = canvases.get(first) if canvases is not None else None
    if img is None:  # no canvas kept: draw the reference lattice where the canvas had it
        img = np.repeat(_lattice_picture(a)[:, :, None], 3, axis=2)
    scale = max(1.0, float(np.ceil(min_side / max(img.shape[:2]))))
    img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_NEAREST)
    return np.ascontiguousarray(img), scale


def render_video_overlay(a: MazeVideoAnalysis, result: Result, *, canvases: CanvasStore | None = None,
                         min_side: int = 512) -> np.ndarray:
    """The first analysed frame with the reference walls outlined, missed solution cells
    tinted yellow, the agent's track (blue), wall-contact frames (orange dots) and wall
    traversals (red segments, crossed wall cells boxed red).

    Returns
    -------
    ndarray of shape (H, W, 3), uint8 RGB
    """
    img, scale = _base(a, canvases, min_side)
    cell = a.k * scale

    def box(p: tuple[int, int], colour: tuple[int, int, int], thick: int, fill: float = 0.0) -> None:
        x0, y0 = _px(a, np.array(p, float), scale)
        x1, y1 = _px(a, np.array(p, float) + 1, scale)
        if fill:
            patch = img[max(0, y0):y1, max(0, x0):x1]
            patch[:] = (patch * (1 - fill) + np.array(colour) * fill).astype(np.uint8)
        else:
            cv2.rectangle(img, (x0, y0), (x1 - 1, y1 - 1), colour, thick)

    for p in a.path.solution - a.path.cells:
        box(p, MISSED, 0, fill=0.45)
    step = max(1, int(round(cell)))
    big = np.repeat(np.repeat(a.spec.walls.astype(np.uint8), step, 0), step, 1)
    contours, _ = cv2.findContours(big, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    origin = np.array(_px(a, np.zeros(2), scale))
    cv2.drawContours(img, [cnt + origin for cnt in contours], -1, OUTLINE, max(1, step // 12))
    tr = a.track
    t = tr.tracked
    thick = max(2, int(cell // 6))
    for i, j in zip(t, t[1:]):
        cv2.line(img, _px(a, tr.pos[i], scale), _px(a, tr.pos[j], scale), TRACK, thick, cv2.LINE_AA)
    for f in np.flatnonzero(a.crossing.contact):
        cv2.circle(img, _px(a, tr.pos[f], scale), max(3, int(cell // 5)), CONTACT, -1, cv2.LINE_AA)
    for trav in a.crossing.traversals:
        cv2.line(img, _px(a, tr.pos[trav.from_frame], scale), _px(a, tr.pos[trav.to_frame], scale), CROSSED,
                 thick + 2, cv2.LINE_AA)
        for w in trav.walls:
            box(w, CROSSED, max(2, int(cell // 5)))
    for p, colour in ((a.spec.start, START), (a.spec.goal, GOAL)):
        cv2.circle(img, _px(a, np.array(p, float) + 0.5, scale), max(4, int(cell * 0.6)), colour, 2, cv2.LINE_AA)
    return header(img, result)


def key_frames(a: MazeVideoAnalysis, *, limit: int = 8) -> list[tuple[int, str]]:
    """(frame, caption) of the frames that explain the verdict, in time order."""
    out: dict[int, str] = {0: "first"}
    worst = int(np.argmin(a.ious))
    out.setdefault(worst, f"min IoU {a.ious[worst]:.2f}")
    for trav in a.crossing.traversals[:2]:
        out.setdefault(trav.from_frame, f"before {trav.kind}")
        out.setdefault(trav.to_frame, f"after {trav.kind}")
    contact = np.flatnonzero(a.crossing.contact)
    if contact.size:
        out.setdefault(int(contact[0]), "wall contact")
    if a.goal_bad:
        out.setdefault(a.goal_bad[0], "goal changed")
    if a.settling.first_arrival is not None and a.settling.first_arrival < a.frames:
        out.setdefault(a.settling.first_arrival, "reaches goal")
    out.setdefault(a.frames - 1, "last")
    chosen = sorted(out.items())
    if len(chosen) > limit:
        keep = {0, a.frames - 1}
        chosen = [c for c in chosen if c[0] in keep or c[1] != "first"][:limit - 1] + [chosen[-1]]
    return chosen


def contact_sheet(a: MazeVideoAnalysis, result: Result, *, canvases: CanvasStore | None = None, tile: int = 256,
                  columns: int = 4) -> np.ndarray:
    """Key frames (as analysed, on the canvas) with the agent circled and a caption each."""
    tiles = []
    for t, caption in key_frames(a):
        img = canvases.get(t) if canvases is not None else None
        if img is None:
            img = np.full((tile, tile, 3), 128, np.uint8)
        scale = tile / max(img.shape[:2])
        img = cv2.resize(img, (max(1, int(img.shape[1] * scale)), max(1, int(img.shape[0] * scale))),
                         interpolation=cv2.INTER_NEAREST)
        canvas = np.full((tile + 24, tile, 3), 32, np.uint8)
        canvas[24:24 + img.shape[0], :img.shape[1]] = img
        if t < len(a.track.pos) and not np.isnan(a.track.pos[t, 0]):
            x, y = _px(a, a.track.pos[t], scale)
            cv2.circle(canvas, (x, y + 24), max(6, int(a.k * scale)), CONTACT if a.crossing.contact[t] else TRACK,
                       2, cv2.LINE_AA)
        cv2.putText(canvas, f"#{t} {caption}", (4, 17), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (235, 235, 235), 1,
                    cv2.LINE_AA)
        tiles.append(canvas)
    rows = []
    for i in range(0, len(tiles), columns):
        row = tiles[i:i + columns]
        row += [np.full_like(tiles[0], 32)] * (columns - len(row))
        rows.append(np.hstack(row))
    return header(np.vstack(rows), result)
