"""Coloured objects on a maze video's canvas, in lattice coordinates: a mask's objects
labelled and measured, pieces of one object merged, specks on wall junctions told.

The agent's reading (:mod:`.video_agent`) and the goal's (:mod:`.video_frames`) both
start here; what the agent's adds (trails, ghosts, movers) is its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ..vision.labels import components
from ..vision.masks import Rect
from .read import at_junction
from .style import hue_mask
from .video_canvas import CanvasGeometry
from .video_obs import Blob

MERGE_RADIUS = 1.0   #: blobs of one colour closer than this (lattice cells) are one object
PART_OF = 0.6        #: ... unless both are at least this share of a whole one (two objects)
POST_RADIUS = 0.3    #: lattice cells: a blob smaller than PART_OF x the agent centred this near a wall
                     #: junction is a speck there (a distractor, a fringe), not the agent or part of it

RawBlob = tuple[float, float, float, float]  #: (row, col) in lattice cells, area in canvas pixels, overlap


@dataclass(frozen=True)
class Labelled:
    """A mask's objects as labelled in the box around its pixels."""

    labels: np.ndarray         #: label image of the box
    origin: tuple[int, int]    #: (x, y): the canvas pixel of the box's top-left corner
    areas: np.ndarray          #: pixels per label (float64; label 0 the background)
    keep: list[int]            #: the labels of two pixels or more, in order
    raw: list[RawBlob]         #: per label kept: where, how large, and its share in the wall cores


def label_objects(mask: np.ndarray, rect: Rect, geometry: CanvasGeometry, *,
                  core: np.ndarray | None = None) -> Labelled | None:
    """The objects of ``mask`` (0/255; ``rect``: the box around its pixels, the only part
    labelled), or None when it has none; with ``core`` (the reference's eroded wall cores,
    0/255), each object's share of pixels in them (else 0)."""
    x0, y0, w, h = rect
    if w == 0 or h == 0:
        return None
    count, labels, stats, cents = components(mask[y0:y0 + h, x0:x0 + w])
    if count <= 1:
        return None
    cents = cents + (x0, y0)
    areas = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
    keep = [i for i in range(1, count) if areas[i] >= 2]
    inside = None
    if core is not None and keep:  # pixels in eroded wall cores, per blob
        hits = cv2.findNonZero(cv2.bitwise_and(mask[y0:y0 + h, x0:x0 + w], core[y0:y0 + h, x0:x0 + w]))
        inside = np.zeros(count, np.int64) if hits is None else \
            np.bincount(labels[hits[:, 0, 1], hits[:, 0, 0]], minlength=count)
    lattice = geometry.to_lattice
    raw = [(float(lattice(cents[i][1])), float(lattice(cents[i][0])), areas[i],
            float(inside[i] / areas[i]) if inside is not None else 0.0) for i in keep]
    return Labelled(labels=labels, origin=(x0, y0), areas=areas, keep=keep, raw=raw)


def objects_of(mask: np.ndarray, rect: Rect, min_px: float, geometry: CanvasGeometry) -> list[Blob]:
    """The objects of ``mask`` (see :func:`label_objects`), pieces closer than MERGE_RADIUS
    merged, of ``min_px`` canvas pixels or more."""
    found = label_objects(mask, rect, geometry)
    if found is None:
        return []
    k = float(geometry.k)
    return [Blob(row=r, col=c, area=a / (k * k), overlap=o) for r, c, a, o in merge_blobs(found.raw) if a >= min_px]


def hue_objects(window: np.ndarray, origin: tuple[int, int], hue: tuple[int, int], floor: int, *,
                min_value: int, geometry: CanvasGeometry) -> tuple[list[tuple[float, Blob]], np.ndarray]:
    """The objects of ``hue`` at saturation ``floor`` or more (and value ``min_value``) in
    ``window`` (HSV, a part of the canvas from canvas pixel ``origin`` = (row, col)), each as
    (area in canvas pixels, Blob), and the label image (object ``i`` of the list is label
    ``i + 1``)."""
    if window.size == 0:
        return [], np.zeros(window.shape[:2], np.int32)
    mask = hue_mask(window, hue, min_saturation=floor, min_value=min_value)
    count, labels, stats, cents = components(mask)
    k, (y0, x0) = float(geometry.k), origin
    out = []
    for i in range(1, count):
        px = float(stats[i, cv2.CC_STAT_AREA])
        out.append((px, Blob(row=float(geometry.to_lattice(cents[i][1] + y0)),
                             col=float(geometry.to_lattice(cents[i][0] + x0)), area=px / (k * k))))
    return out, labels


def on_post(row: float, col: float) -> bool:
    """Whether lattice point (row, col) lies on a wall junction (within POST_RADIUS), where a
    blob smaller than PART_OF of the agent is a speck (see :class:`~.video_agent.AgentReader`)."""
    return at_junction((row - 0.5) / 2, (col - 0.5) / 2, within=POST_RADIUS / 2)


def merge_blobs(blobs: list[RawBlob], *, whole: float | None = None) -> list[RawBlob]:
    """Merge blobs closer than MERGE_RADIUS (a marker split by an occluder is one object).
    With ``whole`` (an object's full area, px), a blob that is itself that big is a whole
    object, not a part (the agent passing a look-alike stays apart from it)."""
    out: list[list[float]] = []
    for r, c, a, o in sorted(blobs, key=lambda b: -b[2]):
        for m in out:
            if whole is not None and a >= PART_OF * whole and m[2] >= PART_OF * whole:
                continue
            if abs(m[0] - r) <= MERGE_RADIUS and abs(m[1] - c) <= MERGE_RADIUS:
                total = m[2] + a
                m[0], m[1] = (m[0] * m[2] + r * a) / total, (m[1] * m[2] + c * a) / total
                m[3] = (m[3] * m[2] + o * a) / total
                m[2] = total
                break
        else:
            out.append([r, c, a, o])
    return [tuple(m) for m in out]  # type: ignore[misc]
